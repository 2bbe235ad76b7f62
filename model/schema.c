/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * schema.c: the scenario file's keys, one row each, one table per group
 * (schema.h says what a row holds and how to add one). Rows are in the
 * order the loader reads them and "did you mean" prefers them; ranges are
 * in the key's written unit. The upper limits keep every figure damsim
 * computes finite (a bandwidth of 1e-300 GB/s would make every time
 * infinite); the counts' bounds are scenario.h's DAM_MAX_*.
 */
#include "model/schema.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "model/scaling.h"
#include "model/scenario.h"

#define S_AT(f) offsetof(dam_scenario, f)
#define S_SIZE(f) sizeof(((dam_scenario *)0)->f)
#define ROWS(a) a, sizeof a / sizeof a[0]
#define REQ DAM_KEY_REQUIRED
#define LIM DAM_KEY_LIMIT
#define DEF DAM_KEY_DEFAULT
#define CUSTOM DAM_KEY_CUSTOM
#define NOWHERE DAM_KEY_NOWHERE
#define GB 1e9
#define GIB 1073741824.0
#define MB 1e6
#define MS 1e-3
#define US 1e-6

/* The words of the choice keys, in their enums' order. */
static const char *const modes[] = {"training", "inference", "serving", NULL};
static const char *const storage_kinds[] = {"local_nvme", "network_fs",
                                            "page_cache", "hdd",
                                            "object_store", NULL};
static const char *const algo_names[] = {"auto", "ring", "tree",
                                         "hierarchical", NULL};
const char *const dam_key_precisions[] = {"fp32", "tf32", "fp16", "bf16",
                                         "fp8",  "int8", NULL};
static const char *const engines[] = {"fused", "eager", NULL};
static const char *const memory_formats[] = {"channels_last",
                                             "channels_first", NULL};
static const char *const optimizers[] = {"adam", "sgd", NULL};
const char *const dam_dist_names[] = {"deterministic", "exponential",
                                      "lognormal", "uniform", "normal", NULL};
static const char *const sched_names[] = {"1f1b", "gpipe", "interleaved",
                                          NULL};
static const char *const recompute_names[] = {"none", "selective", "full",
                                              NULL};
static const char *const arrivals[] = {"poisson", "deterministic", "trace",
                                       NULL};
static const char *const reshard_names[] = {"micro_batch", "step", NULL};
static const char *const offload_names[] = {"none", "optimizer", "params",
                                            NULL};
static const char *const lora_target_names[] = {"attention", "mlp", "all",
                                                NULL};
static const char *const lora_bases[] = {"bf16", "nf4", NULL};
static const char *const llm_weights[] = {"native", "fp8", "int8", "int4",
                                          "nvfp4", "mxfp4",
                                          "bf16", "fp16", NULL};
static const char *const llm_kv[] = {"bf16", "fp16", "fp8", "int8", NULL};
static const char *const llm_preempt[] = {"recompute", "swap", NULL};
static const char *const llm_capacity[] = {"max_utilization",
                                           "guaranteed_no_evict", NULL};
static const char *const llm_spec_methods[] = {"draft", "mtp", NULL};
static const char *const llm_routes[] = {"least_loaded", "round_robin",
                                         NULL};

/* ---- the file's top level and scenario ---------------------------------- */

/* A group of the file: read by the loader's code (its own table below). */
#define GROUP_ROW(name, fl, what)                                           \
    {name, DAM_KEY_GROUP, NOWHERE, .flags = CUSTOM | (fl), .help = what}

static const dam_key_row top_rows[] = {
    GROUP_ROW("scenario", REQ, "what the file asks"),
    GROUP_ROW("catalogs", 0, "extra catalog files"),
    GROUP_ROW("machine", REQ, "the hardware"),
    GROUP_ROW("workload", REQ, "what runs on the GPUs"),
    GROUP_ROW("data", 0, "the input data (training and inference)"),
    GROUP_ROW("pipeline", 0, "the input pipeline (training and inference)"),
    GROUP_ROW("serving", 0, "requests and replicas (serving)"),
    GROUP_ROW("quality", 0, "the quality the run buys"),
    GROUP_ROW("cost", 0, "prices"),
    GROUP_ROW("levers", 0, "the what-if moves (model/lever.h)"),
    GROUP_ROW("parallel", 0, "a parallel layout (training)"),
    GROUP_ROW("llm", 0, "LLM serving"),
};

static const dam_key_row scenario_rows[] = {
    {"name", DAM_KEY_TEXT, S_AT(name), .size = S_SIZE(name), .flags = REQ,
     .help = "a title"},
    {"question", DAM_KEY_TEXT, S_AT(question), .size = S_SIZE(question),
     .flags = REQ, .help = "the question the file asks"},
    {"mode", DAM_KEY_CHOICE, S_AT(mode), .choices = modes, .flags = REQ,
     .help = "training, inference or serving"},
    {"seed", DAM_KEY_INT, NOWHERE, .lo = 0, .hi = 2147483647,
     .flags = CUSTOM | DEF, .def = 1,
     .help = "the seed of every random stream"},
    {"about", DAM_KEY_TEXT, S_AT(about), .size = S_SIZE(about),
     .help = "a lever's name or \"baseline\": what the question asks about"},
    {"deadline_days", DAM_KEY_NUM, S_AT(deadline), .unit = "days",
     .scale = 86400.0, .cls = DAM_KEY_POS, .lo = 1e-6, .hi = 1e6,
     .flags = LIM | CUSTOM | DAM_KEY_SCALAR,
     .help = "the run time a training question asks to meet"},
};

static const dam_key_row catalogs_rows[] = {
    {"gpus", DAM_KEY_TEXT, NOWHERE, .size = 256, .flags = CUSTOM,
     .help = "a GPU catalog, relative to the scenario's folder"},
    {"models", DAM_KEY_TEXT, NOWHERE, .size = 256, .flags = CUSTOM,
     .help = "a model catalog, relative to the scenario's folder"},
};

/* ---- machine ----------------------------------------------------------- */

