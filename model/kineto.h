/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * kineto.h: a torch.profiler (Kineto) Chrome trace read whole, event by
 * event, for a replay (solver/replay.h). Where model/profile.h sums GPU
 * time per class for `calibrate`, this keeps every event that a dependency
 * graph needs, in compact form:
 *
 *   - host events on CPU threads: operators ("cpu_op"), CUDA/HIP runtime
 *     calls ("cuda_runtime", "cuda_driver"), user annotations (among them
 *     the "ProfilerStep#N" spans that profiler.step() records), Python
 *     frames ("python_function");
 *   - device events on GPU streams: kernels, memcpy, memset ("kernel",
 *     "gpu_memcpy", "gpu_memset", and the capitalised names of older
 *     Kinetos), GPU-side annotations, CUDA synchronisation records
 *     ("cuda_sync": a stream waiting on an event or a host sync);
 *   - the links between them: the correlation id of a runtime call and the
 *     device work it launched (args "correlation"; the "ac2g" or
 *     "async_cpu_to_gpu" flow pair when args lack it), and the "fwdbwd"
 *     flows from a forward operator to its backward;
 *   - the header: deviceProperties (name, memory, SMs), distributedInfo
 *     (backend, rank, world size).
 *
 * Times are seconds from the trace's earliest event. The file is a plain
 * .json or a gzip (.json.gz, recognised by its magic bytes, not its name).
 * The top-level object is scanned by hand and each event parsed on its own
 * with jansson, so memory is the text plus the compact events, never a
 * whole JSON tree of the file. Bad traces are "file: error: event N (byte
 * B): ..." diagnostics (line 0): not JSON, no traceEvents, an event that
 * is not an object, a used event without finite ts/dur (dur >= 0), without
 * pid/tid or name, args that are not an object.
 */
#ifndef DAM_KINETO_H
#define DAM_KINETO_H

#include <stddef.h>

#include "model/error.h"
#include "model/profile.h"

/* The largest trace read, compressed or not, and its text once inflated
 * (bytes). */
#define DAM_KINETO_MAX_BYTES (1024L * 1024 * 1024)
/* The largest |ts| and dur accepted, microseconds (3,000 years since the
 * epoch; 11 days): beyond them differences of times lose all precision. */
#define DAM_KINETO_MAX_TS 1e17
#define DAM_KINETO_MAX_DUR 1e12

typedef enum {
    DAM_KEV_CPU_OP = 0,  /* a host operator */
    DAM_KEV_RUNTIME,     /* a CUDA/HIP runtime or driver call */
    DAM_KEV_ANNOTATION,  /* a host user annotation (not a step) */
    DAM_KEV_STEP,        /* a host ProfilerStep#N span */
    DAM_KEV_PYTHON,      /* a Python frame */
    DAM_KEV_KERNEL,      /* device: a kernel */
    DAM_KEV_MEMCPY,      /* device: a copy */
    DAM_KEV_MEMSET,      /* device: a fill */
    DAM_KEV_GPU_ANNOTATION, /* device: an annotation range */
    DAM_KEV_SYNC,        /* device: a cuda_sync record */
    DAM_KEV_KIND_COUNT
} dam_kev_kind;

const char *dam_kev_kind_name(dam_kev_kind k);
/* 1 for kernels, copies and fills (work that occupies a stream). */
int dam_kev_is_gpu_work(dam_kev_kind k);

/* One event. */
typedef struct dam_kev {
    double ts, dur;      /* s from the trace's first event; duration, s */
    long index;          /* its place in traceEvents */
    long long corr;      /* correlation id (-1: none) */
    long long ext;       /* "External id" (-1: none) */
    double bytes;        /* copies and fills: bytes (0: not said) */
    int kind;            /* a dam_kev_kind */
    int lane;            /* index into lanes */
    int name;            /* index into names */
    int kclass;          /* device work: a dam_kernel_class (else -1) */
    int step;            /* DAM_KEV_STEP: the N of ProfilerStep#N */
    int coll;            /* a folder of ranks: NCCL kernels matched across
                            every rank (the k-th collective of step N on
                            each) share this id; -1 elsewhere */
    float gemm[4];       /* host GEMM operators with "Input Dims"
                            (aten::mm, addmm, bmm, baddbmm): M, N, K and
                            the batch; convolutions (conv, convolution,
                            cudnn_convolution and their backward) as
                            their implicit GEMM: M = batch x output
                            pixels, N = output channels, K = input
                            channels per group x filter taps (the output
                            from "Concrete Inputs" stride, padding and
                            dilation; without them stride 1 and the
                            input's size: "same" padding); 0 when not
                            known */
    int conv;            /* 1: a convolution operator (gemm as above) */
} dam_kev;

