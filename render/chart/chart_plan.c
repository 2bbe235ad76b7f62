/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * chart_plan.c: the chart of a plan (see chart_plan.h).
 *
 * Design note: drawn in layers so that what matters is on top: grid,
 * reference lines (dashed grey), lines, plain points (small, half
 * transparent: a layout search can have thousands), the points that do
 * not fit (hollow vermillion triangles), named points, and the winner (a
 * star). Labels are placed last with the placer, every marker, line and
 * reference label blocked first, so no label covers data or another label.
 */
#include "render/chart/chart_plan.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define R_PLAIN 2.4  /* marker radii, points */
#define R_NAMED 4.2
#define R_WINNER 7.0
#define R_NOFIT 3.2

static int bad_value(double v, int log)
{
    return !isfinite(v) || (log && v <= 0.0);
}

static int check(const dam_chart_plan *c, dam_error *err)
{
    if (c->npoints == 0 && c->nlines == 0)
        return dam_error_set(err, "", 0, "plan chart: no points or lines");
    if ((c->npoints && !c->points) || (c->nlines && !c->lines) ||
        (c->nrefs && !c->refs) || (c->ngroups && !c->groups))
        return dam_error_set(err, "", 0, "plan chart: a NULL array");
    for (size_t i = 0; i < c->npoints; i++) {
        const dam_chart_plan_point *p = &c->points[i];
        if (bad_value(p->x, c->x_log) || bad_value(p->y, c->y_log))
            return dam_error_set(err, "", 0,
                                 "plan chart: point %zu: x and y must be "
                                 "finite (> 0 on a log axis), got %g, %g",
                                 i + 1, p->x, p->y);
        if (c->ngroups && p->group >= c->ngroups)
            return dam_error_set(err, "", 0,
                                 "plan chart: point %zu: group %zu of %zu",
                                 i + 1, p->group, c->ngroups);
        if ((unsigned)p->mark > DAM_CHART_PLAN_WINNER)
            return dam_error_set(err, "", 0,
                                 "plan chart: point %zu: unknown mark %d",
                                 i + 1, (int)p->mark);
    }
    for (size_t l = 0; l < c->nlines; l++) {
        const dam_chart_plan_line *ln = &c->lines[l];
        if (ln->n < 2 || !ln->x || !ln->y)
            return dam_error_set(err, "", 0,
                                 "plan chart: line %zu: needs 2 points", l + 1);
        for (size_t i = 0; i < ln->n; i++)
            if (bad_value(ln->x[i], c->x_log) ||
                bad_value(ln->y[i], c->y_log))
                return dam_error_set(err, "", 0,
                                     "plan chart: line %zu point %zu: %g, "
                                     "%g is not drawable",
                                     l + 1, i + 1, ln->x[i], ln->y[i]);
    }
    for (size_t i = 0; i < c->nrefs; i++)
        if (bad_value(c->refs[i].value,
                      c->refs[i].vertical ? c->x_log : c->y_log))
            return dam_error_set(err, "", 0,
                                 "plan chart: reference %zu: %g is not "
                                 "drawable",
                                 i + 1, c->refs[i].value);
    return DAM_OK;
}

/* The data range on x (axis 1) or y, references included, with a margin:
 * a few per cent of the ratio on a log axis, of the span on a linear one
 * (which starts at 0 when the data are not negative). */
