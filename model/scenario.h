/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * scenario.h: one question about one ML system, as plain data.
 *
 * A dam_scenario is what a scenario file says after loading (loader.c):
 * every value converted once to SI units (seconds, bytes, bytes/s, FLOP,
 * FLOP/s, W, USD), every catalog reference resolved to a copy of its entry.
 * It holds no pointers, so it copies by assignment: levers (lever.h) take
 * one and return a new one, and solvers only read it. Nothing here knows
 * libconfig, time-stepping or output.
 *
 * Invariant after a successful load: every count is >= 1 where the schema
 * says so, every bandwidth and rate is > 0, efficiencies are in (0, 1],
 * and the precision is supported by the GPU (peak > 0).
 */
#ifndef DAM_SCENARIO_H
#define DAM_SCENARIO_H

#include <stdint.h>

#include "model/catalog.h"
#include "model/graph.h"
#include "model/layout.h"
#include "model/network.h"

typedef enum {
    DAM_MODE_TRAINING = 0, /* loader -> queue -> H2D -> fwd/bwd -> sync -> optimizer */
    DAM_MODE_INFERENCE,    /* offline batch inference: loader -> queue -> H2D -> fwd */
    DAM_MODE_SERVING       /* arrivals -> preprocess -> batch -> H2D -> fwd -> post */
} dam_mode;

const char *dam_mode_name(dam_mode m);

/* Probability distributions for service times (solver/rng.h samples them). */
typedef enum {
    DAM_DIST_DETERMINISTIC = 0,
    DAM_DIST_EXPONENTIAL,
    DAM_DIST_LOGNORMAL, /* parameterised by mean and coefficient of variation */
    DAM_DIST_UNIFORM,   /* mean +- sqrt(3) * cv * mean */
    DAM_DIST_NORMAL,    /* truncated at zero */
    DAM_DIST_EMPIRICAL  /* resampled from a file of values */
} dam_dist_kind;

typedef enum {
    DAM_STORAGE_LOCAL_NVME = 0,
    DAM_STORAGE_NETWORK_FS,
    DAM_STORAGE_PAGE_CACHE,
    DAM_STORAGE_HDD,
    DAM_STORAGE_OBJECT_STORE
} dam_storage_kind;

const char *dam_storage_name(dam_storage_kind k);

typedef enum {
    DAM_SPARSITY_NONE = 0,
    DAM_SPARSITY_STRUCTURED,   /* channels/heads removed: FLOPs and bytes shrink */
    DAM_SPARSITY_UNSTRUCTURED, /* scattered zeros: bytes may shrink, no dense speed-up */
    DAM_SPARSITY_2TO4          /* 2 of every 4 weights zero: tensor-core speed-up where supported */
} dam_sparsity_kind;

const char *dam_sparsity_name(dam_sparsity_kind k);

typedef enum { DAM_ARRIVAL_POISSON = 0, DAM_ARRIVAL_DETERMINISTIC, DAM_ARRIVAL_TRACE } dam_arrival_kind;

/* The hardware: one node type, repeated. */
typedef struct dam_machine {
    dam_gpu gpu;              /* resolved catalog entry (or inline) */
    int gpus_per_node;        /* >= 1 */
    int nodes;                /* >= 1 */
    int cpu_cores;            /* host cores per node, >= 1 */
    double pcie_bw;           /* effective host-to-device bytes/s per PCIe link */
    int gpus_per_pcie_link;   /* GPUs sharing one host bridge, >= 1 */
    double pageable_fraction; /* pageable copies run at this fraction of pcie_bw, (0, 1] */
    double host_mem_bw;       /* host DRAM bandwidth per node, bytes/s (0 =
                               * not given; needed by optimizer offload) */
    dam_storage_kind storage_kind;
    double storage_bw;        /* node's storage read bandwidth, bytes/s */
    double storage_latency;   /* per-read latency, s */
    double intra_busbw;       /* intra-node all-reduce bus bandwidth, bytes/s */
    double inter_busbw;       /* inter-node all-reduce bus bandwidth per node, bytes/s */
    double net_latency;       /* per-hop collective latency (alpha), s */
    dam_network net;          /* the GPU network as layouts see it
                               * (network.h; complete after load) */
    double fs_bw;             /* cluster-wide file system: aggregate read
                               * bandwidth shared by every node, bytes/s
                               * (0 = the node-local storage above) */
} dam_machine;