static const dam_key_row machine_rows[] = {
    {"gpu", DAM_KEY_TEXT, NOWHERE, .flags = REQ | CUSTOM,
     .help = "catalog id, or an inline group (optionally base = id)"},
    {"gpus_per_node", DAM_KEY_INT, S_AT(machine.gpus_per_node), .lo = 1,
     .hi = 4096, .flags = REQ, .help = "GPUs per node"},
    {"nodes", DAM_KEY_INT, S_AT(machine.nodes), .lo = 1, .hi = 1000000,
     .flags = DEF | CUSTOM, .def = 1, .help = "nodes"},
    GROUP_ROW("host", REQ, "the host of each node"),
    GROUP_ROW("storage", REQ, "where the data is read from"),
    GROUP_ROW("network", 0, "the GPU network (required with several nodes)"),
};

static const dam_key_row host_rows[] = {
    {"cpu_cores", DAM_KEY_INT, S_AT(machine.cpu_cores), .lo = 1,
     .hi = DAM_MAX_CORES, .flags = REQ,
     .help = "cores per node, shared by every loader worker of the node"},
    {"pcie_gbs", DAM_KEY_NUM, S_AT(machine.pcie_bw), .unit = "GB/s",
     .scale = GB, .cls = DAM_KEY_POS, .lo = 1e-3, .hi = 1e4,
     .flags = REQ | LIM,
     .help = "effective host-to-device bandwidth of one PCIe link"},
    {"gpus_per_pcie_link", DAM_KEY_INT, S_AT(machine.gpus_per_pcie_link),
     .lo = 1, .hi = 4096, .flags = DEF | CUSTOM, .def = 1,
     .help = "GPUs sharing one host bridge (<= gpus_per_node)"},
    {"pageable_fraction", DAM_KEY_NUM, S_AT(machine.pageable_fraction),
     .cls = DAM_KEY_UNIT, .flags = DEF, .def = 0.5,
     .help = "pageable copies run at this share of the link"},
    {"memory_gbs", DAM_KEY_NUM, S_AT(machine.host_mem_bw), .unit = "GB/s",
     .scale = GB, .cls = DAM_KEY_POS,
     .help = "host DRAM bandwidth per node (parallel.offload needs it)"},
};

static const dam_key_row storage_rows[] = {
    {"kind", DAM_KEY_CHOICE, S_AT(machine.storage_kind),
     .choices = storage_kinds, .help = "the kind of storage"},
    {"read_gbs", DAM_KEY_NUM, S_AT(machine.storage_bw), .unit = "GB/s",
     .scale = GB, .cls = DAM_KEY_POS, .lo = 1e-4, .hi = 1e5,
     .flags = REQ | LIM, .help = "the node's read bandwidth"},
    {"latency_ms", DAM_KEY_NUM, S_AT(machine.storage_latency), .unit = "ms",
     .scale = MS, .cls = DAM_KEY_NONNEG, .lo = 0, .hi = 1e5, .flags = LIM,
     .help = "per file (or per shard)"},
    {"shared", DAM_KEY_BOOL, NOWHERE, .flags = CUSTOM,
     .help = "read_gbs is one cluster-wide file system's total"},
};

static const dam_key_row network_rows[] = {
    {"intra_busbw_gbs", DAM_KEY_NUM, S_AT(machine.intra_busbw),
     .unit = "GB/s", .scale = GB, .cls = DAM_KEY_POS, .lo = 1e-3, .hi = 1e5,
     .flags = LIM | CUSTOM, .help = "all-reduce bus bandwidth inside a node",
     .source = "default: the GPU's node fabric (data/gpus.cfg)"},
    {"inter_busbw_gbs", DAM_KEY_NUM, S_AT(machine.inter_busbw),
     .unit = "GB/s", .scale = GB, .cls = DAM_KEY_POS, .lo = 1e-4, .hi = 1e5,
     .flags = LIM | CUSTOM,
     .help = "across nodes, per node (required with several nodes)"},
    {"latency_us", DAM_KEY_NUM, S_AT(machine.net_latency), .unit = "us",
     .scale = US, .cls = DAM_KEY_NONNEG, .lo = 0, .hi = 1e6, .flags = LIM,
     .help = "per ring step across nodes (alpha)",
     .source = "NCCL's tuning model"},
    {"nvlink_domain", DAM_KEY_INT, S_AT(machine.net.domain), .lo = 1,
     .hi = DAM_MAX_GPUS, .help = "GPUs per NVLink/NVSwitch domain"},
    {"nics_per_node", DAM_KEY_INT, S_AT(machine.net.nics), .lo = 1,
     .hi = 1024, .help = "scale-out NICs per node"},
    {"nic_gbs", DAM_KEY_NUM, S_AT(machine.net.nic_bw), .unit = "GB/s",
     .scale = GB, .cls = DAM_KEY_POS, .flags = CUSTOM,
     .help = "line rate of one NIC, one direction"},
    {"nic_efficiency", DAM_KEY_NUM, S_AT(machine.net.nic_eff),
     .cls = DAM_KEY_UNIT, .help = "share of the line rate collectives reach",
     .source = "nccl-tests: 47 of 50 GB/s per NDR NIC"},
    {"rail_optimized", DAM_KEY_BOOL, S_AT(machine.net.rail_optimized),
     .flags = DEF, .def = 1,
     .help = "NIC i of every node on rail i"},
    {"oversubscription", DAM_KEY_NUM, S_AT(machine.net.oversub),
     .cls = DAM_KEY_GE1, .help = "spine oversubscription"},
    {"algorithm", DAM_KEY_CHOICE, S_AT(machine.net.algo),
     .choices = algo_names, .help = "all-reduce algorithm"},
    {"nvlink_latency_us", DAM_KEY_NUM, S_AT(machine.net.lat_in),
     .unit = "us", .scale = US, .cls = DAM_KEY_POS,
     .help = "per ring step inside a domain"},
    {"base_latency_us", DAM_KEY_NUM, S_AT(machine.net.base_lat),
     .unit = "us", .scale = US, .cls = DAM_KEY_POS,
     .help = "per collective call"},
};

/* ---- workload ---------------------------------------------------------- */

