#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""make_logo.py: the leave-one-GPU-out measurements, copied with their sources.

Reads the project's public validation data (shared/validation/
public-throughput.csv and public-cases.csv, each row with its source) and
writes logo.csv, a `damsim calibrate` measurements file (model/measure.h),
so that the cross-validation test does not depend on ../shared. Run once
when the selection changes:

    python3 make_logo.py /path/to/shared/validation > logo.csv

Selection (the same code base on many GPU kinds; nothing from the sources
that shared/validation/README.md keeps out). Each source's software stack is
its own framework (workload.framework.name in the scenario files): Lambda's
v1 runs (NGC 22.09/22.10, Lambda's fork), Lambda's v2 runs (NGC 24.10) and
NVIDIA's README runs (NGC 21.03 with DALI) differ by more than 30 % on the
same A100, so one set of framework constants cannot serve all three:
  - NVIDIA DeepLearningExamples PyTorch ResNet-50 v1.5 training, AMP:
    Lambda's deeplearning-benchmark v1 (NGC 22.09/22.10, 12 GPU kinds, 1
    and 8 GPUs) and v2 (NGC 24.10: H100, H200, GH200, B200), and NVIDIA's
    own README rows (DGX A100 80GB, DGX-1 V100 16GB; public-cases.csv);
  - the same code base's BERT-large SQuAD v1.1 fine-tuning, AMP, sequence
    384 (Lambda v1 and v2);
  - DLE PyTorch ResNet-50 inference at batch 256 on V100 and T4, AMP and
    FP32 (public-cases.csv; pre-Ampere, so FP32 is FP32).
Left out: Lambda's FP32 training rows (the source does not say whether TF32
was on for Ampere and newer), MXNet and TensorFlow rows (other frameworks),
Transformer-XL, GNMT and WaveGlow (no catalog model), torchtitan (Llama 3,
no catalog model; the H100 rows are a 500 W part), rows whose batch is not
stated.
"""

import csv
import sys

# Lambda's and NVIDIA's GPU labels -> damsim catalog ids (data/gpus.cfg)
GPUS = {
    "Quadro-RTX-8000-48GB": "QUADRO-RTX-8000",
    "V100-16GB (Lambda Cloud)": "V100-SXM2-16GB",
    "RTX-3090-24GB": "RTX-3090",
    "A10-24GB (Lambda Cloud)": "A10",
    "A100-PCIe-40GB (Lambda Cloud)": "A100-PCIE-40GB",
    "A100-PCIe-80GB": "A100-PCIE-80GB",
    "A100-SXM4-80GB": "A100-SXM4-80GB",
    "RTX-6000-Ada-48GB": "RTX-6000-ADA",
    "RTX-A6000-48GB": "RTX-A6000",
    "RTX-4090-24GB": "RTX-4090",
    "H100-PCIe-80GB": "H100-PCIE-80GB",
    "H100-SXM5-80GB": "H100-SXM5-80GB",
    "H200-SXM-141GB": "H200-SXM-141GB",
    "GH200-96GB": "GH200-96GB",
    "B200 (Lambda label 192GB)": "B200-HGX-180GB",
}

SCENARIO = {
    "ResNet-50 v1.5 (DLE PyTorch)": "resnet50-amp.cfg",
    "BERT-large SQuAD v1.1 fine-tune (DLE PyTorch)": "bert-large-squad-amp.cfg",
}

# public-cases.csv rows: id -> (scenario, gpu, gpus, batch, precision lever)
CASES = {
    "dle_rn50_a100_1gpu_amp": ("resnet50-amp-dle.cfg", "A100-SXM4-80GB", 1, 256, ""),
    "dle_rn50_a100_8gpu_amp": ("resnet50-amp-dle.cfg", "A100-SXM4-80GB", 8, 256, ""),
    "dle_rn50_v100_1gpu_amp": ("resnet50-amp-dle.cfg", "V100-SXM2-16GB", 1, 256, ""),
    "dle_rn50_v100_8gpu_amp": ("resnet50-amp-dle.cfg", "V100-SXM2-16GB", 8, 256, ""),
    "dle_rn50_inf_v100_amp_bs256": ("resnet50-infer-amp.cfg", "V100-SXM2-16GB", 1, 256, ""),
    "dle_rn50_inf_t4_amp_bs256": ("resnet50-infer-amp.cfg", "T4", 1, 256, ""),
    "dle_rn50_inf_v100_fp32_bs256": ("resnet50-infer-amp.cfg", "V100-SXM2-16GB", 1, 256, "precision=fp32"),
    "dle_rn50_inf_t4_fp32_bs256": ("resnet50-infer-amp.cfg", "T4", 1, 256, "precision=fp32"),
}


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else "../../../../shared/validation"
    out = csv.writer(sys.stdout, lineterminator="\n")
    print("# Leave-one-GPU-out measurements for `damsim calibrate "
          "--cross-validate`:")
    print("# copied from shared/validation/public-throughput.csv and "
          "public-cases.csv by make_logo.py")
    print("# (selection and GPU names there); each row keeps its case id "
          "and source.")
    out.writerow(["scenario", "levers", "quantity", "value", "unit", "id",
                  "source"])
    with open(src + "/public-throughput.csv", newline="") as f:
        for r in csv.DictReader(f):
            scen = SCENARIO.get(r["model"])
            if not scen or r["precision"] != "AMP":
                continue
            if not r["case_id"].startswith(("lambda_v1_", "lambda_v2_")):
                continue
            if r["quantity"] not in ("train_images_per_s",
                                     "train_sequences_per_s"):
                continue
            gpu = GPUS[r["gpu"]]
            levers = [f"gpu={gpu}", f"batch_size={int(r['batch_per_gpu'])}"]
            if int(r["gpus"]) > 1:
                levers.append(f"gpus={int(r['gpus'])}")
            unit = "images/s" if "images" in r["unit"] else "sequences/s"
            if r["case_id"].startswith("lambda_v2_"):
                scen = scen.replace(".cfg", "-v2.cfg")
            out.writerow([scen, " ".join(levers), "throughput", r["value"],
                          unit, r["case_id"], r["source"]])
    with open(src + "/public-cases.csv", newline="") as f:
        for r in csv.DictReader(f):
            if r["case_id"] not in CASES:
                continue
            scen, gpu, n, batch, prec = CASES[r["case_id"]]
            levers = [f"gpu={gpu}", f"batch_size={batch}"]
            if n > 1:
                levers.append(f"gpus={n}")
            if prec:
                levers.append(prec)
            out.writerow([scen, " ".join(levers), "throughput", r["value"],
                          "images/s", r["case_id"],
                          r["source"] + "; " + r["conditions"]])


if __name__ == "__main__":
    main()
