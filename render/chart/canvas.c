/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * canvas.c: surfaces that write atomically (see canvas.h).
 *
 * Design note: cairo writes through a stream callback into the temporary
 * of a dam_outfile (outfile.h: the target checked, the temporary created
 * exclusively beside it, renamed at close). Write errors are remembered by the callback and by the
 * FILE; cairo's status is sticky, so it is checked once, at close.
 *
 * Same input, same bytes: cairo 1.16 stamps the clock into a PDF's
 * /CreationDate unless one is set, so we set fixed dates (1.16 writes a
 * date it is given without the optional "D:" prefix). Its SVG names the
 * page group "surfaceN" after a process-wide surface counter, so SVG is
 * collected in memory and those ids renumbered in order of appearance
 * before it is written.
 */
#include "render/chart/canvas.h"

#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "model/alloc.h"
#include "render/out/buf.h"
#include "render/out/outfile.h"

struct dam_canvas {
    dam_canvas_format fmt;    /* output kind */
    char *path;               /* final path as given (owned) */
    dam_outfile out;          /* the temporary and its target */
    FILE *fp;                 /* out.fp: the open temporary */
    int write_failed;         /* 1 once a stream write has failed */
    unsigned char *mem;       /* SVG collected in memory (owned) */
    int memory;               /* 1: an in-memory SVG (no file) */
    size_t nmem, capmem;      /* its length and capacity, bytes */
    cairo_surface_t *surface; /* the surface drawn on */
    cairo_t *cr;              /* its context */
};

int dam_canvas_format_of(const char *path, dam_canvas_format *fmt,
                         dam_error *err)
{
    const char *dot = path ? strrchr(path, '.') : NULL;
    const char *slash = path ? strrchr(path, '/') : NULL;
    if (dot && (!slash || dot > slash)) {
        if (strcasecmp(dot, ".png") == 0) {
            *fmt = DAM_CANVAS_PNG;
            return DAM_OK;
        }
        if (strcasecmp(dot, ".svg") == 0) {
            *fmt = DAM_CANVAS_SVG;
            return DAM_OK;
        }
        if (strcasecmp(dot, ".pdf") == 0) {
            *fmt = DAM_CANVAS_PDF;
            return DAM_OK;
        }
    }
    return dam_error_set(err, path ? path : "", 0,
                         "unknown chart format: expected a name ending in "
                         "\".png\", \".svg\" or \".pdf\"");
}

/* cairo's write callback: append to the temporary, remember failure. */
static cairo_status_t write_cb(void *closure, const unsigned char *data,
                               unsigned int len)
{
    dam_canvas *c = closure;
    if (c->fmt == DAM_CANVAS_SVG || c->memory) {
        c->mem = dam_grow(c->mem, 1, c->nmem + len, &c->capmem);
        memcpy(c->mem + c->nmem, data, len);
        c->nmem += len;
        return CAIRO_STATUS_SUCCESS;
    }
    if (fwrite(data, 1, len, c->fp) != len) {
        c->write_failed = 1;
        return CAIRO_STATUS_WRITE_ERROR;
    }
    return CAIRO_STATUS_SUCCESS;
}

static int runtime(dam_error *err, const char *path, const char *what,
                   const char *why)
{
    dam_error_set(err, path, 0, "cannot write chart: %s: %s", what, why);
    return DAM_ERUNTIME;
}

/* Free everything; remove the temporary when it still exists. */
static void destroy(dam_canvas *c)
{
    if (c->cr)
        cairo_destroy(c->cr);
    if (c->surface)
        cairo_surface_destroy(c->surface);
    dam_outfile_abort(&c->out);
    dam_free(c->path);
    dam_free(c->mem);
    dam_free(c);
}

/* The collected SVG with "surfaceN" ids (after '"' or '#') renumbered
 * 1, 2, ... in order of first appearance, appended to out. cairo draws
 * text as glyph outlines, so user text never appears there to be mistaken
 * for an id. A chart has one or two surfaces; past 64 distinct ids the
 * rest would share number 65 (not reached by anything render/ draws). */