static const dam_key_row workload_rows[] = {
    {"model", DAM_KEY_TEXT, NOWHERE, .flags = REQ | CUSTOM,
     .help = "catalog id, or an inline group (optionally base = id)"},
    {"precision", DAM_KEY_CHOICE, S_AT(workload.precision),
     .choices = dam_key_precisions, .flags = REQ | CUSTOM,
     .help = "the compute format; the GPU must support it"},
    {"batch_size", DAM_KEY_INT, S_AT(workload.batch_size), .lo = 1,
     .hi = DAM_MAX_BATCH, .flags = REQ | CUSTOM,
     .help = "per GPU (samples; sequences for language models)"},
    {"efficiency", DAM_KEY_NUM, S_AT(workload.eta), .cls = DAM_KEY_UNIT,
     .lo = 1e-4, .hi = 1.0, .flags = LIM,
     .help = "compute-bound kernels at peak x eta (an override)"},
    {"memory_efficiency", DAM_KEY_NUM, S_AT(workload.eta_mem),
     .cls = DAM_KEY_UNIT, .lo = 1e-4, .hi = 1.0, .flags = LIM | DEF,
     .def = 0.85, .help = "achieved fraction of HBM bandwidth (an override)"},
    {"kernels_per_step", DAM_KEY_INT, S_AT(workload.kernels_per_step),
     .lo = 0, .hi = DAM_MAX_KERNELS,
     .help = "launches per step (default: the graph's)"},
    {"launch_us", DAM_KEY_NUM, S_AT(workload.launch_s), .unit = "us",
     .scale = US, .cls = DAM_KEY_NONNEG, .lo = 0, .hi = 1e5,
     .flags = LIM | DEF, .def = 4.0,
     .help = "host cost of one eager launch"},
    {"framework_overhead_ms", DAM_KEY_NUM,
     S_AT(workload.framework_overhead_s), .unit = "ms", .scale = MS,
     .cls = DAM_KEY_NONNEG, .lo = 0, .hi = 1e6, .flags = LIM,
     .help = "per-step host overhead"},
    {"cuda_graphs", DAM_KEY_BOOL, S_AT(workload.cuda_graphs),
     .help = "launches captured in a graph"},
    {"activation_recompute", DAM_KEY_BOOL,
     S_AT(workload.activation_recompute),
     .help = "recompute the forward in backward"},
    {"optimizer", DAM_KEY_CHOICE, NOWHERE, .choices = optimizers,
     .flags = CUSTOM, .help = "optimizer state per parameter (adam, sgd)"},
    {"compute_cv", DAM_KEY_NUM, S_AT(workload.compute_cv),
     .cls = DAM_KEY_NONNEG, .lo = 0, .hi = 2.0, .flags = LIM,
     .help = "step-to-step compute jitter in the simulation"},
    {"zero_stage", DAM_KEY_INT, S_AT(workload.zero_stage), .lo = 0, .hi = 3,
     .help = "ZeRO/FSDP sharding stage"},
    {"seq_len", DAM_KEY_NUM, NOWHERE, .unit = "tokens", .cls = DAM_KEY_GE1,
     .flags = CUSTOM, .help = "tokens per sequence (transformers)"},
    GROUP_ROW("framework", 0, "the software stack's constants"),
    {"inference_engine", DAM_KEY_CHOICE, NOWHERE, .choices = engines,
     .flags = CUSTOM, .help = "fused engine graph or eager forward"},
    {"memory_format", DAM_KEY_CHOICE, NOWHERE, .choices = memory_formats,
     .flags = CUSTOM, .help = "CNN activation layout"},
    {"recipe", DAM_KEY_TEXT, NOWHERE, .size = DAM_ID_MAX, .flags = CUSTOM,
     .help = "a layout's precision recipe (model/recipe.c; default: from "
             "precision and parallel.profile)"},
    GROUP_ROW("lora", 0, "LoRA/QLoRA fine-tuning of a layout"),
};

/* workload.lora (read with the layout's training stack, loader_groups.c) */
static const dam_key_row lora_rows[] = {
    {"rank", DAM_KEY_INT, S_AT(workload.lora_rank), .lo = 1, .hi = 65536,
     .flags = REQ | CUSTOM,
     .help = "adapter rank (below the model's hidden size)"},
    {"targets", DAM_KEY_CHOICE, NOWHERE, .choices = lora_target_names,
     .flags = CUSTOM, .help = "projections with adapters (default all)"},
    {"base", DAM_KEY_CHOICE, NOWHERE, .choices = lora_bases, .flags = CUSTOM,
     .help = "base weights: bf16, or nf4 (QLoRA)"},
};

/* ---- parallel (defaults: dam_layout_init, when the group is there) ------- */

