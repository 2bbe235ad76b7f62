/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * measure.c: the measurements file of `damsim calibrate` (see measure.h).
 *
 * The file is read whole (bounded by MAX_FILE_BYTES), split into lines, and
 * each line into CSV fields. Errors are collected, as the scenario loader
 * does, so a user sees every bad row at once; the set is filled only when
 * the whole file is good.
 */
#include "model/measure.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/alloc.h"
#include "model/csvline.h"
#include "model/infile.h"
#include "model/lever.h"

/* A measurements file is a few hundred rows; refuse what cannot be one. */
#define MAX_FILE_BYTES (16u << 20)
#define MAX_FIELDS 32
#define MAX_FIELD 1024

const char *dam_measure_kind_name(dam_measure_kind k)
{
    switch (k) {
    case DAM_MEASURE_STEP_TIME: return "step_time";
    case DAM_MEASURE_THROUGHPUT: return "throughput";
    case DAM_MEASURE_TRACE: return "trace";
    }
    return "?";
}

/* Columns. */
enum { C_SCENARIO, C_QUANTITY, C_VALUE, C_UNIT, C_LEVERS, C_REL_ERROR, C_ID,
       C_SOURCE, C_COUNT };
static const char *const column_names[C_COUNT] = {
    "scenario", "quantity", "value", "unit", "levers", "rel_error", "id",
    "source"};

/* One line split into fields (copies, trimmed of surrounding blanks
 * outside quotes). Returns the number of fields, or -1 with *why set. */
static int split(const char *line, char f[][MAX_FIELD], int max,
                 const char **why)
{
    int n = 0;
    const char *p = line;
    for (;;) {
        if (n == max) {
            *why = "too many fields";
            return -1;
        }
        size_t len = 0;
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p == '"') {
            p++;
            for (;;) {
                if (*p == '\0') {
                    *why = "unterminated quoted field";
                    return -1;
                }
                if (*p == '"' && p[1] == '"') {
                    p += 2;
                    if (len + 1 < MAX_FIELD)
                        f[n][len++] = '"';
                    continue;
                }
                if (*p == '"') {
                    p++;
                    break;
                }
                if (len + 1 < MAX_FIELD)
                    f[n][len++] = *p;
                p++;
            }
            while (*p == ' ' || *p == '\t')
                p++;
            if (*p != ',' && *p != '\0') {
                *why = "text after a closing quote";
                return -1;
            }
        } else {
            while (*p != ',' && *p != '\0') {
                if (len + 1 < MAX_FIELD)
                    f[n][len++] = *p;
                p++;
            }
            while (len > 0 && (f[n][len - 1] == ' ' || f[n][len - 1] == '\t'))
                len--;
        }
        f[n][len] = '\0';
        n++;
        if (*p == '\0')
            return n;
        p++; /* the comma */
    }
}

/* Path p relative to the folder of file (absolute p kept). */
static void relative_to(char *out, size_t n, const char *file, const char *p)
{
    const char *slash = strrchr(file, '/');
    if (p[0] == '/' || !slash)
        snprintf(out, n, "%s", p);
    else
        snprintf(out, n, "%.*s/%s", (int)(slash - file), file, p);
}

/* A finite number filling the whole field. */
static int number(const char *s, double *v)
{
    char *end;
    errno = 0;
    double x = dam_decimal(s, &end);
    if (end == s || *end != '\0' || errno == ERANGE || !isfinite(x))
        return 0;
    *v = x;
    return 1;
}

/* Units of a step time (SI factor) and of a throughput. */
static int time_unit(const char *u, double *si)
{
    static const struct { const char *name; double si; } t[] = {
        {"s", 1.0}, {"ms", 1e-3}, {"us", 1e-6}};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (strcmp(u, t[i].name) == 0) {
            *si = t[i].si;
            return 1;
        }
    return 0;
}

static int rate_unit(const char *u, dam_measure_count *count, int *per_gpu)
{
    static const struct { const char *name; dam_measure_count c; } t[] = {
        {"samples/s", DAM_MEASURE_PER_SAMPLE},
        {"images/s", DAM_MEASURE_PER_SAMPLE},
        {"sequences/s", DAM_MEASURE_PER_SAMPLE},
        {"tokens/s", DAM_MEASURE_PER_TOKEN}};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        size_t n = strlen(t[i].name);
        if (strncmp(u, t[i].name, n) != 0)
            continue;
        if (u[n] == '\0')
            *per_gpu = 0;
        else if (strcmp(u + n, "/GPU") == 0)
            *per_gpu = 1;
        else
            continue;
        *count = t[i].c;
        return 1;
    }
    return 0;
}

