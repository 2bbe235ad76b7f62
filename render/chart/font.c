/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * font.c: text through Pango (see font.h).
 *
 * Design note: the first text call on a cairo_t creates its text state (a
 * private font map over the DejaVu files, a Pango context with unhinted
 * metrics at 72 dpi so that one point is one user unit) and hangs it on the
 * cairo_t; every later call reuses it. Each draw or measure builds one
 * PangoLayout from that context after pango_cairo_update_context, so the
 * layout sees the cairo_t's current transformation (rotation, the PNG
 * scale). Strings are made valid UTF-8 first (a scenario name is user
 * text) and, when wrapped, numbers are glued to their units with no-break
 * spaces, so "0.5 %" never wraps between "0.5" and "%".
 */
#include "render/chart/font.h"

#include <fontconfig/fontconfig.h>
#include <math.h>
#include <pango/pangocairo.h>
#include <pango/pangofc-fontmap.h>
#include <stdio.h>
#include <string.h>

#include "model/alloc.h"

/* Role sizes (points) and weights, in dam_font order. */
static const double role_size[DAM_FONT_COUNT] = {14.0, 10.0, 9.5,  8.5, 8.0,
                                                 8.0,  20.0, 11.0, 11.0, 9.5};
static const int role_bold[DAM_FONT_COUNT] = {1, 0, 0, 0, 0, 1, 1, 0, 1, 1};

/* The text state of one cairo_t. */
typedef struct text_state {
    PangoFontMap *map;   /* private font map (or the fallback) */
    PangoContext *ctx;   /* unhinted, 72 dpi */
    dam_font_log *log;   /* where drawn boxes go; NULL: nowhere */
} text_state;

/* The address is the key; cairo never writes through it. */
static const cairo_user_data_key_t state_key;

static void state_free(void *p)
{
    text_state *st = p;
    if (!st)
        return;
    g_object_unref(st->ctx);
    g_object_unref(st->map);
    dam_free(st);
}

/* A font map over DAM_FONT_DIR's DejaVu Sans only; NULL when the files
 * are not there. */
static PangoFontMap *private_map(void)
{
    FcConfig *cfg = FcConfigCreate();
    if (!cfg)
        return NULL;
    int ok = FcConfigAppFontAddFile(
                 cfg, (const FcChar8 *)DAM_FONT_DIR "/DejaVuSans.ttf") &&
             FcConfigAppFontAddFile(
                 cfg, (const FcChar8 *)DAM_FONT_DIR "/DejaVuSans-Bold.ttf");
    PangoFontMap *map = NULL;
    if (ok) {
        map = pango_cairo_font_map_new_for_font_type(CAIRO_FONT_TYPE_FT);
        if (map)
            pango_fc_font_map_set_config(PANGO_FC_FONT_MAP(map), cfg);
    }
    FcConfigDestroy(cfg); /* the font map holds its own reference */
    return map;
}

static text_state *state_of(cairo_t *cr)
{
    text_state *st = cairo_get_user_data(cr, &state_key);
    if (st)
        return st;
    st = dam_calloc(1, sizeof *st);
    st->map = private_map();
    if (!st->map)
        st->map = pango_cairo_font_map_new();
    pango_cairo_font_map_set_resolution(PANGO_CAIRO_FONT_MAP(st->map), 72.0);
    st->ctx = pango_font_map_create_context(st->map);
    cairo_font_options_t *fo = cairo_font_options_create();
    cairo_font_options_set_hint_metrics(fo, CAIRO_HINT_METRICS_OFF);
    cairo_font_options_set_hint_style(fo, CAIRO_HINT_STYLE_NONE);
    pango_cairo_context_set_font_options(st->ctx, fo);
    cairo_font_options_destroy(fo);
    pango_cairo_context_set_resolution(st->ctx, 72.0);
    pango_context_set_round_glyph_positions(st->ctx, FALSE);
    cairo_set_user_data(cr, &state_key, st, state_free);
    return st;
}

/* ---- roles ----------------------------------------------------------- */

double dam_font_size(dam_font f)
{
    return (unsigned)f < DAM_FONT_COUNT ? role_size[f] : role_size[0];
}

void dam_font_select(cairo_t *cr, dam_font f)
{
    if ((unsigned)f >= DAM_FONT_COUNT)
        f = DAM_FONT_AXIS;
    cairo_select_font_face(cr, DAM_FONT_FAMILY, CAIRO_FONT_SLANT_NORMAL,
                           role_bold[f] ? CAIRO_FONT_WEIGHT_BOLD
                                        : CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, role_size[f]);
}

/* The Pango description of cr's current role (weight and size as
 * dam_font_select left them in cr's state). */