/* What runs on the GPU. */
typedef struct dam_workload {
    dam_model_spec model;     /* resolved catalog entry (or inline) */
    dam_precision precision;  /* compute precision */
    int batch_size;           /* per GPU, >= 1 */
    double eta;               /* achieved fraction of peak on compute-bound phases, (0, 1] */
    double eta_mem;           /* achieved fraction of HBM bandwidth on memory-bound phases, (0, 1] */
    int kernels_per_step;     /* launches per step (fwd+bwd+optimizer) */
    double launch_s;          /* per-launch overhead, s */
    double framework_overhead_s; /* per-step host overhead, s */
    int cuda_graphs;          /* 1: launches captured in a graph (launch cost ~0) */
    int activation_recompute; /* 1: forward recomputed in backward */
    double grad_bytes;        /* bytes per gradient element sent in all-reduce
                               * (layouts: kept in memory) */
    double grad_comm_bytes;   /* layouts: bytes per gradient element
                               * reduced over data parallel (0 = grad_bytes) */
    int recipe;               /* layouts: a dam_recipe_id (recipe.h), 0 =
                               * every operator at `precision` */
    int lora_rank;            /* layouts: LoRA rank, 0 = full training */
    int lora_targets;         /* bit 0 attention, bit 1 MLP projections */
    int lora_nf4;             /* 1: QLoRA (NF4 base weights) */
    double optimizer_bytes;   /* optimizer state bytes per parameter (Adam mixed: 12) */
    double master_bytes;      /* bytes per parameter of the weights in memory */
    double compute_cv;        /* step-to-step compute jitter, coefficient of variation */
    /* Effects of levers on the work (1 = unchanged). */
    double flops_scale;       /* multiplies every phase's FLOPs */
    double bytes_scale;       /* multiplies every phase's HBM bytes */
    double weight_scale;      /* multiplies weight bytes (pruned or compressed storage) */
    double matmul_peak_scale; /* multiplies R_peak on matmul phases (2:4 sparsity) */
    dam_sparsity_kind sparsity_kind;
    double sparsity;          /* fraction of weights removed, [0, 1) */
    int zero_stage;           /* ZeRO/FSDP sharding over data-parallel ranks:
                               * 0 none, 1 optimizer states, 2 + gradients,
                               * 3 + parameters (Rajbhandari et al. 2020) */
    int eta_carried;          /* 1: a lever moved to a GPU/precision with no
                               * calibrated eta, and the old one was kept */
    double retrain_fraction;  /* extra training a lever's train_method adds
                               * (dense training before pruning, QAT), as a
                               * fraction of the run; 0 = none */
    /* The device and operator model (device.h, graph.h). */
    int eta_given;            /* 1: eta came from the scenario or the model's
                               * catalog entry: it overrides the device
                               * model's compute fractions */
    int eta_mem_given;        /* 1: memory_efficiency was given: it overrides
                               * the GPU's achieved-bandwidth fraction */
    dam_framework fw;         /* software-stack constants */
    char framework_name[DAM_ID_MAX]; /* workload.framework.name: which stack
                                 the constants are of ("default" when not
                                 given); calibrations key them by it */
    double seq_len;           /* tokens per sample (workload.seq_len, else
                               * the model's) */
    int inference_eager;      /* 1: inference runs in the framework's eager
                               * forward (workload.inference_engine =
                               * "eager"), 0: an inference engine's fused
                               * graph ("fused", the default) */
    int channels_first;       /* 1: CNN activations channels-first
                               * (workload.memory_format = "channels_first",
                               * PyTorch's default layout): convolutions
                               * below 32 bits transpose to and from the
                               * tensor cores' channels-last layout;
                               * 0: "channels_last" (the default) */
    double fused;             /* share of memory-bound traffic and launches
                               * (outside the optimizer) that fuse levers
                               * removed, [0, 1] (graph models) */
    /* The model's operator graph, built once per model, mode and
     * recomputation (dam_scenario_build_graph) and costed per evaluation;
     * nops == 0 when the model has no architecture. */
    dam_graph_opts graph_opts;/* the options it was built with */
    double graph_params;      /* model.params when it was built */
    dam_graph graph;
} dam_workload;

#define DAM_MAX_DECODE_SAMPLES 1024

