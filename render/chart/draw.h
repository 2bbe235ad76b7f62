/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * draw.h: the drawing kit shared by the charts and the report: the
 * Okabe-Ito palette, fonts, measured and wrapped text, titles, legends,
 * markers, hatching, prepared axes and a label placer that keeps labels
 * from overlapping.
 *
 * Design note: everything here draws on a caller's cairo_t inside a
 * caller's rectangle and returns how much room it used, so a chart can be
 * laid out top to bottom and drawn on any surface or PDF page. Text goes
 * through render/font (Pango) and is always measured before it is placed:
 * a label that does not fit is thinned, wrapped, ellipsized by the layout,
 * or moved, never drawn over another. Nothing here knows the model; it
 * draws numbers.
 */
#ifndef DAM_RENDER_DRAW_H
#define DAM_RENDER_DRAW_H

#include <cairo.h>
#include <stddef.h>

#include "model/error.h"
#include "render/chart/axis.h"
#include "render/chart/font.h"

/* The Okabe-Ito colour-blind-safe palette, plus two greys. */
typedef enum dam_color {
    DAM_COLOR_BLACK = 0,  /* #000000 */
    DAM_COLOR_ORANGE,     /* #E69F00 */
    DAM_COLOR_SKY,        /* #56B4E9 sky blue */
    DAM_COLOR_GREEN,      /* #009E73 bluish green */
    DAM_COLOR_YELLOW,     /* #F0E442 */
    DAM_COLOR_BLUE,       /* #0072B2 */
    DAM_COLOR_VERMILLION, /* #D55E00 */
    DAM_COLOR_PURPLE,     /* #CC79A7 reddish purple */
    DAM_COLOR_GREY,       /* #999999 neutral */
    DAM_COLOR_LIGHT,      /* #E6E6E6 grid lines */
    DAM_COLOR_COUNT
} dam_color;

/* Components of a palette colour in [0, 1]. */
typedef struct dam_rgb {
    double r, g, b;
} dam_rgb;

/* The colour's components (an out-of-range colour gives black). */
dam_rgb dam_draw_rgb(dam_color c);
/* The i-th colour for data series, cycling through the seven palette
 * colours most distinct on white (blue, orange, green, vermillion, purple,
 * sky, black). */
dam_color dam_draw_series_color(size_t i);
/* Set cr's source to colour c with opacity alpha in [0, 1]. */
void dam_draw_set_color(cairo_t *cr, dam_color c, double alpha);

/* Set cr's source to black or white, whichever reads better on c. */
void dam_draw_set_ink(cairo_t *cr, dam_color c);

/* Select text role f on cr (render/chart/font.h). */
void dam_draw_font(cairo_t *cr, dam_font f);
/* Width of s on one line in the current role, points. */
double dam_draw_text_width(cairo_t *cr, const char *s);
/* Height of one line in the current role, points. */
double dam_draw_text_height(cairo_t *cr);
/*
 * The box s would occupy when drawn at (x, y) with anchors ax (0 left,
 * 0.5 centre, 1 right) and ay (0 top, 0.5 middle, 1 bottom) in the current
 * font.
 */
dam_rect dam_draw_text_box(cairo_t *cr, double x, double y, const char *s,
                           double ax, double ay);
/* Draw s anchored as in dam_draw_text_box with the current source. */
void dam_draw_text(cairo_t *cr, double x, double y, const char *s, double ax,
                   double ay);
/* Draw s as dam_draw_text does, on a white patch, so that a line behind
 * it (a reference line, a grid) does not run through the letters. */
void dam_draw_text_halo(cairo_t *cr, double x, double y, const char *s,
                        double ax, double ay);
/* Draw s rotated 90 degrees anticlockwise, centred on (x, y). */
void dam_draw_text_up(cairo_t *cr, double x, double y, const char *s);
/* Draw s on one line anchored as in dam_draw_text_box, ellipsized by the
 * layout to at most maxw points. Returns the box drawn. */
dam_rect dam_draw_text_fit(cairo_t *cr, double x, double y, const char *s,
                           double maxw, double ax, double ay);
/* A bar's name in a row band tall: right-aligned at x, centred on cy,
 * wrapped to maxw on the lines the band holds (1 to 3), the last one
 * ellipsized when it still does not fit. Returns the box drawn. */
dam_rect dam_draw_row_label(cairo_t *cr, double x, double cy, const char *s,
                            double maxw, double band);
/* Width of s as dam_draw_text_fit would draw it within maxw, points. */
double dam_draw_fit_width(cairo_t *cr, const char *s, double maxw);
/*
 * Word-wrap s to width w in the current role and draw it from the top-left
 * (x, y) when draw is 1 (else only measure), at most maxlines lines (the
 * last one ellipsized by the layout). Returns the height used, points.
 */
double dam_draw_wrap(cairo_t *cr, double x, double y, double w, const char *s,
                     int maxlines, int draw);

