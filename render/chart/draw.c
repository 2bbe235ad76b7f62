/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * draw.c: the drawing kit (see draw.h).
 *
 * Design note: fonts are cairo's "toy" faces (DejaVu Sans through
 * fontconfig), enough for labels in Latin script. Layout works in points
 * on the caller's cairo_t; each helper saves and restores cr's state except
 * for the font and source it is documented to use.
 */
#include "render/chart/draw.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model/alloc.h"

#define PI 3.14159265358979323846

static const dam_rgb palette[DAM_COLOR_COUNT] = {
    {0.000, 0.000, 0.000}, /* black */
    {0.902, 0.624, 0.000}, /* orange E69F00 */
    {0.337, 0.706, 0.914}, /* sky blue 56B4E9 */
    {0.000, 0.620, 0.451}, /* bluish green 009E73 */
    {0.941, 0.894, 0.259}, /* yellow F0E442 */
    {0.000, 0.447, 0.698}, /* blue 0072B2 */
    {0.835, 0.369, 0.000}, /* vermillion D55E00 */
    {0.800, 0.475, 0.655}, /* reddish purple CC79A7 */
    {0.600, 0.600, 0.600}, /* grey 999999 */
    {0.902, 0.902, 0.902}, /* light grey E6E6E6 */
};

static const dam_color series[] = {
    DAM_COLOR_BLUE,   DAM_COLOR_ORANGE, DAM_COLOR_GREEN, DAM_COLOR_VERMILLION,
    DAM_COLOR_PURPLE, DAM_COLOR_SKY,    DAM_COLOR_BLACK};

dam_rgb dam_draw_rgb(dam_color c)
{
    return (unsigned)c < DAM_COLOR_COUNT ? palette[c] : palette[0];
}

dam_color dam_draw_series_color(size_t i)
{
    return series[i % (sizeof series / sizeof series[0])];
}

void dam_draw_set_color(cairo_t *cr, dam_color c, double alpha)
{
    dam_rgb k = dam_draw_rgb(c);
    cairo_set_source_rgba(cr, k.r, k.g, k.b, alpha);
}

void dam_draw_set_ink(cairo_t *cr, dam_color c)
{
    dam_rgb k = dam_draw_rgb(c);
    double lum = 0.299 * k.r + 0.587 * k.g + 0.114 * k.b;
    if (lum > 0.5)
        cairo_set_source_rgb(cr, 0, 0, 0);
    else
        cairo_set_source_rgb(cr, 1, 1, 1);
}

/* ---- text (render/font: Pango) ------------------------------------ */

void dam_draw_font(cairo_t *cr, dam_font f)
{
    dam_font_select(cr, f);
}

double dam_draw_text_width(cairo_t *cr, const char *s)
{
    double w;
    dam_font_measure(cr, s, 0, 1, &w, NULL);
    return w;
}

double dam_draw_text_height(cairo_t *cr)
{
    return dam_font_line_height(cr);
}

dam_rect dam_draw_text_box(cairo_t *cr, double x, double y, const char *s,
                           double ax, double ay)
{
    double w, h;
    dam_font_measure(cr, s, 0, 1, &w, &h);
    dam_rect r = {x - ax * w, y - ay * h, w, h};
    return r;
}

void dam_draw_text(cairo_t *cr, double x, double y, const char *s, double ax,
                   double ay)
{
    dam_font_draw(cr, x, y, s, 0, 1, ax, ay);
}

void dam_draw_text_halo(cairo_t *cr, double x, double y, const char *s,
                        double ax, double ay)
{
    dam_rect b = dam_draw_text_box(cr, x, y, s, ax, ay);
    cairo_save(cr);
    cairo_set_source_rgba(cr, 1, 1, 1, 0.85);
    cairo_rectangle(cr, b.x - 1, b.y, b.w + 2, b.h);
    cairo_fill(cr);
    cairo_restore(cr);
    dam_draw_text(cr, x, y, s, ax, ay);
}

void dam_draw_text_up(cairo_t *cr, double x, double y, const char *s)
{
    dam_font_draw_up(cr, x, y, s, 0);
}

dam_rect dam_draw_text_fit(cairo_t *cr, double x, double y, const char *s,
                           double maxw, double ax, double ay)
{
    return dam_font_draw(cr, x, y, s, maxw > 0 ? maxw : 0.01, 1, ax, ay);
}

