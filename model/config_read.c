/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * config_read.c: reading a libconfig file (a scenario or a catalog) through
 * the one input path, its @includes checked first; below load.c and the
 * loaders that call it.
 */
#include "model/load.h"

#include <libconfig.h>
#include <stdio.h>
#include <string.h>

#include "model/alloc.h"
#include "model/infile.h"

/* The deepest @include chain libconfig 1.5 follows. */
#define DAM_INCLUDE_DEPTH 10

/* Check every file text @includes (resolved as libconfig 1.5 does: dir,
 * when set, then "/" then the name), and theirs, through the one input
 * path (model/infile.h): a FIFO or a device named by an @include is
 * refused before libconfig would block on it. file names text in
 * messages. */
static int includes_ok(const char *text, const char *file, const char *dir,
                       int depth, dam_diag *d)
{
    int line = 1, ok = 1;
    for (const char *p = text; *p && ok; line++) {
        const char *q = p;
        while (*q == ' ' || *q == '\t')
            q++;
        const char *eol = strchr(p, '\n');
        if (strncmp(q, "@include", 8) == 0 && (q[8] == ' ' || q[8] == '\t')) {
            q += 8;
            while (*q == ' ' || *q == '\t')
                q++;
            const char *end = *q == '"' ? strchr(q + 1, '"') : NULL;
            if (end && (!eol || end < eol)) {
                char name[1024], full[2048], why[64];
                snprintf(name, sizeof name, "%.*s", (int)(end - q - 1), q + 1);
                if (dir && dir[0])
                    snprintf(full, sizeof full, "%s/%s", dir, name);
                else
                    snprintf(full, sizeof full, "%s", name);
                char *inc = depth < DAM_INCLUDE_DEPTH
                                ? dam_infile_read(full, NULL, why, sizeof why)
                                : NULL;
                if (depth >= DAM_INCLUDE_DEPTH)
                    snprintf(why, sizeof why, "more than %d nested @includes",
                             DAM_INCLUDE_DEPTH);
                if (!inc) {
                    char qn[128];
                    dam_diag_error(d, file, line, "cannot read the @include'd "
                                   "file \"%s\": %s",
                                   dam_error_quote(full, 96, qn, sizeof qn),
                                   why);
                    return 0;
                }
                ok = includes_ok(inc, full, dir, depth + 1, d);
                dam_free(inc);
            }
        }
        p = eol ? eol + 1 : p + strlen(p);
    }
    return ok;
}

/* Read a config from text or path; a syntax error goes into d, with the
 * name of the file it is in (an @include'd one has its own). @include
 * paths resolve against the folder of the file being read (dir, owned by
 * the caller, must outlive cfg). The file and every file it @includes are
 * read through the one input path (model/infile.h): regular files only,
 * size-capped; libconfig then parses the text. libconfig 1.5 leaks a
 * string token's text when a syntax error follows it (its grammar has no
 * %destructor for TOK_STRING; tests/lsan.supp names that frame);
 * everything damsim allocates is freed on this path. */
int dam_ld_read_config(config_t *cfg, const char *path, const char *text,
                       char *dir, size_t ndir, dam_diag *d)
{
    config_init(cfg);
    dir[0] = '\0';
    const char *slash = path ? strrchr(path, '/') : NULL;
    if (!text && slash && (size_t)(slash - path) < ndir) {
        snprintf(dir, ndir, "%.*s", (int)(slash - path), path);
        if (!dir[0])
            snprintf(dir, ndir, "/");
        config_set_include_dir(cfg, dir);
    }
    char *owned = NULL;
    if (!text) {
        char why[64];
        owned = dam_infile_read(path, NULL, why, sizeof why);
        if (!owned) {
            dam_diag_error(d, path, 0, "cannot read the file: %s", why);
            config_destroy(cfg);
            return DAM_EINPUT;
        }
    }
    const char *src = text ? text : owned;
    int ok = includes_ok(src, path, dir, 0, d) ? config_read_string(cfg, src)
                                               : -1;
    dam_free(owned);
    if (ok == CONFIG_TRUE)
        return DAM_OK;
    if (ok == -1) {
        config_destroy(cfg);
        return DAM_EINPUT;
    }
    const char *where = config_error_file(cfg);
    if (config_error_type(cfg) == CONFIG_ERR_FILE_IO)
        dam_diag_error(d, path, 0, "cannot read the file");
    else
        dam_diag_error(d, where && *where ? where : path,
                       config_error_line(cfg), "%s", config_error_text(cfg));
    config_destroy(cfg);
    return DAM_EINPUT;
}

int dam_ld_read_config_quietly(config_t *cfg, const char *path,
                               const char *text, char *dir, size_t ndir)
{
    dam_diag d;
    dam_diag_init(&d);
    int ok = dam_ld_read_config(cfg, path, text, dir, ndir, &d) == DAM_OK;
    dam_diag_free(&d);
    return ok;
}