static void renumber_svg(const dam_canvas *c, dam_buf *out)
{
    static const char key[] = "surface";
    const size_t kl = sizeof key - 1;
    unsigned long old[64];
    size_t nold = 0, i = 0, from = 0;

    while (i + kl < c->nmem) {
        if ((c->mem[i] == '"' || c->mem[i] == '#') &&
            memcmp(c->mem + i + 1, key, kl) == 0 && i + 1 + kl < c->nmem &&
            c->mem[i + 1 + kl] >= '0' && c->mem[i + 1 + kl] <= '9') {
            size_t j = i + 1 + kl;
            unsigned long v = 0;
            while (j < c->nmem && c->mem[j] >= '0' && c->mem[j] <= '9')
                v = v * 10 + (unsigned long)(c->mem[j++] - '0');
            size_t k = 0;
            while (k < nold && old[k] != v)
                k++;
            if (k == nold && nold < 64)
                old[nold++] = v;
            dam_buf_append(out, (const char *)c->mem + from, i + 1 + kl - from);
            dam_buf_printf(out, "%zu", k + 1);
            from = i = j;
            continue;
        }
        i++;
    }
    dam_buf_append(out, (const char *)c->mem + from, c->nmem - from);
}

static void write_svg(dam_canvas *c)
{
    dam_buf b = {0};
    renumber_svg(c, &b);
    if (b.len && fwrite(b.data, 1, b.len, c->fp) != b.len)
        c->write_failed = 1;
    dam_buf_free(&b);
}

/* Append svg to out for inlining in HTML: without the XML declaration, and
 * every id (and every reference to one) prefixed with idp, so that several
 * SVGs on one page never share an id. */
static void inline_svg(const char *svg, const char *idp, dam_buf *out)
{
    const char *p = svg;
    if (strncmp(p, "<?xml", 5) == 0) {
        const char *e = strstr(p, "?>");
        p = e ? e + 2 : p;
        while (*p == '\n' || *p == '\r')
            p++;
    }
    static const char *const pats[] = {"id=\"", "href=\"#", "url(#"};
    while (*p) {
        size_t best = (size_t)-1, which = 0;
        for (size_t k = 0; k < 3; k++) {
            const char *f = strstr(p, pats[k]);
            if (f && (size_t)(f - p) < best) {
                best = (size_t)(f - p);
                which = k;
            }
        }
        if (best == (size_t)-1) {
            dam_buf_append(out, p, strlen(p));
            break;
        }
        size_t pl = strlen(pats[which]);
        dam_buf_append(out, p, best + pl);
        dam_buf_printf(out, "%s-", idp);
        p += best + pl;
    }
}
static void white_page(cairo_t *cr)
{
    cairo_save(cr);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    cairo_restore(cr);
}

int dam_canvas_open_svg(dam_canvas **out, double width, double height,
                        dam_error *err)
{
    *out = NULL;
    if (!isfinite(width) || !isfinite(height) || width <= 0 || height <= 0 ||
        width > 14400 || height > 14400)
        return dam_error_set(err, "", 0,
                             "chart size must be in (0, 14400] points, "
                             "got %g x %g", width, height);
    dam_canvas *c = dam_calloc(1, sizeof *c);
    c->fmt = DAM_CANVAS_SVG;
    c->memory = 1;
    c->surface = cairo_svg_surface_create_for_stream(write_cb, c, width,
                                                     height);
    cairo_status_t st = cairo_surface_status(c->surface);
    if (st != CAIRO_STATUS_SUCCESS) {
        int rc = runtime(err, "", "cairo", cairo_status_to_string(st));
        destroy(c);
        return rc;
    }
    c->cr = cairo_create(c->surface);
    white_page(c->cr);
    *out = c;
    return DAM_OK;
}

int dam_canvas_close_svg(dam_canvas *c, const char *idp, dam_buf *svg,
                         dam_error *err)
{
    cairo_status_t st = cairo_status(c->cr);
    if (st == CAIRO_STATUS_SUCCESS) {
        cairo_destroy(c->cr);
        c->cr = NULL;
        cairo_surface_finish(c->surface);
        st = cairo_surface_status(c->surface);
    }
    if (st != CAIRO_STATUS_SUCCESS) {
        int rc = runtime(err, "", "cairo", cairo_status_to_string(st));
        destroy(c);
        return rc;
    }
    dam_buf flat = {0};
    renumber_svg(c, &flat);
    inline_svg(dam_buf_str(&flat), idp, svg);
    dam_buf_free(&flat);
    destroy(c);
    return DAM_OK;
}