static PangoFontDescription *current_font(cairo_t *cr)
{
    cairo_matrix_t m;
    cairo_get_font_matrix(cr, &m);
    double size = hypot(m.xx, m.yx);
    int bold = 0;
    cairo_font_face_t *face = cairo_get_font_face(cr);
    if (face && cairo_font_face_get_type(face) == CAIRO_FONT_TYPE_TOY)
        bold = cairo_toy_font_face_get_weight(face) == CAIRO_FONT_WEIGHT_BOLD;
    PangoFontDescription *fd = pango_font_description_new();
    pango_font_description_set_family_static(fd, DAM_FONT_FAMILY);
    pango_font_description_set_weight(fd, bold ? PANGO_WEIGHT_BOLD
                                               : PANGO_WEIGHT_NORMAL);
    pango_font_description_set_absolute_size(
        fd, (size > 0.0 ? size : 10.0) * PANGO_SCALE);
    return fd;
}

/* ---- layouts --------------------------------------------------------- */

/* s as valid UTF-8 (g_free it); with glue, a space between a digit and a
 * short word that is not a number (a unit: "ms", "%", "GB", "TB/s")
 * becomes a no-break space (U+00A0). */
static char *prepare(const char *s, int glue)
{
    char *v = g_utf8_make_valid(s ? s : "", -1);
    if (!glue)
        return v;
    size_t n = strlen(v), k = 0;
    char *out = g_malloc(2 * n + 1);
    for (size_t i = 0; i < n; i++) {
        size_t wl = 0;
        while (i + 1 + wl < n && v[i + 1 + wl] != ' ')
            wl++;
        if (v[i] == ' ' && i > 0 && v[i - 1] >= '0' && v[i - 1] <= '9' &&
            i + 1 < n && !(v[i + 1] >= '0' && v[i + 1] <= '9') &&
            v[i + 1] != ' ' && wl <= 6) {
            out[k++] = (char)0xC2;
            out[k++] = (char)0xA0;
        } else {
            out[k++] = v[i];
        }
    }
    out[k] = '\0';
    g_free(v);
    return out;
}

/* A layout of s in cr's current role, wrapped or ellipsized to maxw (see
 * dam_font_measure), lines aligned by ax. Caller unrefs. */
static PangoLayout *layout_of(cairo_t *cr, const char *s, double maxw,
                              int maxlines, double ax)
{
    text_state *st = state_of(cr);
    pango_cairo_update_context(cr, st->ctx);
    PangoLayout *l = pango_layout_new(st->ctx);
    PangoFontDescription *fd = current_font(cr);
    pango_layout_set_font_description(l, fd);
    pango_font_description_free(fd);
    int multi = maxw > 0.0 && maxlines > 1;
    char *text = prepare(s, multi);
    if (!multi)
        pango_layout_set_single_paragraph_mode(l, TRUE);
    pango_layout_set_text(l, text, -1);
    g_free(text);
    if (maxw > 0.0) {
        pango_layout_set_width(l, (int)floor(maxw * PANGO_SCALE));
        pango_layout_set_ellipsize(l, PANGO_ELLIPSIZE_END);
        if (multi) {
            pango_layout_set_wrap(l, PANGO_WRAP_WORD_CHAR);
            pango_layout_set_height(l, -maxlines);
        }
        pango_layout_set_alignment(l, ax >= 0.75   ? PANGO_ALIGN_RIGHT
                                      : ax >= 0.25 ? PANGO_ALIGN_CENTER
                                                   : PANGO_ALIGN_LEFT);
    }
    return l;
}

/* The logical box of l in its own coordinates, points. */
static void logical(PangoLayout *l, double *x, double *y, double *w,
                    double *h)
{
    PangoRectangle lg;
    pango_layout_get_extents(l, NULL, &lg);
    *x = (double)lg.x / PANGO_SCALE;
    *y = (double)lg.y / PANGO_SCALE;
    *w = (double)lg.width / PANGO_SCALE;
    *h = (double)lg.height / PANGO_SCALE;
}

int dam_font_measure(cairo_t *cr, const char *s, double maxw, int maxlines,
                     double *w, double *h)
{
    PangoLayout *l = layout_of(cr, s, maxw, maxlines, 0.0);
    double x, y, lw, lh;
    logical(l, &x, &y, &lw, &lh);
    int lines = pango_layout_get_line_count(l);
    g_object_unref(l);
    if (w)
        *w = s && *s ? lw : 0.0;
    if (h)
        *h = lh;
    return lines;
}

double dam_font_line_height(cairo_t *cr)
{
    double h;
    dam_font_measure(cr, "Hg", 0, 1, NULL, &h);
    return h;
}

