/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * api.h: what the files of libdamsim's public interface (include/damsim.h)
 * share: the bodies of its opaque handles. Not installed. api/ sits beside
 * cli/, above render/: it calls the layers as the command does and prints
 * nothing.
 */
#ifndef DAM_API_H
#define DAM_API_H

#define DAMSIM_BUILDING 1
#include "damsim.h"

#include "model/catalog.h"
#include "model/error.h"
#include "model/loader.h"
#include "model/scenario.h"

struct json_t;

/* Messages of the last call on a handle, each also formatted. */
struct damsim_diag {
    dam_diag d;   /* the messages */
    char **lines; /* lines[i]: d.items[i] formatted "file:line: error: ..." */
};

struct damsim_context {
    dam_catalog cat;       /* built-in catalogs, then the files merged */
    struct damsim_diag diag;
};

struct damsim_scenario {
    dam_catalog cat;        /* the context's catalogs when loaded, and the
                             * files the scenario's "catalogs" group names */
    char *path;             /* file name (messages; the file when text is
                             * NULL) */
    char *text;             /* the scenario's text, or NULL: read path */
    dam_setting *set;       /* keys set since (key and value owned) */
    int nset;
    char **levers;          /* levers applied since, in order */
    int nlevers;
    dam_scenario *s;        /* the scenario in effect; NULL: none loaded */
    dam_lever_list *file_levers; /* the file's own levers (for what-if) */
    struct damsim_diag diag;
    char *json;             /* damsim_scenario_json's text */
};

/* A JSON answer: the value and its text. */
struct damsim_result {
    struct json_t *root;
    char *text;
};

struct damsim_whatif {
    struct damsim_result r; /* the what-if's JSON */
    int nrows;              /* entries of its "options" array */
};

/* Clear the messages of a handle. */
void dam_api_diag_clear(struct damsim_diag *g);
/* Format every message of g (after a call added some). */
void dam_api_diag_done(struct damsim_diag *g);
/* Record one message (an error unless e says otherwise) and format it. */
void dam_api_diag_add(struct damsim_diag *g, const dam_error *e);
/* Record a message without a location; returns status. */
int dam_api_fail(struct damsim_diag *g, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Start a call on sc that needs a loaded scenario: clear its messages;
 * DAMSIM_OK, or the status to return (a NULL or unloaded handle). */
int dam_api_scenario_begin(damsim_scenario *sc);
/* A result holding v (the reference is taken) and its text. */
struct damsim_result *dam_api_result_new(struct json_t *v);
/* The value at a dotted path under v ("result.step_s", "options.0"), or
 * NULL. */
struct json_t *dam_api_json_at(struct json_t *v, const char *path);
/* A finite number (or a boolean as 0/1) at path under v: DAMSIM_OK or
 * DAMSIM_ENOTFOUND. */
int dam_api_json_number(struct json_t *v, const char *path, double *out);

#endif
