# SPDX-License-Identifier: GPL-3.0-or-later
"""damsim: what-if simulation and capacity planning for ML systems.

A thin layer over libdamsim's C interface (``damsim.h``), through ctypes:
the answers are the ones the ``damsim`` command gives, as the same JSON
(parsed into dicts).

    >>> import damsim
    >>> s = damsim.Scenario("scenarios/llama2-7b-pretrain.cfg")
    >>> s.set("machine.gpu", "H100-SXM5-80GB")      # checked as in a file
    >>> r = s.run(method="analytic")                # `damsim run --json`
    >>> r["result"]["bound"]
    'compute'

Finding the library: ``$DAMSIM_LIBRARY`` when set (a path), else
``libdamsim.so.0`` through the dynamic loader (``ldconfig`` after
installing under /usr/local; ``LD_LIBRARY_PATH=PREFIX/lib`` for another
prefix).

Errors: bad input raises :class:`InputError` (a ``ValueError``) whose
``file`` and ``line`` locate the first problem and whose ``diagnostics``
list every message; ``str(e)`` is the loader's ``file:line: error: ...``.
"""
import ctypes
import itertools
import json
import os

__all__ = ["Scenario", "Context", "sweep", "libversion", "Error",
           "InputError", "NotFoundError", "RuntimeFailure", "MisuseError",
           "Diagnostic", "__version__"]

__version__ = "0.1.0"

_OK, _ERUNTIME, _EINPUT, _EMISUSE, _ENOTFOUND = 0, 1, 2, 3, 4
_METHODS = {"analytic": 0, "simulate": 1}
_BUDGET_UNITS = {"flops": 0, "gpu-hours": 1, "usd": 2}


class Diagnostic:
    """One message from damsim: ``file``, ``line`` (0 when unknown),
    ``text`` (the message alone), ``is_error`` and ``message`` (the whole
    ``file:line: error: text`` line)."""

    __slots__ = ("file", "line", "text", "is_error", "message")

    def __init__(self, file, line, text, is_error, message):
        self.file, self.line, self.text = file, line, text
        self.is_error, self.message = is_error, message

    def __repr__(self):
        return f"Diagnostic({self.message!r})"


class Error(Exception):
    """A call into libdamsim failed. ``status`` is its code,
    ``diagnostics`` its messages (a list of :class:`Diagnostic`), ``file``
    and ``line`` those of the first error ("" and 0 when it has none)."""

    def __init__(self, status, diagnostics, fallback=""):
        self.status = status
        self.diagnostics = list(diagnostics)
        errors = [d for d in self.diagnostics if d.is_error] or \
            self.diagnostics
        self.file = errors[0].file if errors else ""
        self.line = errors[0].line if errors else 0
        text = "\n".join(d.message for d in self.diagnostics) or fallback
        super().__init__(text)


class InputError(Error, ValueError):
    """Bad input: a scenario, key, value or lever is wrong (file:line)."""


class NotFoundError(Error, KeyError):
    """No such key or result name."""

    def __str__(self):  # KeyError would quote the message
        return Exception.__str__(self)


class RuntimeFailure(Error, RuntimeError):
    """A computation failed (a simulation over its work limit)."""


class MisuseError(Error, TypeError):
    """A wrong argument (an unknown method, a scenario that did not load)."""


_ERRORS = {_ERUNTIME: RuntimeFailure, _EINPUT: InputError,
           _EMISUSE: MisuseError, _ENOTFOUND: NotFoundError}


# ---- the library -----------------------------------------------------------

def _load_library():
    path = os.environ.get("DAMSIM_LIBRARY")
    try:
        return ctypes.CDLL(path or "libdamsim.so.0")
    except OSError as e:
        raise ImportError(
            f"damsim: cannot load {path or 'libdamsim.so.0'} ({e}); install "
            "libdamsim (cmake --install) and run ldconfig, or set "
            "LD_LIBRARY_PATH=PREFIX/lib or DAMSIM_LIBRARY=/path/to/"
            "libdamsim.so.0") from None


