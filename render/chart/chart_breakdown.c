/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * chart_breakdown.c: where a step's time goes, one stacked horizontal bar
 * per scenario or lever, segments in dam_term order.
 *
 * Design note: the binding term is outlined in black and the bar ends with
 * its total and what binds it ("95 ms, data-bound"). Segment values are
 * written inside a segment only when they fit; the legend lists only the
 * terms that appear, so a reader is never sent looking for a colour that
 * is not there. A single scenario is not one lone bar in an empty frame:
 * its terms become the rows (one bar per term, its time and share beside
 * it, the binding term outlined), which is the same information at a size
 * a reader can compare.
 */
#include <math.h>
#include <stdio.h>

#include "render/chart/chart.h"
#include "render/out/fmt.h"

static int check(const dam_chart_breakdown *c, dam_error *err)
{
    if (!c->bars || c->nbars == 0)
        return dam_error_set(err, "", 0, "breakdown chart: no bars");
    for (size_t i = 0; i < c->nbars; i++)
        for (int t = 0; t < DAM_TERM_COUNT; t++) {
            double v = c->bars[i].terms[t];
            if (!isfinite(v) || v < 0)
                return dam_error_set(
                    err, "", 0,
                    "breakdown chart: bar %zu (\"%s\"): term \"%s\" must be "
                    "a finite time >= 0, got %g",
                    i + 1, c->bars[i].label ? c->bars[i].label : "",
                    dam_term_name((dam_term)t), v);
        }
    return DAM_OK;
}

/* "95 ms, data-bound" */
static void total_label(char *buf, size_t n, const dam_chart_bar *b,
                        double total)
{
    char t[DAM_AXIS_LABEL_MAX];
    dam_fmt_time(t, sizeof t, total);
    if ((unsigned)b->bound < DAM_BOUND_COUNT)
        snprintf(buf, n, "%s, %s-bound", t, dam_bound_name(b->bound));
    else
        snprintf(buf, n, "%s", t);
}

