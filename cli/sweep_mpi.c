/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * sweep_mpi.c: `damsim sweep` over MPI ranks (built when CMake finds MPI:
 * DAM_HAVE_MPI). Only this file knows about ranks; the library below stays
 * single-process.
 *
 * Design. Chunk c belongs to rank c mod size. Every rank solves its chunks
 * in increasing order (on its -j threads' worth of one worker: ranks are
 * the parallelism here) and sends each chunk's text to rank 0, which
 * solves its own chunks and receives the others' in chunk order: MPI keeps
 * messages between two ranks in order, so rank 0 simply receives chunk c
 * from rank c mod size. The output is the bytes -j 1 writes. The other
 * ranks keep up to SENDS chunks in flight (non-blocking sends), so they
 * never stop solving to wait for rank 0, and every wait for another rank
 * tests and pauses in turn (20 us, doubling up to 0.5 ms) instead of spinning in MPI: with as many
 * ranks as cores a spinning rank takes its core's time from the rank it
 * waits for. MPI is
 * initialised only when the process was started by mpirun (the launcher's
 * environment says so), so a plain `damsim sweep` never touches it.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/sweep.h"
#include "model/alloc.h"

#ifdef DAM_HAVE_MPI
#include <mpi.h>

static int started;

/* 1 when an MPI launcher started this process. */
static int under_mpirun(void)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE",
                                       "PMIX_RANK", NULL};
    for (int i = 0; vars[i]; i++)
        if (getenv(vars[i]))
            return 1;
    return 0;
}