/* The largest machine damsim models: 2^20 GPUs (the largest training
 * clusters of 2024 hold about 1e5; a count beyond this is a typo). */
#define DAM_MAX_GPUS 1048576

/* Upper bounds of the counts a scenario gives (scenarios/README.md lists
 * them with every key's range): they keep every product of counts inside
 * 64 bits and every simulation's work and memory estimable up front. */
#define DAM_MAX_CORES 16384          /* host.cpu_cores per node */
#define DAM_MAX_BATCH 1048576        /* workload.batch_size per GPU */
#define DAM_MAX_KERNELS 10000000     /* workload.kernels_per_step */
#define DAM_MAX_WORKERS 256          /* pipeline.loader_workers per GPU */
#define DAM_MAX_PREFETCH 64          /* pipeline.prefetch_factor */
#define DAM_MAX_WARMUP 100000        /* pipeline.warmup_steps */
#define DAM_MAX_STEPS 1000000        /* pipeline.steps (and --steps) */
#define DAM_MAX_REPLICATIONS 1000    /* replications (and --replications) */
#define DAM_MAX_REQUESTS 1e9         /* serving.requests per replication */
#define DAM_MAX_SERVING_WORKERS 65536 /* serving.preprocess_workers */
#define DAM_MAX_SERVING_BATCH 65536  /* serving.max_batch */
#define DAM_MAX_BUCKETS 1000000      /* gradient buckets per step */

/* The input data and its epoch structure (training and inference). */
typedef struct dam_data {
    double samples;           /* samples per epoch */
    double raw_bytes;         /* bytes per sample on storage */
    double input_bytes;       /* bytes per sample copied to the GPU (0 = none) */
    double decode_s;          /* CPU seconds per sample to decode and augment */
    dam_dist_kind decode_dist;/* distribution of decode time */
    double decode_cv;         /* coefficient of variation of decode time */
    double epochs;            /* passes over the data */
    int decode_on_gpu;        /* 1: decode runs on the GPU (e.g. DALI / nvJPEG) */
    double gpu_decode_s;      /* GPU seconds per sample when decode_on_gpu */
    int sharded;              /* 1: sequential shards (one latency per shard, not per file) */
    double shard_bytes;       /* bytes per shard when sharded */
    int ndecode_samples;      /* measured decode times (decode_dist empirical) */
    double decode_samples[DAM_MAX_DECODE_SAMPLES]; /* s each; resampled by the simulator */
} dam_data;

/* How the loader, copies and gradient sync overlap. */
typedef struct dam_pipeline {
    int loader_workers;       /* per GPU, >= 1 */
    int prefetch_factor;      /* batches queued per worker, >= 1 */
    int pin_memory;           /* 1: pinned host buffers (full PCIe rate) */
    int overlap_transfer;     /* 1: copy of batch k+1 overlaps compute of batch k */
    double bucket_bytes;      /* gradient bucket size, bytes */
    int overlap_sync;         /* 1: all-reduce overlaps backward */
    int warmup_steps;         /* steps excluded from statistics */
    int steps;                /* measured steps per replication */
    int replications;         /* independent replications for confidence intervals */
} dam_pipeline;

/* Weight formats of LLM serving (llm.weights; MODEL.md section 10). */
typedef enum {
    DAM_LLM_W_NATIVE = 0, /* the compute precision (bf16 or fp16) */
    DAM_LLM_W_FP8,        /* W8A8 fp8: weights and GEMM inputs in fp8 */
    DAM_LLM_W_INT8,       /* W8A8 int8 (SmoothQuant-style) */
    DAM_LLM_W_INT4,       /* W4A16 weight-only (AWQ/GPTQ, group 128) */
    DAM_LLM_W_NVFP4,      /* W4A4 NVFP4 (Blackwell): e2m1 values, an e4m3
                             scale per 16 */
    DAM_LLM_W_MXFP4,      /* W4A4 MXFP4 (OCP MX, Blackwell): e2m1 values,
                             an e8m0 scale per 32 */
    DAM_LLM_W_COUNT
} dam_llm_weights;

/* Name of a weight format ("bf16" for native is the precision's name:
 * this gives "native"). */
const char *dam_llm_weights_name(dam_llm_weights w);

/* What a scheduler does when a running sequence needs a KV block and none
 * is free. */