/* One scenario: a row per term that takes time (and the binding one). */
static int single(cairo_t *cr, const dam_rect *r,
                  const dam_chart_breakdown *c, double y, dam_error *err)
{
    const dam_chart_bar *b = &c->bars[0];
    int bt = dam_chart_bound_term(b->bound), rows[DAM_TERM_COUNT], nr = 0;
    double total = 0, big = 0;
    for (int t = 0; t < DAM_TERM_COUNT; t++) {
        total += b->terms[t];
        big = fmax(big, b->terms[t]);
        if (b->terms[t] > 0 || t == bt)
            rows[nr++] = t;
    }
    char buf[160], tot[64], sh[48];
    double labw = 0, valw = 0;
    for (int k = 0; k < nr; k++) {
        dam_draw_font(cr, DAM_FONT_AXIS);
        labw = fmax(labw, dam_draw_text_width(
                              cr, dam_term_name((dam_term)rows[k])));
        dam_fmt_time(tot, sizeof tot, b->terms[rows[k]]);
        dam_fmt_pct(sh, sizeof sh, total > 0 ? b->terms[rows[k]] / total : 0,
                    2);
        snprintf(buf, sizeof buf, "%s, %s%s", tot, sh,
                 rows[k] == bt ? ", binds" : "");
        dam_draw_font(cr, DAM_FONT_NOTE_BOLD);
        valw = fmax(valw, dam_draw_text_width(cr, buf));
    }
    char axis[160];
    dam_fmt_time(tot, sizeof tot, total);
    snprintf(axis, sizeof axis, "%s: %s in all%s%s%s",
             c->axis_title ? c->axis_title : "time per step", tot,
             (unsigned)b->bound < DAM_BOUND_COUNT ? ", " : "",
             (unsigned)b->bound < DAM_BOUND_COUNT ? dam_bound_name(b->bound)
                                                  : "",
             (unsigned)b->bound < DAM_BOUND_COUNT ? "-bound" : "");
    dam_draw_axis xa;
    dam_draw_axis_spec xs = {0, big > 0 ? big : 1e-3, 0, 0, DAM_AXIS_SECONDS,
                             NULL, axis};
    double pw = r->w - labw - 10 - valw - 8;
    int rc = dam_draw_axis_prepare(cr, &xa, &xs, pw, 0, err);
    if (rc)
        return rc;
    dam_rect plot = {r->x + labw + 10, y, pw,
                     r->y + r->h - y - dam_draw_axis_margin(cr, &xa)};
    if (plot.w < 60 || plot.h < 12 * (double)nr)
        return dam_error_set(err, "", 0,
                             "breakdown chart: area too small for %d terms",
                             nr);
    dam_draw_axis_place(cr, &xa, plot.x, plot.x + plot.w);
    dam_draw_axis_grid(cr, &xa, &plot);
    double band = plot.h / nr, th = fmin(band * 0.62, 34);
    for (int k = 0; k < nr; k++) {
        int t = rows[k];
        double cy = plot.y + band * (k + 0.5);
        double x1 = dam_axis_map(&xa.map, b->terms[t]);
        dam_draw_font(cr, DAM_FONT_AXIS);
        cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
        dam_draw_text_fit(cr, plot.x - 10, cy, dam_term_name((dam_term)t),
                          labw, 1, 0.5);
        dam_color col = dam_chart_term_color((dam_term)t);
        cairo_rectangle(cr, plot.x, cy - th / 2, fmax(x1 - plot.x, 1.0), th);
        dam_draw_set_color(cr, col, 1);
        cairo_fill(cr);
        if (t == bt) {
            cairo_set_source_rgb(cr, 0, 0, 0);
            cairo_set_line_width(cr, 2.2);
            cairo_rectangle(cr, plot.x + 1.1, cy - th / 2 + 1.1,
                            fmax(x1 - plot.x - 2.2, 0.5), th - 2.2);
            cairo_stroke(cr);
        }
        dam_fmt_time(tot, sizeof tot, b->terms[t]);
        dam_fmt_pct(sh, sizeof sh, total > 0 ? b->terms[t] / total : 0, 2);
        snprintf(buf, sizeof buf, "%s, %s%s", tot, sh,
                 t == bt ? ", binds" : "");
        dam_draw_font(cr, DAM_FONT_NOTE_BOLD);
        cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
        dam_draw_text(cr, fmax(x1, plot.x + 1.0) + 5, cy, buf, 0, 0.5);
    }
    dam_draw_axis_draw(cr, &xa, &plot, 1);
    dam_draw_category_axis(cr, &plot);
    return DAM_OK;
}