int dam_canvas_open(dam_canvas **out, const char *path, double width,
                    double height, const char *title, dam_error *err)
{
    dam_canvas_format fmt = DAM_CANVAS_PNG;
    int rc;

    *out = NULL;
    if ((rc = dam_canvas_format_of(path, &fmt, err)) != DAM_OK)
        return rc;
    if (!isfinite(width) || !isfinite(height) || width <= 0 || height <= 0 ||
        width > 14400 || height > 14400)
        return dam_error_set(err, path, 0,
                             "chart size must be in (0, 14400] points, "
                             "got %g x %g", width, height);

    dam_canvas *c = dam_calloc(1, sizeof *c);
    c->fmt = fmt;
    c->path = dam_strdup(path);
    rc = dam_outfile_open(&c->out, path, err);
    if (rc != DAM_OK) {
        destroy(c);
        return rc;
    }
    c->fp = c->out.fp;

    switch (fmt) {
    case DAM_CANVAS_PNG:
        c->surface = cairo_image_surface_create(
            CAIRO_FORMAT_ARGB32, (int)ceil(width * DAM_CANVAS_PNG_SCALE),
            (int)ceil(height * DAM_CANVAS_PNG_SCALE));
        break;
    case DAM_CANVAS_SVG:
        c->surface = cairo_svg_surface_create_for_stream(write_cb, c, width,
                                                         height);
        break;
    case DAM_CANVAS_PDF:
        c->surface = cairo_pdf_surface_create_for_stream(write_cb, c, width,
                                                         height);
        cairo_pdf_surface_set_metadata(c->surface,
                                       CAIRO_PDF_METADATA_CREATE_DATE,
                                       DAM_CANVAS_PDF_DATE);
        cairo_pdf_surface_set_metadata(c->surface,
                                       CAIRO_PDF_METADATA_MOD_DATE,
                                       DAM_CANVAS_PDF_DATE);
        cairo_pdf_surface_set_metadata(c->surface,
                                       CAIRO_PDF_METADATA_CREATOR, "damsim");
        if (title)
            cairo_pdf_surface_set_metadata(c->surface,
                                           CAIRO_PDF_METADATA_TITLE, title);
        break;
    }
    cairo_status_t st = cairo_surface_status(c->surface);
    if (st != CAIRO_STATUS_SUCCESS) {
        rc = runtime(err, path, "cairo", cairo_status_to_string(st));
        destroy(c);
        return rc;
    }
    c->cr = cairo_create(c->surface);
    if (fmt == DAM_CANVAS_PNG)
        cairo_scale(c->cr, DAM_CANVAS_PNG_SCALE, DAM_CANVAS_PNG_SCALE);
    /* Unhinted metrics: text measures the same on every surface kind. */
    cairo_font_options_t *fo = cairo_font_options_create();
    cairo_font_options_set_hint_metrics(fo, CAIRO_HINT_METRICS_OFF);
    cairo_font_options_set_hint_style(fo, CAIRO_HINT_STYLE_NONE);
    cairo_set_font_options(c->cr, fo);
    cairo_font_options_destroy(fo);
    white_page(c->cr);
    *out = c;
    return DAM_OK;
}

cairo_t *dam_canvas_cr(dam_canvas *c)
{
    return c->cr;
}

dam_canvas_format dam_canvas_format_get(const dam_canvas *c)
{
    return c->fmt;
}

int dam_canvas_new_page(dam_canvas *c, dam_error *err)
{
    if (c->fmt != DAM_CANVAS_PDF)
        return dam_error_set(err, c->path, 0,
                             "only PDF output has several pages");
    cairo_show_page(c->cr);
    white_page(c->cr);
    return DAM_OK;
}

int dam_canvas_close(dam_canvas *c, dam_error *err)
{
    cairo_status_t st = cairo_status(c->cr);
    int rc;

    if (st == CAIRO_STATUS_SUCCESS) {
        cairo_destroy(c->cr);
        c->cr = NULL;
        if (c->fmt == DAM_CANVAS_PNG) {
            cairo_surface_flush(c->surface);
            st = cairo_surface_write_to_png_stream(c->surface, write_cb, c);
        } else {
            cairo_surface_finish(c->surface);
            st = cairo_surface_status(c->surface);
        }
    }
    if (st != CAIRO_STATUS_SUCCESS || c->write_failed) {
        rc = runtime(err, c->path, "cairo",
                     c->write_failed ? "write error"
                                     : cairo_status_to_string(st));
        destroy(c);
        return rc;
    }
    cairo_surface_destroy(c->surface);
    c->surface = NULL;
    if (c->fmt == DAM_CANVAS_SVG)
        write_svg(c);
    c->fp = NULL;
    rc = dam_outfile_commit(&c->out, err);
    destroy(c);
    return rc;
}

void dam_canvas_discard(dam_canvas *c)
{
    if (c)
        destroy(c);
}
