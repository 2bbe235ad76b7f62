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
/* The one memory unit of text output: 2^30 bytes, printed "GiB" (the
 * datasheets' "80 GB" GPU holds 80 GiB). */
#define DAM_GIB 1073741824.0

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
#define DAM_MAX_FW_CONSTS 32    /* framework constants an overlay may set */
#define DAM_MAX_GPU_ETA 16       /* per-GPU efficiency entries of a model */
#define DAM_CATALOG_MAX_GPUS 128 /* GPUs a catalog may hold (the loader
                                    refuses more; plans list every one) */

/* GPU generations: they pick per-generation defaults of the device model
 * (GEMM tile, fused-attention efficiency) when an entry does not give them,
 * and whether its per-SM limits apply (device.c). */
typedef enum {
    DAM_GEN_UNKNOWN = 0,
    DAM_GEN_VOLTA,     /* V100 */
    DAM_GEN_TURING,    /* T4, Quadro RTX */
    DAM_GEN_AMPERE,    /* A100, A10, RTX 30xx, RTX A6000 */
    DAM_GEN_ADA,       /* L4, RTX 40xx, RTX 6000 Ada */
    DAM_GEN_HOPPER,    /* H100, H200, GH200 */
    DAM_GEN_BLACKWELL, /* B200 */
    DAM_GEN_CDNA3,     /* MI300X */
    DAM_GEN_GAUDI,     /* Intel Gaudi 3: matrix engines (MME) and vector
                        * cores (TPC), no SMs: the device model's per-SM
                        * limits (waves of tiles, bytes per SM clock,
                        * dequantisation per SM) do not apply */
    DAM_GEN_COUNT
} dam_gpu_gen;

const char *dam_gpu_gen_name(dam_gpu_gen g);
int dam_gpu_gen_parse(const char *s, dam_gpu_gen *out);

/* A constant of the device or framework model with its standard
 * uncertainty (one standard deviation, same unit as v; 0 = exact). */
typedef struct dam_est {
    double v;  /* value, SI (a fraction, seconds or bytes/s) */
    double sd; /* standard uncertainty of v, same unit */
} dam_est;

/*
 * The device model's constants of one GPU (MODEL.md section 8; device.h
 * costs operators with them; data/README.md "Device model" gives every
 * value's source and fit). A field with v == 0 is "not given": the loader
 * fills it from the generation's default (device.c), so a loaded entry
 * always has every constant.
 */
typedef struct dam_device {
    dam_est gemm[DAM_PREC_COUNT]; /* c_g,p: achieved fraction of the dense
                                   * peak on a large GEMM at a full wave
                                   * (sustained clock under the power
                                   * limit x instruction efficiency) */
    dam_est mem;        /* m_g: achieved fraction of mem_bw, streaming kernels */
    dam_est attn_fwd;   /* fused attention forward, fraction of the peak */
    dam_est attn_bwd;   /* fused attention backward, fraction of the peak */
    dam_est kernel_gap; /* GPU time per kernel boundary, queued launches, s */
    dam_est graph_gap;  /* the same inside a CUDA graph, s */
    dam_est h2d;        /* achieved pinned host-to-device copy, bytes/s */
    dam_est pageable;   /* pageable copies as a fraction of pinned */
    dam_est busbw;      /* nccl-tests all-reduce bus bandwidth within one
                         * node over its GPU fabric (Ring), bytes/s;
                         * 0 = no GPU fabric (PCIe cards) */
    dam_est l2_bw;      /* achieved L2 read bandwidth, bytes/s (kernels
                         * whose working set stays in L2) */
    dam_est l2_frac;    /* share of the L2 (dam_gpu.l2_bytes) one kernel's
                         * working set can hold between producer and
                         * consumer (0.5 where the L2 is split into two
                         * partitions that duplicate shared data) */
    double tile_m;      /* GEMM output tile rows of the library (elements) */
    double tile_n;      /* GEMM output tile columns */
} dam_device;

/*
 * Constants of the software stack (framework and kernel libraries) that
 * transfer across GPUs: they belong to the workload, not to a device. The
 * host cost per kernel and per step are the workload's launch_s and
 * framework_overhead_s (scenario.h); their uncertainties are here.
 */
