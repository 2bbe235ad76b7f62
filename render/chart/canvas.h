/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * canvas.h: a cairo surface bound to an output file that appears whole or
 * not at all.
 *
 * The surface kind comes from the file's extension (.png, .svg, .pdf, in
 * any case). Drawing goes to a temporary file in the same folder; closing
 * checks cairo's sticky status once, then renames the temporary onto the
 * path. Any failure removes the temporary, so a reader never finds a
 * half-written chart. Sizes are in points (1/72 in); PNG is rasterised at
 * DAM_CANVAS_PNG_SCALE pixels per point. The same drawing gives the same
 * bytes: PDF dates are fixed (DAM_CANVAS_PDF_DATE) rather than the clock.
 */
#ifndef DAM_RENDER_CANVAS_H
#define DAM_RENDER_CANVAS_H

#include <cairo.h>

#include "model/error.h"

#define DAM_CANVAS_PNG_SCALE 2.0                  /* pixels per point in PNG */
#define DAM_CANVAS_PDF_DATE "2000-01-01T00:00:00Z" /* PDF create/mod date */

/* Output kinds. */
typedef enum dam_canvas_format {
    DAM_CANVAS_PNG = 0, /* raster, ARGB32 on a white background */
    DAM_CANVAS_SVG,     /* vector, one page */
    DAM_CANVAS_PDF      /* vector, one or more pages */
} dam_canvas_format;

/* An open canvas; opaque, created by dam_canvas_open. */
typedef struct dam_canvas dam_canvas;

/* The format for path's extension. Returns DAM_OK, or DAM_EINPUT (err
 * filled, "unknown chart format") for any other extension. */
int dam_canvas_format_of(const char *path, dam_canvas_format *fmt,
                         dam_error *err);

/*
 * Open a canvas writing to path (through a temporary beside it).
 * out:    OUT: the canvas, owned by the caller until close or discard.
 * width, height: page size in points, finite and in (0, 14400].
 * title:  document title stored in PDF metadata (may be NULL).
 * Returns DAM_OK; DAM_EINPUT for a bad extension or size; DAM_ERUNTIME when
 * the temporary cannot be created. On error *out is NULL and no file exists.
 */
int dam_canvas_open(dam_canvas **out, const char *path, double width,
                    double height, const char *title, dam_error *err);

/* The drawing context (owned by the canvas). The page is white. */
cairo_t *dam_canvas_cr(dam_canvas *c);
/* The output format. */
dam_canvas_format dam_canvas_format_get(const dam_canvas *c);

/* End the current page and start a new white one (PDF only). Returns
 * DAM_OK, or DAM_EINPUT for PNG and SVG (one page only). */
int dam_canvas_new_page(dam_canvas *c, dam_error *err);

/*
 * Finish: check cairo's status, write, flush, rename onto the path. Frees c
 * in every case. Returns DAM_OK, or DAM_ERUNTIME (err filled with cairo's
 * or the system's message) with no file left at path's temporary.
 */
int dam_canvas_close(dam_canvas *c, dam_error *err);

/* Open a canvas that draws SVG into memory (no file), for inlining in an
 * HTML page. Returns DAM_OK or DAM_EINPUT (bad size). */
int dam_canvas_open_svg(dam_canvas **out, double width, double height,
                        dam_error *err);
/* Finish an in-memory SVG canvas and append its SVG to svg: no XML
 * declaration, "surfaceN" ids renumbered as in files, and every id and
 * reference prefixed with idp ("c3"), so that several SVGs share one page.
 * Frees c in every case. Returns DAM_OK or DAM_ERUNTIME. */
struct dam_buf;
int dam_canvas_close_svg(dam_canvas *c, const char *idp, struct dam_buf *svg,
                         dam_error *err);
/* Abandon: remove the temporary and free c; NULL is a no-op. */
void dam_canvas_discard(dam_canvas *c);

#endif