static const dam_key_row parallel_rows[] = {
    {"tp", DAM_KEY_INT, S_AT(layout.tp), .lo = 1, .hi = 4096,
     .help = "tensor-parallel degree"},
    {"pp", DAM_KEY_INT, S_AT(layout.pp), .lo = 1, .hi = 4096,
     .help = "pipeline stages"},
    {"dp", DAM_KEY_INT, S_AT(layout.dp), .lo = 1, .hi = DAM_MAX_GPUS,
     .flags = CUSTOM, .help = "data-parallel degree (default: the GPUs left)"},
    {"cp", DAM_KEY_INT, S_AT(layout.cp), .lo = 1, .hi = 4096,
     .help = "context-parallel degree"},
    {"ep", DAM_KEY_INT, S_AT(layout.ep), .lo = 1, .hi = 65536,
     .help = "expert-parallel degree (MoE)"},
    {"vpp", DAM_KEY_INT, S_AT(layout.vpp), .lo = 1, .hi = 1024,
     .help = "model chunks per pipeline rank"},
    {"first_layers", DAM_KEY_INT, S_AT(layout.first_layers), .lo = 1,
     .hi = 100000, .help = "blocks of the first pipeline chunk"},
    {"last_layers", DAM_KEY_INT, S_AT(layout.last_layers), .lo = 1,
     .hi = 100000, .help = "blocks of the last pipeline chunk"},
    {"schedule", DAM_KEY_CHOICE, S_AT(layout.schedule),
     .choices = sched_names, .flags = CUSTOM, .help = "pipeline schedule"},
    {"sequence_parallel", DAM_KEY_BOOL, S_AT(layout.sp),
     .help = "shard norms and dropout over tp"},
    {"micro_batch", DAM_KEY_INT, S_AT(layout.micro_batch), .lo = 1,
     .hi = 1000000, .help = "sequences per micro-batch"},
    {"global_batch", DAM_KEY_INT, NOWHERE, .lo = 1, .hi = 1000000000,
     .flags = REQ | CUSTOM, .help = "sequences per step"},
    {"zero", DAM_KEY_INT, S_AT(layout.zero), .lo = 0, .hi = 3,
     .help = "ZeRO stage over data parallel"},
    {"fsdp", DAM_KEY_BOOL, S_AT(layout.fsdp), .flags = CUSTOM,
     .help = "PyTorch FSDP full sharding (= zero 3)"},
    {"recompute", DAM_KEY_CHOICE, S_AT(layout.recompute),
     .choices = recompute_names, .help = "activation recomputation"},
    {"overlap_grad_reduce", DAM_KEY_BOOL, S_AT(layout.overlap_grad),
     .help = "gradient reductions overlap the last backward"},
    {"overlap_param_gather", DAM_KEY_BOOL, S_AT(layout.overlap_param),
     .help = "ZeRO parameter gathers prefetched under compute"},
    {"overlap_all_to_all", DAM_KEY_BOOL, S_AT(layout.overlap_a2a),
     .help = "expert all-to-alls under another micro-batch's compute"},
    {"reserved_gib", DAM_KEY_NUM, S_AT(layout.reserve), .unit = "GiB",
     .scale = GIB, .cls = DAM_KEY_NONNEG,
     .help = "memory the runtime holds outside the model"},
    GROUP_ROW("straggler", 0, "one slow GPU"),
    /* the training stack (read after the walk, loader_groups.c) */
    {"profile", DAM_KEY_TEXT, NOWHERE, .size = DAM_ID_MAX, .flags = CUSTOM,
     .help = "a framework profile's defaults (model/recipe.c)"},
    {"tp_comm_overlap", DAM_KEY_BOOL, S_AT(layout.tp_overlap),
     .flags = CUSTOM,
     .help = "tensor-parallel collectives pipelined with their GEMMs"},
    {"reshard", DAM_KEY_CHOICE, S_AT(layout.reshard_step),
     .choices = reshard_names, .flags = CUSTOM,
     .help = "ZeRO-3/FSDP gathers per micro-batch or per step"},
    {"grad_bytes", DAM_KEY_NUM, S_AT(workload.grad_bytes), .unit = "bytes",
     .cls = DAM_KEY_POS, .flags = CUSTOM | DAM_KEY_SCALAR,
     .help = "bytes per gradient kept, 2 or 4"},
    {"grad_reduce_bytes", DAM_KEY_NUM, S_AT(workload.grad_comm_bytes),
     .unit = "bytes", .cls = DAM_KEY_POS, .flags = CUSTOM | DAM_KEY_SCALAR,
     .help = "bytes per gradient reduced over data parallel, 2 or 4"},
    {"offload", DAM_KEY_CHOICE, S_AT(layout.offload),
     .choices = offload_names, .flags = CUSTOM,
     .help = "ZeRO-Offload: none, optimizer or params to host memory"},
};

static const dam_key_row straggler_rows[] = {
    {"rank", DAM_KEY_INT, S_AT(layout.slow_rank), .lo = 0,
     .hi = DAM_MAX_GPUS - 1, .flags = REQ, .help = "its GPU rank"},
    {"slowdown", DAM_KEY_NUM, S_AT(layout.slow_factor), .cls = DAM_KEY_GE1,
     .flags = REQ, .help = "its compute time multiplier"},
};

/* ---- data and pipeline (training and inference) -------------------------- */

static const dam_key_row data_rows[] = {
    {"samples", DAM_KEY_NUM, S_AT(data.samples), .cls = DAM_KEY_POS,
     .lo = 0, .hi = 1e13, .flags = REQ | LIM, .help = "per epoch"},
    {"raw_bytes_per_sample", DAM_KEY_NUM, S_AT(data.raw_bytes),
     .unit = "bytes", .cls = DAM_KEY_NONNEG, .lo = 0, .hi = 1e11,
     .flags = LIM, .help = "on storage (default: the model's)"},
    {"input_bytes_per_sample", DAM_KEY_NUM, S_AT(data.input_bytes),
     .unit = "bytes", .cls = DAM_KEY_NONNEG, .lo = 0, .hi = 1e11,
     .flags = LIM, .help = "copied to the GPU (default: the model's)"},
    {"decode_ms", DAM_KEY_NUM, S_AT(data.decode_s), .unit = "ms",
     .scale = MS, .cls = DAM_KEY_NONNEG, .lo = 0, .hi = 1e5, .flags = LIM,
     .help = "CPU time to decode and augment one sample on one core"},
    {"decode_cv", DAM_KEY_NUM, S_AT(data.decode_cv), .cls = DAM_KEY_NONNEG,
     .lo = 0, .hi = 2.0, .flags = LIM, .help = "its spread"},
    {"decode_dist", DAM_KEY_CHOICE, S_AT(data.decode_dist),
     .choices = dam_dist_names, .flags = DEF, .def = DAM_DIST_LOGNORMAL,
     .help = "its distribution"},
    {"epochs", DAM_KEY_NUM, S_AT(data.epochs), .cls = DAM_KEY_POS, .lo = 0,
     .hi = 1e6, .flags = LIM | DEF, .def = 1, .help = "passes over the data"},
    {"decode_on_gpu", DAM_KEY_BOOL, S_AT(data.decode_on_gpu),
     .help = "decode on the GPU (DALI, nvJPEG)"},
    {"gpu_decode_ms", DAM_KEY_NUM, S_AT(data.gpu_decode_s), .unit = "ms",
     .scale = MS, .cls = DAM_KEY_NONNEG, .lo = 0, .hi = 1e5, .flags = LIM,
     .help = "GPU time to decode one sample"},
    {"sharded", DAM_KEY_BOOL, S_AT(data.sharded),
     .help = "sequential shards: one storage latency per shard"},
    {"shard_mb", DAM_KEY_NUM, S_AT(data.shard_bytes), .unit = "MB",
     .scale = MB, .cls = DAM_KEY_POS, .lo = 1e-3, .hi = 1e7,
     .flags = LIM | DEF, .def = 128, .help = "bytes per shard"},
    {"tokens", DAM_KEY_NUM, S_AT(quality.tokens), .cls = DAM_KEY_POS,
     .lo = 0, .hi = 1e16, .flags = LIM,
     .help = "training tokens (language models)"},
    {"decode_samples_file", DAM_KEY_TEXT, NOWHERE, .size = 256,
     .flags = CUSTOM, .help = "measured decode times, ms, one per line"},
};