typedef enum {
    DAM_LLM_PREEMPT_RECOMPUTE = 0, /* drop its KV; prefill it again later */
    DAM_LLM_PREEMPT_SWAP           /* copy its KV to host memory and back */
} dam_llm_preempt;

/* Which requests the scheduler admits (TensorRT-LLM's capacity
 * scheduler policies; vLLM and SGLang behave as max-utilisation). */
typedef enum {
    DAM_LLM_CAP_MAX_UTIL = 0, /* admit while the prompt's blocks are free;
                                 decodes that later find none preempt */
    DAM_LLM_CAP_NO_EVICT      /* admit only when the blocks of the whole
                                 request (prompt + every output token) are
                                 free, and reserve them: never preempts */
} dam_llm_capacity;

/* Speculative decoding's draft (llm.speculative.method). */
enum { DAM_LLM_SPEC_NONE = 0, DAM_LLM_SPEC_DRAFT, DAM_LLM_SPEC_MTP };

/* How the router in front of the replicas picks one for a request. */
typedef enum {
    DAM_LLM_ROUTE_LEAST = 0, /* fewest requests in the replica (ties: lowest) */
    DAM_LLM_ROUTE_ROUND_ROBIN
} dam_llm_route;

/* Request sizes of LLM serving: a count of tokens drawn per request. */
typedef struct dam_llm_tokens {
    double mean;              /* tokens (the mean of the distribution) */
    dam_dist_kind dist;       /* deterministic unless given */
    double cv;                /* coefficient of variation (lognormal, ...) */
    double min;               /* draws are rounded and kept in [min, max] */
    double max;
} dam_llm_tokens;

/*
 * LLM serving (serving mode with an `llm` group): requests of input and
 * output tokens, served by continuous batching on replicas of `tp` GPUs
 * each (serving.replicas of them behind one router), or by separate
 * prefill and decode pools (disaggregated).
 */
typedef struct dam_llm {
    int enabled;              /* 1: the scenario has an llm group */
    dam_llm_tokens input;     /* prompt tokens per request */
    dam_llm_tokens output;    /* generated tokens per request (>= 1) */
    int tp;                   /* tensor-parallel degree: GPUs per replica,
                                 inside one node */
    dam_llm_weights weights;  /* weight format */
    dam_precision kv_precision; /* KV-cache element format (bf16, fp16,
                                   fp8) */
    int block_tokens;         /* tokens per paged KV block */
    double memory_fraction;   /* share of each GPU's memory the engine
                                 takes (weights + workspace + KV pool),
                                 (0, 1] */
    int token_budget;         /* new tokens per iteration, all sequences */
    int chunked_prefill;      /* 1: prompts in chunks beside decodes
                                 (Sarathi-Serve, vLLM chunked prefill);
                                 0: whole prompts in prefill-only
                                 iterations that pause decodes (vLLM's
                                 default scheduler before chunking) */
    int chunk_tokens;         /* most prompt tokens of one sequence per
                                 iteration (chunked prefill) */
    int max_seqs;             /* most sequences running at once, per
                                 replica */
    dam_llm_preempt preemption;
    dam_llm_capacity capacity; /* admission policy (llm.capacity_policy) */
    double swap_bytes;        /* host memory per GPU for swapped KV, bytes */
    dam_llm_route route;
    double iteration_s;       /* host time per iteration (scheduler,
                                 sampling, detokenisation), s */
    double iteration_seq_s;   /* host time per sequence of an iteration, s */
    int overlap;              /* 1: host work of the next iteration runs
                                 while the GPU runs this one (an iteration
                                 takes max(GPU, host)); 0: in series */
    char engine[32];          /* engine profile applied (data/engines.cfg) */
    /* Prefix caching: prompt tokens found cached, in whole blocks. */
    double prefix_hit_rate;   /* share of each prompt, [0, 1) */
    double prefix_tokens;     /* a prefix every request shares (a system
                                 prompt), tokens; its blocks stay cached */
    /* Speculative decoding (llm.speculative): a draft proposes
     * spec_tokens tokens per decoding sequence and step, the target
     * verifies them and one more in one pass; each draft token is accepted
     * with probability spec_acceptance until the first rejection. */
    int spec;                 /* DAM_LLM_SPEC_* */
    int spec_tokens;          /* draft tokens per step, k */
    double spec_acceptance;   /* per-token acceptance rate, (0, 1) */
    dam_model_spec spec_draft;/* the draft: a catalog model, or (mtp) one
                                 block of the target */
    double slo_ttft_s;        /* time-to-first-token objective, s */
    double slo_tpot_s;        /* time-per-output-token objective, s */
    double slo_quantile;      /* both are judged at this quantile of the
                                 requests, (0, 1) (default 0.99) */
    /* Disaggregated prefill and decode (DistServe, Splitwise). */
    int disaggregated;        /* 1: separate pools; serving.replicas is
                                 then unused */
    int prefill_replicas;     /* replicas that only prefill */
    int decode_replicas;      /* replicas that only decode */
    int prefill_tp;           /* GPUs per prefill replica */
    int decode_tp;            /* GPUs per decode replica */
    double kv_link_bw;        /* KV transfer between the pools, bytes/s
                                 per replica pair */
    double kv_link_latency;   /* per-transfer latency, s */
} dam_llm;