_lib = _load_library()
_p = ctypes.c_void_p
_s = ctypes.c_char_p
_i = ctypes.c_int
_z = ctypes.c_size_t
_d = ctypes.c_double
_l = ctypes.c_long
_pp = ctypes.POINTER(ctypes.c_void_p)
for _name, _res, _args in [
        ("damsim_libversion", _s, []),
        ("damsim_libversion_number", _i, []),
        ("damsim_errstr", _s, [_i]),
        ("damsim_context_diag", _p, [_p]),
        ("damsim_scenario_diag", _p, [_p]),
        ("damsim_diag_count", _z, [_p]),
        ("damsim_diag_message", _s, [_p, _z]),
        ("damsim_diag_file", _s, [_p, _z]),
        ("damsim_diag_line", _i, [_p, _z]),
        ("damsim_diag_text", _s, [_p, _z]),
        ("damsim_diag_is_error", _i, [_p, _z]),
        ("damsim_context_create", _p, []),
        ("damsim_context_load_catalog", _i, [_p, _s, _s, _s]),
        ("damsim_context_free", None, [_p]),
        ("damsim_scenario_load", _i, [_p, _s, _pp]),
        ("damsim_scenario_from_string", _i, [_p, _s, _s, _pp]),
        ("damsim_scenario_clone", _p, [_p]),
        ("damsim_scenario_free", None, [_p]),
        ("damsim_scenario_set", _i, [_p, _s, _s]),
        ("damsim_scenario_get", _i, [_p, _s, ctypes.c_char_p, _z]),
        ("damsim_scenario_get_number", _i, [_p, _s, ctypes.POINTER(_d)]),
        ("damsim_scenario_apply_lever", _i, [_p, _s]),
        ("damsim_scenario_json", _s, [_p]),
        ("damsim_solve", _i, [_p, _i, _l, _pp]),
        ("damsim_whatif_run", _i, [_p, ctypes.POINTER(_s), _i, _i, _l, _pp]),
        ("damsim_plan", _i, [_p, _l, _pp]),
        ("damsim_plan_budget", _i, [_p, _i, _d, _d, _pp]),
        ("damsim_result_json", _s, [_p]),
        ("damsim_result_number", _i, [_p, _s, ctypes.POINTER(_d)]),
        ("damsim_result_string", _s, [_p, _s]),
        ("damsim_result_free", None, [_p]),
        ("damsim_whatif_json", _s, [_p]),
        ("damsim_whatif_free", None, [_p])]:
    _f = getattr(_lib, _name)
    _f.restype = _res
    _f.argtypes = _args


def libversion():
    """The version of the libdamsim in use ("0.1.0")."""
    return _lib.damsim_libversion().decode()


def _b(text):
    return None if text is None else str(text).encode()


def _diagnostics(diag):
    out = []
    for i in range(_lib.damsim_diag_count(diag)):
        out.append(Diagnostic(
            _lib.damsim_diag_file(diag, i).decode(),
            _lib.damsim_diag_line(diag, i),
            _lib.damsim_diag_text(diag, i).decode(),
            bool(_lib.damsim_diag_is_error(diag, i)),
            _lib.damsim_diag_message(diag, i).decode()))
    return out


def _raise(status, diag):
    cls = _ERRORS.get(status, Error)
    raise cls(status, _diagnostics(diag),
              _lib.damsim_errstr(status).decode())


def _value_text(value):
    """A Python value as a scenario file or command line writes it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    return str(value)


class Context:
    """The GPU and model catalogs scenarios are read against: the built-in
    ones, plus any catalog file merged with :meth:`load_catalog`. A
    scenario copies its context's catalogs when it is loaded."""

    def __init__(self):
        self._h = _lib.damsim_context_create()

    def load_catalog(self, kind, path=None, text=None):
        """Merge a catalog ("gpus" or "models") from a file or text into
        this context (an id already there is replaced)."""
        rc = _lib.damsim_context_load_catalog(self._h, _b(kind), _b(path),
                                              _b(text))
        if rc != _OK:
            _raise(rc, _lib.damsim_context_diag(self._h))

    def __del__(self):
        if getattr(self, "_h", None):
            _lib.damsim_context_free(self._h)
            self._h = None


_default = None


def _default_context():
    global _default
    if _default is None:
        _default = Context()
    return _default


def _method(method):
    try:
        return _METHODS[method]
    except KeyError:
        raise ValueError(f"method must be 'analytic' or 'simulate', got "
                         f"{method!r}") from None


