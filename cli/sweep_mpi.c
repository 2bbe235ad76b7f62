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
 * from rank c mod size. The output is the bytes -j 1 writes. MPI is
 * initialised only when the process was started by mpirun (the launcher's
 * environment says so), so a plain `damsim sweep` never touches it.
 */
#include <stdlib.h>
#include <string.h>

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

int dam_cli_sweep_mpi(dam_cli_sweep *r, FILE *out, int rank, int size)
{
    dam_sweep_worker *w = dam_sweep_worker_create(r->sw);
    dam_sweep_row *row = dam_malloc(sizeof *row);
    dam_buf b = {0};
    dam_sweep_fig *fig =
        r->charts ? dam_calloc((size_t)r->chunk, sizeof *fig) : NULL;
    int rc = 0;
    for (uint64_t c = 0; c < r->nchunks && rc == 0; c++) {
        int owner = (int)(c % (uint64_t)size);
        if (owner == rank) {
            if (dam_cli_sweep_chunk(r, w, row, c, &b, fig)) {
                rc = 130;
                break;
            }
            if (rank != 0) {
                /* text first, then the figures when charts want them */
                MPI_Send(b.data ? b.data : "", (int)b.len, MPI_CHAR, 0, 0,
                         MPI_COMM_WORLD);
                if (fig)
                    MPI_Send(fig, (int)(r->chunk * sizeof *fig), MPI_BYTE,
                             0, 1, MPI_COMM_WORLD);
                b.len = 0;
                continue;
            }
        } else if (rank == 0) {
            MPI_Status st;
            int n = 0;
            MPI_Probe(owner, 0, MPI_COMM_WORLD, &st);
            MPI_Get_count(&st, MPI_CHAR, &n);
            b.data = dam_grow(b.data, 1, (size_t)n + 1, &b.cap);
            MPI_Recv(b.data, n, MPI_CHAR, owner, 0, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
            b.len = (size_t)n;
            b.data[n] = '\0';
            if (fig)
                MPI_Recv(fig, (int)(r->chunk * sizeof *fig), MPI_BYTE, owner,
                         1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            continue;
        }
        rc = dam_cli_sweep_emit(r, out, &b, fig, c);
        if (rc == 0 && dam_cli_interrupted())
            rc = 130;
    }
    dam_buf_free(&b);
    dam_free(fig);
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
