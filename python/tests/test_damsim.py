# SPDX-License-Identifier: GPL-3.0-or-later
"""The damsim Python module over libdamsim (run by ctest as python_module,
with DAMSIM_LIBRARY naming the library built and DAMSIM_SOURCE_DIR the
source tree)."""
import builtins
import json
import os
import subprocess

import pytest

import damsim

SRC = os.environ.get("DAMSIM_SOURCE_DIR",
                     os.path.join(os.path.dirname(__file__), "..", ".."))
LLAMA = os.path.join(SRC, "scenarios", "llama2-7b-pretrain.cfg")
SERVING = os.path.join(SRC, "scenarios", "serving-30ms-slo.cfg")
DAMSIM = os.environ.get("DAMSIM_BINARY")


def test_version():
    assert damsim.libversion() == damsim.__version__


def test_run_is_the_commands_json():
    r = damsim.Scenario(LLAMA).run(method="analytic")
    assert r["result"]["step_source"] == "analytic"
    assert r["scenario"]["machine"]["gpu"] == "A100-SXM4-80GB"
    if DAMSIM:
        cli = subprocess.run([DAMSIM, "run", LLAMA, "--json", "--analytic"],
                             check=True, capture_output=True, text=True)
        assert json.loads(cli.stdout) == r


def test_set_and_get():
    s = damsim.Scenario(LLAMA)
    before = s.run(method="analytic")["result"]["step_s"]
    assert s.set("machine.gpu", "H100-SXM5-80GB") is s
    assert s.get("machine.gpu") == "H100-SXM5-80GB"
    after = s.run(method="analytic")["result"]["step_s"]
    assert after < before
    s.set("pipeline.loader_workers", 16)
    assert s.get_number("pipeline.loader_workers") == 16
    s.set("machine.storage.read_gbs", 2.5)
    assert s.get_number("machine.storage.read_gbs") == 2.5
    s.set("pipeline.overlap_transfer", True)
    assert s.get("pipeline.overlap_transfer") == "true"


def test_bad_value_carries_file_and_line():
    s = damsim.Scenario(LLAMA)
    with pytest.raises(damsim.InputError) as e:
        s.set("pipeline.loader_workers", -3)
    assert e.value.file == LLAMA
    assert e.value.line == 50
    assert str(e.value) == (f"{LLAMA}:50: error: 'pipeline.loader_workers' "
                            "must be between 0 and 256, got -3")
    assert isinstance(e.value, ValueError)
    assert s.get("pipeline.loader_workers") == "2"  # unchanged


def test_unknown_key():
    s = damsim.Scenario(LLAMA)
    with pytest.raises(damsim.InputError, match="did you mean"):
        s.set("pipeline.loader_wrokers", 3)
    with pytest.raises(damsim.NotFoundError):
        s.get("pipeline.nope")


def test_bad_file_and_text():
    with pytest.raises(damsim.InputError) as e:
        damsim.Scenario.from_string('scenario: { name = "x"; };\nnope = 1;\n',
                                    name="bad.cfg")
    assert (e.value.file, e.value.line) == ("bad.cfg", 2)
    assert str(e.value).startswith("bad.cfg:2: error: unknown key 'nope'")
    assert len(e.value.diagnostics) > 1
    with pytest.raises(damsim.InputError, match="cannot|No such"):
        damsim.Scenario("/nonexistent/x.cfg")


def test_from_string_is_the_file():
    with open(LLAMA) as f:
        text = f.read()
    a = damsim.Scenario.from_string(text, name=LLAMA)
    assert a.run(method="analytic") == \
        damsim.Scenario(LLAMA).run(method="analytic")


def test_levers_and_whatif():
    s = damsim.Scenario(LLAMA)
    s.apply_lever("gpu=H100-SXM5-80GB")
    assert s.get("machine.gpu") == "H100-SXM5-80GB"
    with pytest.raises(damsim.InputError, match="lever gpu=NOPE"):
        s.apply_lever("gpu=NOPE")
    w = damsim.Scenario(LLAMA).whatif(levers=["batch_size=8"],
                                      method="analytic")
    names = [o["option"] for o in w["options"]]
    assert names[0] == "baseline" and "batch_size=8" in names
    with pytest.raises(damsim.InputError):
        damsim.Scenario(LLAMA).whatif(levers=["nope=1"], method="analytic")


def test_simulation_is_seeded():
    s = damsim.Scenario(os.path.join(SRC, "scenarios",
                                      "iron-law-data-bound.cfg"))
    a = s.run(seed=4)
    assert a == s.run(seed=4)
    assert a["result"]["step_source"] == "simulated"
    with pytest.raises(ValueError):
        s.run(method="exact")


def test_plans():
    p = damsim.Scenario(SERVING).plan()
    assert p
    b = damsim.Scenario(LLAMA).plan_budget(1e23)
    assert b
    with pytest.raises(damsim.InputError, match="budget"):
        damsim.Scenario(LLAMA).plan()


def test_copy_is_independent():
    s = damsim.Scenario(LLAMA)
    c = s.copy()
    c.set("machine.gpu", "H100-SXM5-80GB")
    assert s.get("machine.gpu") == "A100-SXM4-80GB"


def test_sweep_rows(monkeypatch):
    real_import = builtins.__import__

    def no_pandas(name, *a, **k):
        if name == "pandas":
            raise ImportError("no pandas here")
        return real_import(name, *a, **k)

    monkeypatch.setattr(builtins, "__import__", no_pandas)
    rows = damsim.sweep(LLAMA, {"machine.gpu": ["A100-SXM4-80GB",
                                                "H100-SXM5-80GB"],
                                "workload.batch_size": [4, 0]})
    assert isinstance(rows, list) and len(rows) == 4
    assert rows[0]["machine.gpu"] == "A100-SXM4-80GB"
    assert rows[0]["error"] is None and rows[0]["bound"] == "compute"
    assert rows[2]["step_s"] < rows[0]["step_s"]  # H100 faster
    assert "workload.batch_size' must be between 1" in rows[1]["error"]
    assert rows[1]["step_s"] is None
    one = damsim.Scenario(LLAMA).set("machine.gpu", "H100-SXM5-80GB")
    assert rows[2]["step_s"] == pytest.approx(
        one.run(method="analytic")["result"]["step_s"], rel=1e-9)


def test_sweep_frame():
    pandas = pytest.importorskip("pandas")
    df = damsim.sweep(LLAMA, {"workload.batch_size": [2, 4]})
    assert isinstance(df, pandas.DataFrame) and len(df) == 2


def test_context_catalog():
    c = damsim.Context()
    with pytest.raises(damsim.InputError) as e:
        c.load_catalog("gpus", path="mine.cfg", text="gpus = 3;\n")
    assert e.value.file == "mine.cfg"
    with pytest.raises(damsim.MisuseError):
        c.load_catalog("gpu", text="")