def _seed(seed):
    return -1 if seed is None else int(seed)


class Scenario:
    """A damsim scenario: a file (``Scenario("x.cfg")``) or text
    (:meth:`from_string`), with the keys set and levers applied since.

    Every change is checked as the scenario file would be: a change that
    fails raises :class:`InputError` and leaves the scenario as it was.
    Questions (:meth:`run`, :meth:`whatif`, :meth:`plan`) return the JSON
    the ``damsim`` command prints, parsed.
    """

    def __init__(self, path=None, *, text=None, name=None, context=None):
        self._h = None
        if (path is None) == (text is None):
            raise TypeError("Scenario needs a file path or text= (one)")
        self._context = context or _default_context()
        h = ctypes.c_void_p()
        if text is not None:
            rc = _lib.damsim_scenario_from_string(
                self._context._h, _b(text), _b(name), ctypes.byref(h))
        else:
            rc = _lib.damsim_scenario_load(self._context._h,
                                           _b(os.fspath(path)),
                                           ctypes.byref(h))
        self._h = h.value
        if rc != _OK:
            diag = _diagnostics(_lib.damsim_scenario_diag(self._h))
            _lib.damsim_scenario_free(self._h)
            self._h = None
            raise _ERRORS.get(rc, Error)(rc, diag)

    @classmethod
    def from_string(cls, text, name="<string>", context=None):
        """A scenario from the text of a scenario file; ``name`` is the
        file name messages give."""
        return cls(text=text, name=name, context=context)

    def __del__(self):
        if getattr(self, "_h", None):
            _lib.damsim_scenario_free(self._h)
            self._h = None

    def _check(self, rc):
        if rc != _OK:
            _raise(rc, _lib.damsim_scenario_diag(self._h))

    def copy(self):
        """An independent copy (same source, keys set and levers)."""
        c = Scenario.__new__(Scenario)
        c._context = self._context
        c._h = _lib.damsim_scenario_clone(self._h)
        return c

    def set(self, key, value):
        """Set a key by its path in the scenario file
        (``"machine.gpu"``, ``"pipeline.loader_workers"``) to a value as a
        file writes it, in the file's units. Returns self."""
        self._check(_lib.damsim_scenario_set(self._h, _b(key),
                                             _b(_value_text(value))))
        return self

    def get(self, key):
        """The value of a key now, as text in the file's units."""
        buf = ctypes.create_string_buffer(1024)
        self._check(_lib.damsim_scenario_get(self._h, _b(key), buf,
                                             len(buf)))
        return buf.value.decode()

    def get_number(self, key):
        """The value of a numeric (or boolean) key, in the file's units."""
        v = ctypes.c_double()
        self._check(_lib.damsim_scenario_get_number(self._h, _b(key),
                                                    ctypes.byref(v)))
        return v.value

    def apply_lever(self, lever):
        """Apply a lever as ``damsim --lever`` takes it
        (``"gpu=H100-SXM5-80GB"``, ``"loader_workers=16"``). Returns
        self."""
        self._check(_lib.damsim_scenario_apply_lever(self._h, _b(lever)))
        return self

    @property
    def inputs(self):
        """The scenario's inputs (the "scenario" object of the JSON)."""
        return json.loads(_lib.damsim_scenario_json(self._h).decode())

    def _answer(self, fn, *args):
        out = ctypes.c_void_p()
        self._check(fn(self._h, *args, ctypes.byref(out)))
        return out.value

    def run(self, method="simulate", seed=None):
        """Solve: ``method`` "simulate" (analytic, then the discrete-event
        simulation) or "analytic"; ``seed`` None for the scenario's. The
        dict of ``damsim run [--analytic] --json``."""
        r = self._answer(_lib.damsim_solve, _method(method), _seed(seed))
        try:
            return json.loads(_lib.damsim_result_json(r).decode())
        finally:
            _lib.damsim_result_free(r)

    def _numbers(self, method, seed, names):
        """Solve and read the named figures (dotted paths in the JSON):
        numbers as floats, strings as str, absent as None."""
        r = self._answer(_lib.damsim_solve, _method(method), _seed(seed))
        try:
            out = {}
            v = ctypes.c_double()
            for n in names:
                if _lib.damsim_result_number(r, _b(n),
                                             ctypes.byref(v)) == _OK:
                    out[n] = v.value
                else:
                    t = _lib.damsim_result_string(r, _b(n))
                    out[n] = t.decode() if t is not None else None
            return out
        finally:
            _lib.damsim_result_free(r)

    def whatif(self, levers=(), method="simulate", seed=None):
        """The what-if: the baseline, the file's levers and ``levers``
        (each as ``--lever`` takes it) alone, and their combination. The
        dict of ``damsim whatif --json``; its "options" are the rows."""
        levers = list(levers)
        arr = (ctypes.c_char_p * max(1, len(levers)))(
            *[_b(x) for x in levers])
        w = self._answer(_lib.damsim_whatif_run, arr, len(levers),
                         _method(method), _seed(seed))
        try:
            return json.loads(_lib.damsim_whatif_json(w).decode())
        finally:
            _lib.damsim_whatif_free(w)

    def plan(self, seed=None):
        """A serving scenario's plan (replicas per GPU kind for its SLO at
        its rate; LLM serving: GPU, count and degree for its objectives):
        the dict of ``damsim plan --json``."""
        r = self._answer(_lib.damsim_plan, _seed(seed))
        try:
            return json.loads(_lib.damsim_result_json(r).decode())
        finally:
            _lib.damsim_result_free(r)

    def plan_budget(self, budget, unit="flops", deadline_days=30.0):
        """A training scenario's compute-optimal plan for a budget in
        ``unit`` ("flops", "gpu-hours" or "usd") within a deadline: the
        dict of ``damsim plan --budget B --deadline Td --json``."""
        if unit not in _BUDGET_UNITS:
            raise ValueError(f"unit must be one of {sorted(_BUDGET_UNITS)}, "
                             f"got {unit!r}")
        r = self._answer(_lib.damsim_plan_budget, _BUDGET_UNITS[unit],
                         float(budget), float(deadline_days) * 86400.0)
        try:
            return json.loads(_lib.damsim_result_json(r).decode())
        finally:
            _lib.damsim_result_free(r)

    def __repr__(self):
        if not self._h:
            return "<damsim.Scenario (none)>"
        i = self.inputs
        return f"<damsim.Scenario {i.get('name')!r} from {i.get('file')!r}>"


