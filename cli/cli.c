/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * cli.c: the helpers every damsim command calls down into: errors and
 * diagnostics on stderr, the catalogs and scenarios loaded, --lever, the
 * output written (-o by its extension, the charts, the HTML page), the
 * simulation limits and options, scenario text from a file or standard
 * input, and the budget review. Nothing here calls a command.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "cli/sweep.h"
#include "model/alloc.h"
#include "model/embedded.h"
#include "model/infile.h"
#include "model/lever.h"
#include "model/loader.h"
#include "render/chart/chartset.h"
#include "render/out/html.h"
#include "render/out/outfile.h"
#include "render/review/review.h"
#include "solver/uncertainty.h"

#define FLAGSHIP "resnet50-dgx-a100.cfg"

int dam_cli_usage_error(const char *cmd, const char *msg, const char *arg)
{
    fprintf(stderr, "damsim: %s", msg);
    if (arg)
        fprintf(stderr, " '%s'", arg);
    fprintf(stderr, "\n(see 'damsim %s --help')\n", cmd);
    return 2;
}

int dam_cli_help(const char *text)
{
    fputs(text, stdout);
    return 0;
}

void dam_cli_error(const dam_error *e)
{
    char line[1024];
    dam_error_format(e, line, sizeof line);
    fprintf(stderr, "%s\n", line);
}

int dam_cli_report_diag(const dam_diag *d, int quiet)
{
    char line[1024];
    for (size_t i = 0; i < d->n; i++) {
        if (quiet && d->items[i].sev == DAM_SEV_WARNING)
            continue;
        dam_error_format(&d->items[i], line, sizeof line);
        fprintf(stderr, "%s\n", line);
    }
    if (d->truncated)
        fprintf(stderr, "damsim: too many errors (more than %d); stopping\n",
                DAM_DIAG_MAX);
    return d->nerr ? 2 : 0;
}

int dam_cli_load_catalog(dam_cli *c)
{
    dam_diag d;
    dam_diag_init(&d);
    const dam_embedded_file *g = dam_embedded_find("gpus.cfg");
    const dam_embedded_file *m = dam_embedded_find("models.cfg");
    int rc = DAM_OK;
    if (g && m) {
        rc |= dam_catalog_load_gpus(&c->cat, "<built-in>/data/gpus.cfg",
                                    g->text, &d);
        rc |= dam_catalog_load_models(&c->cat, "<built-in>/data/models.cfg",
                                      m->text, &d);
    }
    if (c->gpus_file)
        rc |= dam_catalog_load_gpus(&c->cat, c->gpus_file, NULL, &d);
    if (c->models_file)
        rc |= dam_catalog_load_models(&c->cat, c->models_file, NULL, &d);
    int code = dam_cli_report_diag(&d, c->quiet);
    dam_diag_free(&d);
    return rc != DAM_OK || code ? 2 : 0;
}

int dam_cli_load_scenario_levers(dam_cli *c, const char *path,
                                  dam_scenario *s, dam_lever_list *levers)
{
    dam_diag d;
    dam_diag_init(&d);
    dam_load_options o;
    memset(&o, 0, sizeof o);
    o.levers = levers;
    int rc;
    if (path && strcmp(path, "-") == 0) {
        /* standard input: read once, named "<stdin>" in messages */
        const char *name;
        char why[64];
        char *text = dam_cli_read_text(path, &name, why, sizeof why);
        if (!text) {
            fprintf(stderr, "<stdin>: error: cannot read standard input: "
                            "%s\n", why);
            dam_diag_free(&d);
            return 2;
        }
        rc = dam_scenario_load_with(s, name, text, &c->cat, &o, &d);
        dam_free(text);
    } else if (path) {
        rc = dam_scenario_load_with(s, path, NULL, &c->cat, &o, &d);
    } else {
        const dam_embedded_file *f = dam_embedded_find(FLAGSHIP);
        rc = dam_scenario_load_with(s, "<built-in>/scenarios/" FLAGSHIP,
                                    f->text, &c->cat, &o, &d);
    }
    int code = dam_cli_report_diag(&d, c->quiet);
    dam_diag_free(&d);
    return rc != DAM_OK || code ? 2 : 0;
}

int dam_cli_load_scenario(dam_cli *c, const char *path, dam_scenario *s)
{
    return dam_cli_load_scenario_levers(c, path, s, NULL);
}

