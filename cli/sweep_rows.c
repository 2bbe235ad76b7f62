/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * sweep_rows.c: one chunk of a sweep's rows, solved and formatted, and
 * written in order with its figures kept; what the threads and the MPI
 * ranks (sweep_mpi.c) both do with a chunk; and the threads that run the
 * chunks on one machine (cmd_sweep.c and sweep_mpi.c call them).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "cli/sweep.h"
#include "model/alloc.h"
#include "render/page/sweep_page.h"

/* Solve and format chunk c into b (and its figures into fig). Returns 0,
 * or 1 when stopped by an interrupt before the end. */
int dam_cli_sweep_chunk(const dam_cli_sweep *r, dam_sweep_worker *w,
                        dam_sweep_row *row, uint64_t c, dam_buf *b,
                        dam_sweep_fig *fig)
{
    uint64_t lo = c * r->chunk, hi = lo + r->chunk;
    if (hi > r->sw->npoints)
        hi = r->sw->npoints;
    for (uint64_t i = lo; i < hi; i++) {
        if (dam_cli_interrupted())
            return 1;
        dam_sweep_eval(w, i, row);
        if (r->json)
            dam_sweep_jsonl_row(b, r->sw, row);
        else
            dam_page_sweep_csv_row(b, r->sw, row);
        if (fig)
            dam_sweep_fig_of(row, &fig[i - lo]);
    }
    return 0;
}

/* Write chunk c's text to out and keep its figures; 0 or 1. */
int dam_cli_sweep_emit(dam_cli_sweep *r, FILE *out, dam_buf *text,
                       const dam_sweep_fig *fig, uint64_t c)
{
    int rc = 0;
    /* rows that solved: an empty error field (CSV: the line ends with the
     * comma before it; JSON Lines: "error":null) */
    static const char null_error[] = "\"error\":null}";
    size_t nl = sizeof null_error - 1;
    for (size_t i = 0, start = 0; i < text->len; i++) {
        if (text->data[i] != '\n')
            continue;
        size_t n = i - start;
        const char *line = text->data + start;
        r->solved += r->json ? n >= nl && memcmp(line + n - nl, null_error,
                                                  nl) == 0
                             : n > 0 && line[n - 1] == ',';
        start = i + 1;
    }
    if (text->len && fwrite(text->data, 1, text->len, out) != text->len) {
        rc = 1;
        if (!r->werr)
            r->werr = errno ? errno : EIO;
    }
    text->len = 0;
    if (text->data)
        text->data[0] = '\0';
    uint64_t lo = c * r->chunk, hi = lo + r->chunk;
    if (hi > r->sw->npoints)
        hi = r->sw->npoints;
    if (r->figs && fig)
        memcpy(r->figs + lo, fig, (size_t)(hi - lo) * sizeof *fig);
    r->done = hi;
    dam_cli_progress_update(&r->progress, hi);
    return rc;
}

/* ---- one chunk of rows ---------------------------------------------------- */

typedef struct slot {
    dam_buf text;          /* the chunk's formatted rows */
    dam_sweep_fig *fig;/* the chunk's figures for charts (or NULL) */
    uint64_t chunk;        /* which chunk it holds */
    int ready;             /* 1: text is complete */
} slot;

/* ---- threads -------------------------------------------------------------- */

typedef struct pool {
    const dam_cli_sweep *r;
    pthread_mutex_t mu;
    pthread_cond_t cv;     /* a slot became ready, or free */
    uint64_t next;         /* next chunk to hand out */
    uint64_t written;      /* chunks written so far */
    int stop;              /* 1: workers stop taking chunks */
    slot *slots;
    uint64_t window;       /* slots */
    dam_sweep_counts counts; /* the workers', added as each ends */
} pool;