static void range_of(const dam_chart_plan *c, int x, double *lo, double *hi)
{
    double a = INFINITY, b = -INFINITY;
    for (size_t i = 0; i < c->npoints; i++) {
        double v = x ? c->points[i].x : c->points[i].y;
        a = fmin(a, v);
        b = fmax(b, v);
    }
    for (size_t l = 0; l < c->nlines; l++)
        for (size_t i = 0; i < c->lines[l].n; i++) {
            double v = x ? c->lines[l].x[i] : c->lines[l].y[i];
            a = fmin(a, v);
            b = fmax(b, v);
        }
    for (size_t i = 0; i < c->nrefs; i++)
        if (c->refs[i].vertical == x) {
            a = fmin(a, c->refs[i].value);
            b = fmax(b, c->refs[i].value);
        }
    if (x ? c->x_log : c->y_log) {
        double f = b > a ? pow(b / a, 0.06) : 1.5;
        a /= f;
        b *= f;
    } else {
        /* from 0 when the data reach down towards it (a loss of 1.9 to
         * 2.6 is drawn as it is) */
        if (a >= 0.0 && a <= 0.5 * b)
            a = 0.0;
        else if (a > 0.0)
            a -= b > a ? (b - a) * 0.08 : fmax(fabs(a) * 0.1, 1e-9);
        double d = b > a ? (b - a) * 0.08 : fmax(fabs(b) * 0.2, 1.0);
        b += d;
        if (a < 0.0)
            a -= d;
    }
    *lo = a;
    *hi = b;
}

static dam_color group_color(const dam_chart_plan *c, size_t g)
{
    (void)c;
    return dam_draw_series_color(g);
}

/* The legend: groups, the markers' meanings, the lines. */
static double legend(cairo_t *cr, const dam_rect *r, double y,
                     const dam_chart_plan *c)
{
    dam_legend_item items[24];
    size_t n = 0;
    int nofit = 0, winner = 0;
    for (size_t i = 0; i < c->npoints; i++) {
        nofit |= !c->points[i].fits;
        winner |= c->points[i].mark == DAM_CHART_PLAN_WINNER;
    }
    for (size_t g = 0; g < c->ngroups && n < 16; g++)
        items[n++] = (dam_legend_item){c->groups[g], group_color(c, g),
                                       DAM_KEY_MARKER, DAM_MARK_CIRCLE};
    if (winner)
        items[n++] = (dam_legend_item){"chosen", DAM_COLOR_BLACK,
                                       DAM_KEY_HOLLOW, DAM_MARK_STAR};
    if (nofit)
        items[n++] = (dam_legend_item){
            c->nofit_label ? c->nofit_label : "does not fit in GPU memory",
            DAM_COLOR_VERMILLION, DAM_KEY_HOLLOW, DAM_MARK_TRIANGLE};
    for (size_t l = 0; l < c->nlines && n < 24; l++)
        if (c->lines[l].label)
            items[n++] = (dam_legend_item){
                c->lines[l].label, c->lines[l].color,
                c->lines[l].dashed ? DAM_KEY_DASH : DAM_KEY_LINE,
                DAM_MARK_CIRCLE};
    if (n == 0)
        return 0.0;
    return dam_draw_legend(cr, r, y, items, n);
}

static double mark_radius(const dam_chart_plan_point *p)
{
    if (!p->fits)
        return R_NOFIT;
    return p->mark == DAM_CHART_PLAN_WINNER ? R_WINNER
           : p->mark == DAM_CHART_PLAN_NAMED ? R_NAMED
                                             : R_PLAIN;
}

/* Draw the points of one layer: plain fitting (0), not fitting (1),
 * named (2), the winner (3). */