dam_rect dam_draw_row_label(cairo_t *cr, double x, double cy, const char *s,
                            double maxw, double band)
{
    int lines = (int)floor(band * 0.9 / dam_font_line_height(cr));
    lines = lines < 1 ? 1 : lines > 3 ? 3 : lines;
    return dam_font_draw(cr, x, cy, s, maxw > 0 ? maxw : 0.01, lines, 1,
                         0.5);
}

double dam_draw_fit_width(cairo_t *cr, const char *s, double maxw)
{
    double w;
    dam_font_measure(cr, s, maxw > 0 ? maxw : 0.01, 1, &w, NULL);
    return w;
}

double dam_draw_wrap(cairo_t *cr, double x, double y, double w, const char *s,
                     int maxlines, int draw)
{
    double h;
    if (!s || !*s)
        return 0;
    if (!draw) {
        dam_font_measure(cr, s, w, maxlines, NULL, &h);
        return h;
    }
    return dam_font_draw(cr, x, y, s, w, maxlines, 0, 0).h;
}

double dam_draw_title(cairo_t *cr, const dam_rect *r, const char *title,
                      const char *subtitle)
{
    double h = 0;
    cairo_save(cr);
    if (title && *title) {
        /* a long question and answer is set smaller (down to 11 pt)
         * before it is cut: the answer is the point of the chart */
        static const double scale[] = {1.0, 0.9, 0.8};
        dam_draw_font(cr, DAM_FONT_TITLE);
        double size = dam_font_size(DAM_FONT_TITLE);
        for (size_t k = 0; k < sizeof scale / sizeof scale[0]; k++) {
            cairo_set_font_size(cr, size * scale[k]);
            if (dam_font_measure(cr, title, r->w, 5, NULL, NULL) <= 4)
                break;
        }
        dam_draw_set_color(cr, DAM_COLOR_BLACK, 1);
        h += dam_draw_wrap(cr, r->x, r->y, r->w, title, 4, 1);
    }
    if (subtitle && *subtitle) {
        dam_draw_font(cr, DAM_FONT_SUBTITLE);
        cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
        h += 2;
        h += dam_draw_wrap(cr, r->x, r->y + h, r->w, subtitle, 3, 1);
    }
    cairo_restore(cr);
    return h > 0 ? h + 6 : 0;
}

/* ---- shapes -------------------------------------------------------- */

void dam_draw_marker(cairo_t *cr, dam_marker m, double x, double y, double r,
                     dam_color c, int filled)
{
    cairo_save(cr);
    cairo_new_path(cr);
    switch (m) {
    case DAM_MARK_TRIANGLE:
        cairo_move_to(cr, x, y - r * 1.15);
        cairo_line_to(cr, x + r, y + r * 0.75);
        cairo_line_to(cr, x - r, y + r * 0.75);
        cairo_close_path(cr);
        break;
    case DAM_MARK_SQUARE:
        cairo_rectangle(cr, x - r * 0.85, y - r * 0.85, r * 1.7, r * 1.7);
        break;
    case DAM_MARK_DIAMOND:
        cairo_move_to(cr, x, y - r * 1.2);
        cairo_line_to(cr, x + r, y);
        cairo_line_to(cr, x, y + r * 1.2);
        cairo_line_to(cr, x - r, y);
        cairo_close_path(cr);
        break;
    case DAM_MARK_STAR:
        for (int i = 0; i < 10; i++) {
            double a = -PI / 2 + i * PI / 5, rr = i % 2 ? r * 0.5 : r * 1.3;
            if (i == 0)
                cairo_move_to(cr, x + rr * cos(a), y + rr * sin(a));
            else
                cairo_line_to(cr, x + rr * cos(a), y + rr * sin(a));
        }
        cairo_close_path(cr);
        break;
    case DAM_MARK_CIRCLE:
    default:
        cairo_arc(cr, x, y, r, 0, 2 * PI);
        cairo_close_path(cr);
        break;
    }
    if (filled) {
        dam_draw_set_color(cr, c, 1);
        cairo_fill_preserve(cr);
        cairo_set_source_rgb(cr, 1, 1, 1);
        cairo_set_line_width(cr, 0.8);
        cairo_stroke(cr);
    } else {
        cairo_set_source_rgb(cr, 1, 1, 1);
        cairo_fill_preserve(cr);
        dam_draw_set_color(cr, c, 1);
        cairo_set_line_width(cr, 1.5);
        cairo_stroke(cr);
    }
    cairo_restore(cr);
}

