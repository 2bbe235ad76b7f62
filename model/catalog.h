/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * catalog.h: the hardware and workload catalogs (data/gpus.cfg,
 * data/models.cfg) as plain data. A dam_gpu is one accelerator's datasheet;
 * a dam_model_spec is one network's size, work and bytes, split into compute
 * phases for the roofline. All fields are SI (FLOP/s, bytes, bytes/s, W,
 * seconds). Entries are plain structs with no pointers, so a scenario holds
 * copies and levers can swap them freely. This module does not parse files
 * (loader.c does) and knows nothing about time or simulation.
 */
#ifndef DAM_CATALOG_H
#define DAM_CATALOG_H

#include <stddef.h>

#include "model/suggest.h"

/* Numeric formats. Order matters: tables are indexed by it. */
typedef enum {
    DAM_FP32 = 0, /* IEEE single, non-tensor (CUDA cores) */
    DAM_TF32,     /* tensor-float 32 (fp32 storage, tensor cores) */
    DAM_FP16,
    DAM_BF16,
    DAM_FP8,
    DAM_INT8,
    DAM_PREC_COUNT
} dam_precision;

/* Name of a precision ("bf16"), and its storage bytes per element. */
const char *dam_precision_name(dam_precision p);
double dam_precision_bytes(dam_precision p);
/* Parse a name; returns 0 on success, -1 when unknown. */
int dam_precision_parse(const char *s, dam_precision *out);

#define DAM_ID_MAX 48
#define DAM_NAME_MAX 96
#define DAM_SOURCE_MAX 640
#define DAM_MAX_PHASES 8
#define DAM_MAX_GPU_ETA 4        /* per-GPU efficiency entries of a model */
#define DAM_CATALOG_MAX_GPUS 128 /* GPUs a catalog may hold (the loader
                                    refuses more; plans list every one) */

/* One accelerator from its datasheet. */
typedef struct dam_gpu {
    char id[DAM_ID_MAX];          /* catalog key, e.g. "A100-SXM4-80GB" */
    char name[DAM_NAME_MAX];      /* display name */
    double peak[DAM_PREC_COUNT];  /* dense peak FLOP/s (OP/s for int8); 0 = unsupported */
    int sparsity_2to4;            /* 1 when 2:4 structured sparsity doubles tensor peak */
    double mem_bytes;             /* device memory, bytes */
    double mem_bw;                /* device memory bandwidth, bytes/s */
    double link_bw;               /* NVLink/xGMI total, bytes/s (0 = none) */
    double pcie_bw;               /* PCIe total, bytes/s */
    double tdp_w;                 /* board power, W */
    double price_hour;            /* reference price, USD per GPU-hour (0 = unknown) */
    char source[DAM_SOURCE_MAX];  /* where the numbers come from */
    int line;                     /* line in its catalog file, 0 if inline */
} dam_gpu;

/* Kinds of compute phase: only matmul-like phases use tensor-core sparsity. */
typedef enum {
    DAM_PHASE_MATMUL = 0, /* dense GEMM / convolution */
    DAM_PHASE_ATTENTION,  /* score and context products, softmax */
    DAM_PHASE_ELEMENTWISE,/* norms, activations, residual adds */
    DAM_PHASE_EMBEDDING,  /* table lookups (recommenders) */
    DAM_PHASE_KIND_COUNT
} dam_phase_kind;

const char *dam_phase_kind_name(dam_phase_kind k);
int dam_phase_kind_parse(const char *s, dam_phase_kind *out);

/* One compute phase of a forward pass, per sample. */
typedef struct dam_phase {
    char name[32];         /* "conv", "attention", ... */
    dam_phase_kind kind;   /* what hardware path it takes */
    double flops;          /* forward FLOPs per sample */
    double act_bytes;      /* HBM bytes per sample (activations in+out) at 2 bytes/element */
    double weight_frac;    /* share of the parameters this phase reads once per pass */
} dam_phase;

/* One network: its size, work and bytes, with sources. */
typedef struct dam_model_spec {
    char id[DAM_ID_MAX];          /* catalog key, e.g. "resnet50" */
    char name[DAM_NAME_MAX];      /* display name */
    char family[16];              /* "vision", "language", "recommender", "custom" */
    double params;                /* parameters */
    double seq_len;               /* tokens per sample (language models), else 1 */
    double flops_per_sample;      /* forward FLOPs per sample (sum of phases) */
    int nphases;                  /* entries used in phases */
    dam_phase phases[DAM_MAX_PHASES];
    double input_bytes;           /* bytes per sample copied host to device */
    double raw_bytes;             /* bytes per sample on storage */
    double act_mem_bytes;         /* activation memory kept for backward, per sample, 16-bit */
    int layers;                   /* layers (gradient buckets fill in reverse layer order) */
    int kernels_per_step;         /* kernel launches per training step, 0 = derive */
    double eta[DAM_PREC_COUNT];   /* calibrated compute efficiency per precision; 0 = none */
    int ngpu_eta;                 /* entries used in gpu_eta */
    struct {
        char gpu[DAM_ID_MAX];         /* a GPU id this calibration is for */
        double eta[DAM_PREC_COUNT];   /* efficiency per precision on it; 0 = none */
    } gpu_eta[DAM_MAX_GPU_ETA];   /* per-GPU calibrations, preferred over eta */
    double quality;               /* reference quality (e.g. top-1 %), 0 = none */
    char metric[32];              /* its metric */
    char source[DAM_SOURCE_MAX];  /* where size and FLOPs come from */
    char eta_source[DAM_SOURCE_MAX]; /* how eta was calibrated */
    int line;                     /* line in its catalog file, 0 if inline */
} dam_model_spec;

/* A loaded catalog. Owns its arrays; free with dam_catalog_free. */
typedef struct dam_catalog {
    dam_gpu *gpus;
    size_t ngpus;
    dam_model_spec *models;
    size_t nmodels;
    char gpu_file[256];   /* where the GPUs came from (file name or "<embedded>") */
    char model_file[256]; /* where the models came from */
} dam_catalog;

/* Free the arrays; the struct is empty afterwards. NULL is a no-op. */
void dam_catalog_free(dam_catalog *c);
/* Look up by id (case-insensitive); NULL when absent. */
const dam_gpu *dam_catalog_gpu(const dam_catalog *c, const char *id);
const dam_model_spec *dam_catalog_model(const dam_catalog *c, const char *id);
/* The closest id for "did you mean" (model/suggest.h's rule); NULL when
 * none is close. */
const char *dam_catalog_suggest_gpu(const dam_catalog *c, const char *id);
const char *dam_catalog_suggest_model(const dam_catalog *c, const char *id);

/* Ridge point of a GPU at a precision: peak / mem_bw, FLOP per byte (0 if unsupported). */
double dam_gpu_ridge(const dam_gpu *g, dam_precision p);
/* The calibrated efficiency of model m on GPU gpu at precision p: the
 * per-GPU entry when there is one, else the model's default; 0 = none. */
double dam_model_eta(const dam_model_spec *m, const char *gpu, dam_precision p);
/* Sum of phase FLOPs (the forward FLOPs per sample). */
double dam_model_phase_flops(const dam_model_spec *m);

#endif