int dam_chart_breakdown_draw(cairo_t *cr, const dam_rect *r,
                             const dam_chart_breakdown *c, dam_error *err)
{
    int rc;
    if ((rc = check(c, err)) != DAM_OK)
        return rc;
    if (c->nbars == 1)
        return single(cr, r, c,
                      r->y + dam_draw_title(cr, r, c->title, c->subtitle),
                      err);

    double y = r->y + dam_draw_title(cr, r, c->title, c->subtitle);

    /* legend: the terms that appear, then the binding outline */
    dam_legend_item items[DAM_TERM_COUNT + 1];
    size_t ni = 0;
    for (int t = 0; t < DAM_TERM_COUNT; t++) {
        int used = 0;
        for (size_t i = 0; i < c->nbars; i++)
            used |= c->bars[i].terms[t] > 0;
        if (used) {
            items[ni++] = (dam_legend_item){dam_term_name((dam_term)t),
                                            dam_chart_term_color((dam_term)t),
                                            DAM_KEY_BOX, DAM_MARK_CIRCLE};
        }
    }
    items[ni++] = (dam_legend_item){"binding term", DAM_COLOR_BLACK,
                                    DAM_KEY_OUTLINE, DAM_MARK_CIRCLE};
    y += dam_draw_legend(cr, r, y, items, ni);

    /* margins: bar labels on the left, totals on the right */
    double maxtot = 0, labw = 0, totw = 0;
    char buf[128];
    dam_draw_font(cr, DAM_FONT_AXIS);
    for (size_t i = 0; i < c->nbars; i++) {
        double tot = 0;
        for (int t = 0; t < DAM_TERM_COUNT; t++)
            tot += c->bars[i].terms[t];
        maxtot = fmax(maxtot, tot);
        labw = fmax(labw, dam_draw_text_width(cr, c->bars[i].label));
    }
    labw = fmin(labw, r->w * 0.3);
    dam_draw_font(cr, DAM_FONT_NOTE_BOLD);
    for (size_t i = 0; i < c->nbars; i++) {
        double tot = 0;
        for (int t = 0; t < DAM_TERM_COUNT; t++)
            tot += c->bars[i].terms[t];
        total_label(buf, sizeof buf, &c->bars[i], tot);
        totw = fmax(totw, dam_draw_text_width(cr, buf));
    }

    dam_draw_axis xa;
    dam_draw_axis_spec xs = {0, maxtot > 0 ? maxtot : 1e-3, 0, 1,
                             DAM_AXIS_SECONDS, NULL,
                             c->axis_title ? c->axis_title : "time per step"};
    double pw = r->w - labw - 10 - totw - 8;
    if ((rc = dam_draw_axis_prepare(cr, &xa, &xs, pw, 0, err)))
        return rc;
    dam_rect plot = {r->x + labw + 10, y, pw,
                     r->y + r->h - y - dam_draw_axis_margin(cr, &xa)};
    if (plot.w < 60 || plot.h < 12 * (double)c->nbars)
        return dam_error_set(err, "", 0,
                             "breakdown chart: area too small for %zu bars",
                             c->nbars);
    dam_draw_axis_place(cr, &xa, plot.x, plot.x + plot.w);
    dam_draw_axis_grid(cr, &xa, &plot);

    double band = plot.h / (double)c->nbars;
    double th = fmin(band * 0.62, 34);
    for (size_t i = 0; i < c->nbars; i++) {
        const dam_chart_bar *b = &c->bars[i];
        double cy = plot.y + band * (i + 0.5), x = 0;
        int bt = dam_chart_bound_term(b->bound);
        dam_rect outline = {0, 0, 0, 0};

        dam_draw_font(cr, DAM_FONT_AXIS);
        cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
        dam_draw_row_label(cr, plot.x - 10, cy, b->label, labw, band);

        dam_draw_font(cr, DAM_FONT_NOTE);
        for (int t = 0; t < DAM_TERM_COUNT; t++) {
            double v = b->terms[t];
            if (v <= 0)
                continue;
            double x0 = dam_axis_map(&xa.map, x), x1 = dam_axis_map(&xa.map,
                                                                  x + v);
            dam_color col = dam_chart_term_color((dam_term)t);
            cairo_rectangle(cr, x0, cy - th / 2, x1 - x0, th);
            dam_draw_set_color(cr, col, 1);
            cairo_fill(cr);
            /* a thin white seam between segments */
            cairo_set_source_rgb(cr, 1, 1, 1);
            cairo_set_line_width(cr, 0.8);
            cairo_move_to(cr, x1, cy - th / 2);
            cairo_line_to(cr, x1, cy + th / 2);
            cairo_stroke(cr);
            dam_fmt_time(buf, sizeof buf, v);
            if (dam_draw_text_width(cr, buf) + 6 < x1 - x0 &&
                dam_draw_text_height(cr) + 2 < th) {
                dam_draw_set_ink(cr, col);
                dam_draw_text(cr, (x0 + x1) / 2, cy, buf, 0.5, 0.5);
            }
            if (t == bt) {
                outline.x = x0;
                outline.y = cy - th / 2;
                outline.w = x1 - x0;
                outline.h = th;
            }
            x += v;
        }
        if (outline.w > 0) {
            cairo_set_source_rgb(cr, 0, 0, 0);
            cairo_set_line_width(cr, 2.2);
            cairo_rectangle(cr, outline.x + 1.1, outline.y + 1.1,
                            fmax(outline.w - 2.2, 0.5), outline.h - 2.2);
            cairo_stroke(cr);
        }
        total_label(buf, sizeof buf, b, x);
        dam_draw_font(cr, DAM_FONT_NOTE_BOLD);
        cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
        dam_draw_text(cr, dam_axis_map(&xa.map, x) + 5, cy, buf, 0, 0.5);
    }
    dam_draw_axis_draw(cr, &xa, &plot, 1);
    /* the category axis line */
    dam_draw_category_axis(cr, &plot);
    return DAM_OK;
}