static const dam_key_row pipeline_rows[] = {
    {"loader_workers", DAM_KEY_INT, S_AT(pipeline.loader_workers), .lo = 0,
     .hi = DAM_MAX_WORKERS, .flags = REQ | CUSTOM,
     .help = "loader processes per GPU (0: the training loop loads)"},
    {"prefetch_factor", DAM_KEY_INT, S_AT(pipeline.prefetch_factor), .lo = 1,
     .hi = DAM_MAX_PREFETCH, .flags = DEF, .def = 2,
     .help = "batches queued per worker"},
    {"pin_memory", DAM_KEY_BOOL, S_AT(pipeline.pin_memory), .flags = DEF,
     .def = 1, .help = "pinned copies run at the full link rate"},
    {"overlap_transfer", DAM_KEY_BOOL, S_AT(pipeline.overlap_transfer),
     .help = "copy batch k+1 while batch k computes"},
    {"bucket_mb", DAM_KEY_NUM, S_AT(pipeline.bucket_bytes), .unit = "MB",
     .scale = MB, .cls = DAM_KEY_POS, .lo = 1e-3, .hi = 1e7,
     .flags = LIM | DEF, .def = 25, .help = "gradient bucket size",
     .source = "PyTorch DDP bucket_cap_mb default"},
    {"overlap_sync", DAM_KEY_BOOL, S_AT(pipeline.overlap_sync), .flags = DEF,
     .def = 1, .help = "all-reduce overlaps backward"},
    {"warmup_steps", DAM_KEY_INT, S_AT(pipeline.warmup_steps), .lo = 0,
     .hi = DAM_MAX_WARMUP, .flags = DEF, .def = 10,
     .help = "steps left out of the statistics"},
    {"steps", DAM_KEY_INT, S_AT(pipeline.steps), .lo = 1,
     .hi = DAM_MAX_STEPS, .flags = DEF, .def = 300,
     .help = "measured steps per replication"},
    {"replications", DAM_KEY_INT, S_AT(pipeline.replications), .lo = 1,
     .hi = DAM_MAX_REPLICATIONS, .flags = DEF, .def = 5,
     .help = "independent replications"},
};

/* ---- serving and LLM serving ------------------------------------------- */

static const dam_key_row serving_rows[] = {
    {"arrival", DAM_KEY_CHOICE, S_AT(serving.arrival), .choices = arrivals,
     .flags = REQ, .help = "how requests arrive"},
    {"rate_per_s", DAM_KEY_NUM, S_AT(serving.rate), .cls = DAM_KEY_POS,
     .lo = 1e-6, .hi = 1e7, .flags = LIM | CUSTOM,
     .help = "offered load (not for trace)"},
    {"trace", DAM_KEY_TEXT, S_AT(serving.trace), .size = S_SIZE(serving.trace),
     .flags = CUSTOM, .help = "arrival timestamps, one per line"},
    {"preprocess_ms", DAM_KEY_NUM, S_AT(serving.preprocess_s), .unit = "ms",
     .scale = MS, .cls = DAM_KEY_NONNEG, .lo = 0, .hi = 1e6,
     .flags = LIM | CUSTOM, .help = "CPU time per request"},
    {"preprocess_cv", DAM_KEY_NUM, S_AT(serving.preprocess_cv),
     .cls = DAM_KEY_NONNEG, .lo = 0, .hi = 2.0, .flags = LIM,
     .help = "its spread"},
    {"preprocess_dist", DAM_KEY_CHOICE, S_AT(serving.preprocess_dist),
     .choices = dam_dist_names, .flags = CUSTOM,
     .help = "its distribution (lognormal when cv > 0)"},
    {"preprocess_workers", DAM_KEY_INT, S_AT(serving.preprocess_workers),
     .lo = 1, .hi = DAM_MAX_SERVING_WORKERS, .flags = DEF, .def = 1,
     .help = "CPU preprocessing workers"},
    {"postprocess_ms", DAM_KEY_NUM, S_AT(serving.postprocess_s), .unit = "ms",
     .scale = MS, .cls = DAM_KEY_NONNEG, .lo = 0, .hi = 1e6, .flags = LIM,
     .help = "after compute"},
    {"max_batch", DAM_KEY_INT, S_AT(serving.max_batch), .lo = 1,
     .hi = DAM_MAX_SERVING_BATCH, .flags = DEF, .def = 1,
     .help = "dynamic batcher limit"},
    {"batch_timeout_ms", DAM_KEY_NUM, S_AT(serving.batch_timeout_s),
     .unit = "ms", .scale = MS, .cls = DAM_KEY_NONNEG, .lo = 0, .hi = 1e6,
     .flags = LIM, .help = "wait from a forming batch's first request"},
    {"replicas", DAM_KEY_INT, S_AT(serving.replicas), .lo = 1,
     .hi = DAM_MAX_GPUS, .flags = DEF, .def = 1,
     .help = "GPUs serving one queue"},
    {"slo_p99_ms", DAM_KEY_NUM, S_AT(serving.slo_p99_s), .unit = "ms",
     .scale = MS, .cls = DAM_KEY_POS, .lo = 1e-6, .hi = 1e8,
     .flags = LIM | CUSTOM, .help = "the latency objective"},
    {"request_bytes", DAM_KEY_NUM, S_AT(serving.request_bytes),
     .unit = "bytes", .cls = DAM_KEY_NONNEG, .lo = 0, .hi = 1e11,
     .flags = LIM, .help = "copied to the GPU per request"},
    {"requests", DAM_KEY_NUM, S_AT(serving.requests), .cls = DAM_KEY_GE1,
     .lo = 1, .hi = DAM_MAX_REQUESTS, .flags = LIM | DEF, .def = 20000,
     .help = "simulated requests per replication"},
    {"replications", DAM_KEY_INT, S_AT(serving.replications), .lo = 1,
     .hi = DAM_MAX_REPLICATIONS, .flags = DEF, .def = 5,
     .help = "independent replications"},
    {"compute_dist", DAM_KEY_CHOICE, S_AT(serving.compute_dist),
     .choices = dam_dist_names, .flags = CUSTOM,
     .help = "compute-time distribution (lognormal when compute_cv > 0)"},
};

/* The `llm` group: defaults are vLLM's where it has one, set by the loader
 * when the group is there (scenarios/README.md states them). */