static void points_layer(cairo_t *cr, const dam_chart_plan *c,
                         const dam_draw_axis *xa, const dam_draw_axis *ya,
                         int layer)
{
    for (size_t i = 0; i < c->npoints; i++) {
        const dam_chart_plan_point *p = &c->points[i];
        int lay = !p->fits ? (p->mark == DAM_CHART_PLAN_PLAIN ? 1 : 2)
                  : p->mark == DAM_CHART_PLAN_PLAIN ? 0
                  : p->mark == DAM_CHART_PLAN_NAMED ? 2
                                                    : 3;
        if (lay != layer)
            continue;
        double x = dam_axis_map(&xa->map, p->x);
        double y = dam_axis_map(&ya->map, p->y);
        dam_color col = group_color(c, p->group);
        if (!p->fits) {
            dam_draw_marker(cr, DAM_MARK_TRIANGLE, x, y, mark_radius(p),
                            DAM_COLOR_VERMILLION, 0);
        } else if (layer == 0) {
            /* thousands of candidates: light, so the named ones stand
             * out */
            dam_rgb k = dam_draw_rgb(col);
            cairo_set_source_rgba(cr, k.r, k.g, k.b, 0.45);
            cairo_arc(cr, x, y, R_PLAIN, 0, 6.283185307179586);
            cairo_fill(cr);
        } else if (layer == 2) {
            dam_draw_marker(cr, DAM_MARK_CIRCLE, x, y, R_NAMED, col, 1);
        } else {
            dam_draw_marker(cr, DAM_MARK_STAR, x, y, R_WINNER, col, 1);
            dam_draw_marker(cr, DAM_MARK_STAR, x, y, R_WINNER,
                            DAM_COLOR_BLACK, 0);
        }
    }
}

/* Reference lines (dashed grey) with their labels at the plot's far end,
 * each label blocked in the placer. */
static void references(cairo_t *cr, const dam_chart_plan *c,
                       const dam_rect *plot, const dam_draw_axis *xa,
                       const dam_draw_axis *ya, dam_draw_placer *pl)
{
    const double dash[] = {5.0, 3.0};
    for (size_t i = 0; i < c->nrefs; i++) {
        const dam_chart_plan_ref *f = &c->refs[i];
        double v = dam_axis_map(f->vertical ? &xa->map : &ya->map, f->value);
        cairo_save(cr);
        cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
        cairo_set_line_width(cr, 1.2);
        cairo_set_dash(cr, dash, 2, 0);
        if (f->vertical) {
            cairo_move_to(cr, v, plot->y);
            cairo_line_to(cr, v, plot->y + plot->h);
        } else {
            cairo_move_to(cr, plot->x, v);
            cairo_line_to(cr, plot->x + plot->w, v);
        }
        cairo_stroke(cr);
        cairo_restore(cr);
        if (f->vertical)
            dam_draw_placer_block_line(pl, v, plot->y, v, plot->y + plot->h);
        else
            dam_draw_placer_block_line(pl, plot->x, v, plot->x + plot->w, v);
    }
    dam_draw_font(cr, DAM_FONT_NOTE);
    cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
    for (size_t i = 0; i < c->nrefs; i++) {
        const dam_chart_plan_ref *f = &c->refs[i];
        if (!f->label || !*f->label)
            continue;
        double v = dam_axis_map(f->vertical ? &xa->map : &ya->map, f->value);
        /* a vertical line's label at its top, right of it (left when it
         * would leave the plot); a horizontal one's at the right end,
         * above it */
        double w = dam_draw_text_width(cr, f->label) + 2;
        double h = dam_draw_text_height(cr);
        dam_rect cand[4];
        if (f->vertical) {
            cand[0] = (dam_rect){v + 3, plot->y + 2, w, h};
            cand[1] = (dam_rect){v - 3 - w, plot->y + 2, w, h};
            cand[2] = (dam_rect){v + 3, plot->y + 4 + h, w, h};
            cand[3] = (dam_rect){v - 3 - w, plot->y + 4 + h, w, h};
        } else {
            cand[0] = (dam_rect){plot->x + plot->w - w - 2, v - h - 2, w, h};
            cand[1] = (dam_rect){plot->x + plot->w - w - 2, v + 2, w, h};
            cand[2] = (dam_rect){plot->x + 2, v - h - 2, w, h};
            cand[3] = (dam_rect){plot->x + 2, v + 2, w, h};
        }
        size_t k = dam_draw_placer_best(pl, cand, 4);
        dam_draw_placer_block(pl, &cand[k]);
        dam_draw_text_halo(cr, cand[k].x + 1, cand[k].y, f->label, 0, 0);
    }
}