void dam_draw_hatch(cairo_t *cr, const dam_rect *r, dam_color c)
{
    cairo_save(cr);
    cairo_rectangle(cr, r->x, r->y, r->w, r->h);
    cairo_clip(cr);
    dam_draw_set_color(cr, c, 0.18);
    cairo_paint(cr);
    dam_draw_set_color(cr, c, 1);
    cairo_set_line_width(cr, 1.0);
    /* lines at 45 degrees, 4 pt apart, anchored to the page so that
     * neighbouring hatched boxes line up */
    double s = 4.0;
    double k0 = floor((r->x + r->y) / s) * s;
    for (double k = k0; k <= r->x + r->w + r->y + r->h + s; k += s) {
        cairo_move_to(cr, k - r->y, r->y);
        cairo_line_to(cr, k - (r->y + r->h), r->y + r->h);
    }
    cairo_stroke(cr);
    cairo_restore(cr);
}

/* ---- legend -------------------------------------------------------- */

static void draw_key(cairo_t *cr, const dam_legend_item *it, double x,
                     double y, double s)
{
    dam_rect box = {x, y - s / 2, s, s};
    cairo_save(cr);
    switch (it->key) {
    case DAM_KEY_HATCH:
        dam_draw_hatch(cr, &box, it->color);
        break;
    case DAM_KEY_LINE:
    case DAM_KEY_DASH:
        dam_draw_set_color(cr, it->color, 1);
        cairo_set_line_width(cr, 2.0);
        if (it->key == DAM_KEY_DASH) {
            double d[2] = {4, 2.5};
            cairo_set_dash(cr, d, 2, 0);
        }
        cairo_move_to(cr, x - 2, y);
        cairo_line_to(cr, x + s + 1, y);
        cairo_stroke(cr);
        break;
    case DAM_KEY_MARKER:
    case DAM_KEY_HOLLOW:
        dam_draw_marker(cr, it->marker, x + s / 2, y, s * 0.45, it->color,
                        it->key == DAM_KEY_MARKER);
        break;
    case DAM_KEY_OUTLINE:
        cairo_rectangle(cr, box.x + 1, box.y + 1, box.w - 2, box.h - 2);
        cairo_set_source_rgb(cr, 0, 0, 0);
        cairo_set_line_width(cr, 2.0);
        cairo_stroke(cr);
        break;
    case DAM_KEY_BOX:
    default:
        cairo_rectangle(cr, box.x, box.y, box.w, box.h);
        dam_draw_set_color(cr, it->color, 1);
        cairo_fill(cr);
        break;
    }
    cairo_restore(cr);
}

double dam_draw_legend(cairo_t *cr, const dam_rect *r, double top,
                       const dam_legend_item *items, size_t n)
{
    if (!n)
        return 0;
    cairo_save(cr);
    dam_draw_font(cr, DAM_FONT_AXIS);
    double th = dam_draw_text_height(cr), s = 9.0, rowh = th + 5;
    double x = r->x, y = top + rowh / 2;
    for (size_t i = 0; i < n; i++) {
        const char *lab = items[i].label;
        double w = s + 5 + dam_draw_fit_width(cr, lab, r->w - s - 8);
        if (x > r->x && x + w > r->x + r->w) {
            x = r->x;
            y += rowh;
        }
        draw_key(cr, &items[i], x, y, s);
        cairo_set_source_rgb(cr, 0.15, 0.15, 0.15);
        dam_draw_text_fit(cr, x + s + 5, y, lab, r->w - s - 8, 0, 0.5);
        x += w + 16;
    }
    cairo_restore(cr);
    return y + rowh / 2 - top + 6;
}

/* ---- axes ---------------------------------------------------------- */