static void *worker_main(void *arg)
{
    pool *p = arg;
    const dam_cli_sweep *r = p->r;
    dam_sweep_worker *w = dam_sweep_worker_create(r->sw);
    dam_sweep_row *row = dam_malloc(sizeof *row);
    for (;;) {
        pthread_mutex_lock(&p->mu);
        while (!p->stop && p->next < r->nchunks &&
               p->next >= p->written + p->window)
            pthread_cond_wait(&p->cv, &p->mu);
        if (p->stop || p->next >= r->nchunks) {
            pthread_mutex_unlock(&p->mu);
            break;
        }
        uint64_t c = p->next++;
        slot *s = &p->slots[c % p->window];
        pthread_mutex_unlock(&p->mu);

        int cut = dam_cli_sweep_chunk(r, w, row, c, &s->text, s->fig);

        pthread_mutex_lock(&p->mu);
        if (cut) {
            p->stop = 1;
        } else {
            s->chunk = c;
            s->ready = 1;
        }
        pthread_cond_broadcast(&p->cv);
        pthread_mutex_unlock(&p->mu);
        if (cut)
            break;
    }
    pthread_mutex_lock(&p->mu);
    dam_sweep_worker_counts(w, &p->counts);
    pthread_mutex_unlock(&p->mu);
    dam_free(row);
    dam_sweep_worker_free(w);
    return NULL;
}

/* Run r's chunks on r->jobs threads, writing each in order to out.
 * Returns 0, 1 (write error) or 130 (interrupted). */
int dam_cli_sweep_threads(dam_cli_sweep *r, FILE *out)
{
    pool p;
    memset(&p, 0, sizeof p);
    p.r = r;
    p.window = (uint64_t)r->jobs * 4;
    p.slots = dam_calloc((size_t)p.window, sizeof *p.slots);
    for (uint64_t i = 0; i < p.window && r->charts; i++)
        p.slots[i].fig = dam_calloc((size_t)r->chunk, sizeof(dam_sweep_fig));
    pthread_mutex_init(&p.mu, NULL);
    pthread_cond_init(&p.cv, NULL);
    pthread_t *th = dam_calloc((size_t)r->jobs, sizeof *th);
    int nth = 0;
    for (int i = 0; i < r->jobs; i++)
        if (pthread_create(&th[nth], NULL, worker_main, &p) == 0)
            nth++;
    int rc = nth ? 0 : 1;
    if (!nth)
        fprintf(stderr, "damsim: cannot start a thread\n");
    for (uint64_t c = 0; c < r->nchunks && rc == 0; c++) {
        slot *s = &p.slots[c % p.window];
        pthread_mutex_lock(&p.mu);
        while (!(s->ready && s->chunk == c) && !p.stop &&
               !dam_cli_interrupted()) {
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            ts.tv_nsec += 100000000L;
            if (ts.tv_nsec >= 1000000000L) {
                ts.tv_sec++;
                ts.tv_nsec -= 1000000000L;
            }
            pthread_cond_timedwait(&p.cv, &p.mu, &ts);
            pthread_mutex_unlock(&p.mu);
            dam_cli_progress_update(&r->progress, c * r->chunk);
            pthread_mutex_lock(&p.mu);
        }
        int ready = s->ready && s->chunk == c;
        pthread_mutex_unlock(&p.mu);
        if (!ready) {
            rc = 130;
            break;
        }
        rc = dam_cli_sweep_emit(r, out, &s->text, s->fig, c);
        pthread_mutex_lock(&p.mu);
        s->ready = 0;
        p.written = c + 1;
        pthread_cond_broadcast(&p.cv);
        pthread_mutex_unlock(&p.mu);
        if (rc == 0 && dam_cli_interrupted())
            rc = 130;
    }
    pthread_mutex_lock(&p.mu);
    p.stop = 1;
    pthread_cond_broadcast(&p.cv);
    pthread_mutex_unlock(&p.mu);
    for (int i = 0; i < nth; i++)
        pthread_join(th[i], NULL);
    r->counts.graph_costs += p.counts.graph_costs;
    r->counts.graph_reused += p.counts.graph_reused;
    r->counts.draws_reused += p.counts.draws_reused;
    for (uint64_t i = 0; i < p.window; i++) {
        dam_buf_free(&p.slots[i].text);
        dam_free(p.slots[i].fig);
    }
    dam_free(p.slots);
    dam_free(th);
    pthread_cond_destroy(&p.cv);
    pthread_mutex_destroy(&p.mu);
    return rc;
}