#define LLM_TOKENS(p, f, what)                                              \
    {p "_tokens", DAM_KEY_NUM, S_AT(serving.llm.f.mean), .unit = "tokens",  \
     .cls = DAM_KEY_GE1, .flags = REQ | CUSTOM, .help = "mean " what},      \
    {p "_dist", DAM_KEY_CHOICE, S_AT(serving.llm.f.dist),                   \
     .choices = dam_dist_names, .flags = CUSTOM, .help = "their spread"},   \
    {p "_cv", DAM_KEY_NUM, S_AT(serving.llm.f.cv), .cls = DAM_KEY_NONNEG,   \
     .flags = CUSTOM, .help = "their coefficient of variation"},            \
    {p "_min", DAM_KEY_NUM, S_AT(serving.llm.f.min), .unit = "tokens",      \
     .cls = DAM_KEY_GE1, .flags = CUSTOM, .help = "fewest"},                \
    {p "_max", DAM_KEY_NUM, S_AT(serving.llm.f.max), .unit = "tokens",      \
     .cls = DAM_KEY_GE1, .flags = CUSTOM, .help = "most"}

static const dam_key_row llm_rows[] = {
    LLM_TOKENS("input", input, "prompt tokens per request"),
    LLM_TOKENS("output", output, "output tokens per request"),
    {"tp", DAM_KEY_INT, S_AT(serving.llm.tp), .lo = 1, .hi = 64,
     .flags = CUSTOM, .help = "GPUs per replica, inside one node"},
    {"weights", DAM_KEY_CHOICE, NOWHERE, .choices = llm_weights,
     .flags = CUSTOM, .help = "weight format"},
    {"kv_cache", DAM_KEY_CHOICE, NOWHERE, .choices = llm_kv,
     .flags = CUSTOM, .help = "KV-cache format"},
    {"block_tokens", DAM_KEY_INT, S_AT(serving.llm.block_tokens), .lo = 1,
     .hi = 4096, .flags = CUSTOM, .help = "tokens per paged KV block",
     .source = "vLLM default 16"},
    {"memory_fraction", DAM_KEY_NUM, S_AT(serving.llm.memory_fraction),
     .cls = DAM_KEY_UNIT, .flags = CUSTOM,
     .help = "share of each GPU's memory the engine takes",
     .source = "vLLM gpu_memory_utilization default 0.9"},
    {"token_budget", DAM_KEY_INT, S_AT(serving.llm.token_budget), .lo = 1,
     .hi = 1 << 20, .flags = CUSTOM, .help = "new tokens per iteration"},
    {"chunked_prefill", DAM_KEY_BOOL, S_AT(serving.llm.chunked_prefill),
     .flags = CUSTOM, .help = "prompts in chunks beside decodes"},
    {"chunk_tokens", DAM_KEY_INT, S_AT(serving.llm.chunk_tokens), .lo = 1,
     .hi = 1 << 20, .flags = CUSTOM,
     .help = "prompt tokens of one sequence per iteration"},
    {"max_seqs", DAM_KEY_INT, S_AT(serving.llm.max_seqs), .lo = 1,
     .hi = 1 << 20, .flags = CUSTOM,
     .help = "sequences running at once per replica",
     .source = "vLLM max_num_seqs default 256"},
    {"preemption", DAM_KEY_CHOICE, S_AT(serving.llm.preemption),
     .choices = llm_preempt, .flags = CUSTOM,
     .help = "recompute or swap when KV blocks run out"},
    {"swap_gb", DAM_KEY_NUM, S_AT(serving.llm.swap_bytes), .unit = "GiB",
     .scale = GIB, .cls = DAM_KEY_NONNEG, .flags = CUSTOM,
     .help = "host memory per GPU for swapped KV",
     .source = "vLLM swap_space default 4 GiB"},
    {"router", DAM_KEY_CHOICE, S_AT(serving.llm.route), .choices = llm_routes,
     .flags = CUSTOM, .help = "how the router picks a replica"},
    {"iteration_overhead_ms", DAM_KEY_NUM, S_AT(serving.llm.iteration_s),
     .unit = "ms", .scale = MS, .cls = DAM_KEY_NONNEG, .flags = CUSTOM,
     .help = "host time per iteration (default: the engine's)"},
    {"capacity_policy", DAM_KEY_CHOICE, S_AT(serving.llm.capacity),
     .choices = llm_capacity, .flags = CUSTOM,
     .help = "admission from the KV cache (default: the engine's)"},
    {"engine", DAM_KEY_TEXT, S_AT(serving.llm.engine),
     .size = S_SIZE(serving.llm.engine), .flags = CUSTOM,
     .help = "the engine profile: the scheduler keys' defaults",
     .source = "data/engines.cfg; default vllm"},
    {"iteration_seq_us", DAM_KEY_NUM, S_AT(serving.llm.iteration_seq_s),
     .unit = "us", .scale = US, .cls = DAM_KEY_NONNEG, .flags = CUSTOM,
     .help = "host time per sequence of an iteration"},
    {"overlap_scheduler", DAM_KEY_BOOL, S_AT(serving.llm.overlap),
     .flags = CUSTOM, .help = "host work of the next iteration beside the GPU"},
    {"prefix_hit_rate", DAM_KEY_NUM, S_AT(serving.llm.prefix_hit_rate),
     .cls = DAM_KEY_FRAC, .flags = CUSTOM,
     .help = "share of each prompt found in the prefix cache"},
    {"prefix_tokens", DAM_KEY_NUM, S_AT(serving.llm.prefix_tokens),
     .unit = "tokens", .cls = DAM_KEY_NONNEG, .flags = CUSTOM,
     .help = "a prefix every request shares, kept cached"},
    GROUP_ROW("speculative", 0, "speculative decoding"),
    {"slo_ttft_ms", DAM_KEY_NUM, S_AT(serving.llm.slo_ttft_s), .unit = "ms",
     .scale = MS, .cls = DAM_KEY_POS, .lo = 1e-6, .hi = 1e8,
     .flags = REQ | LIM | CUSTOM,
     .help = "time-to-first-token objective"},
    {"slo_tpot_ms", DAM_KEY_NUM, S_AT(serving.llm.slo_tpot_s), .unit = "ms",
     .scale = MS, .cls = DAM_KEY_POS, .lo = 1e-6, .hi = 1e8,
     .flags = REQ | LIM | CUSTOM,
     .help = "time-per-output-token objective"},
    {"slo_percentile", DAM_KEY_NUM, NOWHERE, .cls = DAM_KEY_POS,
     .flags = CUSTOM, .help = "the quantile both are judged at, [50, 100)"},
    GROUP_ROW("disaggregate", 0, "separate prefill and decode pools"),
};