int dam_draw_axis_prepare(cairo_t *cr, dam_draw_axis *a,
                          const dam_draw_axis_spec *spec, double length,
                          int vertical, dam_error *err)
{
    double lo = spec->lo, hi = spec->hi, t[DAM_AXIS_MAX_TICKS];
    double mn[DAM_AXIS_MAX_TICKS], step = 0, ref = 0;
    size_t n = 0, nm = 0;

    memset(a, 0, sizeof *a);
    a->vertical = vertical;
    a->title = spec->title;
    a->map.log = spec->log;
    if (!isfinite(lo) || !isfinite(hi) || lo > hi ||
        (spec->log && !(lo > 0.0)))
        return dam_error_set(err, "", 0,
                             "axis \"%s\": cannot show the range [%g, %g]%s",
                             spec->title ? spec->title : "", lo, hi,
                             spec->log ? " on a log scale" : "");
    double per = vertical ? 30.0 : 58.0;
    size_t maxt = (size_t)(length / per);
    if (maxt < 3)
        maxt = 3;
    if (maxt > 10)
        maxt = 10;
    /* exact ends drop the ticks outside them: ask for room for two */
    if (spec->exact)
        maxt += 2;

    if (!spec->log)
        dam_axis_ticks(lo, hi, maxt, t, &n, &step);
    else
        dam_axis_log_ticks(lo, hi, maxt, t, &n, mn, &nm);
    /* the ends: exact, or the outer ticks */
    if (spec->exact && lo < hi) {
        a->map.lo = lo;
        a->map.hi = hi;
    } else {
        a->map.lo = t[0];
        a->map.hi = t[n - 1];
    }
    if (!spec->log) {
        double eps = (a->map.hi - a->map.lo) * 1e-9;
        for (size_t i = 0; i < n; i++)
            if (t[i] >= a->map.lo - eps && t[i] <= a->map.hi + eps) {
                a->ticks[a->nticks] = t[i];
                a->major[a->nticks++] = 1;
                if (fabs(t[i]) > ref)
                    ref = fabs(t[i]);
            }
    } else {
        double l0 = a->map.lo * (1 - 1e-9), l1 = a->map.hi * (1 + 1e-9);
        size_t kept = 0;
        for (size_t i = 0; i < n; i++)
            kept += t[i] >= l0 && t[i] <= l1;
        /* few decades in view: label the 2s and 5s too, in order */
        size_t i = 0, j = 0;
        while (i < n || j < nm) {
            int take_major = j >= nm || (i < n && t[i] <= mn[j]);
            double v = take_major ? t[i++] : mn[j++];
            if (v < l0 || v > l1)
                continue;
            if (take_major || kept < 3) {
                a->ticks[a->nticks] = v;
                a->major[a->nticks++] = take_major;
            } else {
                a->minor[a->nminor++] = v;
            }
        }
    }

    cairo_save(cr);
    dam_draw_font(cr, DAM_FONT_TICK);
    a->label_h = dam_draw_text_height(cr);
    for (size_t i = 0; i < a->nticks; i++) {
        dam_axis_format(a->labels[i], DAM_AXIS_LABEL_MAX, a->ticks[i],
                        spec->log ? 0.0 : step, spec->log ? 0.0 : ref,
                        spec->unit, spec->unit_name);
        a->widths[i] = dam_draw_text_width(cr, a->labels[i]);
        if (a->widths[i] > a->label_w)
            a->label_w = a->widths[i];
        a->shown[i] = 1;
    }
    cairo_restore(cr);
    return DAM_OK;
}

double dam_draw_axis_margin(cairo_t *cr, const dam_draw_axis *a)
{
    double title = 0;
    if (a->title && *a->title) {
        cairo_save(cr);
        dam_draw_font(cr, DAM_FONT_AXIS);
        title = dam_draw_text_height(cr) + 6;
        cairo_restore(cr);
    }
    if (a->vertical)
        return a->label_w + 8 + title;
    return a->label_h + 6 + title;
}

/* 1 when the labels marked in shown do not collide at their positions. */
static int labels_clear(const dam_draw_axis *a, const int *shown)
{
    double prev = 0, prevw = 0;
    int have = 0;
    for (size_t i = 0; i < a->nticks; i++) {
        if (!shown[i])
            continue;
        double p = dam_axis_map(&a->map, a->ticks[i]);
        if (have) {
            double need = a->vertical ? a->label_h + 2
                                      : (prevw + a->widths[i]) / 2 + 8;
            if (fabs(p - prev) < need)
                return 0;
        }
        prev = p;
        prevw = a->widths[i];
        have = 1;
    }
    return 1;
}

