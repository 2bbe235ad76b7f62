/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * sim_llm.c: LLM serving (MODEL.md section 10) on the discrete-event
 * engine (des.h for events, rng.h for streams and distributions, stats.h
 * for the latency histograms), with iteration times from the operator
 * graph and the device model (llm_cost.h) and memory from model/llm.h.
 *
 * Requests. Each has an arrival time, prompt tokens `in` and tokens to
 * generate `out` (Poisson or deterministic arrivals at serving.rate with
 * sizes drawn from llm.input/llm.output, rounded and kept in [min, max];
 * or a trace of all three). A router sends each to the replica with the
 * fewest requests (ties: the lowest index) or round robin.
 *
 * A sequence's state: kv tokens cached, gen tokens generated, target the
 * tokens to prefill before its next token is sampled (in at first;
 * in + gen after a preemption by recompute). After its prefill, kv = in +
 * gen - 1 (the latest token's key and value are written by the next step).
 * A decode step writes one entry (needs blocks for kv + 1) and samples a
 * token; the iteration that completes a prefill samples one too (the first
 * token: TTFT).
 *
 * Scheduler (one per replica, run whenever it is idle and has work; each
 * decision is one iteration):
 *  - chunked prefill (Sarathi-Serve's stall-free batching; vLLM's chunked
 *    prefill): running decodes first, one token each, in admission order;
 *    a decode that needs a block when none is free preempts the latest
 *    admitted running sequence (itself if it is the latest), vLLM's
 *    policy; then swapped sequences come back (swap mode); then running
 *    sequences that are part-way through their prompt get a chunk; then
 *    waiting requests are admitted first come first served while fewer
 *    than max_seqs run, each with a chunk of min(prompt left, chunk_tokens,
 *    budget left) tokens, as long as free blocks hold the chunk. The
 *    iteration's new tokens never exceed token_budget.
 *  - without chunking (vLLM's scheduler before chunked prefill): when
 *    whole prompts can be admitted (budget, blocks, max_seqs), an
 *    iteration of prefills alone runs and decodes wait; otherwise all
 *    running sequences decode.
 * Preemption by recompute drops the sequence's blocks and puts it at the
 * head of the waiting queue (its prompt is now in + gen); by swap its
 * blocks go to host memory over PCIe (in series with the iteration, both
 * ways) while the swap space lasts, else recompute.
 *
 * Disaggregated (DistServe, Splitwise): prefill replicas run the same
 * scheduler on prompts only; a request whose prefill completes there has
 * its first token (TTFT) and its cache is sent to the decode replica with
 * the fewest requests over a link of llm.kv_link_bw per prefill replica
 * (transfers queue FIFO on it; + kv_link_latency); the prefill replica
 * frees its blocks when the copy ends. A decode replica admits arrived
 * caches FIFO when blocks are free and runs the scheduler on decodes (and
 * on recomputation after a preemption).
 *
 * Statistics. Requests with index >= warm-up are measured: TTFT (arrival
 * to first token), TPOT ((last - first) / (out - 1), out > 1), end to end,
 * queue (arrival to first scheduled) and every inter-token gap (ITL),
 * pooled over replications in log-bucketed histograms (quantiles within
 * 0.1 %) and per replication for Student intervals. Rates and time
 * averages are over the window from the first measured arrival to the last
 * arrival (steady state under the offered load, without the drain):
 * output tokens, completions, KV blocks in use, running sequences, busy
 * replicas. Goodput = throughput x the share of measured requests whose
 * TTFT and TPOT are within the SLOs.
 *
 * Terms (they sum to the mean end-to-end latency, r->step): DATA = queue
 * wait; the rest split by the shares of iteration time: COMPUTE = GEMMs,
 * attention, head; COMM = tensor-parallel all-reduces; TRANSFER = swaps
 * and KV transfers; OVERHEAD = host time.
 *
 * Random streams per replication k: 8k + 0 arrivals, 8k + 1 input sizes,
 * 8k + 2 output sizes, 8k + 3 speculative acceptances (each request takes
 * one draw of each size, in arrival order, so a lever never shifts another
 * stream).
 */
#include "solver/sim.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

#include <gsl/gsl_randist.h>

#include "model/alloc.h"
#include "model/llm.h"
#include "model/quality.h"
#include "solver/des.h"
#include "solver/llm_cost.h"
#include "solver/rng.h"
#include "solver/slotq.h"
#include "solver/stats.h"

enum { K_COLO = 0, K_PREFILL, K_DECODE };
enum { S_WAIT = 0, S_RUN, S_SWAP, S_XFER, S_DONE };

/* One request in flight. */
typedef struct seq {
    /* what every iteration reads first, together */
    int kv;            /* tokens whose keys and values are cached */
    int target;        /* tokens to prefill before the next token */
    int gen;           /* generated so far */
    int out;           /* tokens to generate */
    int blocks;        /* KV blocks held */
    int cached;        /* prompt tokens found in the prefix cache (whole
                          blocks, shared: not in `blocks`) */
    int chunk;         /* prefill tokens of the iteration in flight */
    int state;         /* S_* */
    long idx;          /* arrival number, 0-based */
    double last;       /* latest token, s */
    int in;            /* prompt tokens */
    int rep;           /* replica holding it */
    int preempts;      /* times preempted */
    double arrive;     /* s */
    double first;      /* first token, s (< 0: none yet) */
    double sched;      /* first scheduled, s (< 0: not yet) */
    double cached_blocks; /* cached / block_tokens (own_for's, once) */
} seq;

/* One replica: its queues, its running sequences and its KV blocks. */
typedef struct replica {
    int kind;            /* K_COLO, K_PREFILL, K_DECODE */
    dam_llm_cost *cost;  /* shared by the replicas of a kind */
    dam_slotq wait;          /* admitted by the router, not running */
    dam_slotq swapped;       /* preempted by swap */
    int *run;            /* running sequences, admission order */
    int nrun;
    int *dec, ndec;      /* this iteration's decodes */
    int *pre, npre;      /* this iteration's prefill chunks */
    int busy;            /* an iteration is in flight */
    int ready;           /* on_iter_end's look at the next iteration: when
                            it is nrun, it saw every running sequence, in
                            admission order (-1: not known) */
    int ready_dec;       /* then those that decode next (the others are
                            part-way through their prompt), */
    long ready_ctx;      /* their cached tokens, in all, */
    int *flag, nflag;    /* and the running positions that need a look:
                            a step that needs a block, or a prompt
                            part-way, ascending (the others decode and
                            need no block) */
    long load;           /* requests assigned and not finished */
    double blocks;       /* KV blocks of the replica */
    double free_blocks;
    double swap_free;    /* host blocks left for swapping */
    double block_bytes;  /* one block on one GPU */
    double kv_token;     /* KV bytes per token on one GPU */
    double kv_token_model; /* KV bytes per token, all GPUs of the replica */
    double link_free;    /* prefill: the outgoing KV link frees at, s */
    double it_start;     /* the iteration in flight began, s */
    dam_llm_iter_time split; /* its time split */
    double touched;      /* time averages accumulated up to, s */
    double peak_used;    /* the most blocks in use note_peaks saw */
} replica;

/* Per-replication accumulators. */
typedef struct acc {
    double busy, kv, run; /* integrals over the window (s, block-s, seq-s) */
    double peak_kv, peak_run;
    double iters, tokens_it, decode_it; /* iterations in the window and
                                           their new tokens, decodes */
    double it_time;      /* their time */
    double sh[6];        /* their time by share: linear, attn, comm, head,
                            host, swap */
    double out_tokens;   /* output tokens in the window */
    double pre_tokens;   /* prefill tokens in the window */
    double done;         /* completions in the window */
    double measured, good, preempts, xfer, waits, decisions;
} acc;

/* Latency histograms: pooled and this replication's. */
enum { L_TTFT = 0, L_TPOT, L_ITL, L_E2E, L_QUEUE, L_COUNT };

/* The whole simulated system for one replication. */
typedef struct sys {
    const dam_scenario *s;
    const dam_llm *q;
    dam_des *des;
    gsl_rng *arr_rng, *in_rng, *out_rng;
    gsl_rng *spec_rng;      /* speculative acceptances (NULL: none) */
    int dq;                 /* tokens a decoding sequence computes per
                               step: 1, or k + 1 with speculation */
    dam_dist in_dist, out_dist;
    const dam_llm_request *trace;
    long nreq, warm, next;  /* requests, warm-up, next arrival number */
    long finished;          /* requests finished (progress) */
    double done_before;     /* requests of earlier replications */
    double total;           /* requests over all replications */
    const dam_progress *progress; /* NULL: none */
    double interval;        /* deterministic arrivals: 1 / rate */
    double t0, tA;          /* window: first measured / last arrival, s */
    double t_end;           /* the last completion, s */
    int measuring;          /* t0 reached */
    int offline;            /* every request arrives at time 0 */
    seq *seqs;              /* slot pool */
    size_t nseqs, capseqs;
    int *free_slots;
    size_t nfree, capfree;
    replica *reps;
    int nreps, nfront;      /* replicas; routed to the first nfront */
    int rr;                 /* round-robin position */
    double block_tokens;
    int bt;                 /* the same, int (0: none) */
    struct settle *settle;  /* the early miss (NULL: run to the end) */
    int out_min1;           /* every request asks for >= 1 token */
    const double *bfor;     /* bfor[t] = blocks_for(t) for whole t < nbfor
                               (the same doubles, without the division) */
    long nbfor;
    dam_stats *pool[L_COUNT], *rep[L_COUNT];
    dam_batches **bat;      /* one replication: each latency in batches
                               (its own CI); NULL with several */
    acc a;                  /* from t0 to the end of the run */
    acc snap;               /* the same at the last arrival */
    /* offline: the saturated window, from the first completion (before
     * it every sequence is in its start-up burst) to the moment a front
     * replica's queue first runs dry (after it the batch drains) */
    double t_first;         /* the first completion, s (INFINITY: none) */
    acc first;              /* `a` then */
    double t_sat;           /* the queue ran dry, s (INFINITY: not yet) */
    acc sat;                /* `a` then */
} sys;

static void kick(sys *y, replica *p);
static void on_iter_end(dam_des *des, void *ctx, dam_des_arg arg);

/*
 * The early miss (dam_sim_options.llm_settle), over all replications.
 * The pooled quantile at p of N values is at least the i-th smallest,
 * i = floor((N - 1) p) (dam_stats_quantile), which lies within 0.1 % of
 * its bucket: once N - i of the measured requests are over 1.01 x the
 * objective, the quantile is over it, whatever the others are. N: every
 * measured request of every replication (TPOT's are no more: a request of
 * one output token has none, and fewer values need no more over).
 */
typedef struct settle {
    double ttft, tpot;     /* the thresholds, s */
    long need;             /* N - i */
    long over_ttft, over_tpot;
    int done;              /* settled: missed */
} settle;

static void settle_over(sys *y, long *count)
{
    if (++*count >= y->settle->need) {
        y->settle->done = 1;
        dam_des_stop(y->des);
    }
}

static int new_slot(sys *y)
{
    if (y->nfree > 0)
        return y->free_slots[--y->nfree];
    y->seqs = dam_grow(y->seqs, sizeof *y->seqs, y->nseqs + 1, &y->capseqs);
    return (int)y->nseqs++;
}

static void free_slot(sys *y, int slot)
{
    y->free_slots = dam_grow(y->free_slots, sizeof *y->free_slots,
                             y->nfree + 1, &y->capfree);
    y->free_slots[y->nfree++] = slot;
}

static double blocks_for(const sys *y, double tokens)
{
    if (tokens >= 0.0 && tokens < (double)y->nbfor) {
        long t = (long)tokens;
        if ((double)t == tokens)
            return y->bfor[t];
    }
    return ceil(tokens / y->block_tokens);
}


/* Blocks x holds itself for `tokens` cached tokens: its prefix-cache hit
 * lies in shared blocks. */
static double own_for(const sys *y, const seq *x, double tokens)
{
    return blocks_for(y, tokens) - x->cached_blocks;
}



/* Bring replica p's time averages up to now (before any change). */
static void touch(sys *y, replica *p)
{
    double now = dam_des_now(y->des);
    if (y->measuring) {
        double from = p->touched > y->t0 ? p->touched : y->t0;
        double to = now;
        if (to > from) {
            double used = p->blocks - p->free_blocks;
            y->a.kv += (p->blocks > 0.0 ? used / p->blocks : 0.0) * (to - from);
            y->a.run += p->nrun * (to - from);
            if (p->busy)
                y->a.busy += to - from;
        }
    }
    p->touched = now;
}

static void note_peaks(sys *y, replica *p)
{
    if (!y->measuring)
        return;
    /* the share is monotone in the blocks used (a correctly rounded
     * division): no more used than already noted is no new peak */
    double used = p->blocks - p->free_blocks;
    if (used > p->peak_used) {
        p->peak_used = used;
        double u = p->blocks > 0.0 ? used / p->blocks : 0.0;
        if (u > y->a.peak_kv)
            y->a.peak_kv = u;
    }
    if (p->nrun > y->a.peak_run)
        y->a.peak_run = p->nrun;
}

/* ---- arrivals and routing ------------------------------------------- */

static double draw_tokens(const dam_dist *d, const dam_llm_tokens *t,
                          gsl_rng *r)
{
    double x = floor(dam_dist_sample(d, r) + 0.5);
    if (x < t->min)
        x = t->min;
    if (x > t->max)
        x = t->max;
    return x;
}

static int route(sys *y, int first, int n)
{
    if (y->q->route == DAM_LLM_ROUTE_ROUND_ROBIN)
        return first + (y->rr++ % n);
    int best = first;
    for (int i = first + 1; i < first + n; i++)
        if (y->reps[i].load < y->reps[best].load)
            best = i;
    return best;
}

static void on_arrive(dam_des *des, void *ctx, dam_des_arg arg)
{
    sys *y = ctx;
    long idx = (long)arg.u;
    double now = dam_des_now(des);
    int slot = new_slot(y);
    seq *x = &y->seqs[slot];
    memset(x, 0, sizeof *x);
    x->idx = idx;
    x->arrive = now;
    if (y->trace) {
        x->in = y->trace[idx].input;
        x->out = y->trace[idx].output;
    } else {
        x->in = (int)draw_tokens(&y->in_dist, &y->q->input, y->in_rng);
        x->out = (int)draw_tokens(&y->out_dist, &y->q->output, y->out_rng);
    }
    x->target = x->in;
    x->cached = (int)dam_llm_prefix_hit(y->q, x->in);
    x->cached_blocks = x->cached / y->block_tokens;
    x->kv = x->cached;
    x->first = x->sched = -1.0;
    x->state = S_WAIT;
    if (idx == y->warm) {
        y->t0 = now;
        y->measuring = 1;
        for (int i = 0; i < y->nreps; i++)
            y->reps[i].touched = now;
    }
    if (idx == y->nreq - 1) {
        /* the arrival window closes: bring every replica's averages up
         * to it and keep them (the run goes on to drain) */
        y->tA = now;
        for (int i = 0; i < y->nreps; i++)
            touch(y, &y->reps[i]);
        y->snap = y->a;
    }
    int ri = route(y, 0, y->nfront);
    replica *p = &y->reps[ri];
    x->rep = ri;
    p->load++;
    dam_slotq_push_back(&p->wait, slot);
    if (idx + 1 < y->nreq) {
        double t;
        if (y->offline)
            t = now;
        else if (y->trace)
            t = y->trace[idx + 1].arrive;
        else if (y->s->serving.arrival == DAM_ARRIVAL_DETERMINISTIC)
            t = (double)(idx + 1) * y->interval;
        else
            t = now + gsl_ran_exponential(y->arr_rng, y->interval);
        dam_des_at(des, t, on_arrive, y, dam_des_u((uint64_t)(idx + 1)));
    }
    if (!y->offline) {
        kick(y, p);
    } else if (idx == y->nreq - 1) {
        /* offline: the schedulers start once the whole batch is queued */
        for (int i = 0; i < y->nfront; i++)
            kick(y, &y->reps[i]);
    }
}

/* ---- blocks, preemption --------------------------------------------- */

static void take(sys *y, replica *p, seq *x, double need)
{
    touch(y, p);
    p->free_blocks -= need;
    x->blocks += (int)need;
    note_peaks(y, p);
}

static void release(sys *y, replica *p, seq *x)
{
    touch(y, p);
    p->free_blocks += x->blocks;
    x->blocks = 0;
}

/* Remove running position i of p (keeps the admission order). */
static void run_remove(sys *y, replica *p, int i)
{
    touch(y, p);
    memmove(&p->run[i], &p->run[i + 1],
            (size_t)(p->nrun - i - 1) * sizeof *p->run);
    p->nrun--;
}

/* Preempt the latest admitted running sequence of p; *swap_bytes gets the
 * bytes a swap-out copies. */
static void preempt_last(sys *y, replica *p, double *swap_bytes)
{
    int slot = p->run[p->nrun - 1];
    seq *x = &y->seqs[slot];
    run_remove(y, p, p->nrun - 1);
    x->preempts++;
    if (x->idx >= y->warm)
        y->a.preempts++;
    int prefilled = x->kv >= x->target;
    if (y->q->preemption == DAM_LLM_PREEMPT_SWAP && prefilled &&
        p->swap_free >= x->blocks) {
        *swap_bytes += (x->kv - x->cached) * p->kv_token;
        p->swap_free -= x->blocks;
        release(y, p, x);
        x->state = S_SWAP;
        dam_slotq_push_back(&p->swapped, slot);
        return;
    }
    release(y, p, x);
    x->kv = x->cached; /* the shared prefix stays cached */
    x->target = x->in + x->gen;
    x->state = S_WAIT;
    dam_slotq_push_front(&p->wait, slot);
}

/* ---- the scheduler -------------------------------------------------- */

/* Cached tokens a decode step of x needs blocks for: kv plus the tokens
 * it verifies (never past the request's end). */
static double decode_need(const sys *y, const seq *x)
{
    int left = x->out - x->gen;
    return (double)x->kv + (y->dq < left ? y->dq : (left > 0 ? left : 1));
}

/* Tokens a decode step of x produces: 1, or with speculation 1 + the draft
 * tokens accepted before the first rejection (each with probability
 * llm.speculative.acceptance; Leviathan et al. 2023, arXiv 2211.17192,
 * section 3.1), never past the request's end. */
static int decode_tokens(sys *y, const seq *x)
{
    int n = 1;
    if (y->spec_rng) {
        int k = y->dq - 1;
        while (n <= k && dam_rng_uniform(y->spec_rng) < y->q->spec_acceptance)
            n++;
    }
    int left = x->out - x->gen;
    return n < left ? n : (left > 0 ? left : 1);
}

static void add_decode(sys *y, replica *p, int slot, dam_llm_batch *b)
{
    b->decode_q = y->dq;
    p->dec[p->ndec++] = slot;
    b->decode_seqs += 1.0;
    b->decode_ctx += y->seqs[slot].kv;
}

static void add_prefill(sys *y, replica *p, int slot, int chunk,
                        dam_llm_batch *b)
{
    seq *x = &y->seqs[slot];
    x->chunk = chunk;
    p->pre[p->npre++] = slot;
    dam_llm_batch_prefill(p->cost, b, chunk, x->kv);
}

static void admit(sys *y, replica *p, int slot)
{
    seq *x = &y->seqs[slot];
    touch(y, p);
    p->run[p->nrun++] = slot;
    x->state = S_RUN;
    if (x->sched < 0.0) {
        x->sched = dam_des_now(y->des);
        if (x->idx >= y->warm) {
            double w = x->sched - x->arrive;
            dam_stats_add(y->pool[L_QUEUE], w);
            dam_stats_add(y->rep[L_QUEUE], w);
            if (y->bat)
                dam_batches_add(y->bat[L_QUEUE], w);
        }
    }
}

/* A decode step of x (decode_need's tokens; dq and bt: y's) needs no
 * new block: the blocks held (and the shared prefix, whole blocks) cover
 * blocks x bt + cached tokens, so most steps skip own_for (the same
 * answer: need <= 0). */
static inline int step_fits(const seq *x, int dq, int bt)
{
    int left = x->out - x->gen;
    /* one token whatever is left when dq is 1 */
    int t = x->kv + (dq == 1 ? 1 : dq < left ? dq : (left > 0 ? left : 1));
    return bt > 0 && t <= x->blocks * bt + x->cached;
}

/* Blocks for the decode step of running sequence `slot` of p, preempting
 * the latest admitted while they are short. Returns 0 when slot itself
 * was preempted (it was the latest: nothing after it). *ctx, when not
 * NULL, loses the cached tokens of every sequence preempted. */
static int decode_room(sys *y, replica *p, int slot, dam_llm_batch *b,
                       long *ctx)
{
    seq *x = &y->seqs[slot];
    double need = own_for(y, x, decode_need(y, x)) - x->blocks;
    while (need > p->free_blocks) {
        int last = p->run[p->nrun - 1];
        const seq *l = &y->seqs[last];
        if (ctx && l->kv >= l->target)
            *ctx -= l->kv; /* a decode's, before preempt_last drops it */
        preempt_last(y, p, &b->swap_bytes);
        if (last == slot)
            return 0;
    }
    if (need > 0.0)
        take(y, p, x, need);
    return 1;
}

/* sched_decodes' pass when on_iter_end made p ready and the budget holds
 * every decode: only the sequences on_iter_end flagged need a look (a
 * prompt part-way, *partial; a block, or a preemption, which ends the
 * pass). Returns the decodes, *ctx their cached tokens. */
static int sched_ready(sys *y, replica *p, dam_llm_batch *b, long *ctx,
                       int *partial)
{
    int *dec = p->dec, ndec = 0, i = 0;
    *ctx = p->ready_ctx;
    for (int f = 0; i < p->nrun; f++) {
        int next = f < p->nflag && p->flag[f] < p->nrun ? p->flag[f]
                                                        : p->nrun;
        memcpy(&dec[ndec], &p->run[i], (size_t)(next - i) * sizeof *dec);
        ndec += next - i;
        i = next;
        if (i >= p->nrun)
            break;
        int slot = p->run[i];
        const seq *x = &y->seqs[slot];
        if (x->kv < x->target) {
            *partial = 1;
            i++;
            continue;
        }
        if (!decode_room(y, p, slot, b, ctx))
            break;
        dec[ndec++] = slot;
        i++;
    }
    return ndec;
}

/* Decodes of the running sequences, preempting for blocks; `ready` is
 * p->ready as on_iter_end left it. Returns 1 when every running sequence
 * was seen and none is part-way through its prompt (sched_partial has
 * nothing to do). */
static int sched_decodes(sys *y, replica *p, dam_llm_batch *b, int *budget,
                         int ready)
{
    /* in locals, added to b and p once: nothing below reads them, and
     * the sums are whole numbers (exact in any order) */
    const int dq = y->dq;
    int bud = *budget, ndec = p->ndec, partial = 0;
    long nseq = 0, ctx = 0;
    int i = 0;
    if (ready == p->nrun && ndec == 0 &&
        (long)bud >= (long)p->ready_dec * dq) {
        /* a prompt part-way makes the answer 0 whether or not the pass
         * below would reach it (its budget spent on the decodes) */
        ndec = sched_ready(y, p, b, &ctx, &partial);
        nseq = ndec;
        bud -= ndec * dq;
        i = p->nrun; /* all seen (a preemption ends at the latest) */
    }
    while (i < p->nrun && bud >= dq) {
        int slot = p->run[i];
        seq *x = &y->seqs[slot];
        if (x->kv < x->target) {
            partial = 1;
            i++;
            continue;
        }
        if (!step_fits(x, dq, y->bt) && !decode_room(y, p, slot, b, NULL))
            break; /* it was the latest: nothing after it */
        /* add_decode's work */
        p->dec[ndec++] = slot;
        nseq++;
        ctx += x->kv;
        bud -= dq;
        i++;
    }
    if (nseq > 0) {
        b->decode_q = dq;
        b->decode_seqs += (double)nseq;
        b->decode_ctx += (double)ctx;
    }
    p->ndec = ndec;
    *budget = bud;
    return i >= p->nrun && !partial;
}

/* Swapped sequences come back while blocks and places allow. */
static void sched_swap_in(sys *y, replica *p, dam_llm_batch *b, int *budget)
{
    while (p->swapped.len > 0 && p->nrun < y->q->max_seqs &&
           *budget >= y->dq) {
        int slot = dam_slotq_at(&p->swapped, 0);
        seq *x = &y->seqs[slot];
        double need = own_for(y, x, decode_need(y, x));
        if (need > p->free_blocks)
            break;
        dam_slotq_pop(&p->swapped);
        p->swap_free += own_for(y, x, x->kv);
        b->swap_bytes += (x->kv - x->cached) * p->kv_token;
        admit(y, p, slot);
        take(y, p, x, need);
        add_decode(y, p, slot, b);
        *budget -= y->dq;
    }
}

/* Chunks for running sequences part-way through their prompt. */
static void sched_partial(sys *y, replica *p, dam_llm_batch *b, int *budget)
{
    for (int i = 0; i < p->nrun && *budget > 0; i++) {
        int slot = p->run[i];
        seq *x = &y->seqs[slot];
        if (x->kv >= x->target || x->chunk > 0)
            continue;
        int c = x->target - x->kv;
        if (c > y->q->chunk_tokens)
            c = y->q->chunk_tokens;
        if (c > *budget)
            c = *budget;
        /* what the free blocks hold */
        double room = (x->blocks + p->free_blocks) * y->block_tokens +
                      x->cached - x->kv;
        if (room < c)
            c = (int)room;
        if (c < 1) {
            y->a.waits += y->measuring;
            continue;
        }
        double need = own_for(y, x, (double)x->kv + c) - x->blocks;
        if (need > 0.0)
            take(y, p, x, need);
        add_prefill(y, p, slot, c, b);
        *budget -= c;
    }
}

/* Blocks a waiting sequence takes when it is admitted with `tokens`
 * tokens cached after this iteration: those blocks under max-utilisation;
 * under guaranteed-no-evict the blocks of the whole request (prompt and
 * every output token), reserved now so that no decode ever finds the pool
 * empty (TensorRT-LLM's GUARANTEED_NO_EVICT; the engine knows a request's
 * output bound from its max_tokens, which benchmarks set to the output
 * length, so the reservation is the request's own in + out). */
static double admit_blocks(const sys *y, const replica *p, const seq *x,
                           double tokens)
{
    /* a prefill replica holds only the prompt, until its copy is sent */
    if (y->q->capacity == DAM_LLM_CAP_NO_EVICT && p->kind != K_PREFILL) {
        double all = own_for(y, x, (double)x->in + x->out);
        double now = own_for(y, x, tokens);
        return all > now ? all : now;
    }
    return own_for(y, x, tokens);
}

/* Admit waiting requests: a chunk each (or a handed-over cache to decode). */
static void sched_admit(sys *y, replica *p, dam_llm_batch *b, int *budget,
                        int whole)
{
    while (p->wait.len > 0 && p->nrun < y->q->max_seqs && *budget > 0) {
        int slot = dam_slotq_at(&p->wait, 0);
        seq *x = &y->seqs[slot];
        if (x->kv >= x->target) {
            /* a cache handed over by a prefill replica */
            double need = admit_blocks(y, p, x, decode_need(y, x));
            if (need > p->free_blocks || *budget < y->dq) {
                y->a.waits += y->measuring;
                break;
            }
            dam_slotq_pop(&p->wait);
            admit(y, p, slot);
            take(y, p, x, need);
            add_decode(y, p, slot, b);
            *budget -= y->dq;
            continue;
        }
        int c = x->target - x->kv;
        if (whole) {
            /* a prompt longer than the budget runs alone */
            if (c > *budget && (p->npre > 0 || p->ndec > 0))
                break;
        } else {
            if (c > y->q->chunk_tokens)
                c = y->q->chunk_tokens;
            if (c > *budget)
                c = *budget;
        }
        double need = admit_blocks(y, p, x, (double)x->kv + c);
        if (need > p->free_blocks) {
            y->a.waits += y->measuring;
            break;
        }
        dam_slotq_pop(&p->wait);
        admit(y, p, slot);
        take(y, p, x, need);
        add_prefill(y, p, slot, c, b);
        *budget -= c;
    }
}

/* Decide and start one iteration of p; 0 when there is nothing to run. */
static int schedule(sys *y, replica *p)
{
    dam_llm_batch b;
    dam_llm_batch_clear(&b);
    p->ndec = p->npre = 0;
    int budget = y->q->token_budget;
    int chunked = y->q->chunked_prefill || p->kind == K_DECODE;
    int ready = p->ready;
    p->ready = -1;
    if (y->measuring)
        y->a.decisions++;
    if (!chunked) {
        /* prefill-only iterations while whole prompts can be admitted */
        if (p->swapped.len == 0 && p->wait.len > 0) {
            sched_admit(y, p, &b, &budget, 1);
            if (p->npre > 0)
                goto start;
        }
        sched_decodes(y, p, &b, &budget, ready);
        sched_swap_in(y, p, &b, &budget);
        goto start;
    }
    int none_partial = sched_decodes(y, p, &b, &budget, ready);
    sched_swap_in(y, p, &b, &budget);
    if (p->swapped.len == 0) {
        if (!none_partial)
            sched_partial(y, p, &b, &budget);
        sched_admit(y, p, &b, &budget, 0);
    }
start:
    if (p->ndec + p->npre == 0) {
        /* a swap-out alone (everything preempted) still costs its copy */
        return 0;
    }
    double dur = dam_llm_cost_iteration(p->cost, &b, &p->split);
    touch(y, p);
    p->busy = 1;
    p->it_start = dam_des_now(y->des);
    if (y->measuring) {
        acc *a = &y->a;
        a->iters++;
        a->tokens_it += b.prefill_tokens + b.decode_seqs;
        a->decode_it += b.decode_seqs;
        a->it_time += dur;
        a->sh[0] += p->split.linear;
        a->sh[1] += p->split.attn;
        a->sh[2] += p->split.comm;
        a->sh[3] += p->split.head;
        a->sh[4] += p->split.host;
        a->sh[5] += p->split.swap;
    }
    dam_des_after(y->des, dur, on_iter_end, y,
                  dam_des_u((uint64_t)(p - y->reps)));
    return 1;
}

/* ---- completions ---------------------------------------------------- */

static void record(sys *y, int k, double v)
{
    dam_stats_add(y->pool[k], v);
    dam_stats_add(y->rep[k], v);
    if (y->bat)
        dam_batches_add(y->bat[k], v);
}

static void finish(sys *y, replica *p, int slot)
{
    seq *x = &y->seqs[slot];
    double now = dam_des_now(y->des);
    release(y, p, x);
    x->state = S_DONE;
    p->load--;
    if (y->offline && isinf(y->t_first)) {
        for (int i = 0; i < y->nreps; i++)
            touch(y, &y->reps[i]);
        y->first = y->a;
        y->t_first = now;
    }
    if (y->measuring)
        y->a.done++;
    y->t_end = now;
    if ((++y->finished & 1023) == 0)
        dam_progress_report(y->progress, y->done_before + y->finished,
                            y->total);
    if (x->idx >= y->warm) {
        double e2e = now - x->arrive, ttft = x->first - x->arrive;
        double tpot = x->out > 1 ? (now - x->first) / (x->out - 1) : 0.0;
        record(y, L_E2E, e2e);
        record(y, L_TTFT, ttft);
        if (x->out > 1)
            record(y, L_TPOT, tpot);
        if (y->settle && x->out > 1 && tpot > y->settle->tpot)
            settle_over(y, &y->settle->over_tpot);
        y->a.measured++;
        const dam_llm *q = y->q;
        if (ttft <= q->slo_ttft_s * (1.0 + 1e-9) &&
            tpot <= q->slo_tpot_s * (1.0 + 1e-9))
            y->a.good++;
    }
    free_slot(y, slot);
}

/* A cache arrived at its decode replica. */
static void on_xfer_done(dam_des *des, void *ctx, dam_des_arg arg)
{
    sys *y = ctx;
    (void)des;
    int slot = (int)arg.u;
    seq *x = &y->seqs[slot];
    /* the prefill replica keeps the blocks until the copy is done */
    replica *src = &y->reps[x->rep];
    release(y, src, x);
    kick(y, src);
    int di = route(y, y->nfront, y->nreps - y->nfront);
    replica *d = &y->reps[di];
    x->rep = di;
    x->state = S_WAIT;
    d->load++;
    dam_slotq_push_back(&d->wait, slot);
    kick(y, d);
}

/* Prefill replica: send a sequence that has its first token to a
 * decoder over this replica's KV link (FIFO). */
static void handoff(sys *y, replica *p, int slot)
{
    seq *x = &y->seqs[slot];
    double now = dam_des_now(y->des);
    x->state = S_XFER;
    p->load--;
    double bytes = x->kv * p->kv_token_model;
    double start = p->link_free > now ? p->link_free : now;
    double end = start + bytes / y->q->kv_link_bw + y->q->kv_link_latency;
    p->link_free = end;
    if (x->idx >= y->warm)
        y->a.xfer += end - now;
    dam_des_at(y->des, end, on_xfer_done, y, dam_des_u((uint64_t)slot));
}

/* What on_iter_end's decodes share: y's bt, the iteration's start and
 * end, the warm-up, where flagged positions go. */
typedef struct iter_ends {
    int bt;
    double start, now;
    long warm;
    int *flag;
} iter_ends;

/* What on_iter_end sums over the decodes of an iteration. */
typedef struct iter_sums {
    long out;     /* tokens made (whole: one sum, exact) */
    long ctx;     /* cached tokens after them */
    size_t same;  /* measured sequences that ran the whole previous
                     iteration too (their gap is the iteration's) */
    int fin;      /* sequences now done */
    int nflag;    /* positions put in the replica's flag (step_fits 0) */
} iter_sums;

/* Decoding sequence x, at position i of the iteration's decodes, made n
 * tokens. Inlined in on_iter_end's two loops so that its common one (no
 * speculation) runs with n and dq as constants. */
static inline void decoded(sys *y, seq *x, int n, int i, int dq,
                           const iter_ends *e, iter_sums *u)
{
    x->kv += n;
    x->gen += n;
    u->fin += x->gen >= x->out;
    if (!step_fits(x, dq, e->bt))
        e->flag[u->nflag++] = i;
    u->ctx += x->kv;
    if (x->idx >= e->warm) {
        if (x->last == e->start)
            u->same++;
        else
            record(y, L_ITL, e->now - x->last);
    }
    x->last = e->now;
    u->out += n;
}

static void on_iter_end(dam_des *des, void *ctx, dam_des_arg arg)
{
    sys *y = ctx;
    replica *p = &y->reps[arg.u];
    double now = dam_des_now(des);
    int in_window = y->measuring;
    touch(y, p);
    p->busy = 0;
    /* decodes: one token each; sequences that ran the whole previous
     * iteration (most) share one gap, the others are added one by one */
    double gap0 = now - p->it_start;
    /* the next iteration's decodes while the sequences are at hand (for
     * p->ready): how many, their cached tokens, and which sequences need
     * a look */
    iter_sums u = {0};
    /* in locals: the stores below are to ints the compiler cannot tell
     * apart from these */
    const iter_ends e = {y->bt, p->it_start, now, y->warm, p->flag};
    const int *dec = p->dec, ndec = p->ndec, dq = y->dq, bt = y->bt;
    seq *seqs = y->seqs;
    if (y->spec_rng) {
        for (int i = 0; i < ndec; i++) {
            seq *x = &seqs[dec[i]];
            decoded(y, x, decode_tokens(y, x), i, dq, &e, &u);
        }
    } else {
        /* one token a step (decode_tokens' 1, dq 1), as constants */
        for (int i = 0; i < ndec; i++)
            decoded(y, &seqs[dec[i]], 1, i, 1, &e, &u);
    }
    int fin = u.fin; /* sequences of this iteration now done */
    int nflag = u.nflag, *flag = p->flag;
    long next_ctx = u.ctx, out = u.out;
    int ndecode = ndec; /* none is done, or the pass below counts again */
    size_t same = u.same;
    if (in_window)
        y->a.out_tokens += (double)out;
    if (same) {
        dam_stats_add_n(y->pool[L_ITL], gap0, same);
        dam_stats_add_n(y->rep[L_ITL], gap0, same);
        if (y->bat)
            dam_batches_add_n(y->bat[L_ITL], gap0, same);
    }
    /* prefill chunks: the one that completes a prompt samples a token */
    for (int i = 0; i < p->npre; i++) {
        seq *x = &y->seqs[p->pre[i]];
        x->kv += x->chunk;
        if (in_window)
            y->a.pre_tokens += x->chunk;
        x->chunk = 0;
        fin += p->kind == K_PREFILL; /* hands it over: the pass below */
        if (x->kv < x->target) {
            flag[nflag++] = ndec + i; /* a chunk next, not a decode */
            continue;
        }
        x->gen++;
        fin += x->gen >= x->out;
        ndecode++;
        if (!step_fits(x, dq, bt))
            flag[nflag++] = ndec + i;
        next_ctx += x->kv;
        if (in_window)
            y->a.out_tokens++;
        if (x->first < 0.0) {
            x->first = now;
            if (y->settle && x->idx >= y->warm &&
                now - x->arrive > y->settle->ttft)
                settle_over(y, &y->settle->over_ttft);
        } else if (x->idx >= y->warm)
            record(y, L_ITL, now - x->last);
        x->last = now;
    }
    /* finished sequences leave; prefill replicas hand the rest over
     * (only sequences of this iteration change: a sequence that asks for
     * at least one token is not done before it ran) */
    int n = 0;
    if (!fin && y->out_min1) {
        /* the running list is as it was: ready when it is the decodes
         * followed by the chunks, every one of them now decoding (the
         * usual iteration: no sequence waits part-way or idle) */
        p->ready = p->ndec + p->npre == p->nrun &&
                           memcmp(p->run, p->dec,
                                  (size_t)p->ndec * sizeof *p->run) == 0 &&
                           memcmp(p->run + p->ndec, p->pre,
                                  (size_t)p->npre * sizeof *p->run) == 0
                       ? p->nrun
                       : -1;
        p->ready_dec = ndecode;
        p->ready_ctx = next_ctx;
        p->nflag = nflag;
        p->ndec = p->npre = 0;
        kick(y, p);
        return;
    }
    ndecode = nflag = 0;
    next_ctx = 0;
    for (int i = 0; i < p->nrun; i++) {
        int slot = p->run[i];
        seq *x = &y->seqs[slot];
        if (x->gen >= x->out) {
            finish(y, p, slot);
            continue;
        }
        if (p->kind == K_PREFILL && x->kv >= x->target && x->gen > 0) {
            handoff(y, p, slot);
            continue;
        }
        if (x->kv < x->target) {
            flag[nflag++] = n;
        } else {
            ndecode++;
            if (!step_fits(x, dq, bt))
                flag[nflag++] = n;
            next_ctx += x->kv;
        }
        p->run[n++] = slot;
    }
    p->nrun = n;
    p->ready = n;
    p->ready_dec = ndecode;
    p->ready_ctx = next_ctx;
    p->nflag = nflag;
    p->ndec = p->npre = 0;
    kick(y, p);
}

/* Start an iteration on p if it is idle and has work. */
static void kick(sys *y, replica *p)
{
    if (!p->busy)
        schedule(y, p);
    /* offline: the deployment is saturated while every replica the
     * router feeds has requests waiting; the first to run dry ends that
     * window (what follows is the batch's drain: its last long requests
     * run in a part-filled batch, which says nothing of the deployment's
     * capacity) */
    if (y->offline && isinf(y->t_sat) && p - y->reps < y->nfront &&
        p->wait.len == 0 && p->swapped.len == 0) {
        for (int i = 0; i < y->nreps; i++)
            touch(y, &y->reps[i]);
        y->sat = y->a;
        y->t_sat = dam_des_now(y->des);
    }
}

/* ---- one replication ------------------------------------------------ */

/* What a replication measured. */
typedef struct rep_out {
    double lat[L_COUNT][5];  /* mean, p50, p90, p99, SLO quantile */
    double throughput, tokens, pre_tokens, good, kv, kv_peak, run, run_peak;
    double busy, iter, batch, decodes, preempts, sh[6], xfer, waits;
    double measured, events, t_end;
    /* offline: the saturated window (t_first to t_sat) and its rates;
     * t_sat 0 when the batch never saturated the deployment for a
     * request's mean service time */
    double t_first, t_sat, sat_throughput, sat_tokens;
} rep_out;

/* The replicas of a deployment (their costs are the caller's). */
typedef struct deploy {
    int nreps, nfront;
    int kind[2];             /* kinds of the front and back replicas */
    dam_llm_cost *cost[2];
    dam_llm_memory mem[2];
    double *bfor;            /* the scheduler's blocks per token count */
    long nbfor;
} deploy;

static void replicate(const dam_scenario *s, const dam_sim_options *opt,
                      const deploy *dp, uint64_t seed, int k, int reps,
                      long nreq, long warm, int offline, settle *st,
                      dam_stats **pool, dam_stats **rep, dam_batches **bat,
                      rep_out *out)
{
    const dam_llm *q = &s->serving.llm;
    sys y;
    memset(&y, 0, sizeof y);
    y.s = s;
    y.q = q;
    y.des = dam_des_create();
    y.arr_rng = dam_rng_create(seed, 8u * (uint64_t)k);
    y.in_rng = dam_rng_create(seed, 8u * (uint64_t)k + 1);
    y.out_rng = dam_rng_create(seed, 8u * (uint64_t)k + 2);
    y.dq = q->spec ? q->spec_tokens + 1 : 1;
    y.spec_rng = q->spec ? dam_rng_create(seed, 8u * (uint64_t)k + 3) : NULL;
    y.in_dist = (dam_dist){q->input.dist, q->input.mean, q->input.cv, NULL,
                           0};
    y.out_dist = (dam_dist){q->output.dist, q->output.mean, q->output.cv,
                            NULL, 0};
    y.trace = s->serving.arrival == DAM_ARRIVAL_TRACE ? opt->requests : NULL;
    y.nreq = nreq;
    y.progress = opt->progress;
    y.done_before = (double)k * nreq;
    y.total = (double)reps * nreq;
    y.warm = warm;
    y.offline = offline;
    y.interval = s->serving.rate > 0.0 ? 1.0 / s->serving.rate : 0.0;
    y.tA = INFINITY;
    y.t_sat = y.t_first = INFINITY;
    y.block_tokens = q->block_tokens;
    y.bt = q->block_tokens > 0 ? q->block_tokens : 0;
    y.settle = st;
    y.out_min1 = y.trace ? 1 : q->output.min >= 1.0;
    for (long i = 0; y.trace && i < nreq; i++)
        y.out_min1 &= y.trace[i].output >= 1;
    y.bfor = dp->bfor;
    y.nbfor = dp->nbfor;
    for (int i = 0; i < L_COUNT; i++) {
        y.pool[i] = pool[i];
        y.rep[i] = rep[i];
    }
    y.bat = bat;
    y.nreps = dp->nreps;
    y.nfront = dp->nfront;
    y.reps = dam_calloc((size_t)dp->nreps, sizeof *y.reps);
    int cap = q->max_seqs + 1;
    for (int i = 0; i < dp->nreps; i++) {
        replica *p = &y.reps[i];
        int b = i < dp->nfront ? 0 : 1;
        const dam_llm_memory *m = &dp->mem[b];
        p->kind = dp->kind[b];
        p->cost = dp->cost[b];
        p->ready = -1;
        /* a prefix every request shares stays cached: its blocks are
         * the replica's, not a request's */
        double pre = floor(q->prefix_tokens / q->block_tokens);
        p->blocks = p->free_blocks = m->blocks > pre ? m->blocks - pre : 0.0;
        p->swap_free = m->swap_blocks;
        p->block_bytes = m->block_bytes;
        p->kv_token = m->kv_token;
        p->kv_token_model = m->kv_token_model;
        p->run = dam_malloc((size_t)cap * sizeof *p->run);
        p->dec = dam_malloc((size_t)cap * sizeof *p->dec);
        p->pre = dam_malloc((size_t)cap * sizeof *p->pre);
        p->flag = dam_malloc((size_t)cap * sizeof *p->flag);
    }

    double first = y.trace && !offline ? y.trace[0].arrive : 0.0;
    dam_des_at(y.des, first, on_arrive, &y, dam_des_u(0));
    dam_des_run(y.des);

    /* the window: first measured arrival to the last arrival (steady
     * state under the offered load, without the drain); a burst whose
     * arrivals span less than a request's mean time (an offline batch)
     * is measured to its last completion instead */
    acc *a = &y.snap;
    double win = y.tA - y.t0;
    if (!(win > dam_stats_mean(rep[L_E2E]))) {
        a = &y.a;
        win = y.t_end - y.t0;
    }
    if (!(win > 1e-12))
        win = 1e-12;
    for (int i = 0; i < L_COUNT; i++) {
        double *v = out->lat[i];
        v[0] = dam_stats_mean(rep[i]);
        v[1] = dam_stats_quantile(rep[i], 0.5);
        v[2] = dam_stats_quantile(rep[i], 0.9);
        v[3] = dam_stats_quantile(rep[i], 0.99);
        v[4] = dam_stats_quantile(rep[i], q->slo_quantile);
    }
    out->throughput = a->done / win;
    out->tokens = a->out_tokens / win;
    out->pre_tokens = a->pre_tokens / win;
    /* per measured request: the whole run */
    const acc *all = &y.a;
    out->good = all->measured > 0.0 ? all->good / all->measured : 0.0;
    int nr = dp->nreps;
    out->kv = a->kv / (win * nr);
    out->kv_peak = a->peak_kv;
    out->run = a->run / (win * nr);
    out->run_peak = a->peak_run;
    out->busy = a->busy / (win * nr);
    out->iter = a->iters > 0.0 ? a->it_time / a->iters : 0.0;
    out->batch = a->iters > 0.0 ? a->tokens_it / a->iters : 0.0;
    out->decodes = a->iters > 0.0 ? a->decode_it / a->iters : 0.0;
    out->preempts = all->measured > 0.0 ? all->preempts / all->measured
                                        : 0.0;
    for (int i = 0; i < 6; i++)
        out->sh[i] = a->it_time > 0.0 ? a->sh[i] / a->it_time : 0.0;
    out->xfer = all->measured > 0.0 ? all->xfer / all->measured : 0.0;
    out->waits = a->decisions > 0.0 ? a->waits / a->decisions : 0.0;
    out->measured = all->measured;
    out->events = (double)dam_des_events(y.des);
    out->t_end = y.t_end;
    /* a steady state only when the window holds a request's mean
     * service time (its time less its queue) */
    double serve = dam_stats_mean(rep[L_E2E]) - dam_stats_mean(rep[L_QUEUE]);
    if (offline && !isinf(y.t_sat) && y.t_sat - y.t_first > serve) {
        double w = y.t_sat - y.t_first;
        out->t_sat = y.t_sat;
        out->t_first = y.t_first;
        out->sat_throughput = (y.sat.done - y.first.done) / w;
        out->sat_tokens = (y.sat.out_tokens - y.first.out_tokens) / w;
    }

    for (int i = 0; i < dp->nreps; i++) {
        replica *p = &y.reps[i];
        dam_free(p->run);
        dam_free(p->dec);
        dam_free(p->pre);
        dam_free(p->flag);
        dam_free(p->wait.v);
        dam_free(p->swapped.v);
    }
    dam_free(y.reps);
    dam_free(y.seqs);
    dam_free(y.free_slots);
    dam_rng_free(y.arr_rng);
    dam_rng_free(y.in_rng);
    dam_rng_free(y.out_rng);
    if (y.spec_rng)
        dam_rng_free(y.spec_rng);
    dam_des_free(y.des);
}

/* ---- the simulation ------------------------------------------------- */

/* Fill an dam_llm_stat from pooled h and per-replication values
 * x[rep][5]; with one replication, its CIs from its batches bb. */
static void fill_stat(dam_llm_stat *st, dam_stats *h, const rep_out *o,
                      int k, int reps, double qv, dam_batches *bb)
{
    memset(st, 0, sizeof *st);
    st->n = (double)dam_stats_count(h);
    if (st->n == 0)
        return;
    st->mean = dam_stats_mean(h);
    st->p50 = dam_stats_quantile(h, 0.5);
    st->p90 = dam_stats_quantile(h, 0.9);
    st->p99 = dam_stats_quantile(h, 0.99);
    st->max = dam_stats_quantile(h, 1.0);
    st->q = dam_stats_quantile(h, qv);
    double *x = dam_malloc((size_t)reps * sizeof *x);
    double *ci[5] = {&st->mean_ci, &st->p50_ci, &st->p90_ci, &st->p99_ci,
                     &st->q_ci};
    for (int j = 0; j < 5; j++) {
        for (int r = 0; r < reps; r++)
            x[r] = o[r].lat[k][j];
        dam_stat c;
        if (dam_stats_replications(x, (size_t)reps, &c, NULL) == DAM_OK)
            *ci[j] = c.ci95;
    }
    if (reps == 1 && bb) {
        const double p[5] = {-1.0, 0.5, 0.9, 0.99, qv};
        for (int j = 0; j < 5; j++)
            *ci[j] = dam_batches_ci95(bb, p[j]);
    }
    dam_free(x);
}

static double avg(const rep_out *o, int reps, size_t off)
{
    double s = 0.0;
    for (int r = 0; r < reps; r++)
        s += *(const double *)((const char *)&o[r] + off);
    return s / reps;
}

#define AVG(f) avg(o, reps, offsetof(rep_out, f))

/* The latency histograms: pooled and per replication. */
static void stats_open(dam_stats **pool, dam_stats **rep)
{
    for (int i = 0; i < L_COUNT; i++) {
        pool[i] = dam_stats_create();
        rep[i] = dam_stats_create();
    }
}

static void stats_close(dam_stats **pool, dam_stats **rep)
{
    for (int i = 0; i < L_COUNT; i++) {
        dam_stats_free(pool[i]);
        dam_stats_free(rep[i]);
    }
}

/* The replicas of s's deployment, their costs and memory (from l's
 * analytic part). */
static int deploy_make(const dam_scenario *s, const dam_llm_result *l,
                       deploy *dp, dam_error *err)
{
    const dam_llm *q = &s->serving.llm;
    memset(dp, 0, sizeof *dp);
    int ptp = q->disaggregated ? q->prefill_tp : q->tp;
    int dtp = q->disaggregated ? q->decode_tp : q->tp;
    dp->cost[0] = dam_llm_cost_create(s, ptp, err);
    dp->cost[1] = dp->cost[0] ? dam_llm_cost_create(s, dtp, err) : NULL;
    if (!dp->cost[1]) {
        dam_llm_cost_free(dp->cost[0]);
        return DAM_EINPUT;
    }
    dp->mem[0] = l->prefill_memory;
    dp->mem[1] = l->memory;
    /* blocks_for over the token counts a drawn request can reach (a
     * trace's longer ones divide), made once for every replication */
    double n = q->input.max + q->output.max +
               (q->spec ? q->spec_tokens + 1 : 1) + 2.0;
    dp->nbfor = n > 0.0 && n < 262144.0 ? (long)n : 262144;
    dp->bfor = dam_malloc((size_t)dp->nbfor * sizeof *dp->bfor);
    for (long t = 0; t < dp->nbfor; t++)
        dp->bfor[t] = ceil((double)t / q->block_tokens);
    if (q->disaggregated) {
        dp->nfront = q->prefill_replicas;
        dp->nreps = q->prefill_replicas + q->decode_replicas;
        dp->kind[0] = K_PREFILL;
        dp->kind[1] = K_DECODE;
    } else {
        dp->nreps = dp->nfront = s->serving.replicas;
        dp->kind[0] = dp->kind[1] = K_COLO;
    }
    return DAM_OK;
}

static void deploy_free(deploy *dp)
{
    dam_llm_cost_free(dp->cost[0]);
    dam_llm_cost_free(dp->cost[1]);
    dam_free(dp->bfor);
}

/* Offline: the batch a saturated rate is measured on when the scenario's
 * is too small, in the deployment's slots (max_seqs x the replicas the
 * router feeds), and its cap in requests. */
enum { DAM_LLM_SATURATE_BATCHES = 4, DAM_LLM_SATURATE_MAX = 20000 };

int dam_sim_llm_offline(const dam_scenario *s, const dam_sim_options *opt,
                        dam_result *r, dam_error *err)
{
    static const dam_sim_options none;
    if (!opt)
        opt = &none;
    const dam_llm *q = &s->serving.llm;
    if (s->mode != DAM_MODE_SERVING || !q->enabled)
        return dam_error_set(err, s->file, 0,
                             "dam_sim_llm_offline needs a serving scenario "
                             "with an llm group");
    dam_llm_result *l = &r->serving.llm;
    if (!l->enabled)
        dam_llm_solve_static(s, r);
    l->has_offline = 0;
    if (!r->memory.fits)
        return DAM_OK;
    long n = opt->steps > 0 ? opt->steps : (long)s->serving.requests;
    if (s->serving.arrival == DAM_ARRIVAL_TRACE && opt->requests &&
        (opt->steps <= 0 || (size_t)n > opt->nrequests))
        n = (long)opt->nrequests;
    if (n < 1)
        n = 1;
    deploy dp;
    if (deploy_make(s, l, &dp, err) != DAM_OK)
        return DAM_EINPUT;
    dam_stats *pool[L_COUNT], *rep[L_COUNT];
    stats_open(pool, rep);
    dam_sim_options o1 = *opt;
    o1.progress = NULL;
    uint64_t seed = opt->have_seed ? opt->seed : s->seed;
    rep_out o;
    memset(&o, 0, sizeof o);
    /* every request measured: warm-up 0, the window 0 to the last
     * completion (the arrivals span no time) */
    replicate(s, &o1, &dp, seed, 0, 1, n, 0, 1, NULL, pool, rep, NULL, &o);
    l->has_offline = 1;
    l->offline_requests = (double)n;
    l->offline_throughput = o.throughput;
    l->offline_tokens_per_s = o.tokens;
    l->offline_preemptions = o.preempts;
    l->offline_makespan_s = o.t_end;
    /* a batch too small to keep every replica saturated for a request's
     * service time (a few slots' worth) has no steady window: its
     * saturated rate comes from a batch of DAM_LLM_SATURATE_BATCHES
     * times the slots, its first n requests the same (a 228-request batch
     * on 3 x 47 slots read 5625 output tokens/s to its last completion,
     * its service 6088) */
    rep_out big = o;
    long n2 = (long)DAM_LLM_SATURATE_BATCHES * q->max_seqs * dp.nfront;
    if (n2 > DAM_LLM_SATURATE_MAX)
        n2 = DAM_LLM_SATURATE_MAX;
    /* a trace has the requests it has */
    if (s->serving.arrival == DAM_ARRIVAL_TRACE && opt->requests &&
        (size_t)n2 > opt->nrequests)
        n2 = (long)opt->nrequests;
    l->offline_saturated_requests = (double)n;
    if (!(o.t_sat > 0.0) && n2 > n) {
        stats_close(pool, rep);
        stats_open(pool, rep);
        memset(&big, 0, sizeof big);
        replicate(s, &o1, &dp, seed, 0, 1, n2, 0, 1, NULL, pool, rep, NULL,
                  &big);
        l->offline_saturated_requests = (double)n2;
    }
    /* the capacity is at least what the whole batch made: the window is
     * taken where it shows more (the drain of a few long requests held
     * the makespan back), not where the scheduler's phases make it less
     * (without chunked prefill every prompt is prefilled before a decode
     * runs, so the queue runs dry before the first decodes end) */
    int win = big.t_sat > 0.0 && big.sat_tokens > o.tokens;
    l->offline_saturated_from_s = win ? big.t_first : 0.0;
    l->offline_saturated_s = win ? big.t_sat : 0.0;
    l->offline_saturated_throughput = win ? big.sat_throughput
                                          : o.throughput;
    l->offline_saturated_tokens_per_s = win ? big.sat_tokens : o.tokens;
    if (!win)
        l->offline_saturated_requests = (double)n;
    stats_close(pool, rep);
    deploy_free(&dp);
    return DAM_OK;
}

/* Step: the LLM figures of reps replications (o, the pooled histograms)
 * into r's llm result and its events, with the deployment's hourly cost and the verdict. */
static void fold_llm(const dam_scenario *s, const rep_out *o, int reps,
                     dam_stats **pool, dam_batches **bat, dam_result *r)
{
    const dam_llm *q = &s->serving.llm;
    dam_llm_result *l = &r->serving.llm;
    double qv = q->slo_quantile;
    dam_llm_stat *st[L_COUNT] = {&l->ttft, &l->tpot, &l->itl, &l->e2e,
                                 &l->queue};
    for (int k = 0; k < L_COUNT; k++)
        fill_stat(st[k], pool[k], o, k, reps, qv, bat ? bat[k] : NULL);
    l->throughput = AVG(throughput);
    l->tokens_per_s = AVG(tokens);
    l->tokens_per_s_gpu = l->gpus > 0.0 ? l->tokens_per_s / l->gpus : 0.0;
    l->prefill_tokens_per_s = AVG(pre_tokens);
    l->goodput_fraction = AVG(good);
    l->goodput = l->throughput * l->goodput_fraction;
    l->kv_use_mean = AVG(kv);
    l->kv_use_peak = 0.0;
    l->running_peak = 0.0;
    for (int k = 0; k < reps; k++) {
        if (o[k].kv_peak > l->kv_use_peak)
            l->kv_use_peak = o[k].kv_peak;
        if (o[k].run_peak > l->running_peak)
            l->running_peak = o[k].run_peak;
    }
    l->running_mean = AVG(run);
    l->gpu_busy = AVG(busy);
    l->iteration_mean = AVG(iter);
    l->batch_tokens_mean = AVG(batch);
    l->decode_seqs_mean = AVG(decodes);
    l->preemptions = AVG(preempts);
    l->kv_transfer_s = AVG(xfer);
    l->kv_wait = AVG(waits);
    double *sh[6] = {&l->share_linear, &l->share_attn, &l->share_comm,
                     &l->share_head, &l->share_host, &l->share_swap};
    for (int i = 0; i < 6; i++) {
        double t = 0.0;
        for (int k = 0; k < reps; k++)
            t += o[k].sh[i];
        *sh[i] = t / reps;
    }
    l->requests = 0.0;
    r->events = 0.0;
    for (int k = 0; k < reps; k++) {
        l->requests += o[k].measured;
        r->events += o[k].events;
    }
    dam_quality_cost hour; /* an hour of the deployment, electricity too */
    if (dam_quality_scenario_cost(s, (int64_t)l->gpus, 3600.0, l->gpu_busy,
                                  &hour, NULL) == DAM_OK)
        l->cost_hour = hour.usd;
    l->cost_per_mtok = l->tokens_per_s > 0.0
                           ? l->cost_hour / 3600.0 / l->tokens_per_s * 1e6
                           : 0.0;
    l->met = dam_llm_slo_met(l);
}

/* Step: the generic serving figures of r (latency is end to end) and the
 * terms: the queue, then the service split by iteration shares. */
static void fold_serving(const dam_scenario *s, dam_stats **pool,
                         dam_result *r)
{
    const dam_llm_result *l = &r->serving.llm;
    dam_serving_result *sv = &r->serving;
    dam_stat *lat = &sv->latency;
    dam_stats_fill(pool[L_E2E], lat);
    lat->ci95 = l->e2e.mean_ci;
    sv->p99_ci95 = l->e2e.p99_ci;
    sv->throughput = l->throughput;
    sv->utilization = l->gpu_busy;
    sv->gpu_busy = l->gpu_busy;
    sv->slo_attainment = l->goodput_fraction;
    dam_serving_cost_per_1k(s, l->gpus, l->throughput, l->gpu_busy, sv);
    sv->mean_batch = l->decode_seqs_mean;
    sv->t_batch1 = l->t_decode1;
    dam_stats_fill(pool[L_QUEUE], &sv->phase[DAM_SPHASE_QUEUE]);
    r->sim_step = *lat;
    r->step = l->e2e.mean;
    r->throughput = l->throughput;
    r->tokens_per_s = l->tokens_per_s;

    /* terms: the queue, then the service split by iteration shares */
    double svc = l->e2e.mean - l->queue.mean - l->kv_transfer_s;
    if (svc < 0.0)
        svc = 0.0;
    for (int i = 0; i < DAM_TERM_COUNT; i++)
        r->terms[i] = 0.0;
    r->terms[DAM_TERM_DATA] = l->queue.mean;
    r->terms[DAM_TERM_COMPUTE] =
        svc * (l->share_linear + l->share_attn + l->share_head);
    r->terms[DAM_TERM_COMM] = svc * l->share_comm;
    r->terms[DAM_TERM_TRANSFER] = svc * l->share_swap + l->kv_transfer_s;
    r->terms[DAM_TERM_OVERHEAD] = svc * l->share_host;
}

/* Step: what binds r. */
static void llm_bound(dam_result *r)
{
    const dam_llm_result *l = &r->serving.llm;
    /* what binds: KV capacity when requests wait for blocks or are
     * preempted; else queueing when the queue is a large part of TTFT;
     * else the decode step's weights or compute */
    if (l->preemptions > 0.01 || l->kv_wait > 0.05)
        r->bound = DAM_BOUND_KV_CACHE;
    else if (l->queue.mean > 0.5 * l->ttft.mean && l->gpu_busy > 0.9)
        r->bound = DAM_BOUND_QUEUEING;
    else if (l->share_comm > 0.3)
        r->bound = DAM_BOUND_COMM;
    else if (l->share_host > 0.3)
        r->bound = DAM_BOUND_LATENCY;
    else
        r->bound = l->decode_seqs_mean * l->t_decode1 > 0.0 &&
                           l->iteration_mean < 2.0 * l->weight_floor
                       ? DAM_BOUND_WEIGHTS
                       : DAM_BOUND_COMPUTE;

}

int dam_sim_llm(const dam_scenario *s, const dam_sim_options *opt,
                dam_result *r, dam_trace *trace, dam_error *err)
{
    static const dam_sim_options none;
    (void)trace;
    if (!opt)
        opt = &none;
    const dam_serving *v = &s->serving;
    const dam_llm *q = &v->llm;
    if (s->mode != DAM_MODE_SERVING || !q->enabled)
        return dam_error_set(err, s->file, 0,
                             "dam_sim_llm needs a serving scenario with an "
                             "llm group");
    if (dam_sim_work_check(s, opt, err) != DAM_OK)
        return DAM_EINPUT;
    long nreq, warm;
    if (dam_sim_serving_window(s, opt, opt->requests ? opt->nrequests : 0,
                               "requests", &nreq, &warm, err) != DAM_OK)
        return DAM_EINPUT;
    dam_dist di = {q->input.dist, q->input.mean, q->input.cv, NULL, 0};
    dam_dist dd = {q->output.dist, q->output.mean, q->output.cv, NULL, 0};
    if (dam_dist_check(&di, err) != DAM_OK ||
        dam_dist_check(&dd, err) != DAM_OK)
        return DAM_EINPUT;
    int reps = opt->replications > 0 ? opt->replications : v->replications;
    if (reps < 1)
        reps = 1;
    uint64_t seed = opt->have_seed ? opt->seed : s->seed;

    /* the analytic part (memory, lone-request costs) first */
    dam_llm_result *l = &r->serving.llm;
    if (!l->enabled)
        dam_llm_solve_static(s, r);
    if (!r->has_sim) {
        /* keep the analytic figures (a lone request) beside the simulated */
        r->analytic_step = r->step;
        for (int i = 0; i < DAM_TERM_COUNT; i++)
            r->analytic_terms[i] = r->terms[i];
        r->analytic_bound = r->bound;
    }
    r->has_sim = 1;
    r->replications = reps;
    r->sim_steps = (double)(nreq - warm);
    r->serving.slo_s = v->slo_p99_s;
    if (!r->memory.fits) {
        /* nothing runs: the longest request's cache does not fit */
        l->met = 0;
        r->bound = DAM_BOUND_KV_CACHE;
        return DAM_OK;
    }

    deploy dp;
    if (deploy_make(s, l, &dp, err) != DAM_OK)
        return DAM_EINPUT;

    dam_stats *pool[L_COUNT], *rep[L_COUNT];
    stats_open(pool, rep);
    /* one replication: each latency's CI from batches of its own run */
    dam_batches *bat[L_COUNT] = {NULL};
    for (int i = 0; reps == 1 && i < L_COUNT; i++)
        bat[i] = dam_batches_create();
    rep_out *o = dam_calloc((size_t)reps, sizeof *o);
    settle st = {0};
    if (opt->llm_settle) {
        long n = (long)reps * (nreq - warm);
        double h = (double)(n - 1) * q->slo_quantile;
        st.need = n - (long)h;
        st.ttft = q->slo_ttft_s * (1.0 + 1e-9) * 1.01;
        st.tpot = q->slo_tpot_s * (1.0 + 1e-9) * 1.01;
    }
    int ran = 0;
    while (ran < reps && !st.done) {
        for (int i = 0; i < L_COUNT; i++)
            dam_stats_reset(rep[i]);
        replicate(s, opt, &dp, seed, ran, reps, nreq, warm, 0,
                  opt->llm_settle && st.need > 0 ? &st : NULL, pool, rep,
                  reps == 1 ? bat : NULL, &o[ran]);
        ran++;
        dam_progress_report(opt->progress, (double)ran * nreq,
                            (double)reps * nreq);
    }
    if (st.done)
        r->replications = reps = ran;

    fold_llm(s, o, reps, pool, bat, r);
    l->missed_early = st.done;
    l->met = l->met && !st.done;
    fold_serving(s, pool, r);
    llm_bound(r);

    stats_close(pool, rep);
    for (int i = 0; i < L_COUNT; i++)
        dam_batches_free(bat[i]);
    dam_free(o);
    deploy_free(&dp);
    if (opt->llm_offline)
        return dam_sim_llm_offline(s, opt, r, err);
    return DAM_OK;
}