/* llm.speculative (loader_serving.c) */
static const dam_key_row spec_rows[] = {
    {"method", DAM_KEY_CHOICE, NOWHERE, .choices = llm_spec_methods,
     .flags = REQ | CUSTOM, .help = "a draft model, or mtp (one block)"},
    {"tokens", DAM_KEY_INT, S_AT(serving.llm.spec_tokens), .lo = 1, .hi = 16,
     .flags = REQ | CUSTOM, .help = "draft tokens per step"},
    {"acceptance", DAM_KEY_NUM, S_AT(serving.llm.spec_acceptance),
     .cls = DAM_KEY_POS, .flags = REQ | CUSTOM,
     .help = "per-token acceptance rate, (0, 1)"},
    {"draft_model", DAM_KEY_TEXT, NOWHERE, .size = DAM_ID_MAX,
     .flags = CUSTOM, .help = "the draft's catalog id (method draft)"},
};

static const dam_key_row disagg_rows[] = {
    {"prefill_replicas", DAM_KEY_INT, S_AT(serving.llm.prefill_replicas),
     .lo = 1, .hi = 1 << 16, .flags = REQ | CUSTOM,
     .help = "replicas that prefill"},
    {"decode_replicas", DAM_KEY_INT, S_AT(serving.llm.decode_replicas),
     .lo = 1, .hi = 1 << 16, .flags = REQ | CUSTOM,
     .help = "replicas that decode"},
    {"prefill_tp", DAM_KEY_INT, S_AT(serving.llm.prefill_tp), .lo = 1,
     .hi = 64, .flags = CUSTOM, .help = "GPUs per prefill replica"},
    {"decode_tp", DAM_KEY_INT, S_AT(serving.llm.decode_tp), .lo = 1,
     .hi = 64, .flags = CUSTOM, .help = "GPUs per decode replica"},
    {"kv_link_gbs", DAM_KEY_NUM, S_AT(serving.llm.kv_link_bw),
     .unit = "GB/s", .scale = GB, .cls = DAM_KEY_POS, .flags = CUSTOM,
     .help = "KV transfer bandwidth per replica pair"},
    {"kv_link_latency_us", DAM_KEY_NUM, S_AT(serving.llm.kv_link_latency),
     .unit = "us", .scale = US, .cls = DAM_KEY_NONNEG, .flags = CUSTOM,
     .help = "per-transfer latency"},
};

/* ---- quality and cost -------------------------------------------------- */

static const dam_key_row quality_rows[] = {
    {"metric", DAM_KEY_TEXT, S_AT(quality.metric),
     .size = S_SIZE(quality.metric), .flags = REQ,
     .help = "the quality metric (\"top-1 %\", \"loss\")"},
    {"value", DAM_KEY_NUM, S_AT(quality.value), .cls = DAM_KEY_ANY,
     .lo = -1e9, .hi = 1e9, .flags = LIM, .help = "the baseline quality"},
    {"higher_is_better", DAM_KEY_BOOL, S_AT(quality.higher_is_better),
     .flags = DEF, .def = 1, .help = "1 for accuracy, 0 for loss"},
    {"from_scaling_law", DAM_KEY_BOOL, S_AT(quality.from_scaling_law),
     .help = "the value is the scaling-law fit's loss"},
    {"tokens", DAM_KEY_NUM, S_AT(quality.tokens), .cls = DAM_KEY_POS,
     .lo = 0, .hi = 1e16, .flags = LIM, .help = "training tokens"},
    {"fit", DAM_KEY_CHOICE, S_AT(quality.fit),
     .choices = dam_scaling_fit_names, .flags = DEF,
     .def = DAM_SCALING_DEFAULT, .help = "the scaling-law fit"},
};

static const dam_key_row cost_rows[] = {
    {"gpu_hour_usd", DAM_KEY_NUM, S_AT(cost.gpu_hour_usd),
     .unit = "USD per GPU-hour", .cls = DAM_KEY_NONNEG, .lo = 0, .hi = 1e4,
     .flags = LIM, .help = "price of one GPU-hour (default: the catalog's)"},
    {"pue", DAM_KEY_NUM, S_AT(cost.pue), .cls = DAM_KEY_GE1, .lo = 1.0,
     .hi = 10.0, .flags = LIM | DEF, .def = 1,
     .help = "power usage effectiveness"},
    {"kwh_usd", DAM_KEY_NUM, S_AT(cost.kwh_usd), .unit = "USD per kWh",
     .cls = DAM_KEY_NONNEG, .lo = 0, .hi = 1e3, .flags = LIM,
     .help = "electricity price"},
};

static const dam_key_group groups[] = {
    {"", ROWS(top_rows)},
    {"scenario", ROWS(scenario_rows)},
    {"catalogs", ROWS(catalogs_rows)},
    {"machine", ROWS(machine_rows)},
    {"machine.host", ROWS(host_rows)},
    {"machine.storage", ROWS(storage_rows)},
    {"machine.network", ROWS(network_rows)},
    {"workload", ROWS(workload_rows)},
    {"workload.lora", ROWS(lora_rows)},
    {"parallel", ROWS(parallel_rows)},
    {"parallel.straggler", ROWS(straggler_rows)},
    {"data", ROWS(data_rows)},
    {"pipeline", ROWS(pipeline_rows)},
    {"serving", ROWS(serving_rows)},
    {"llm", ROWS(llm_rows)},
    {"llm.speculative", ROWS(spec_rows)},
    {"llm.disaggregate", ROWS(disagg_rows)},
    {"quality", ROWS(quality_rows)},
    {"cost", ROWS(cost_rows)},
};

/* ---- lookups ----------------------------------------------------------- */

const dam_key_group *dam_schema_group_at(int i)
{
    int n = (int)(sizeof groups / sizeof groups[0]);
    return i >= 0 && i < n ? &groups[i] : NULL;
}

const dam_key_group *dam_schema_group(const char *path)
{
    for (int i = 0; dam_schema_group_at(i); i++)
        if (strcmp(groups[i].path, path) == 0)
            return &groups[i];
    return NULL;
}

const dam_key_row *dam_key_find(const dam_key_group *g, const char *name)
{
    for (size_t i = 0; g && i < g->nkeys; i++)
        if (strcmp(g->keys[i].name, name) == 0)
            return &g->keys[i];
    return NULL;
}

const dam_key_row *dam_schema_key(const char *path)
{
    const char *dot = strrchr(path, '.');
    if (!dot)
        return dam_key_find(&groups[0], path);
    char grp[64];
    size_t n = (size_t)(dot - path);
    if (n >= sizeof grp)
        return NULL;
    memcpy(grp, path, n);
    grp[n] = '\0';
    return dam_key_find(dam_schema_group(grp), dot + 1);
}