void dam_draw_axis_place(cairo_t *cr, dam_draw_axis *a, double p0, double p1)
{
    int trial[DAM_AXIS_MAX_TICKS];
    size_t nmaj = 0;

    (void)cr;
    a->map.p0 = p0;
    a->map.p1 = p1;
    for (size_t i = 0; i < a->nticks; i++) {
        a->shown[i] = 1;
        nmaj += a->major[i];
    }
    if (labels_clear(a, a->shown))
        return;
    /* first drop labels of minor ticks, then every k-th major */
    if (nmaj >= 2 && nmaj < a->nticks) {
        for (size_t i = 0; i < a->nticks; i++)
            trial[i] = a->major[i];
        if (labels_clear(a, trial)) {
            memcpy(a->shown, trial, sizeof(int) * a->nticks);
            return;
        }
    }
    int only_major = nmaj >= 2;
    for (size_t k = 2; k <= a->nticks; k++) {
        size_t m = 0;
        for (size_t i = 0; i < a->nticks; i++) {
            trial[i] = 0;
            if (only_major && !a->major[i])
                continue;
            trial[i] = m++ % k == 0;
        }
        if (labels_clear(a, trial)) {
            memcpy(a->shown, trial, sizeof(int) * a->nticks);
            return;
        }
    }
    for (size_t i = 0; i < a->nticks; i++)
        a->shown[i] = i == 0;
}

/* Grid lines across plot at the n values at, width wide, in the light
 * grey at alpha. */
static void grid_lines(cairo_t *cr, const dam_draw_axis *a,
                       const dam_rect *plot, const double *at, size_t n,
                       double width, double alpha)
{
    cairo_set_line_width(cr, width);
    dam_draw_set_color(cr, DAM_COLOR_LIGHT, alpha);
    for (size_t i = 0; i < n; i++) {
        double p = dam_axis_map(&a->map, at[i]);
        if (a->vertical) {
            cairo_move_to(cr, plot->x, p);
            cairo_line_to(cr, plot->x + plot->w, p);
        } else {
            cairo_move_to(cr, p, plot->y);
            cairo_line_to(cr, p, plot->y + plot->h);
        }
    }
    cairo_stroke(cr);
}

void dam_draw_axis_grid(cairo_t *cr, const dam_draw_axis *a,
                        const dam_rect *plot)
{
    cairo_save(cr);
    grid_lines(cr, a, plot, a->minor, a->nminor, 0.5, 0.7);
    grid_lines(cr, a, plot, a->ticks, a->nticks, 0.8, 1);
    cairo_restore(cr);
}

void dam_draw_category_axis(cairo_t *cr, const dam_rect *plot)
{
    cairo_set_source_rgb(cr, 0.35, 0.35, 0.35);
    cairo_set_line_width(cr, 1.0);
    cairo_move_to(cr, plot->x, plot->y);
    cairo_line_to(cr, plot->x, plot->y + plot->h);
    cairo_stroke(cr);
}

void dam_draw_axis_draw(cairo_t *cr, const dam_draw_axis *a,
                        const dam_rect *plot, int labels)
{
    cairo_save(cr);
    cairo_set_source_rgb(cr, 0.35, 0.35, 0.35);
    cairo_set_line_width(cr, 1.0);
    if (a->vertical) {
        cairo_move_to(cr, plot->x, plot->y);
        cairo_line_to(cr, plot->x, plot->y + plot->h);
    } else {
        cairo_move_to(cr, plot->x, plot->y + plot->h);
        cairo_line_to(cr, plot->x + plot->w, plot->y + plot->h);
    }
    for (size_t i = 0; i < a->nticks; i++) {
        double p = dam_axis_map(&a->map, a->ticks[i]);
        if (a->vertical) {
            cairo_move_to(cr, plot->x - 4, p);
            cairo_line_to(cr, plot->x, p);
        } else {
            cairo_move_to(cr, p, plot->y + plot->h);
            cairo_line_to(cr, p, plot->y + plot->h + 4);
        }
    }
    cairo_stroke(cr);
    if (!labels) {
        cairo_restore(cr);
        return;
    }
    dam_draw_font(cr, DAM_FONT_TICK);
    cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
    for (size_t i = 0; i < a->nticks; i++) {
        if (!a->shown[i])
            continue;
        double p = dam_axis_map(&a->map, a->ticks[i]);
        if (a->vertical)
            dam_draw_text(cr, plot->x - 6, p, a->labels[i], 1, 0.5);
        else
            dam_draw_text(cr, p, plot->y + plot->h + 5, a->labels[i], 0.5, 0);
    }
    if (a->title && *a->title) {
        dam_draw_font(cr, DAM_FONT_AXIS);
        cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
        double th = dam_draw_text_height(cr);
        if (a->vertical)
            dam_font_draw_up(cr, plot->x - a->label_w - 10 - th / 2,
                             plot->y + plot->h / 2, a->title, plot->h);
        else
            dam_draw_text_fit(cr, plot->x + plot->w / 2,
                              plot->y + plot->h + 6 + a->label_h + 4,
                              a->title, plot->w, 0.5, 0);
    }
    cairo_restore(cr);
}