int dam_cli_mpi_start(int *rank)
{
    *rank = 0;
    if (!under_mpirun())
        return 1;
    int size = 1;
    if (!started) {
        if (MPI_Init(NULL, NULL) != MPI_SUCCESS)
            return 1;
        started = 1;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    return size;
}

void dam_cli_mpi_end(void)
{
    if (started)
        MPI_Finalize();
    started = 0;
}

void dam_cli_mpi_abort(int code)
{
    if (started)
        MPI_Abort(MPI_COMM_WORLD, code);
}

/* Sends a rank keeps in flight (each a chunk's text and figures). */
#define SENDS 8

/* One chunk on its way to rank 0. */
typedef struct {
    dam_buf text;
    dam_sweep_fig *fig;
    MPI_Request req[2]; /* text, figures (MPI_REQUEST_NULL when none) */
    int busy;
} send_slot;

/* A pause in a wait for another rank (MPI's own waits spin, which on a
 * machine with as many ranks as cores takes the core from the rank being
 * waited for): *ns, doubled for the next pause up to 0.5 ms; a wait
 * starts at 20 us. */
static void pause_briefly(long *ns)
{
    struct timespec ts = {0, *ns};
    nanosleep(&ts, NULL);
    if (*ns < 500000)
        *ns *= 2;
}

/* Wait for slot s's sends to complete, pausing between tests. */
static void slot_wait(send_slot *s)
{
    int done = 0;
    long ns = 20000;
    while (s->busy) {
        MPI_Testall(2, s->req, &done, MPI_STATUSES_IGNORE);
        if (done)
            s->busy = 0;
        else
            pause_briefly(&ns);
    }
}

/* Rank > 0: solve this rank's chunks and send each to rank 0, up to SENDS
 * in flight so that solving never waits for rank 0 to receive. */
static int send_chunks(dam_cli_sweep *r, int rank, int size)
{
    dam_sweep_worker *w = dam_sweep_worker_create(r->sw);
    dam_sweep_row *row = dam_malloc(sizeof *row);
    send_slot slots[SENDS];
    memset(slots, 0, sizeof slots);
    for (int i = 0; i < SENDS; i++) {
        slots[i].req[0] = slots[i].req[1] = MPI_REQUEST_NULL;
        if (r->charts)
            slots[i].fig = dam_calloc((size_t)r->chunk, sizeof *slots[i].fig);
    }
    int rc = 0;
    uint64_t n = 0; /* chunks sent */
    for (uint64_t c = (uint64_t)rank; c < r->nchunks;
         c += (uint64_t)size, n++) {
        send_slot *s = &slots[n % SENDS];
        slot_wait(s);
        s->text.len = 0;
        if (dam_cli_sweep_chunk(r, w, row, c, &s->text, s->fig)) {
            rc = 130;
            break;
        }
        /* text first, then the figures when charts want them */
        MPI_Isend(s->text.data ? s->text.data : "", (int)s->text.len,
                  MPI_CHAR, 0, 0, MPI_COMM_WORLD, &s->req[0]);
        if (s->fig)
            MPI_Isend(s->fig, (int)(r->chunk * sizeof *s->fig), MPI_BYTE, 0,
                      1, MPI_COMM_WORLD, &s->req[1]);
        s->busy = 1;
        /* let MPI progress the earlier sends */
        int done = 0;
        send_slot *old = &slots[(n + 1) % SENDS];
        if (old->busy) {
            MPI_Testall(2, old->req, &done, MPI_STATUSES_IGNORE);
            if (done)
                old->busy = 0;
        }
    }
    if (rc == 0) {
        for (int i = 0; i < SENDS; i++)
            slot_wait(&slots[i]);
        for (int i = 0; i < SENDS; i++) {
            dam_buf_free(&slots[i].text);
            dam_free(slots[i].fig);
        }
    }
    /* else: sends may be in flight and every rank is about to be aborted:
     * their buffers stay */
    dam_sweep_worker_counts(w, &r->counts);
    dam_free(row);
    dam_sweep_worker_free(w);
    return rc;
}

int dam_cli_sweep_mpi(dam_cli_sweep *r, FILE *out, int rank, int size)
{
    if (rank != 0)
        return send_chunks(r, rank, size);
    dam_sweep_worker *w = dam_sweep_worker_create(r->sw);
    dam_sweep_row *row = dam_malloc(sizeof *row);
    dam_buf b = {0};
    dam_sweep_fig *fig =
        r->charts ? dam_calloc((size_t)r->chunk, sizeof *fig) : NULL;
    int rc = 0;
    for (uint64_t c = 0; c < r->nchunks && rc == 0; c++) {
        int owner = (int)(c % (uint64_t)size);
        if (owner == 0) {
            if (dam_cli_sweep_chunk(r, w, row, c, &b, fig)) {
                rc = 130;
                break;
            }
        } else {
            /* MPI keeps one sender's messages in order: the next text
             * from the owner is chunk c's */
            MPI_Status st;
            int n = 0, ready = 0;
            long ns = 20000;
            for (;;) {
                MPI_Iprobe(owner, 0, MPI_COMM_WORLD, &ready, &st);
                if (ready)
                    break;
                if (dam_cli_interrupted())
                    break;
                pause_briefly(&ns);
            }
            if (!ready) {
                rc = 130;
                break;
            }
            MPI_Get_count(&st, MPI_CHAR, &n);
            b.data = dam_grow(b.data, 1, (size_t)n + 1, &b.cap);
            MPI_Recv(b.data, n, MPI_CHAR, owner, 0, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
            b.len = (size_t)n;
            b.data[n] = '\0';
            if (fig)
                MPI_Recv(fig, (int)(r->chunk * sizeof *fig), MPI_BYTE, owner,
                         1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        rc = dam_cli_sweep_emit(r, out, &b, fig, c);
        if (rc == 0 && dam_cli_interrupted())
            rc = 130;
    }
    dam_buf_free(&b);
    dam_free(fig);
    dam_sweep_worker_counts(w, &r->counts);
    dam_free(row);
    dam_sweep_worker_free(w);
    return rc;
}

#else /* no MPI: one process */

int dam_cli_mpi_start(int *rank)
{
    *rank = 0;
    return 1;
}

void dam_cli_mpi_end(void)
{
}

void dam_cli_mpi_abort(int code)
{
    (void)code;
}

int dam_cli_sweep_mpi(dam_cli_sweep *r, FILE *out, int rank, int size)
{
    (void)rank;
    (void)size;
    return dam_cli_sweep_threads(r, out);
}

#endif
