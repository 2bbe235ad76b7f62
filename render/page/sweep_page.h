/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * sweep.h: a sweep's rows as CSV or JSON Lines (`damsim sweep`).
 *
 * One row per point, in point order, each row complete on its own line so
 * that a stream cut between rows is still a valid file. Columns: every
 * varied key (its value as given or drawn), then step_s, throughput_per_s,
 * run_time_s, gpu_hours, cost_usd, energy_kwh, bound, fits_memory, the 90 %
 * intervals (step_s_lo/hi, run_time_s_lo/hi, cost_usd_lo/hi) when the
 * scenario has uncertain inputs, and error (empty when the point solved).
 * A failed point keeps its values and error and leaves the figures empty
 * (CSV) or null (JSON); a point whose GPU has no price per GPU-hour leaves
 * its cost empty or null ("n/a", as every other output writes it).
 *
 * Numbers have 6 significant digits, written as printf's "%.6g" writes
 * them; the formatter here is a fast path for CSV (a sweep writes millions
 * of numbers) that falls back to snprintf on the rare near-tie, so the bytes
 * never depend on which path ran. Nothing here knows threads or files.
 */
#ifndef DAM_RENDER_SWEEP_H
#define DAM_RENDER_SWEEP_H

#include <stddef.h>

#include "render/out/buf.h"
#include "solver/sweep.h"

/* The CSV header line (with its newline) of sw's rows. */
void dam_page_sweep_csv_header(dam_buf *b, const dam_sweep *sw);
/* One CSV line for row. */
void dam_page_sweep_csv_row(dam_buf *b, const dam_sweep *sw,
                       const dam_sweep_row *row);
/* One JSON object on one line for row (JSON Lines). */
void dam_sweep_jsonl_row(dam_buf *b, const dam_sweep *sw,
                         const dam_sweep_row *row);

/* Write finite x as "%.6g" would into out (at least 16 bytes); returns the
 * length. */
size_t dam_sweep_fmt_g6(double x, char *out);

#endif