int dam_draw_xy_layout(cairo_t *cr, const dam_rect *area,
                       const dam_draw_axis_spec *xs,
                       const dam_draw_axis_spec *ys, dam_rect *plot,
                       dam_draw_axis *xa, dam_draw_axis *ya, dam_error *err)
{
    int rc;
    if ((rc = dam_draw_axis_prepare(cr, xa, xs, area->w * 0.8, 0, err)))
        return rc;
    if ((rc = dam_draw_axis_prepare(cr, ya, ys, area->h * 0.75, 1, err)))
        return rc;
    double left = dam_draw_axis_margin(cr, ya);
    double bottom = dam_draw_axis_margin(cr, xa);
    double top = ya->label_h / 2 + 2;
    double right = 10;
    if (xa->nticks)
        right = fmax(right, xa->widths[xa->nticks - 1] / 2 + 2);
    plot->x = area->x + left;
    plot->y = area->y + top;
    plot->w = area->w - left - right;
    plot->h = area->h - top - bottom;
    if (plot->w < 40 || plot->h < 40)
        return dam_error_set(err, "", 0,
                             "chart area %.0f x %.0f pt is too small to draw",
                             area->w, area->h);
    dam_draw_axis_place(cr, xa, plot->x, plot->x + plot->w);
    dam_draw_axis_place(cr, ya, plot->y + plot->h, plot->y);
    return DAM_OK;
}

int dam_draw_xy_frame(cairo_t *cr, const dam_rect *area,
                      const dam_draw_axis_spec *xs,
                      const dam_draw_axis_spec *ys, dam_rect *plot,
                      dam_draw_axis *xa, dam_draw_axis *ya, dam_error *err)
{
    int rc = dam_draw_xy_layout(cr, area, xs, ys, plot, xa, ya, err);
    if (rc)
        return rc;
    dam_draw_axis_grid(cr, xa, plot);
    dam_draw_axis_grid(cr, ya, plot);
    dam_draw_axis_draw(cr, xa, plot, 1);
    dam_draw_axis_draw(cr, ya, plot, 1);
    return DAM_OK;
}

int dam_draw_xy_begin(cairo_t *cr, const dam_rect *area,
                      const dam_draw_axis_spec *xs,
                      const dam_draw_axis_spec *ys, double margin,
                      dam_rect *plot, dam_draw_axis *xa, dam_draw_axis *ya,
                      dam_draw_placer *pl, dam_error *err)
{
    int rc = dam_draw_xy_frame(cr, area, xs, ys, plot, xa, ya, err);
    if (rc)
        return rc;
    if (pl)
        dam_draw_placer_init(pl, plot);
    cairo_save(cr);
    cairo_rectangle(cr, plot->x - margin, plot->y - margin,
                    plot->w + 2 * margin, plot->h + 2 * margin);
    cairo_clip(cr);
    return DAM_OK;
}

void dam_draw_polyline(cairo_t *cr, const dam_draw_axis *xa,
                       const dam_draw_axis *ya, const double *x,
                       const double *y, size_t n, dam_draw_placer *pl)
{
    double px0 = 0, py0 = 0;
    for (size_t j = 0; j < n; j++) {
        double px = dam_axis_map(&xa->map, x[j]);
        double py = dam_axis_map(&ya->map, y[j]);
        if (j == 0)
            cairo_move_to(cr, px, py);
        else
            cairo_line_to(cr, px, py);
        if (j > 0 && pl)
            dam_draw_placer_block_line(pl, px0, py0, px, py);
        px0 = px;
        py0 = py;
    }
}