/* A thread (host) or a stream (device): one (pid, tid) pair. */
typedef struct dam_klane {
    char pid[32], tid[32]; /* as written (numbers printed) */
    int gpu;               /* 1 when it holds device events */
    int rank;              /* a folder of ranks: index into ranks, else 0 */
} dam_klane;

/* One rank of a folder (dam_ktrace_load_dir). */
typedef struct dam_krank {
    char file[256];
    int rank;              /* distributedInfo rank */
    double shift_s;        /* added to its times to align its clock, s */
    long nev;              /* its used events */
    double span_s;         /* its own span, s */
    double origin_us;      /* its first event's ts as written, us */
} dam_krank;

/* What a cuda_sync record says (args "cuda_sync_kind"). */
typedef enum {
    DAM_KSYNC_OTHER = 0,   /* a kind not known */
    DAM_KSYNC_STREAM,      /* "Stream Sync": cudaStreamSynchronize */
    DAM_KSYNC_CONTEXT,     /* "Context Sync": cudaDeviceSynchronize */
    DAM_KSYNC_EVENT,       /* "Event Sync": cudaEventSynchronize */
    DAM_KSYNC_WAIT         /* "Stream Wait Event": cudaStreamWaitEvent */
} dam_ksync_kind;

/* One cuda_sync record (device side of a synchronisation; newer Kinetos
 * with CUDA sync events on). */
typedef struct dam_ksync {
    long long corr;        /* the runtime call's correlation id */
    long long stream;      /* the stream that waits (-1: not said) */
    long long wait_stream; /* the stream waited on (-1: not said) */
    long long wait_corr;   /* the cudaEventRecord's correlation id (-1) */
    int kind;              /* a dam_ksync_kind */
    int lane;              /* the record's lane (its pid is the device) */
} dam_ksync;

/* A flow pair by its id: start (ph "s") and finish (ph "f"). */
typedef struct dam_kflow {
    long long id;
    int fwdbwd;          /* 1: fwdbwd (forward -> backward op), 0: launch */
    int s_lane, f_lane;  /* -1 while that end is not seen */
    double s_ts, f_ts;   /* s */
} dam_kflow;

typedef struct dam_ktrace {
    char file[256];
    char device[96];          /* deviceProperties[0].name ("" = not said) */
    int ndevices;             /* entries of deviceProperties */
    double device_mem;        /* deviceProperties[0].totalGlobalMem, bytes */
    int sms;                  /* deviceProperties[0].numSms (0: not said) */
    int cc_major, cc_minor;   /* compute capability (0: not said) */
    char backend[16];         /* distributedInfo.backend ("" = not said) */
    int rank, world_size;     /* distributedInfo (-1 / 0: not said) */
    dam_kev *ev;              /* used events, in file order */
    size_t nev;
    dam_klane *lanes;
    int nlanes;
    char **names;             /* interned event names */
    int nnames;
    dam_kflow *flows;
    size_t nflows;
    dam_ksync *syncs;         /* cuda_sync records, in file order */
    size_t nsyncs;
    long nevents;             /* entries of traceEvents */
    long nkind[DAM_KEV_KIND_COUNT];
    long nnccl;               /* kernels of class nccl */
    long linked;              /* device work with a launching runtime call */
    long flows_used;          /* of those, linked by a flow pair only */
    double span_s;            /* last event end - first event start, s */
    double origin_us;         /* the first event's ts as written, us */
    int nranks;               /* 1: one trace; more: a folder, merged */
    dam_krank *ranks;         /* a folder: its ranks by rank (else NULL) */
    int ncoll;                /* a folder: collectives matched */
    char align[200];          /* a folder: how the clocks were aligned */
} dam_ktrace;

/*
 * Read path (text == NULL), or parse len bytes of text naming path in
 * messages (plain or gzip). Fills t (free with dam_ktrace_free, also after
 * an error). DAM_OK, or DAM_EINPUT with the problems in d.
 */
int dam_ktrace_load(dam_ktrace *t, const char *path, const char *text,
                    size_t len, dam_diag *d);
void dam_ktrace_free(dam_ktrace *t);

/* The largest folder of ranks read. */
#define DAM_KINETO_MAX_RANKS 256

/*
 * Read the traces of one job from folder dir (its *.json and *.json.gz
 * files, one per rank, each with distributedInfo: one world size, distinct
 * ranks, one GPU model) and merge them into t: lanes carry their rank,
 * correlation ids are kept apart, and each rank's clock is shifted so that
 * its collectives end when rank 0's do (the median over the collectives
 * matched: the k-th NCCL kernel of each ProfilerStep#N, same name, on
 * every rank; without any, the traces' own clocks). A folder of one trace
 * reads as that trace. DAM_OK, or DAM_EINPUT with the problems in d.
 */
int dam_ktrace_load_dir(dam_ktrace *t, const char *dir, dam_diag *d);

/* The name of event e. */
const char *dam_ktrace_name(const dam_ktrace *t, const dam_kev *e);

#endif