int dam_cli_apply_lever_args(dam_cli *c, dam_scenario *s)
{
    for (int i = 0; i < c->nlever_args; i++) {
        dam_lever lv;
        dam_error e;
        memset(&e, 0, sizeof e);
        if (dam_lever_parse_kv(c->lever_args[i], &lv, &e) != DAM_OK ||
            dam_lever_check(&lv, "", &c->cat, &e) != DAM_OK ||
            dam_lever_apply(s, &lv, &c->cat, s, &e) != DAM_OK) {
            dam_lever_error_at(&e, "--lever", c->lever_args[i]);
            dam_cli_error(&e);
            return 2;
        }
    }
    return 0;
}

int dam_cli_emit(dam_cli *c, const dam_buf *b)
{
    const char *text = dam_buf_str(b);
    dam_output_kind k = c->out_kind;
    if (k == DAM_OUT_TXT || k == DAM_OUT_JSON || k == DAM_OUT_CSV) {
        dam_error e;
        int rc = dam_write_file_atomic(c->out_file, text, b->len, &e);
        if (rc != DAM_OK) {
            dam_cli_error(&e);
            return rc == DAM_EINPUT ? 2 : 1;
        }
        return 0;
    }
    if (k == DAM_OUT_HTML)
        dam_buf_append(&c->html_text, text, b->len);
    if (fwrite(text, 1, b->len, stdout) != b->len)
        return dam_cli_stdout_error(errno);
    return dam_cli_stdout_check();
}

int dam_cli_stdout_error(int e)
{
    static int said; /* cli/: once per run, not once per write */
    if (!said)
        fprintf(stderr, "damsim: standard output: write error: %s\n",
                strerror(e ? e : EIO));
    said = 1;
    return 1;
}

int dam_cli_stdout_check(void)
{
    if (fflush(stdout) == 0 && !ferror(stdout))
        return 0;
    /* a failed flush sets errno; an earlier failed write left its own */
    return dam_cli_stdout_error(errno);
}

const char *dam_cli_extension(const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *dot = strrchr(path, '.');
    return dot && (!slash || dot > slash) ? dot + 1 : "";
}

dam_output_kind dam_output_of(const char *path)
{
    static const struct {
        const char *ext;
        dam_output_kind kind;
    } kinds[] = {{"txt", DAM_OUT_TXT},   {"json", DAM_OUT_JSON},
                 {"csv", DAM_OUT_CSV},   {"png", DAM_OUT_CHART},
                 {"svg", DAM_OUT_CHART}, {"pdf", DAM_OUT_CHART},
                 {"html", DAM_OUT_HTML}};
    struct stat st;
    if (!path)
        return DAM_OUT_STDOUT;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return DAM_OUT_DIR;
    const char *e = dam_cli_extension(path);
    if (!*e)
        return DAM_OUT_DIR;
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (strcmp(e, kinds[i].ext) == 0)
            return kinds[i].kind;
    return DAM_OUT_UNKNOWN;
}

/* The page of a command without a review: its text and its charts. */
static int write_html_page(dam_cli *c, const dam_chartset *cs)
{
    dam_error e;
    memset(&e, 0, sizeof e);
    const char *title = cs && cs->ntitles ? cs->titles[0] : "damsim";
    int rc = dam_html_write_page(c->out_file, title,
                                 dam_buf_str(&c->html_text),
                                 cs ? cs->charts : NULL,
                                 cs ? cs->ncharts : 0, &e);
    c->html_done = 1;
    if (rc != DAM_OK) {
        dam_cli_error(&e);
        return rc == DAM_EINPUT ? 2 : 1;
    }
    return 0;
}

int dam_cli_charts(dam_cli *c, const dam_chartset *cs)
{
    dam_output_kind k = c->out_kind;
    if (k == DAM_OUT_HTML && !c->html_done)
        return write_html_page(c, cs);
    if (k != DAM_OUT_CHART && k != DAM_OUT_DIR)
        return 0;
    dam_error e;
    memset(&e, 0, sizeof e);
    int rc = k == DAM_OUT_CHART
                 ? dam_chartset_write_one(cs, c->out_file, &e)
                 : dam_chartset_write_dir(cs, c->out_file, c->format, &e);
    if (rc != DAM_OK) {
        dam_cli_error(&e);
        return rc == DAM_EINPUT ? 2 : 1;
    }
    return 0;
}