/* ---- ranges ------------------------------------------------------------ */

void dam_key_bounds(const dam_key_row *k, double *lo, double *hi, int *lo_open,
                    int *hi_open)
{
    *lo = -HUGE_VAL;
    *hi = HUGE_VAL;
    *lo_open = *hi_open = 0;
    if (k->type == DAM_KEY_INT) {
        *lo = k->lo;
        *hi = k->hi;
        return;
    }
    if (k->type == DAM_KEY_BOOL) {
        *lo = 0;
        *hi = 1;
        return;
    }
    if (k->type != DAM_KEY_NUM)
        return;
    switch (k->cls) {
    case DAM_KEY_POS: *lo = 0; *lo_open = 1; break;
    case DAM_KEY_NONNEG: *lo = 0; break;
    case DAM_KEY_UNIT: *lo = 0; *lo_open = 1; *hi = 1; break;
    case DAM_KEY_FRAC: *lo = 0; *hi = 1; *hi_open = 1; break;
    case DAM_KEY_GE1: *lo = 1; break;
    case DAM_KEY_ANY: break;
    }
    if (!(k->flags & DAM_KEY_LIMIT))
        return;
    /* the limits narrow the class: a limit above an open bound closes it */
    if (k->lo > *lo) {
        *lo = k->lo;
        *lo_open = 0;
    }
    if (k->hi < *hi) {
        *hi = k->hi;
        *hi_open = 0;
    }
}

int dam_key_accepts(const dam_key_row *k, double v)
{
    double lo, hi;
    int lo_open, hi_open;
    dam_key_bounds(k, &lo, &hi, &lo_open, &hi_open);
    if (!isfinite(v))
        return 0;
    if (v < lo || (lo_open && v == lo))
        return 0;
    if (v > hi || (hi_open && v == hi))
        return 0;
    return 1;
}

void dam_key_range_text(const dam_key_row *k, char *buf, size_t n)
{
    double lo, hi;
    int lo_open, hi_open;
    dam_key_bounds(k, &lo, &hi, &lo_open, &hi_open);
    char a[32], b[32];
    if (k->type == DAM_KEY_INT) {
        snprintf(a, sizeof a, "%.0f", lo);
        snprintf(b, sizeof b, "%.0f", hi);
    } else {
        snprintf(a, sizeof a, "%g", lo);
        snprintf(b, sizeof b, "%g", hi);
    }
    if (isinf(lo) && isinf(hi))
        snprintf(buf, n, "any");
    else if (isinf(hi))
        snprintf(buf, n, "%s %s", lo_open ? ">" : ">=", a);
    else if (!lo_open && !hi_open)
        snprintf(buf, n, "%s to %s", a, b);
    else
        snprintf(buf, n, "%c%s, %s%c", lo_open ? '(' : '[', a, b,
                 hi_open ? ')' : ']');
}

int dam_key_parse_bool(const char *v, int *out)
{
    static const char *const yes[] = {"true", "1", "yes", "on"};
    static const char *const no[] = {"false", "0", "no", "off"};
    for (int i = 0; i < 4; i++) {
        if (strcasecmp(v, yes[i]) == 0)
            return *out = 1, 1;
        if (strcasecmp(v, no[i]) == 0)
            return *out = 0, 1;
    }
    return 0;
}

/* ---- defaults and the reference ---------------------------------------- */

void dam_schema_defaults(void *s)
{
    for (int i = 0; dam_schema_group_at(i); i++)
        for (size_t j = 0; j < groups[i].nkeys; j++) {
            const dam_key_row *k = &groups[i].keys[j];
            if (!(k->flags & DAM_KEY_DEFAULT) || k->offset == NOWHERE)
                continue;
            char *at = (char *)s + k->offset;
            if (k->type == DAM_KEY_NUM) {
                double v = k->def * (k->scale > 0.0 ? k->scale : 1.0);
                memcpy(at, &v, sizeof v);
            } else {
                int v = (int)k->def;
                memcpy(at, &v, sizeof v);
            }
        }
}

/* How the reference words a type. */
static const char *const type_words[] = {
    [DAM_KEY_INT] = "integer", [DAM_KEY_NUM] = "number",
    [DAM_KEY_BOOL] = "boolean", [DAM_KEY_CHOICE] = "one of",
    [DAM_KEY_TEXT] = "string",  [DAM_KEY_GROUP] = "group"};

size_t dam_schema_doc(char *buf, size_t n)
{
    size_t len = 0;
#define PUT(...)                                                            \
    do {                                                                    \
        int w_ = snprintf(buf + (len < n ? len : n),                        \
                          len < n ? n - len : 0, __VA_ARGS__);              \
        len += w_ > 0 ? (size_t)w_ : 0;                                     \
    } while (0)
    for (int i = 1; dam_schema_group_at(i); i++) {
        const dam_key_group *g = &groups[i];
        PUT("## %s\n\n| key | type | default | meaning |\n|---|---|---|---|\n",
            g->path);
        for (size_t j = 0; j < g->nkeys; j++) {
            const dam_key_row *k = &g->keys[j];
            char range[96] = "";
            if (k->type == DAM_KEY_INT || k->type == DAM_KEY_NUM)
                dam_key_range_text(k, range, sizeof range);
            PUT("| `%s` | %s", k->name, type_words[k->type]);
            if (k->unit)
                PUT(", %s", k->unit);
            if (range[0])
                PUT(", %s", range);
            for (int c = 0; k->choices && k->choices[c]; c++)
                PUT("%s`%s`", c ? ", " : " ", k->choices[c]);
            if (k->flags & DAM_KEY_REQUIRED)
                PUT(", required");
            PUT(" | ");
            if (k->flags & DAM_KEY_DEFAULT) {
                if (k->type == DAM_KEY_CHOICE)
                    PUT("`%s`", k->choices[(int)k->def]);
                else if (k->type == DAM_KEY_BOOL)
                    PUT("%s", k->def != 0.0 ? "true" : "false");
                else
                    PUT("%g", k->def);
            }
            PUT(" | %s", k->help ? k->help : "");
            if (k->source)
                PUT(" (%s)", k->source);
            PUT(" |\n");
        }
        PUT("\n");
    }
#undef PUT
    if (n > 0)
        buf[len < n ? len : n - 1] = '\0';
    return len;
}