/* The service (serving mode). */
typedef struct dam_serving {
    dam_arrival_kind arrival;
    double rate;              /* requests per second (poisson, deterministic) */
    char trace[256];          /* CSV of arrival timestamps (arrival = trace) */
    double preprocess_s;      /* CPU seconds per request */
    dam_dist_kind preprocess_dist;
    double preprocess_cv;
    int preprocess_workers;   /* CPU workers, >= 1 */
    double postprocess_s;     /* seconds per request after compute */
    int max_batch;            /* dynamic batcher limit, >= 1 */
    double batch_timeout_s;   /* wait from a forming batch's first request */
    int replicas;             /* GPUs serving one queue, >= 1 */
    double slo_p99_s;         /* latency objective at p99 */
    double request_bytes;     /* bytes per request copied to the GPU */
    double requests;          /* simulated requests per replication */
    int replications;         /* independent replications of the serving
                                 simulation (serving.replications, default 5;
                                 pipeline.replications is training's) */
    dam_dist_kind compute_dist; /* distribution of a batch's compute time
                                   around T(b) with cv workload.compute_cv
                                   (serving.compute_dist; default
                                   deterministic, lognormal when compute_cv
                                   > 0) */
    dam_llm llm;              /* LLM serving (llm.enabled; the `llm` group) */
} dam_serving;

/* The quality the run buys. */
typedef struct dam_quality {
    char metric[32];          /* "top-1 %", "loss", ... */
    double value;             /* baseline quality */
    int higher_is_better;     /* 1 for accuracy, 0 for loss */
    int from_scaling_law;     /* 1: value is the Chinchilla-fit loss of (N, D) */
    double tokens;            /* training tokens D (language models; 0 = samples*seq_len*epochs) */
    int fit;                  /* scaling-law fit of the loss and of the
                                 chinchilla lever: a dam_scaling_fit_id */
    int delta_unknown;        /* levers applied whose quality change is unknown
                                 (no accuracy_delta and no sourced default):
                                 value is then only the known part */
} dam_quality;

/* What an hour costs. */
typedef struct dam_cost {
    double gpu_hour_usd;      /* price per GPU-hour */
    double pue;               /* power usage effectiveness, >= 1 */
    double kwh_usd;           /* electricity price per kWh */
    char base_gpu[DAM_ID_MAX];/* the GPU the scenario itself runs on, and */
    double base_gpu_hour_usd; /* its price as the scenario gives it (a gpu
                                 lever back to that GPU costs this) */
} dam_cost;