/* The lines, each blocked in the placer. */
static void lines(cairo_t *cr, const dam_chart_plan *c,
                  const dam_draw_axis *xa, const dam_draw_axis *ya,
                  dam_draw_placer *pl)
{
    const double dash[] = {6.0, 3.0};
    for (size_t l = 0; l < c->nlines; l++) {
        const dam_chart_plan_line *ln = &c->lines[l];
        /* a solid line is wider by the solid lines drawn after it, so
         * lines that coincide (two kinds' steps) show as nested stripes */
        size_t later = 0;
        for (size_t m = l + 1; m < c->nlines; m++)
            later += !c->lines[m].dashed;
        cairo_save(cr);
        dam_draw_set_color(cr, ln->color, 1);
        cairo_set_line_width(cr, ln->dashed ? 2.0 : 2.0 + 2.0 * later);
        if (ln->dashed)
            cairo_set_dash(cr, dash, 2, 0);
        for (size_t i = 0; i < ln->n; i++) {
            double x = dam_axis_map(&xa->map, ln->x[i]);
            double y = dam_axis_map(&ya->map, ln->y[i]);
            if (i == 0)
                cairo_move_to(cr, x, y);
            else
                cairo_line_to(cr, x, y);
            if (i > 0)
                dam_draw_placer_block_line(
                    pl, dam_axis_map(&xa->map, ln->x[i - 1]),
                    dam_axis_map(&ya->map, ln->y[i - 1]), x, y);
        }
        cairo_stroke(cr);
        cairo_restore(cr);
    }
}

/* Draw s beside (x, y) at the first clear spot of three rings of eight
 * (a leader to the farther ones) and block it; 0 (nothing drawn) when
 * none is clear. */
static int name_at(cairo_t *cr, dam_draw_placer *p, double x, double y,
                   double gap, const char *s)
{
    double w = dam_draw_text_width(cr, s) + 2, h = dam_draw_text_height(cr);
    for (int ring = 0; ring < 3; ring++) {
        double g = gap * (1.0 + 1.6 * ring), d = g * 0.8;
        const double at[8][2] = {{x + g, y - h / 2},     {x - g - w, y - h / 2},
                                 {x - w / 2, y - g - h}, {x - w / 2, y + g},
                                 {x + d, y - d - h},     {x + d, y + d},
                                 {x - d - w, y - d - h}, {x - d - w, y + d}};
        for (int k = 0; k < 8; k++) {
            dam_rect b = {at[k][0], at[k][1], w, h};
            if (!dam_draw_placer_clear(p, &b))
                continue;
            if (ring > 0) {
                cairo_save(cr);
                cairo_set_source_rgb(cr, 0.5, 0.5, 0.5);
                cairo_set_line_width(cr, 0.6);
                cairo_move_to(cr, x, y);
                cairo_line_to(cr, fmin(fmax(x, b.x), b.x + b.w),
                              fmin(fmax(y, b.y), b.y + b.h));
                cairo_stroke(cr);
                cairo_restore(cr);
            }
            dam_draw_placer_block(p, &b);
            dam_draw_text(cr, b.x + 1, b.y, s, 0, 0);
            return 1;
        }
    }
    return 0;
}

/* Names of the named points and of the winner (winner first, so it gets
 * the nearest spot), every marker blocked before; a name with no clear
 * spot (a crowded, small chart) is left out, the winner's placed at the
 * nearest free spot instead. */