#: The figures :func:`sweep` reports when none are named.
SWEEP_METRICS = ("result.step_s", "result.bound", "result.run_s",
                 "result.throughput_samples_per_s", "result.mfu",
                 "result.cost.usd", "result.cost.gpu_hours")


def sweep(scenario, vary, metrics=SWEEP_METRICS, method="analytic",
          seed=None, as_frame=None):
    """Solve every combination of ``vary`` (``{key: [values]}``, keys by
    their path in the scenario file, varied in the order given, the last
    fastest) on copies of ``scenario`` (a :class:`Scenario` or a file
    path) and return one row per point: the keys' values, then each of
    ``metrics`` (dotted paths in ``run``'s JSON, the "result." prefix
    dropped from the column name; numbers as full doubles, a boolean as
    1.0 or 0.0, text as str, absent as None), and "error" (None, or the
    message of a point whose values the scenario refuses: the sweep goes
    on).

    Returns a pandas DataFrame when pandas is installed (``as_frame`` None
    or True), else a list of dicts (``as_frame=False`` asks for the list).
    """
    base = scenario if isinstance(scenario, Scenario) else Scenario(scenario)
    keys = list(vary)
    values = [list(vary[k]) for k in keys]
    names = list(metrics)
    rows = []
    for point in itertools.product(*values):
        row = dict(zip(keys, point))
        s = base.copy()
        figures = dict.fromkeys(names)
        try:
            for k, v in zip(keys, point):
                s.set(k, v)
            figures = s._numbers(method, seed, names)
            row["error"] = None
        except (InputError, RuntimeFailure) as e:
            row["error"] = str(e)
        for n in names:
            row[n[len("result."):] if n.startswith("result.") else n] = \
                figures[n]
        rows.append(row)
    if as_frame is False:
        return rows
    try:
        import pandas
    except ImportError:
        if as_frame:
            raise
        return rows
    return pandas.DataFrame(rows)
