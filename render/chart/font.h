/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * font.h: every piece of text on a chart or a report page, through Pango
 * (pangocairo): one font description per role, measuring, wrapping and
 * ellipsizing done by the layout, and a log of every text box drawn so that
 * tests can prove that no two labels collide and none leaves the page.
 *
 * Design note: text state lives on the caller's cairo_t (cairo user data),
 * created on first use and freed with the cairo_t, so there is no global
 * state and two threads drawing on two contexts never share a font map.
 * The font map is private: a fontconfig configuration holding only the
 * DejaVu Sans files of DAM_FONT_DIR (Debian's fonts-dejavu-core), so the
 * same text gives the same glyphs and the same bytes on every machine,
 * whatever fonts it has installed. Where those files are missing the
 * system's fontconfig is asked for "DejaVu Sans" by name (output is then
 * only as reproducible as the machine's fonts). Metrics are unhinted and
 * glyph positions unrounded, so text measures the same on PNG, SVG and PDF.
 * The current role is kept in cairo's own font state (face weight and
 * size), so cairo_save/cairo_restore restore it as callers expect.
 */
#ifndef DAM_RENDER_FONT_H
#define DAM_RENDER_FONT_H

#include <cairo.h>
#include <stddef.h>

#include "model/error.h"

#ifndef DAM_FONT_DIR
#define DAM_FONT_DIR "/usr/share/fonts/truetype/dejavu" /* Debian's path */
#endif
#define DAM_FONT_FAMILY "DejaVu Sans" /* the one family damsim draws in */

/* Text roles (DejaVu Sans, sizes in points). */
typedef enum dam_font {
    DAM_FONT_TITLE = 0, /* 14 pt bold: the chart's question and answer */
    DAM_FONT_SUBTITLE,  /* 10 pt: context under the title */
    DAM_FONT_AXIS,      /* 9.5 pt: axis titles, legend, category labels */
    DAM_FONT_TICK,      /* 8.5 pt: tick labels */
    DAM_FONT_NOTE,      /* 8 pt: annotations on the data */
    DAM_FONT_NOTE_BOLD, /* 8 pt bold: emphasised annotations */
    DAM_FONT_HEADING,   /* 20 pt bold: report headings */
    DAM_FONT_BODY,      /* 11 pt: report body text */
    DAM_FONT_BODY_BOLD, /* 11 pt bold: report emphasis */
    DAM_FONT_AXIS_BOLD, /* 9.5 pt bold: table headers */
    DAM_FONT_COUNT
} dam_font;

/* A rectangle in points; y grows downwards as in cairo. */
typedef struct dam_rect {
    double x, y; /* top-left corner, points */
    double w, h; /* width and height, points (>= 0) */
} dam_rect;

/* Select role f on cr (kept in cr's saved state). */
void dam_font_select(cairo_t *cr, dam_font f);
/* Size of role f, points. */
double dam_font_size(dam_font f);

/*
 * Measure s in the current role as it would be drawn: on one line when
 * maxw <= 0, else wrapped at word boundaries to maxw points (a word longer
 * than a line breaks between characters) on at most maxlines lines, the
 * last one ellipsized ("…") when the text does not fit; maxlines 1 gives
 * one ellipsized line. *w and *h: OUT: the logical size, points (either
 * may be NULL). Returns the number of lines.
 */
int dam_font_measure(cairo_t *cr, const char *s, double maxw, int maxlines,
                     double *w, double *h);
/*
 * Draw s as dam_font_measure lays it out, its logical box anchored at
 * (x, y) by ax (0 left, 0.5 centre, 1 right) and ay (0 top, 0.5 middle,
 * 1 bottom), with cr's current source; lines are aligned by ax. Returns
 * the box drawn (user space), which is also logged when a log is attached.
 */
dam_rect dam_font_draw(cairo_t *cr, double x, double y, const char *s,
                       double maxw, int maxlines, double ax, double ay);
/* Draw s on one line rotated 90 degrees anticlockwise, centred on (x, y),
 * ellipsized to maxlen points along the text when maxlen > 0. */
void dam_font_draw_up(cairo_t *cr, double x, double y, const char *s,
                      double maxlen);
/* Height of one line in the current role (ascent + descent), points. */
double dam_font_line_height(cairo_t *cr);

/* ---- the text log: every box drawn, for layout tests ---------------- */

/* One drawn text. */
typedef struct dam_font_box {
    dam_rect box;  /* logical box in the log's space (see attach) */
    char text[64]; /* the start of the text, for messages */
} dam_font_box;

/* Boxes drawn while the log was attached to a cairo_t. */
typedef struct dam_font_log {
    dam_font_box *boxes; /* owned */
    size_t n, cap;       /* count and capacity */
    double m[6];         /* device -> log space (set by attach) */
} dam_font_log;

/* Start logging the text drawn on cr into log (emptied), in cr's user
 * space as it is now; log NULL stops logging. The log must outlive the
 * attachment. */
void dam_font_log_attach(cairo_t *cr, dam_font_log *log);
/* Log a box by hand (for a test that plants a collision), log space. */
void dam_font_log_add(dam_font_log *log, const dam_rect *box,
                      const char *text);
/*
 * Check the log: no two boxes intersect by more than tol points in both
 * directions, and every box lies inside bounds (tol points of slack).
 * Returns the number of problems; the first is described in err (which
 * may be NULL) as "\"A\" overlaps \"B\"" or "\"A\" leaves the canvas".
 */
size_t dam_font_log_check(const dam_font_log *log, const dam_rect *bounds,
                          double tol, dam_error *err);
/* Free the boxes; the log is empty afterwards. */
void dam_font_log_free(dam_font_log *log);

#endif