/* Check each lever string of a row: the parser's message, at the row. */
static void check_levers(const char *levers, const char *file, int line,
                         dam_diag *d)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s", levers);
    char *save = NULL;
    for (char *tok = strtok_r(buf, " \t", &save); tok;
         tok = strtok_r(NULL, " \t", &save)) {
        dam_lever lv;
        dam_error e;
        if (dam_lever_parse_kv(tok, &lv, &e) != DAM_OK)
            dam_diag_error(d, file, line, "levers: %s", e.msg);
    }
}

/* Parse one data row into m; errors go to d. */
static void parse_row(const char *file, int line, char f[][MAX_FIELD],
                      int nf, const int *col, dam_measure *m, dam_diag *d)
{
    memset(m, 0, sizeof *m);
    m->line = line;
    m->rel_error = DAM_MEASURE_REL_ERROR;
#define FIELD(c) (col[c] >= 0 && col[c] < nf ? f[col[c]] : "")
    const char *scen = FIELD(C_SCENARIO), *qty = FIELD(C_QUANTITY);
    const char *val = FIELD(C_VALUE), *unit = FIELD(C_UNIT);
    int before = d->nerr;
    if (!scen[0])
        dam_diag_error(d, file, line, "missing 'scenario'");
    else
        relative_to(m->scenario, sizeof m->scenario, file, scen);
    if (FIELD(C_ID)[0])
        snprintf(m->id, sizeof m->id, "%s", FIELD(C_ID));
    else {
        const char *base = strrchr(file, '/');
        snprintf(m->id, sizeof m->id, "%s:%d", base ? base + 1 : file, line);
    }
    snprintf(m->levers, sizeof m->levers, "%s", FIELD(C_LEVERS));
    snprintf(m->source, sizeof m->source, "%s", FIELD(C_SOURCE));
    snprintf(m->unit, sizeof m->unit, "%s", unit);
    if (m->levers[0])
        check_levers(m->levers, file, line, d);
    if (FIELD(C_REL_ERROR)[0]) {
        double r;
        if (!number(FIELD(C_REL_ERROR), &r) || r <= 0.0 || r >= 1.0)
            dam_diag_error(d, file, line,
                           "'rel_error' must be a number in (0, 1), got "
                           "\"%s\"", FIELD(C_REL_ERROR));
        else
            m->rel_error = r;
    }
    if (strcmp(qty, "trace") == 0) {
        m->kind = DAM_MEASURE_TRACE;
        if (!val[0])
            dam_diag_error(d, file, line,
                           "missing 'value': the trace file of the row");
        else
            relative_to(m->trace, sizeof m->trace, file, val);
        if (unit[0])
            dam_diag_error(d, file, line,
                           "a trace row takes no 'unit', got \"%s\"", unit);
        return;
    }
    if (strcmp(qty, "step_time") == 0)
        m->kind = DAM_MEASURE_STEP_TIME;
    else if (strcmp(qty, "throughput") == 0)
        m->kind = DAM_MEASURE_THROUGHPUT;
    else {
        dam_diag_error(d, file, line,
                       "'quantity' must be step_time, throughput or trace, "
                       "got \"%s\"", qty);
        return;
    }
    double v = 0.0;
    if (!val[0])
        dam_diag_error(d, file, line, "missing 'value'");
    else if (!number(val, &v) || v <= 0.0)
        dam_diag_error(d, file, line,
                       "'value' must be a finite number > 0, got \"%s\"",
                       val);
    double si = 1.0;
    if (!unit[0])
        dam_diag_error(d, file, line, "missing 'unit' of the %s", qty);
    else if (m->kind == DAM_MEASURE_STEP_TIME && !time_unit(unit, &si))
        dam_diag_error(d, file, line,
                       "step_time unit must be s, ms or us, got \"%s\"",
                       unit);
    else if (m->kind == DAM_MEASURE_THROUGHPUT &&
             !rate_unit(unit, &m->count, &m->per_gpu))
        dam_diag_error(d, file, line,
                       "throughput unit must be samples/s, images/s, "
                       "sequences/s or tokens/s (optionally with /GPU), got "
                       "\"%s\"", unit);
    if (d->nerr == before)
        m->value = v * si;
#undef FIELD
}