typedef struct dam_framework {
    dam_est conv[DAM_PREC_COUNT]; /* implicit-GEMM convolution (cuDNN)
                         * throughput as a fraction of a GEMM of the same
                         * shape, per precision */
    dam_est gemm;       /* GEMMs inside a training or inference step as a
                         * fraction of the microbenchmark rate c_g,p
                         * (sustained load, shapes, epilogues) */
    dam_est mem;        /* framework memory-bound kernels (norms, activations,
                         * optimizer) as a fraction of the device's
                         * streaming rate m_g */
    dam_est sm_bpc;     /* framework memory-bound kernels: bytes per SM
                         * clock they move at most (Little's law: the
                         * requests a kernel keeps in flight per SM over the
                         * memory latency), B/cycle/SM; caps them at SMs x
                         * boost clock x sm_bpc on parts with much bandwidth
                         * per SM; 0 = no cap */
    double launch_sd;   /* uncertainty of workload.launch_s, s */
    double step_sd;     /* uncertainty of workload.framework_overhead_s, s */
} dam_framework;

/* One accelerator from its datasheet. */
typedef struct dam_gpu {
    char id[DAM_ID_MAX];          /* catalog key, e.g. "A100-SXM4-80GB" */
    char name[DAM_NAME_MAX];      /* display name */
    double peak[DAM_PREC_COUNT];  /* dense peak FLOP/s (OP/s for int8); 0 = unsupported */
    double peak_fp4;              /* dense FP4 (NVFP4/MXFP4) peak FLOP/s, 0 = none */
    int sparsity_2to4;            /* 1 when 2:4 structured sparsity doubles tensor peak */
    double mem_bytes;             /* device memory, bytes (hbm_gib x DAM_GIB) */
    double mem_bw;                /* device memory bandwidth, bytes/s */
    double link_bw;               /* NVLink/xGMI total, bytes/s (0 = none) */
    double pcie_bw;               /* PCIe total, bytes/s */
    double tdp_w;                 /* board power, W */
    double price_hour;            /* reference price, USD per GPU-hour (0 = unknown) */
    dam_gpu_gen gen;              /* architecture generation */
    int sms;                      /* streaming multiprocessors (AMD: compute
                                   * units; Gaudi: none, 1 as a placeholder) */
    double boost_hz;              /* maximum boost clock, Hz (0 = unknown) */
    double sustained_hz;          /* clock sustained under a full tensor load at
                                   * the power limit, Hz (0 = unknown) */
    double l2_bytes;              /* last-level on-chip cache, bytes (0 = unknown) */
    dam_device dev;               /* device-model constants (complete after load) */
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

/*
 * Architecture numbers: what the operator graph (graph.h) is built from.
 * A model has either a transformer config or a layer table (CNNs, MLPs,
 * recommenders); a model with neither (arch kind none) is costed from its
 * phases and an efficiency, the legacy path.
 */
typedef enum {
    DAM_ARCH_NONE = 0,    /* phases + efficiency only */
    DAM_ARCH_TRANSFORMER, /* dam_transformer */
    DAM_ARCH_LAYERS       /* a table of dam_layer rows */
} dam_arch_kind;

/* How attention runs: one fused kernel (FlashAttention-class) or materialised
 * score matrices (two batched GEMMs, softmax, dropout). */
typedef enum { DAM_ATTN_FLASH = 0, DAM_ATTN_EAGER } dam_attn_impl;

/* A transformer from its config (HF config.json names in comments). */
typedef struct dam_transformer {
    int layers;       /* blocks (num_hidden_layers) */
    int hidden;       /* model width d (hidden_size) */
    int heads;        /* attention heads (num_attention_heads) */
    int kv_heads;     /* key/value heads (num_key_value_heads; = heads for MHA) */
    int head_dim;     /* per head (default hidden / heads) */
    int ffn;          /* MLP inner size per expert (intermediate_size) */
    int vocab;        /* vocabulary size */
    int max_pos;      /* rows of a learned position table (0 = none) */
    int experts;      /* MoE experts per layer (0 or 1 = dense MLP) */
    int top_k;        /* experts per token (MoE) */
    int gated;        /* 1: gated MLP (SwiGLU/GeGLU, three matrices) */
    int causal;       /* 1: decoder (causal mask: half the score work) */
    int attn;         /* a dam_attn_impl */
    int rotary;       /* 1: rotary position embedding on q and k */
    int bias;         /* 1: linear layers carry biases */
    int tied;         /* 1: the LM head reuses the input embedding */
    int lm_head;      /* 1: projection to the vocabulary at the end */
    int dropout;      /* 1: dropout layers active in training */
    int rmsnorm;      /* 1: RMSNorm, 0: LayerNorm */
} dam_transformer;

/* Kinds of row in a layer table. */
typedef enum {
    DAM_LAYER_CONV = 0,  /* convolution (implicit GEMM), optional BN/ReLU */
    DAM_LAYER_LINEAR,    /* fully connected, optional ReLU */
    DAM_LAYER_POOL,      /* max/avg pooling */
    DAM_LAYER_ADD,       /* residual add, optional ReLU */
    DAM_LAYER_EMBEDDING, /* table lookups */
    DAM_LAYER_BMM,       /* batched matmul of activations (no weights) */
    DAM_LAYER_ELEMENTWISE, /* any other memory-bound kernel */
    DAM_LAYER_KIND_COUNT
} dam_layer_kind;

const char *dam_layer_kind_name(dam_layer_kind k);

/* One row of a layer table: `count` identical layers. */
typedef struct dam_layer {
    dam_layer_kind kind;
    int in;        /* conv: input channels; linear: in features; embedding: dim */
    int out;       /* conv: output channels; linear: out features;
                    * pool/add/elementwise: channels */
    int kernel;    /* conv/pool window (square) */
    int stride;    /* conv/pool stride */
    int groups;    /* conv groups (1 = dense) */
    int hw;        /* output spatial size (square); 1 for vectors */
    int bn;        /* conv: followed by batch-norm */
    int relu;      /* followed by ReLU */
    int sparse;    /* embedding: sparse gradient and update (rows touched only) */
    double rows;   /* embedding: table rows in all */
    double lookups;/* embedding: rows gathered per sample */
    double m, n, k;/* bmm: per-sample matrix product m x k times k x n */
    double elems;  /* elementwise: elements read + written per sample */
    double count;  /* identical rows */
} dam_layer;

#define DAM_MAX_LAYERS 64

typedef struct dam_arch {
    dam_arch_kind kind;
    dam_transformer tf;            /* kind transformer */
    int nlayers;                   /* kind layers: rows used */
    dam_layer layer[DAM_MAX_LAYERS];
} dam_arch;

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
    double eta_sd[DAM_PREC_COUNT];/* its uncertainty, 1 sd (constants.h); 0 = not given */
    int ngpu_eta;                 /* entries used in gpu_eta */
    struct {
        char gpu[DAM_ID_MAX];         /* a GPU id this calibration is for */
        double eta[DAM_PREC_COUNT];   /* efficiency per precision on it; 0 = none */
        double eta_sd[DAM_PREC_COUNT];/* its uncertainty (1 sd); 0 = not given */
    } gpu_eta[DAM_MAX_GPU_ETA];   /* per-GPU calibrations, preferred over eta */
    double quality;               /* reference quality (e.g. top-1 %), 0 = none */
    char metric[32];              /* its metric */
    char source[DAM_SOURCE_MAX];  /* where size and FLOPs come from */
    char eta_source[DAM_SOURCE_MAX]; /* how eta was calibrated */
    double step_error;            /* relative sd (1 sd, log scale) of the
                                     model's GPU time against measurements
                                     that its constants leave unexplained
                                     (a calibration's residual scatter;
                                     constants.h); 0 = the default,
                                     DAM_DEFAULT_STEP_ERROR */
    dam_arch arch;                /* architecture (graph.h builds from it) */
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
    /* Framework constants a calibration overlay set (constants.h keys
     * framework/default/...), copied into every scenario loaded after it
     * (dam_catalog_framework_apply). */
    int nfw;              /* entries used in fw */
    struct {
        char name[DAM_ID_MAX]; /* the framework (scenario.h framework_name) */
        int param;        /* the device model's constant (device.h dam_param) */
        double value, sd; /* SI */
    } fw[DAM_MAX_FW_CONSTS];
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
/* The uncertainty (1 sd) of dam_model_eta's value (0 = not given). */
double dam_model_eta_sd(const dam_model_spec *m, const char *gpu,
                        dam_precision p);
/* Sum of phase FLOPs (the forward FLOPs per sample). */
double dam_model_phase_flops(const dam_model_spec *m);

#endif
