/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * loader_points.c: points files (mode "points") and a file's settings as
 * written (loader.c says how the loader reads a file).
 */
#include "model/loader.h"
#include "model/load.h"

#include <errno.h>
#include <libconfig.h>
#include <stdint.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "model/alloc.h"
#include "model/infile.h"
#include "model/lever.h"
#include "model/scaling.h"
#include "model/suggest.h"
#include "model/device.h"
#include "model/graph.h"
#include "model/constants.h"

/* ---- points (mode "points") -------------------------------------------- */

int dam_points_probe(const char *path, const char *text)
{
    config_t cfg;
    char dir[4096];
    if (!dam_ld_read_config_quietly(&cfg, path, text, dir, sizeof dir))
        return 0;
    const char *mode = NULL;
    int is = config_lookup_string(&cfg, "scenario.mode", &mode) ==
                 CONFIG_TRUE &&
             strcmp(mode, "points") == 0;
    config_destroy(&cfg);
    return is;
}

static const char *const points_top[] = {"scenario", "quality", "cost",
                                         "points", NULL};
static const char *const points_scen[] = {"name", "question", "mode", NULL};
static const char *const points_quality[] = {"metric", "higher_is_better",
                                             NULL};
static const char *const points_cost[] = {"unit", NULL};
static const char *const point_keys[] = {"name", "quality", "cost", NULL};

int dam_points_load(dam_points *p, const char *path, const char *text,
                    dam_diag *d)
{
    config_t cfg;
    memset(p, 0, sizeof *p);
    snprintf(p->file, sizeof p->file, "%s", path);
    p->higher_is_better = 1;
    snprintf(p->cost_unit, sizeof p->cost_unit, "units");
    ld L;
    const config_setting_t *root = dam_ld_begin(&L, &cfg, path, text, d, NULL);
    if (!root)
        return DAM_EINPUT;
    check_keys(&L, root, points_top, "");
    config_setting_t *sc = group(&L, root, "scenario", "", 1);
    if (sc) {
        check_keys(&L, sc, points_scen, "scenario");
        get_str(&L, sc, "name", "scenario", 1, p->name, sizeof p->name);
        get_str(&L, sc, "question", "scenario", 1, p->question,
                sizeof p->question);
    }
    config_setting_t *q = group(&L, root, "quality", "", 1);
    if (q) {
        check_keys(&L, q, points_quality, "quality");
        get_str(&L, q, "metric", "quality", 1, p->metric, sizeof p->metric);
        get_bool(&L, q, "higher_is_better", "quality", 0,
                 &p->higher_is_better);
    }
    config_setting_t *c = group(&L, root, "cost", "", 0);
    if (c) {
        check_keys(&L, c, points_cost, "cost");
        get_str(&L, c, "unit", "cost", 0, p->cost_unit, sizeof p->cost_unit);
    }
    config_setting_t *lst = member(&L, root, "points", "", 1);
    if (lst && !config_setting_is_list(lst)) {
        dam_diag_error(d, path, line_of(lst),
                       "'points' must be a list ( {...}, ... ), got %s",
                       type_name(lst));
        lst = NULL;
    }
    int n = lst ? config_setting_length(lst) : 0;
    if (lst && (n < 2 || n > DAM_MAX_POINTS))
        dam_diag_error(d, path, line_of(lst),
                       "'points' holds %d points; return on compute needs 2 "
                       "to %d", n, DAM_MAX_POINTS);
    for (int i = 0; lst && i < n && i < DAM_MAX_POINTS; i++) {
        config_setting_t *e = config_setting_get_elem(lst, (unsigned)i);
        char w[32];
        snprintf(w, sizeof w, "points[%d]", i);
        if (!config_setting_is_group(e)) {
            dam_diag_error(d, path, line_of(e), "'%s' must be a group { "
                           "name; quality; cost; }, got %s", w, type_name(e));
            continue;
        }
        dam_quality_point *pt = &p->pts[p->n];
        check_keys(&L, e, point_keys, w);
        get_str(&L, e, "name", w, 1, pt->label, sizeof pt->label);
        get_num(&L, e, "quality", w, 1, R_ANY, 1.0, &pt->quality);
        get_num(&L, e, "cost", w, 1, R_NONNEG, 1.0, &pt->cost);
        p->line[p->n] = line_of(e);
        for (size_t j = 0; j < p->n; j++)
            if (pt->label[0] && strcmp(p->pts[j].label, pt->label) == 0)
                dam_diag_error(d, path, line_of(e),
                               "duplicate point name \"%s\" (first defined "
                               "at line %d)", pt->label, p->line[j]);
        p->n++;
    }
    config_destroy(&cfg);
    return d->nerr > L.before ? DAM_EINPUT : DAM_OK;
}