/* Draw title (bold, wrapped on at most 4 lines: set smaller, down to 80 %,
 * before it is cut) and subtitle (wrapped, grey; may be NULL) at
 * the top of r. Returns the height used including the gap below. */
double dam_draw_title(cairo_t *cr, const dam_rect *r, const char *title,
                      const char *subtitle);

/* Marker shapes for points. */
typedef enum dam_marker {
    DAM_MARK_CIRCLE = 0,
    DAM_MARK_TRIANGLE,
    DAM_MARK_SQUARE,
    DAM_MARK_DIAMOND,
    DAM_MARK_STAR
} dam_marker;

/* Draw marker m of radius r (points) centred on (x, y); filled or hollow. */
void dam_draw_marker(cairo_t *cr, dam_marker m, double x, double y, double r,
                     dam_color c, int filled);
/* Fill r with a light tint of c and diagonal hatching in c. */
void dam_draw_hatch(cairo_t *cr, const dam_rect *r, dam_color c);

/* How a legend item's key is drawn. */
typedef enum dam_key {
    DAM_KEY_BOX = 0, /* filled square */
    DAM_KEY_HATCH,   /* hatched square */
    DAM_KEY_LINE,    /* solid line */
    DAM_KEY_DASH,    /* dashed line */
    DAM_KEY_MARKER,  /* a filled marker */
    DAM_KEY_HOLLOW,  /* a hollow marker */
    DAM_KEY_OUTLINE  /* hollow square with a thick black outline */
} dam_key;

/* One legend entry. */
typedef struct dam_legend_item {
    const char *label; /* text */
    dam_color color;   /* colour of the key */
    dam_key key;       /* key style */
    dam_marker marker; /* shape when key is DAM_KEY_MARKER */
} dam_legend_item;

/* Lay the items out left to right in rows across r's width (wrapping),
 * from top down, draw them, and return the height used including the gap
 * below. */
double dam_draw_legend(cairo_t *cr, const dam_rect *r, double top,
                       const dam_legend_item *items, size_t n);

/* What an axis should show. */
typedef struct dam_draw_axis_spec {
    double lo, hi;        /* data range to cover (lo <= hi; > 0 if log) */
    int log;              /* 1: log10 scale */
    int exact;            /* 1: ends at lo/hi exactly; 0: widen to ticks */
    dam_axis_unit unit;   /* how tick labels are written */
    const char *unit_name;/* unit after the SI prefix (DAM_AXIS_SI) */
    const char *title;    /* axis title, may be NULL */
} dam_draw_axis_spec;

/* A prepared axis: ticks, their labels and sizes, and the mapping. */
typedef struct dam_draw_axis {
    dam_axis map;                             /* data -> device */
    size_t nticks;                            /* labelled ticks */
    double ticks[DAM_AXIS_MAX_TICKS];         /* their values */
    char labels[DAM_AXIS_MAX_TICKS][DAM_AXIS_LABEL_MAX]; /* their labels */
    double widths[DAM_AXIS_MAX_TICKS];        /* label widths, points */
    int shown[DAM_AXIS_MAX_TICKS];            /* 1: label drawn (thinning) */
    int major[DAM_AXIS_MAX_TICKS];            /* 1: a major tick */
    size_t nminor;                            /* unlabelled minor ticks */
    double minor[DAM_AXIS_MAX_TICKS];         /* their values */
    double label_w, label_h;                  /* widest label, label height */
    const char *title;                        /* axis title or NULL */
    int vertical;                             /* 1: a y axis */
} dam_draw_axis;

/*
 * Compute ticks and labels for spec along an axis about length points
 * long (vertical: a y axis). Returns DAM_OK, or DAM_EINPUT when the range
 * is not finite, is reversed, or is not positive on a log axis.
 */
int dam_draw_axis_prepare(cairo_t *cr, dam_draw_axis *a,
                          const dam_draw_axis_spec *spec, double length,
                          int vertical, dam_error *err);
/* Room the axis needs beside the plot (labels, gap and title), points. */
double dam_draw_axis_margin(cairo_t *cr, const dam_draw_axis *a);
/* Fix the device ends (p0 for lo, p1 for hi) and thin crowded labels. */
void dam_draw_axis_place(cairo_t *cr, dam_draw_axis *a, double p0,
                         double p1);
/* Draw grid lines for a across plot (major darker than minor). */
void dam_draw_axis_grid(cairo_t *cr, const dam_draw_axis *a,
                        const dam_rect *plot);
/* Draw the axis line, ticks, tick labels (if labels) and title beside
 * plot: below it for an x axis, left of it for a y axis. */
void dam_draw_axis_draw(cairo_t *cr, const dam_draw_axis *a,
                        const dam_rect *plot, int labels);
/* The category axis line: plot's left edge, in the axes' grey (charts
 * whose vertical axis names rows, not numbers). */
void dam_draw_category_axis(cairo_t *cr, const dam_rect *plot);