/* The header: column indices into col (-1 = absent). */
static void parse_header(const char *file, int line, char f[][MAX_FIELD],
                         int nf, int *col, dam_diag *d)
{
    for (int c = 0; c < C_COUNT; c++)
        col[c] = -1;
    for (int i = 0; i < nf; i++) {
        int c = 0;
        while (c < C_COUNT && strcmp(f[i], column_names[c]) != 0)
            c++;
        if (c == C_COUNT) {
            dam_diag_error(d, file, line,
                           "unknown column \"%s\" (columns: scenario, "
                           "quantity, value, unit, levers, rel_error, id, "
                           "source)", f[i]);
        } else if (col[c] >= 0) {
            dam_diag_error(d, file, line, "column \"%s\" given twice", f[i]);
        } else {
            col[c] = i;
        }
    }
    for (int c = 0; c < C_VALUE + 1; c++)
        if (col[c] < 0)
            dam_diag_error(d, file, line, "missing column \"%s\"",
                           column_names[c]);
}

static char *read_all(const char *path, dam_diag *d)
{
    char why[64];
    size_t n = 0;
    char *buf = dam_infile_read(path, &n, why, sizeof why);
    if (!buf) {
        dam_diag_error(d, path, 0, "cannot read the measurements file: %s",
                       why);
        return NULL;
    }
    if (n > MAX_FILE_BYTES) {
        dam_diag_error(d, path, 0, "the measurements file is larger than %u "
                       "bytes", MAX_FILE_BYTES);
        dam_free(buf);
        return NULL;
    }
    if (memchr(buf, '\0', n)) {
        dam_diag_error(d, path, 0, "the measurements file is not text");
        dam_free(buf);
        return NULL;
    }
    return buf;
}

int dam_measure_load(dam_measure_set *set, const char *path, const char *text,
                     dam_diag *d)
{
    memset(set, 0, sizeof *set);
    int before = d->nerr;
    char *buf = text ? dam_strdup(text) : read_all(path, d);
    if (!buf)
        return DAM_EINPUT;
    char (*f)[MAX_FIELD] = dam_malloc(MAX_FIELDS * sizeof *f);
    dam_measure *rows = NULL;
    size_t n = 0, cap = 0;
    int col[C_COUNT];
    int have_header = 0, line = 0, header_line = 0;
    char *save = NULL;
    for (char *p = buf; p; p = save) {
        char *nl = strchr(p, '\n');
        save = nl ? nl + 1 : NULL;
        if (nl)
            *nl = '\0';
        line++;
        size_t len = strlen(p);
        if (len > 0 && p[len - 1] == '\r')
            p[--len] = '\0';
        const char *q = p;
        while (*q == ' ' || *q == '\t')
            q++;
        if (*q == '\0' || *q == '#')
            continue;
        const char *why = NULL;
        int nf = split(p, f, MAX_FIELDS, &why);
        if (nf < 0) {
            dam_diag_error(d, path, line, "%s", why);
            continue;
        }
        if (!have_header) {
            parse_header(path, line, f, nf, col, d);
            have_header = 1;
            header_line = line;
            continue;
        }
        int ncol = 0;
        for (int c = 0; c < C_COUNT; c++)
            ncol += col[c] >= 0;
        if (nf != ncol) {
            dam_diag_error(d, path, line, "%d fields, the header has %d", nf,
                           ncol);
            continue;
        }
        rows = dam_grow(rows, sizeof *rows, n + 1, &cap);
        parse_row(path, line, f, nf, col, &rows[n], d);
        n++;
    }
    if (d->nerr == before && n == 0)
        dam_diag_error(d, path, header_line,
                       have_header ? "no measurements after the header"
                                   : "no measurements in the file");
    dam_free(f);
    dam_free(buf);
    if (d->nerr > before) {
        dam_free(rows);
        return DAM_EINPUT;
    }
    snprintf(set->file, sizeof set->file, "%s", path);
    set->rows = rows;
    set->n = n;
    return DAM_OK;
}

void dam_measure_set_free(dam_measure_set *set)
{
    if (!set)
        return;
    dam_free(set->rows);
    memset(set, 0, sizeof *set);
}

double dam_measure_si(const dam_measure *m, const dam_scenario *s)
{
    if (m->kind != DAM_MEASURE_THROUGHPUT)
        return m->value;
    double v = m->value;
    if (m->count == DAM_MEASURE_PER_TOKEN)
        v /= s->workload.model.seq_len > 0.0 ? s->workload.model.seq_len : 1.0;
    if (m->per_gpu)
        v *= dam_scenario_gpus(s);
    return v;
}