/* Levers (lever.h applies them). One named lever may hold several ops. */
typedef enum {
    DAM_LEVER_GPU = 0,    /* swap GPU; gpus_per_node / nodes to scale */
    DAM_LEVER_QUANTIZE,   /* weights and activations to a narrower format */
    DAM_LEVER_PRUNE,      /* sparsity, structured / unstructured / 2:4 */
    DAM_LEVER_PREFETCH,   /* loader workers, prefetch, pinning, overlap, buckets */
    DAM_LEVER_CHINCHILLA, /* rebalance N and D at fixed compute */
    DAM_LEVER_PRECISION,  /* mixed precision (compute format) */
    DAM_LEVER_FUSE,       /* kernel fusion: fewer launches, less elementwise traffic */
    DAM_LEVER_CUDA_GRAPHS,/* launches captured once */
    DAM_LEVER_DATA_FORMAT,/* sequential shards, GPU decode */
    DAM_LEVER_BATCH_SIZE, /* per-GPU batch */
    DAM_LEVER_DISTILL,    /* a smaller student */
    DAM_LEVER_SERVING,    /* replicas, max_batch, timeout, preprocess workers */
    DAM_LEVER_LAYOUT,     /* parallel layout: degrees, micro-batch, ZeRO,
                           * recomputation, schedule */
    DAM_LEVER_NETWORK,    /* NVLink domain, NICs, rails, spine, algorithm */
    DAM_LEVER_WEIGHTS,    /* LLM serving: weight format (fp8, int8, int4) */
    DAM_LEVER_KV_CACHE,   /* LLM serving: KV-cache format (fp8) */
    DAM_LEVER_TENSOR_PARALLEL, /* LLM serving: GPUs per replica */
    DAM_LEVER_SCHEDULER,  /* LLM serving: token budget, chunks, sequences */
    DAM_LEVER_DISAGGREGATE, /* LLM serving: prefill and decode pools */
    DAM_LEVER_KIND_COUNT
} dam_lever_kind;

/* Name of a lever kind (its lever.h table entry's name). */
const char *dam_lever_kind_name(dam_lever_kind k);

/* One op of a lever: the fields of every lever type's keys (lever.h's
 * table says which type uses which). Fields a type does not use stay at
 * their "unset" value: -1 for ints, < 0 for doubles, "" for strings
 * (accuracy_delta: has_accuracy_delta). */
typedef struct dam_lever_op {
    dam_lever_kind kind;
    unsigned set;             /* bit i: key i of the type's table entry given */
    char gpu[DAM_ID_MAX];     /* gpu: new catalog id, "" = keep */
    int gpus_per_node;        /* gpu: -1 = keep */
    int nodes;                /* gpu: -1 = keep */
    int gpus;                 /* gpu: total GPUs (nodes follow), -1 = keep */
    double gpu_hour_usd;      /* gpu: price, USD per GPU-hour, < 0 = the
                                 scenario's price for that GPU, else the
                                 catalog's price_hour */
    int precision;            /* quantize / precision: a dam_precision, -1 = unset */
    double accuracy_delta;    /* quantize / precision / prune / distill:
                                 quality change (metric units) */
    int has_accuracy_delta;   /* 1 when accuracy_delta was given */
    char train_method[32];    /* quantize / prune in training: the method
                                 that makes the format trainable, "" = none */
    double train_cost;        /* its extra training, fraction of the run, < 0 unset */
    double sparsity;          /* prune: fraction removed */
    int sparsity_kind;        /* prune: a dam_sparsity_kind */
    int loader_workers;       /* prefetch: -1 = keep */
    int prefetch_factor;
    int pin_memory;
    int overlap_transfer;
    int overlap_sync;
    double bucket_bytes;      /* < 0 = keep */
    double tokens_per_param;  /* chinchilla: 0 = compute-optimal point of the fit */
    int fit;                  /* chinchilla: a dam_scaling_fit_id, -1 = the
                                 scenario's quality.fit */
    double fuse_fraction;     /* fuse: share of elementwise traffic and launches removed */
    int cuda_graphs;          /* cuda_graphs: 1 on, 0 off */
    int sharded;              /* data_format: -1 keep */
    double shard_bytes;       /* data_format: bytes per shard, < 0 = keep */
    int decode_on_gpu;        /* data_format: -1 keep */
    double gpu_decode_s;      /* data_format: < 0 keep */
    int batch_size;           /* batch_size: -1 keep */
    double student_params;    /* distill: student parameter count */
    int replicas;             /* serving: -1 keep */
    int max_batch;
    double batch_timeout_s;
    int preprocess_workers;
    int tp, pp, dp, cp, ep, vpp; /* layout: degrees, -1 = keep (dp: -1 =
                                    the GPUs the others leave);
                                    tensor_parallel (LLM serving): tp, GPUs
                                    per replica */
    int micro_batch;          /* layout: sequences per micro-batch */
    int zero;                 /* layout: ZeRO stage 0..3 */
    int recompute;            /* layout: a dam_recompute */
    int schedule;             /* layout: a dam_pp_schedule */
    int sequence_parallel;    /* layout: 0/1 */
    int overlap_a2a;          /* layout: 0/1, all-to-all under compute */
    int nvlink_domain;        /* network: GPUs per NVLink domain */
    int nics_per_node;        /* network: NICs per node */
    double nic_bw;            /* network: NIC line rate, bytes/s, < 0 keep */
    int rail_optimized;       /* network: 0/1 */
    double oversub;           /* network: spine oversubscription, < 0 keep */
    int algorithm;            /* network: a dam_net_algo */
    int llm_weights;          /* weights: a dam_llm_weights, -1 = keep */
    int kv_precision;         /* kv_cache: a dam_precision, -1 = keep */
    int token_budget;         /* scheduler: new tokens per iteration, -1 keep */
    int chunk_tokens;         /* scheduler: prompt tokens per sequence and
                                 iteration, -1 keep */
    int chunked_prefill;      /* scheduler: 1 on, 0 off, -1 keep */
    int max_seqs;             /* scheduler: running sequences, -1 keep */
    int preemption;           /* scheduler: a dam_llm_preempt, -1 keep */
    int capacity;             /* scheduler: a dam_llm_capacity, -1 keep */
    double prefix_hit_rate;   /* scheduler: prefix caching, < 0 keep */
    double prefix_tokens;     /* scheduler: shared prefix, < 0 keep */
    int prefill_replicas;     /* disaggregate: -1 keep */
    int decode_replicas;      /* disaggregate: -1 keep */
    int prefill_tp;           /* disaggregate: -1 keep (= tp) */
    int decode_tp;            /* disaggregate: -1 keep (= tp) */
    double kv_link_bw;        /* disaggregate: bytes/s, < 0 keep */
} dam_lever_op;