/* ---- a file's settings, as written ------------------------------------ */

/* A number as a person writes it in a scenario: "20", "0.005", "2e9"
 * (printf's "2e+09" without the plus and the leading zero). */
static void float_text(char *buf, size_t n, double v)
{
    char t[64];
    snprintf(t, sizeof t, "%.6g", v);
    char *e = strchr(t, 'e');
    if (e) {
        char *p = e + 1, *q = p;
        if (*q == '+')
            q++;
        else if (*q == '-')
            *p++ = *q++;
        while (*q == '0' && q[1])
            q++;
        memmove(p, q, strlen(q) + 1);
    }
    snprintf(buf, n, "%s", t);
}

/* Append "key = value" for setting st (and, for groups and lists, its
 * children) to the list. */
static void flatten_setting(config_setting_t *st, const char *prefix,
                            dam_setting **out, int *n, size_t *cap)
{
    char key[256], val[256];
    const char *name = config_setting_name(st);
    if (name)
        snprintf(key, sizeof key, "%s%s%s", prefix, *prefix ? "." : "", name);
    else
        snprintf(key, sizeof key, "%s.%d", prefix, config_setting_index(st));
    int type = config_setting_type(st);
    if (type == CONFIG_TYPE_GROUP || type == CONFIG_TYPE_LIST) {
        for (int i = 0; i < config_setting_length(st); i++)
            flatten_setting(config_setting_get_elem(st, (unsigned)i), key, out,
                            n, cap);
        return;
    }
    switch (type) {
    case CONFIG_TYPE_INT:
        snprintf(val, sizeof val, "%d", config_setting_get_int(st));
        break;
    case CONFIG_TYPE_INT64:
        snprintf(val, sizeof val, "%lld", config_setting_get_int64(st));
        break;
    case CONFIG_TYPE_FLOAT:
        float_text(val, sizeof val, config_setting_get_float(st));
        break;
    case CONFIG_TYPE_BOOL:
        snprintf(val, sizeof val, "%s",
                 config_setting_get_bool(st) ? "true" : "false");
        break;
    case CONFIG_TYPE_STRING:
        snprintf(val, sizeof val, "%s", config_setting_get_string(st));
        break;
    case CONFIG_TYPE_ARRAY: {
        size_t len = (size_t)snprintf(val, sizeof val, "[");
        for (int i = 0; i < config_setting_length(st) && len < sizeof val;
             i++) {
            config_setting_t *e = config_setting_get_elem(st, (unsigned)i);
            char one[64];
            if (config_setting_type(e) == CONFIG_TYPE_STRING)
                snprintf(one, sizeof one, "%s", config_setting_get_string(e));
            else if (config_setting_type(e) == CONFIG_TYPE_FLOAT)
                float_text(one, sizeof one, config_setting_get_float(e));
            else
                snprintf(one, sizeof one, "%lld",
                         config_setting_get_int64(e));
            len += (size_t)snprintf(val + len, sizeof val - len, "%s%s",
                                    i ? ", " : "", one);
        }
        if (len < sizeof val)
            snprintf(val + len, sizeof val - len, "]");
        break;
    }
    default:
        val[0] = '\0';
    }
    *out = dam_grow(*out, sizeof **out, (size_t)*n + 1, cap);
    (*out)[*n].key = dam_strdup(key);
    (*out)[*n].value = dam_strdup(val);
    (*n)++;
}

int dam_scenario_settings(const char *path, const char *text,
                          dam_setting **out)
{
    config_t cfg;
    char dir[4096];
    *out = NULL;
    if (!dam_ld_read_config_quietly(&cfg, path, text, dir, sizeof dir))
        return -1;
    int n = 0;
    size_t cap = 0;
    config_setting_t *root = config_root_setting(&cfg);
    for (int i = 0; i < config_setting_length(root); i++)
        flatten_setting(config_setting_get_elem(root, (unsigned)i), "", out,
                        &n, &cap);
    config_destroy(&cfg);
    return n;
}

void dam_settings_free(dam_setting *s, int n)
{
    for (int i = 0; i < n; i++) {
        dam_free((void *)s[i].key);
        dam_free((void *)s[i].value);
    }
    dam_free(s);
}