/* Log the user-space box b of cr, mapped to the log's space. */
static void log_box(cairo_t *cr, const dam_rect *b, const char *s)
{
    text_state *st = cairo_get_user_data(cr, &state_key);
    if (!st || !st->log)
        return;
    const double *m = st->log->m;
    double xs[4] = {b->x, b->x + b->w, b->x, b->x + b->w};
    double ys[4] = {b->y, b->y, b->y + b->h, b->y + b->h};
    double x0 = INFINITY, y0 = INFINITY, x1 = -INFINITY, y1 = -INFINITY;
    for (int i = 0; i < 4; i++) {
        double dx = xs[i], dy = ys[i];
        cairo_user_to_device(cr, &dx, &dy);
        double lx = m[0] * dx + m[2] * dy + m[4];
        double ly = m[1] * dx + m[3] * dy + m[5];
        x0 = fmin(x0, lx);
        y0 = fmin(y0, ly);
        x1 = fmax(x1, lx);
        y1 = fmax(y1, ly);
    }
    dam_rect r = {x0, y0, x1 - x0, y1 - y0};
    dam_font_log_add(st->log, &r, s);
}

dam_rect dam_font_draw(cairo_t *cr, double x, double y, const char *s,
                       double maxw, int maxlines, double ax, double ay)
{
    dam_rect box = {x, y, 0, 0};
    if (!s || !*s)
        return box;
    PangoLayout *l = layout_of(cr, s, maxw, maxlines, ax);
    double lx, ly, lw, lh;
    logical(l, &lx, &ly, &lw, &lh);
    box.x = x - ax * lw;
    box.y = y - ay * lh;
    box.w = lw;
    box.h = lh;
    cairo_save(cr);
    cairo_move_to(cr, box.x - lx, box.y - ly);
    pango_cairo_show_layout(cr, l);
    cairo_new_path(cr);
    cairo_restore(cr);
    g_object_unref(l);
    log_box(cr, &box, s);
    return box;
}

void dam_font_draw_up(cairo_t *cr, double x, double y, const char *s,
                      double maxlen)
{
    cairo_save(cr);
    cairo_translate(cr, x, y);
    cairo_rotate(cr, -3.14159265358979323846 / 2);
    dam_font_draw(cr, 0, 0, s, maxlen, 1, 0.5, 0.5);
    cairo_restore(cr);
}

/* ---- the text log ---------------------------------------------------- */

void dam_font_log_attach(cairo_t *cr, dam_font_log *log)
{
    text_state *st = state_of(cr);
    st->log = log;
    if (!log)
        return;
    log->n = 0;
    cairo_matrix_t m;
    cairo_get_matrix(cr, &m);
    cairo_matrix_invert(&m);
    log->m[0] = m.xx;
    log->m[1] = m.yx;
    log->m[2] = m.xy;
    log->m[3] = m.yy;
    log->m[4] = m.x0;
    log->m[5] = m.y0;
}

void dam_font_log_add(dam_font_log *log, const dam_rect *box,
                      const char *text)
{
    log->boxes = dam_grow(log->boxes, sizeof *log->boxes, log->n + 1,
                          &log->cap);
    dam_font_box *b = &log->boxes[log->n++];
    b->box = *box;
    snprintf(b->text, sizeof b->text, "%s", text ? text : "");
}

/* Overlap of a and b along x and along y (negative: apart). */
static void overlaps(const dam_rect *a, const dam_rect *b, double *ox,
                     double *oy)
{
    *ox = fmin(a->x + a->w, b->x + b->w) - fmax(a->x, b->x);
    *oy = fmin(a->y + a->h, b->y + b->h) - fmax(a->y, b->y);
}

size_t dam_font_log_check(const dam_font_log *log, const dam_rect *bounds,
                          double tol, dam_error *err)
{
    size_t bad = 0;
    for (size_t i = 0; i < log->n; i++) {
        const dam_rect *a = &log->boxes[i].box;
        if (a->x < bounds->x - tol || a->y < bounds->y - tol ||
            a->x + a->w > bounds->x + bounds->w + tol ||
            a->y + a->h > bounds->y + bounds->h + tol) {
            if (!bad++ && err)
                dam_error_set(err, "", 0,
                              "\"%s\" leaves the canvas: box %.1f,%.1f "
                              "%.1f x %.1f in %.0f x %.0f",
                              log->boxes[i].text, a->x, a->y, a->w, a->h,
                              bounds->w, bounds->h);
        }
        for (size_t j = i + 1; j < log->n; j++) {
            double ox, oy;
            overlaps(a, &log->boxes[j].box, &ox, &oy);
            if (ox > tol && oy > tol && !bad++ && err)
                dam_error_set(err, "", 0,
                              "\"%s\" overlaps \"%s\" by %.1f x %.1f pt",
                              log->boxes[i].text, log->boxes[j].text, ox,
                              oy);
        }
    }
    return bad;
}

void dam_font_log_free(dam_font_log *log)
{
    dam_free(log->boxes);
    memset(log, 0, sizeof *log);
}