#define DAM_LEVER_MAX_OPS 8
#define DAM_MAX_LEVERS 16

typedef struct dam_lever {
    char name[64];            /* as the user named it */
    int nops;
    dam_lever_op ops[DAM_LEVER_MAX_OPS];
    int line;                 /* line in the scenario file, 0 from the command line */
} dam_lever;

/* Initialise an op of a kind with every field "unset". */
void dam_lever_op_init(dam_lever_op *op, dam_lever_kind kind);

/* A scenario file's levers (the loader fills one when asked: loader.h
 * dam_load_options.levers). Kept out of dam_scenario so that the scenarios a
 * what-if solves per option do not each carry the list. */
typedef struct dam_lever_list {
    int n;
    dam_lever v[DAM_MAX_LEVERS];
} dam_lever_list;

#define DAM_MAX_ASSUMED 16

/* One set of assumptions: what a scenario's own levers state about prices
 * and quality, so that the same lever gives the same answer wherever it is
 * written (a command-line lever without a price or a delta takes these).
 * Filled by the loader from the file's levers (lever.h dam_assumptions_add). */
typedef struct dam_assumptions {
    int nprice;
    struct {
        char gpu[DAM_ID_MAX];     /* a catalog id */
        double usd_hour;          /* the price the scenario gives it, USD/GPU-hour */
    } price[DAM_MAX_ASSUMED];
    int ndelta;
    struct {
        dam_lever_kind kind;      /* quantize, precision, prune or distill */
        int precision;            /* quantize / precision: the target format */
        int sparsity_kind;        /* prune: a dam_sparsity_kind */
        double sparsity;          /* prune: fraction removed */
        double student_params;    /* distill: the student's parameters */
        double delta;             /* the quality change the scenario states */
    } delta[DAM_MAX_ASSUMED];
} dam_assumptions;

/* An input given as a distribution instead of a number (SCENARIO.md):
 * "run" and "whatif" sample it and report intervals. */
typedef enum {
    DAM_UNCERTAIN_UNIFORM = 0, /* a = min, b = max */
    DAM_UNCERTAIN_NORMAL,      /* a = mean, b = standard deviation */
    DAM_UNCERTAIN_LOGNORMAL,   /* a = mean, b = coefficient of variation */
    DAM_UNCERTAIN_TRIANGULAR   /* a = min, b = mode, c = max */
} dam_uncertain_kind;

const char *dam_uncertain_kind_name(dam_uncertain_kind k);