/*
 * Lay out a plot frame in area without drawing anything: prepare both
 * axes, reserve their margins (points) and place the axes along the data
 * rectangle. plot: OUT: the data rectangle (points). Returns DAM_OK or
 * DAM_EINPUT (bad axis range, or an area too small; err filled). For a
 * chart that must know where its points fall before it commits to a
 * layout (then draws grid and axes itself, as dam_draw_xy_frame does).
 */
int dam_draw_xy_layout(cairo_t *cr, const dam_rect *area,
                       const dam_draw_axis_spec *xs,
                       const dam_draw_axis_spec *ys, dam_rect *plot,
                       dam_draw_axis *xa, dam_draw_axis *ya, dam_error *err);
/*
 * Lay out and draw a plot frame in area: dam_draw_xy_layout, then grid,
 * axes and titles. plot: OUT: the data rectangle.
 * Returns DAM_OK or DAM_EINPUT (bad axis range, err filled).
 */
int dam_draw_xy_frame(cairo_t *cr, const dam_rect *area,
                      const dam_draw_axis_spec *xs,
                      const dam_draw_axis_spec *ys, dam_rect *plot,
                      dam_draw_axis *xa, dam_draw_axis *ya, dam_error *err);

struct dam_draw_placer;
/*
 * A plot begun: dam_draw_xy_frame, then (where pl is not NULL) a placer
 * started over the plot, then cairo_save and a clip to the plot grown by
 * margin points on every side; the caller ends with cairo_restore.
 * Returns dam_draw_xy_frame's code (nothing saved when it fails).
 */
int dam_draw_xy_begin(cairo_t *cr, const dam_rect *area,
                      const dam_draw_axis_spec *xs,
                      const dam_draw_axis_spec *ys, double margin,
                      dam_rect *plot, dam_draw_axis *xa, dam_draw_axis *ya,
                      struct dam_draw_placer *pl, dam_error *err);
/* Path (not stroke) the line through the n points (x[j], y[j]) placed by
 * the axes; each segment is blocked in pl for labels where pl is not
 * NULL. */
void dam_draw_polyline(cairo_t *cr, const dam_draw_axis *xa,
                       const dam_draw_axis *ya, const double *x,
                       const double *y, size_t n,
                       struct dam_draw_placer *pl);
/* Stroke one dashed segment (on, off points) of the given width in the
 * current source; the dash is cleared afterwards. */
void dam_draw_dashed(cairo_t *cr, double x0, double y0, double x1,
                     double y1, double on, double off, double width);

/* Places labels beside points without overlap: a list of occupied boxes
 * within bounds. Owns its array; free with dam_draw_placer_free. */
typedef struct dam_draw_placer {
    dam_rect bounds;   /* labels must stay inside */
    dam_rect *used;    /* occupied boxes (labels included) */
    size_t n, cap;     /* count and capacity of used */
    dam_rect *labels;  /* the labels placed (leaders keep off them) */
    size_t nlabels, lcap;
} dam_draw_placer;

/* Start an empty placer over bounds. */
void dam_draw_placer_init(dam_draw_placer *p, const dam_rect *bounds);
/* Mark r as occupied (a point, a line label, a legend). */
void dam_draw_placer_block(dam_draw_placer *p, const dam_rect *r);
/*
 * Draw s near (x, y), at least gap points away, at the first of several
 * candidate positions (right, left, above, below, diagonals, then further
 * out with a leader line) that overlaps nothing placed before; when none is
 * free, at the nearest free spot in the bounds (spiralling out, with a
 * leader that crosses no label); only when there is none, at the
 * least-overlapping candidate. Uses the current font and source. Returns 1
 * when the label overlaps nothing, 0 otherwise.
 */
int dam_draw_placer_label(cairo_t *cr, dam_draw_placer *p, double x,
                          double y, double gap, const char *s);
/* As dam_draw_placer_label, but only where the label overlaps nothing and
 * lies within reach points of (x, y); else draws nothing. 1 when drawn. */
int dam_draw_placer_label_near(cairo_t *cr, dam_draw_placer *p, double x,
                               double y, double gap, double reach,
                               const char *s);
/* Mark the segment (x0, y0)-(x1, y1) as occupied, as a chain of small
 * boxes, so that labels do not cross drawn lines. */
void dam_draw_placer_block_line(dam_draw_placer *p, double x0, double y0,
                                double x1, double y1);
/* Index of the first of n candidate boxes that overlaps nothing placed
 * and stays inside the bounds, else of the least-overlapping one. The
 * caller draws there and blocks it. */
size_t dam_draw_placer_best(const dam_draw_placer *p, const dam_rect *cands,
                            size_t n);
/* 1 when r stays inside the bounds and overlaps nothing placed. */
int dam_draw_placer_clear(const dam_draw_placer *p, const dam_rect *r);
/* Free the placer's array; the placer is empty afterwards. */
void dam_draw_placer_free(dam_draw_placer *p);

#endif