static void names(cairo_t *cr, const dam_chart_plan *c,
                  const dam_draw_axis *xa, const dam_draw_axis *ya,
                  dam_draw_placer *pl)
{
    for (size_t i = 0; i < c->npoints; i++) {
        const dam_chart_plan_point *p = &c->points[i];
        double x = dam_axis_map(&xa->map, p->x);
        double y = dam_axis_map(&ya->map, p->y);
        double rad = mark_radius(p) + 1;
        dam_rect b = {x - rad, y - rad, 2 * rad, 2 * rad};
        dam_draw_placer_block(pl, &b);
    }
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < c->npoints; i++) {
            const dam_chart_plan_point *p = &c->points[i];
            int win = p->mark == DAM_CHART_PLAN_WINNER;
            if (p->mark == DAM_CHART_PLAN_PLAIN || !p->label || !*p->label ||
                win != (pass == 0))
                continue;
            dam_draw_font(cr, win ? DAM_FONT_NOTE_BOLD : DAM_FONT_NOTE);
            cairo_set_source_rgb(cr, 0.05, 0.05, 0.05);
            double x = dam_axis_map(&xa->map, p->x);
            double y = dam_axis_map(&ya->map, p->y);
            double gap = mark_radius(p) + 2;
            if (name_at(cr, pl, x, y, gap, p->label))
                continue;
            if (win) {
                /* the winner's name with no clear spot (a narrow chart):
                 * its deployment alone, before the colon (the title names
                 * it too), else the nearest free spot with a leader */
                char shortl[96];
                const char *colon = strstr(p->label, ": ");
                size_t n = colon ? (size_t)(colon - p->label) : 0;
                if (n > 0 && n < sizeof shortl) {
                    memcpy(shortl, p->label, n);
                    shortl[n] = '\0';
                    if (name_at(cr, pl, x, y, gap, shortl))
                        continue;
                }
                dam_draw_placer_label(cr, pl, x, y, gap,
                                      n > 0 && n < sizeof shortl ? shortl
                                                                 : p->label);
            } else {
                /* crowded: the nearest clear spot with a leader, within a
                 * fifth of the plot */
                dam_draw_placer_label_near(
                    cr, pl, x, y, gap,
                    0.2 * hypot(pl->bounds.w, pl->bounds.h), p->label);
            }
        }
}

int dam_chart_plan_draw(cairo_t *cr, const dam_rect *r,
                        const dam_chart_plan *c, dam_error *err)
{
    int rc;
    if ((rc = check(c, err)) != DAM_OK)
        return rc;
    double y = r->y + dam_draw_title(cr, r, c->title, c->subtitle);
    y += legend(cr, r, y, c);

    /* the note under the plot, measured first */
    double note_h = 0.0;
    if (c->note && *c->note) {
        dam_draw_font(cr, DAM_FONT_NOTE);
        note_h = dam_draw_wrap(cr, r->x, 0, r->w, c->note, 2, 0) + 4;
    }
    double xlo, xhi, ylo, yhi;
    range_of(c, 1, &xlo, &xhi);
    range_of(c, 0, &ylo, &yhi);
    dam_draw_axis_spec xs = {xlo, xhi, c->x_log, c->x_log, c->x_unit,
                             c->x_unit_name, c->x_title};
    dam_draw_axis_spec ys = {ylo, yhi, c->y_log, 0, c->y_unit,
                             c->y_unit_name, c->y_title};
    dam_rect area = {r->x, y, r->w, r->y + r->h - y - note_h};
    dam_draw_axis xa, ya;
    dam_rect plot;
    dam_draw_placer pl;
    if ((rc = dam_draw_xy_begin(cr, &area, &xs, &ys, 8, &plot, &xa, &ya, &pl,
                                err)))
        return rc;
    references(cr, c, &plot, &xa, &ya, &pl);
    lines(cr, c, &xa, &ya, &pl);
    for (int layer = 0; layer < 4; layer++)
        points_layer(cr, c, &xa, &ya, layer);
    cairo_restore(cr);
    names(cr, c, &xa, &ya, &pl);
    dam_draw_placer_free(&pl);

    if (note_h > 0.0) {
        dam_draw_font(cr, DAM_FONT_NOTE);
        cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
        dam_draw_wrap(cr, r->x, r->y + r->h - note_h + 4, r->w, c->note, 2,
                      1);
    }
    return DAM_OK;
}