typedef struct dam_uncertain {
    char key[64];             /* "workload.efficiency" */
    size_t offset;            /* byte offset of the double in dam_scenario */
    dam_uncertain_kind kind;
    double a, b, c;           /* parameters, SI (see the kinds) */
    double lo, hi;            /* samples are kept inside [lo, hi] (the key's range) */
    double scale;             /* SI per unit of the key (1e-3 for _ms): for display */
    int line;                 /* line in the scenario file */
} dam_uncertain;

#define DAM_MAX_UNCERTAIN 16

/* The whole scenario. */
typedef struct dam_scenario {
    char file[256];           /* where it was loaded from ("<embedded>" for the default) */
    char name[128];
    char question[256];
    char about[64];           /* what the question asks about: a lever's
                                 name, "baseline", or "" (render/page/whatif_page.c's
                                 rule decides) */
    double deadline;          /* s: the run time the question asks to meet
                               * (scenario.deadline_days, training); 0 =
                               * none */
    dam_mode mode;
    unsigned long seed;
    dam_machine machine;
    dam_workload workload;
    dam_data data;
    dam_pipeline pipeline;
    dam_serving serving;
    dam_quality quality;
    dam_cost cost;
    dam_assumptions assume;   /* prices and quality changes its levers state */
    dam_layout layout;        /* parallel layout (layout.h); layout.on = 0
                               * when the scenario gives none */
    char applied[256];        /* names of levers applied so far, "" for a baseline */
    int nuncertain;           /* inputs given as distributions */
    dam_uncertain uncertain[DAM_MAX_UNCERTAIN]; /* their values above are the means */
} dam_scenario;

/* P(X <= x) for uncertain input u (untruncated). */
double dam_uncertain_cdf(const dam_uncertain *u, double x);
/* The value of uncertain input u at quantile q in (0, 1); normal and
 * lognormal inputs are truncated to [lo, hi]. */
double dam_uncertain_quantile(const dam_uncertain *u, double q);
/* The mean of uncertain input u. */
double dam_uncertain_mean(const dam_uncertain *u);
/* Set input i of s to v (kept inside its range); s must be the scenario the
 * input belongs to (or a copy of it). */
void dam_uncertain_set(dam_scenario *s, int i, double v);

/* Total GPUs (gpus_per_node * nodes), in 64 bits: the product of two
 * loaded counts never overflows (the loader caps it at DAM_MAX_GPUS). */
int64_t dam_scenario_gpus(const dam_scenario *s);
/* Global batch: batch_size * total GPUs, or with a parallel layout dp x
 * micro_batch x micro_batches (sequences). */
double dam_scenario_global_batch(const dam_scenario *s);
/* Steps per epoch (ceil(samples / global batch)). */
double dam_scenario_steps_per_epoch(const dam_scenario *s);
/* The graph options scenario s implies (mode, sequence length,
 * recomputation; no optimizer: the solvers cost it from the workload). */
void dam_scenario_graph_opts(const dam_scenario *s, dam_graph_opts *o);
/* Build s's graph into s->workload.graph (empty without architecture).
 * Loading and levers call it; returns DAM_OK or DAM_EINPUT (e filled). */
int dam_scenario_build_graph(dam_scenario *s, dam_error *e);
/* 1 when s's stored graph was built for another model or options. */
int dam_scenario_graph_stale(const dam_scenario *s);
/* The graph of s as it is now: the stored one when it was built for the
 * current model and options, else built into scratch (a changed model or
 * flag can never leave a stale graph behind). NULL without architecture
 * or when the graph cannot be built. */
const dam_graph *dam_scenario_graph(const dam_scenario *s, dam_graph *scratch);
/* Achieved fraction of the memory bandwidth the scenario's memory-bound
 * work runs at: memory_efficiency when given, else the GPU's m_g. */
double dam_scenario_mem_frac(const dam_scenario *s);

/* Bytes of gradients all-reduced per step (ZeRO-3: 1.5x). */
double dam_scenario_grad_bytes(const dam_scenario *s);
/* Peak FLOP/s of the scenario's GPU at its precision. */
double dam_scenario_peak(const dam_scenario *s);
/* Passes over the data the run costs: data.epochs * (1 + retrain_fraction). */
double dam_scenario_run_epochs(const dam_scenario *s);
/* Bytes per sample copied host to device: the encoded (raw) bytes when
 * decode runs on the GPU, else the decoded input bytes. */
double dam_scenario_copy_bytes(const dam_scenario *s);

#endif