void dam_cli_sim_limits(const dam_cli *c, dam_sim_options *o)
{
    o->max_events = c->max_events > 0.0 ? c->max_events : 3e8;
    if (c->max_memory_gb > 0.0) {
        o->max_bytes = c->max_memory_gb * 1e9;
    } else {
        long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGE_SIZE);
        o->max_bytes = pages > 0 && size > 0 ? 0.5 * (double)pages * size
                                             : 4e9;
    }
}

dam_sim_options dam_cli_seed_options(const dam_cli *c)
{
    dam_sim_options o = {0};
    o.have_seed = c->have_seed;
    o.seed = (unsigned long)c->seed;
    o.warmup = -1;
    dam_cli_sim_limits(c, &o);
    return o;
}

dam_sim_options dam_cli_sim_options(const dam_cli *c)
{
    dam_sim_options o = dam_cli_seed_options(c);
    o.replications = c->replications;
    o.steps = c->steps;
    return o;
}

/* Standard input, capped like every file (model/infile.h). */
static char *slurp(FILE *f, char *why, size_t wn)
{
    size_t n = 0, cap = 4096;
    char *s = dam_malloc(cap);
    for (;;) {
        if (n + 1 >= cap) {
            if (cap > (size_t)DAM_MAX_INPUT_BYTES) {
                snprintf(why, wn, "larger than 64 MiB");
                dam_free(s);
                return NULL;
            }
            s = dam_grow(s, 1, cap * 2, &cap);
        }
        size_t got = fread(s + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0 && ferror(f) && errno == EINTR) {
            clearerr(f);
            continue;
        }
        if (got == 0)
            break;
    }
    if (ferror(f)) {
        snprintf(why, wn, "%s", strerror(errno));
        dam_free(s);
        return NULL;
    }
    s[n] = '\0';
    return s;
}

char *dam_cli_read_text(const char *path, const char **name, char *why,
                        size_t n)
{
    if (strcmp(path, "-") == 0) {
        *name = "<stdin>";
        return slurp(stdin, why, n);
    }
    *name = path;
    return dam_infile_read(path, NULL, why, n);
}

/* ---- a plan's chart (plan, plan --budget, plan --search) ------------ */

int dam_cli_plan_wants_chart(const dam_cli *c)
{
    return c->out_file && (c->out_kind == DAM_OUT_CHART ||
                           c->out_kind == DAM_OUT_DIR ||
                           c->out_kind == DAM_OUT_HTML);
}

int dam_cli_plan_chart(dam_cli *c, dam_chartset *cs, int build,
                       const dam_error *e)
{
    int rc = 0;
    if (build != DAM_OK) {
        dam_cli_error(e);
        rc = build == DAM_EINPUT ? 2 : 1;
    } else {
        rc = dam_cli_charts(c, cs);
    }
    dam_chartset_free(cs);
    dam_free(cs);
    return rc;
}

/* ---- the budget review ------------------------------------------------- */

int dam_cli_write_review(dam_cli *c, const dam_whatif *w, const char *path)
{
    /* the baseline's 90 % intervals, where its inputs or constants are
     * uncertain (none: the review shows point values) */
    const dam_scenario *s = &w->rows[0].scenario;
    dam_uncertainty *u = dam_malloc(sizeof *u);
    dam_error e;
    memset(&e, 0, sizeof e);
    if (dam_uncertainty_run(s, DAM_UNCERTAINTY_SAMPLES, s->seed, u, &e) !=
        DAM_OK) {
        dam_free(u);
        u = NULL;
    }
    dam_review rv;
    dam_review_build(&rv, w, u, DAM_VERSION);
    memset(&e, 0, sizeof e);
    int rc;
    const char *dot = strrchr(path, '.');
    if (c->explorer && dot && strcmp(dot, ".html") == 0) {
        rc = dam_report_check(&rv.report, &e);
        if (rc == DAM_OK)
            rc = dam_html_write_review(path, &rv.report, c->explorer, &e);
        if (rc != DAM_OK && !e.file[0])
            snprintf(e.file, sizeof e.file, "%s", path);
    } else {
        rc = dam_report_write(path, &rv.report, &e);
    }
    c->html_done = 1;
    if (rc != DAM_OK) {
        dam_cli_error(&e);
        rc = rc == DAM_EINPUT ? 2 : 1;
    } else if (!c->quiet) {
        if (dot && strcmp(dot, ".pdf") == 0)
            printf("%s: %zu pages\n", path,
                   dam_report_page_count(&rv.report));
        else
            printf("%s: written\n", path);
    }
    dam_review_free(&rv);
    dam_free(u);
    return rc;
}
