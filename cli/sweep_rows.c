/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * sweep_rows.c: one chunk of a sweep's rows, solved and formatted, and
 * written in order with its figures kept; what the threads (cmd_sweep.c)
 * and the MPI ranks (sweep_mpi.c) both do with a chunk.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/sweep.h"
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
            dam_sweep_csv_row(b, r->sw, row);
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
