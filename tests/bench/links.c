/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * links.c: benchmark of a shared link's cost per flow completion. Usage:
 * links N. One link of capacity 1 holds n concurrent flows (n = 1,000 and
 * n = 100,000) of random sizes; each completion starts a new flow, so n
 * stays constant, until N flows have completed. Prints the CPU time per
 * completion for both n and their ratio (virtual time: should grow no
 * faster than log n, i.e. ratio well under 100, near log(1e5)/log(1e3)
 * = 1.67 plus cache effects), for three kinds of caps:
 *  - equal (none): the equal-cap virtual-time mode;
 *  - mixed: caps of 1 to 7 units/s times 1e-6 that all fit (every flow
 *    runs at its cap), the mixed-cap mode's capped set;
 *  - mixed, level binds: a third of the flows uncapped, the rest capped
 *    at 0.2 to 1.8 times the fair share 1/n, so the fair level binds and
 *    the boundary between capped and level flows moves on most events.
 * The two sizes run in turns, 20 chunks of N / 20 completions each
 * (after a warm-up in which every flow turned over twice), and the ratio
 * printed against the goal is the median of the 20 chunks' ratios: a
 * burst of another tenant's load on a shared machine falls on a few chunk
 * pairs, not on one size. Last, the mixed caps at n = 1,000 on the
 * general path (progressive filling, O(n log n) per event) with N/100
 * completions, for comparison.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <gsl/gsl_errno.h>

#include "solver/des.h"
#include "solver/link.h"
#include "solver/rng.h"

#include "bench_util.h"

#define CHUNKS 20

/* Kinds of caps the flows get. */
enum caps { EQUAL, MIXED, BINDING };

struct bench {
    dam_link_net *net;
    gsl_rng *r;
    int link;
    uint64_t done, target;
    enum caps caps;  /* which caps new flows get */
    double n;        /* concurrent flows */
};

static void start(struct bench *b);

static void finished(dam_des *des, void *ctx, dam_des_arg arg)
{
    struct bench *b = ctx;
    start(b); /* n stays constant, across chunks too */
    if (++b->done >= b->target)
        dam_des_stop(des);
}

static void start(struct bench *b)
{
    int links[1] = {b->link};
    double work = 0.5 + gsl_rng_uniform(b->r);
    double cap = 0.0;
    if (b->caps == MIXED) {
        cap = 1e-6 * (1.0 + (double)(b->done % 7));
    } else if (b->caps == BINDING) {
        double u = gsl_rng_uniform(b->r);
        cap = u < 1.0 / 3.0 ? 0.0 : (0.2 + 1.6 * (u - 1.0 / 3.0) * 1.5) / b->n;
    }
    dam_link_flow_start(b->net, links, 1, work, cap, finished, b,
                        dam_des_u(0), NULL, NULL);
}

/* One link with n concurrent flows, run chunk by chunk. */
struct sized {
    dam_des *des;
    struct bench b;
};

static void sized_init(struct sized *z, uint64_t n, enum caps caps, int fast)
{
    z->des = dam_des_create();
    z->b = (struct bench){dam_link_net_create(z->des), dam_rng_create(1, 0),
                          0, 0, 0, caps, (double)n};
    dam_link_net_set_fast(z->b.net, fast);
    z->b.link = dam_link_add(z->b.net, 1.0, NULL);
    z->b.target = UINT64_MAX;
    for (uint64_t i = 0; i < n; i++)
        start(&z->b);
}

/* CPU seconds of the next `completions` completions. */
static double sized_run(struct sized *z, uint64_t completions)
{
    z->b.target = z->b.done + completions;
    double t0 = bench_cpu();
    dam_des_run(z->des);
    return bench_cpu() - t0;
}

static void sized_free(struct sized *z)
{
    dam_rng_free(z->b.r);
    dam_link_net_free(z->b.net);
    dam_des_free(z->des);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The two sizes of one kind of caps, CHUNKS chunks of completions / CHUNKS
 * each, taking turns after a warm-up: per-completion times
 * (all chunks) and the median of the chunks' ratios. */
static void compare(uint64_t completions, enum caps caps)
{
    static const char *name[] = {"", " (mixed caps)",
                                 " (mixed caps, level binds)"};
    struct sized a, b;
    sized_init(&a, 1000, caps, 1);
    sized_init(&b, 100000, caps, 1);
    uint64_t chunk = completions / CHUNKS > 0 ? completions / CHUNKS : 1;
    /* warm-up: every flow of each size has turned over twice, so the
     * pool's free list and the heaps are in their steady, mixed order */
    sized_run(&a, 2 * 1000);
    sized_run(&b, 2 * 100000);
    double ta = 0.0, tb = 0.0, ratio[CHUNKS];
    for (int c = 0; c < CHUNKS; c++) {
        double x = sized_run(&a, chunk), y = sized_run(&b, chunk);
        ta += x;
        tb += y;
        ratio[c] = x > 0.0 ? y / x : 0.0;
    }
    qsort(ratio, CHUNKS, sizeof ratio[0], cmp_double);
    double med = 0.5 * (ratio[CHUNKS / 2 - 1] + ratio[CHUNKS / 2]);
    uint64_t n = chunk * CHUNKS;
    printf("  n =   1000%s: %llu completions in %.3f s, %.1f ns each, "
           "link fast path: %s\n", name[caps], (unsigned long long)n, ta,
           ta / (double)n * 1e9, dam_link_is_fast(a.b.net, a.b.link) ? "yes"
                                                                : "no");
    printf("  n = 100000%s: %llu completions in %.3f s, %.1f ns each, "
           "link fast path: %s\n", name[caps], (unsigned long long)n, tb,
           tb / (double)n * 1e9, dam_link_is_fast(b.b.net, b.b.link) ? "yes"
                                                                 : "no");
    printf("per-completion time ratio n=100000 / n=1000: %.2fx (median of "
           "%d paired chunks, %.2fx to %.2fx; all chunks %.2fx; goal <= "
           "2.00x, issue 26: %s; log ratio %.2f, linear ratio 100)\n", med,
           CHUNKS, ratio[0], ratio[CHUNKS - 1], tb / ta,
           med <= 2.0 ? "met" : "NOT met", 5.0 / 3.0);
    sized_free(&a);
    sized_free(&b);
}

/* The general path for comparison: CPU seconds per completion. */
static void general(uint64_t completions)
{
    struct sized g;
    sized_init(&g, 1000, MIXED, 0);
    double t = sized_run(&g, completions);
    printf("  n =   1000 (mixed caps): %llu completions in %.3f s, %.1f ns "
           "each, link fast path: %s\n", (unsigned long long)completions, t,
           t / (double)completions * 1e9,
           dam_link_is_fast(g.b.net, g.b.link) ? "yes" : "no");
    sized_free(&g);
}

int main(int argc, char **argv)
{
    gsl_set_error_handler_off();
    uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 1000000;
    printf("links: %llu completions per size\n", (unsigned long long)n);
    for (int c = EQUAL; c <= BINDING; c++)
        compare(n, (enum caps)c);
    printf("general path, for comparison:\n");
    general(n / 100 > 0 ? n / 100 : 1);
    return 0;
}