void dam_draw_dashed(cairo_t *cr, double x0, double y0, double x1,
                     double y1, double on, double off, double width)
{
    double d[2] = {on, off};
    cairo_set_dash(cr, d, 2, 0);
    cairo_set_line_width(cr, width);
    cairo_move_to(cr, x0, y0);
    cairo_line_to(cr, x1, y1);
    cairo_stroke(cr);
    cairo_set_dash(cr, NULL, 0, 0);
}

/* ---- label placement ---------------------------------------------- */

/*
 * The placer keeps two lists: everything occupied (markers, lines, labels)
 * and, among them, the labels, so that a leader line may cross a roof but
 * never a word. A label tries eight positions around its point at three
 * distances; when all are taken it spirals outwards over the whole bounds
 * and takes the nearest free spot, joined to its point by a leader. Only
 * when no spot in the bounds is free does it settle for the least overlap.
 */

void dam_draw_placer_init(dam_draw_placer *p, const dam_rect *bounds)
{
    memset(p, 0, sizeof *p);
    p->bounds = *bounds;
}

void dam_draw_placer_block(dam_draw_placer *p, const dam_rect *r)
{
    p->used = dam_grow(p->used, sizeof *p->used, p->n + 1, &p->cap);
    p->used[p->n++] = *r;
}

/* Block r as a label (leaders keep off it too). */
static void block_label(dam_draw_placer *p, const dam_rect *r)
{
    dam_draw_placer_block(p, r);
    p->labels = dam_grow(p->labels, sizeof *p->labels, p->nlabels + 1,
                         &p->lcap);
    p->labels[p->nlabels++] = *r;
}

void dam_draw_placer_block_line(dam_draw_placer *p, double x0, double y0,
                                double x1, double y1)
{
    double len = hypot(x1 - x0, y1 - y0);
    int n = (int)ceil(len / 4.0);
    if (n > 2000)
        n = 2000;
    for (int i = 0; i <= n; i++) {
        double t = n ? (double)i / n : 0;
        dam_rect r = {x0 + t * (x1 - x0) - 1.5, y0 + t * (y1 - y0) - 1.5, 3,
                      3};
        dam_draw_placer_block(p, &r);
    }
}

static double overlap(const dam_rect *a, const dam_rect *b)
{
    double w = fmin(a->x + a->w, b->x + b->w) - fmax(a->x, b->x);
    double h = fmin(a->y + a->h, b->y + b->h) - fmax(a->y, b->y);
    return w > 0 && h > 0 ? w * h : 0;
}

/* Overlap with used boxes plus ten times the area outside the bounds. */
static double badness(const dam_draw_placer *p, const dam_rect *r)
{
    double s = 0;
    for (size_t i = 0; i < p->n; i++)
        s += overlap(r, &p->used[i]);
    double inside = overlap(r, &p->bounds);
    s += 10 * (r->w * r->h - inside);
    return s;
}

int dam_draw_placer_clear(const dam_draw_placer *p, const dam_rect *r)
{
    return badness(p, r) <= 1e-9;
}

/* The point of box b nearest (x, y). */
static void nearest(const dam_rect *b, double x, double y, double *cx,
                    double *cy)
{
    *cx = fmin(fmax(x, b->x), b->x + b->w);
    *cy = fmin(fmax(y, b->y), b->y + b->h);
}

/* 1 when the leader from (x, y) to box b crosses a placed label. */
static int leader_crosses(const dam_draw_placer *p, double x, double y,
                          const dam_rect *b)
{
    double cx, cy;
    nearest(b, x, y, &cx, &cy);
    double len = hypot(cx - x, cy - y);
    int n = (int)ceil(len / 2.0);
    for (int i = 1; i < n; i++) {
        double t = (double)i / n;
        dam_rect dot = {x + t * (cx - x) - 0.5, y + t * (cy - y) - 0.5, 1, 1};
        for (size_t k = 0; k < p->nlabels; k++)
            if (overlap(&dot, &p->labels[k]) > 0)
                return 1;
    }
    return 0;
}

/* Where s goes near (x, y), the spiral reaching at most `reach` points
 * away: *best and whether it is far (a leader). */
static double place(cairo_t *cr, const dam_draw_placer *p, double x,
                    double y, double gap, const char *s, double reach,
                    dam_rect *best, int *far)
{
    /* direction (dx, dy) and text anchors for each candidate */
    static const double dir[8][4] = {
        {1, 0, 0, 0.5},      {-1, 0, 1, 0.5},    {0, -1, 0.5, 1},
        {0, 1, 0.5, 0},      {0.7, -0.7, 0, 1},  {-0.7, -0.7, 1, 1},
        {0.7, 0.7, 0, 0},    {-0.7, 0.7, 1, 0}};
    static const double dist[3] = {1.0, 2.6, 4.2};
    double best_bad = INFINITY;
    dam_rect box0 = dam_draw_text_box(cr, 0, 0, s, 0, 0);

    for (int d = 0; d < 3 && best_bad > 0; d++)
        for (int i = 0; i < 8 && best_bad > 0; i++) {
            double g = gap * dist[d] + (d ? 4 : 0);
            double ax = x + dir[i][0] * g, ay = y + dir[i][1] * g;
            dam_rect r = {ax - dir[i][2] * box0.w, ay - dir[i][3] * box0.h,
                          box0.w, box0.h};
            double b = badness(p, &r) + d * 0.01;
            if (d > 0 && b < 0.5 && leader_crosses(p, x, y, &r))
                b += 0.5;
            if (b < best_bad) {
                best_bad = b;
                *best = r;
                *far = d > 0;
            }
        }
    if (best_bad < 0.5)
        return best_bad;
    /* a spiral over the bounds: the nearest free spot */
    for (double rad = gap * 4.2 + 8; rad < reach; rad += 5) {
        int steps = (int)fmax(16, ceil(2 * 3.14159265358979 * rad / 10));
        for (int k = 0; k < steps; k++) {
            double ang = 2 * 3.14159265358979 * k / steps;
            double cx = x + rad * cos(ang), cy = y + rad * sin(ang);
            dam_rect r = {cx - box0.w / 2, cy - box0.h / 2, box0.w, box0.h};
            if (badness(p, &r) < 0.5 && !leader_crosses(p, x, y, &r)) {
                *best = r;
                *far = 1;
                return 0;
            }
        }
    }
    return best_bad;
}

/* Draw s at best (a leader from (x, y) when far) and block it. */
static void put_label(cairo_t *cr, dam_draw_placer *p, double x, double y,
                      double gap, const char *s, const dam_rect *bp, int far)
{
    dam_rect best = *bp;
    if (far) {
        /* a leader from the point's edge to the label's nearest corner */
        double cx, cy;
        nearest(&best, x, y, &cx, &cy);
        double len = hypot(cx - x, cy - y);
        if (len > gap) {
            cairo_save(cr);
            cairo_set_line_width(cr, 0.6);
            cairo_move_to(cr, x + (cx - x) * gap / len,
                          y + (cy - y) * gap / len);
            cairo_line_to(cr, cx, cy);
            cairo_stroke(cr);
            cairo_restore(cr);
        }
    }
    dam_draw_text(cr, best.x, best.y, s, 0, 0);
    block_label(p, &best);
}

int dam_draw_placer_label(cairo_t *cr, dam_draw_placer *p, double x,
                          double y, double gap, const char *s)
{
    dam_rect best = {x, y, 0, 0};
    int far = 0;
    if (!s || !*s)
        return 1;
    double bad = place(cr, p, x, y, gap, s, hypot(p->bounds.w, p->bounds.h),
                       &best, &far);
    put_label(cr, p, x, y, gap, s, &best, far);
    return bad < 0.5;
}

int dam_draw_placer_label_near(cairo_t *cr, dam_draw_placer *p, double x,
                               double y, double gap, double reach,
                               const char *s)
{
    dam_rect best = {x, y, 0, 0};
    int far = 0;
    if (!s || !*s)
        return 1;
    if (place(cr, p, x, y, gap, s, reach, &best, &far) >= 0.5)
        return 0;
    put_label(cr, p, x, y, gap, s, &best, far);
    return 1;
}

size_t dam_draw_placer_best(const dam_draw_placer *p, const dam_rect *cands,
                            size_t n)
{
    size_t best = 0;
    double bb = INFINITY;
    for (size_t i = 0; i < n; i++) {
        double b = badness(p, &cands[i]);
        if (b < bb) {
            bb = b;
            best = i;
        }
        if (b <= 0)
            break;
    }
    return best;
}

void dam_draw_placer_free(dam_draw_placer *p)
{
    dam_free(p->used);
    dam_free(p->labels);
    memset(p, 0, sizeof *p);
}
