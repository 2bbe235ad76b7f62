/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * sweep.c: points of a sweep and their rows (see sweep.h).
 *
 * Design. A point is (sweep, index) -> values -> scenario -> result ->
 * row, with no state that outlives the point except caches that give the
 * same bytes as recomputing: a worker keeps the scenario of the last
 * combination of reloaded keys and rewrites the patched keys' bytes in it
 * at every point, so consecutive points that differ only in patched keys
 * (the inner keys of a grid) cost one solve each.
 *
 * A scenario key is patched only when it is in `independent` below (the
 * loader reads it alone: no other key's check or default involves it) and
 * all of its values, each loaded on its own at prepare time, change at
 * most DAM_SWEEP_PATCH_BYTES bytes of the scenario in a few runs, apart
 * from every other patched key's runs. Anything else is reloaded
 * per combination, which is exact by construction.
 *
 * The device cost of the graph (the bulk of an analytic solve) is kept in
 * a memo (dam_analytic_memo, with a table of DAM_SWEEP_MEMO_ENTRIES cost
 * options) across the points that share loaded's graph, which in a grid
 * is every point whose keys leave the graph's cost alone (the loader, the
 * price) for each value of those that do not (the batch): reused only
 * when its inputs match byte for byte, reset at every reload, never used
 * for a lever's scenario or when a patch writes into the graph.
 *
 * Preparing a patched key loads the file once per value: parsed once
 * (dam_key_loads), each value set in the parsed tree where it reads as
 * the file's type, which is what a whole load with the override reads.
 */
#include "solver/sweep.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/alloc.h"
#include "model/csvline.h"
#include "model/lever.h"
#include "model/loader.h"
#include "solver/analytic.h"
#include "solver/rng.h"
#include "solver/sim.h"

/*
 * Scenario keys the loader reads with a type and range check of their own
 * and nothing else (loader.c: no cross-check names them and no default is
 * derived from them). workload.compute_cv is not here: serving derives
 * compute_dist from it; nor are counts of GPUs (the network group is
 * required by them) or catalog ids (they bring defaults with them).
 */
static const char *const independent[] = {
    "pipeline.loader_workers", "pipeline.prefetch_factor",
    "pipeline.pin_memory", "pipeline.overlap_transfer", "pipeline.bucket_mb",
    "pipeline.overlap_sync", "pipeline.warmup_steps", "pipeline.steps",
    "pipeline.replications", "data.samples", "data.decode_ms",
    "data.decode_cv", "data.epochs", "data.gpu_decode_ms", "data.shard_mb",
    "data.decode_on_gpu", "data.sharded", "data.raw_bytes_per_sample",
    "data.input_bytes_per_sample", "cost.gpu_hour_usd", "cost.pue",
    "cost.kwh_usd", "workload.batch_size", "workload.efficiency",
    "workload.memory_efficiency", "workload.launch_us",
    "workload.framework_overhead_ms", "workload.cuda_graphs",
    "workload.activation_recompute", "workload.kernels_per_step",
    "machine.host.pcie_gbs", "machine.host.pageable_fraction",
    "machine.host.cpu_cores", "machine.storage.read_gbs",
    "machine.storage.latency_ms", "machine.network.latency_us",
    "serving.rate_per_s", "serving.preprocess_ms", "serving.preprocess_cv",
    "serving.preprocess_workers", "serving.postprocess_ms",
    "serving.max_batch", "serving.batch_timeout_ms", "serving.replicas",
    "serving.slo_p99_ms", "serving.request_bytes", "serving.requests",
    "serving.replications", NULL};

const char *const *dam_sweep_patchable(void)
{
    return independent;
}

static int is_independent(const char *key)
{
    for (int i = 0; independent[i]; i++)
        if (strcmp(key, independent[i]) == 0)
            return 1;
    return 0;
}

/* ---- building a sweep ------------------------------------------------ */

void dam_sweep_init(dam_sweep *sw)
{
    memset(sw, 0, sizeof *sw);
    sw->uncertainty_samples = DAM_UNCERTAINTY_SAMPLES;
}

static void key_free(dam_sweep_key *k)
{
    for (int v = 0; k->errors && v < k->nvalues; v++)
        dam_free(k->errors[v]);
    dam_free(k->errors);
    dam_free(k->patch);
    dam_free(k->values);
    dam_free(k->levers);
}

void dam_sweep_free(dam_sweep *sw)
{
    for (int i = 0; i < sw->nkeys; i++)
        key_free(&sw->keys[i]);
    dam_free(sw->path);
    dam_free(sw->text);
    dam_free(sw->base);
    dam_free(sw->lhs);
    dam_sweep_init(sw);
}

/* A number with nothing after it; 1 on success. integer: no '.', 'e'. */
static int parse_number(const char *s, size_t n, double *out, int *integer)
{
    char buf[64];
    if (n == 0 || n >= sizeof buf)
        return 0;
    memcpy(buf, s, n);
    buf[n] = '\0';
    char *end;
    double v = dam_decimal(buf, &end);
    if (*end || !isfinite(v))
        return 0;
    *out = v;
    *integer = strpbrk(buf, ".eEnN") == NULL;
    return 1;
}

/* LO:HI:N[:log] into k; 1 when text is one (0: a list value). */
static int parse_range(dam_sweep_key *k, const char *text)
{
    const char *c1 = strchr(text, ':');
    const char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
    if (!c1 || !c2)
        return 0;
    const char *c3 = strchr(c2 + 1, ':');
    int i1, i2, in;
    double n;
    if (!parse_number(text, (size_t)(c1 - text), &k->lo, &i1) ||
        !parse_number(c1 + 1, (size_t)(c2 - c1 - 1), &k->hi, &i2) ||
        !parse_number(c2 + 1, c3 ? (size_t)(c3 - c2 - 1) : strlen(c2 + 1),
                      &n, &in))
        return 0;
    if (c3 && strcmp(c3 + 1, "log") != 0)
        return 0;
    k->log = c3 != NULL;
    k->integer = i1 && i2;
    k->n = in && n >= 1 && n <= DAM_SWEEP_MAX_VALUES ? (int)n : -1;
    k->range = 1;
    return 1;
}

/* The value of a range at fraction u in [0, 1] as text. */
void dam_sweep_range_value(const dam_sweep_key *k, double u, char *out)
{
    double v = k->log ? exp(log(k->lo) + u * (log(k->hi) - log(k->lo)))
                      : k->lo + u * (k->hi - k->lo);
    if (u >= 1.0)
        v = k->hi; /* the upper end exactly, whatever the rounding */
    if (k->integer)
        snprintf(out, DAM_SWEEP_VALUE_MAX, "%.0f", nearbyint(v));
    else
        snprintf(out, DAM_SWEEP_VALUE_MAX, "%.10g", v);
}

/* Parse key=value for a lever key into lv. */
static int lever_of(const char *key, const char *value, dam_lever *lv,
                    dam_error *err)
{
    char kv[DAM_SWEEP_VALUE_MAX + 80];
    snprintf(kv, sizeof kv, "%s=%s", key, value);
    return dam_lever_parse_kv(kv, lv, err);
}

static int add_key(dam_sweep *sw, const char *arg, dam_error *err)
{
    const char *eq = strchr(arg, '=');
    if (!eq || eq == arg || !eq[1])
        return dam_error_set(err, "", 0,
                             "expected KEY=V1,V2,... or KEY=LO:HI:N"
                             "[:log]");
    if (sw->nkeys >= DAM_SWEEP_MAX_KEYS)
        return dam_error_set(err, "", 0, "at most %d --vary keys",
                             DAM_SWEEP_MAX_KEYS);
    dam_sweep_key k;
    memset(&k, 0, sizeof k);
    size_t kn = (size_t)(eq - arg);
    if (kn >= sizeof k.key)
        return dam_error_set(err, "", 0, "the key is longer than %zu characters",
                             sizeof k.key - 1);
    memcpy(k.key, arg, kn);
    k.lever = strchr(k.key, '.') == NULL;
    if (strncmp(k.key, "catalogs.", 9) == 0 || strcmp(k.key, "catalogs") == 0)
        return dam_error_set(err, "", 0,
                             "'%s' cannot be varied (give the catalog with "
                             "--gpus or --models)", k.key);
    for (int i = 0; i < sw->nkeys; i++)
        if (strcmp(sw->keys[i].key, k.key) == 0)
            return dam_error_set(err, "", 0, "'%s' is varied twice", k.key);
    const char *text = eq + 1;
    if (!strchr(text, ',') && parse_range(&k, text)) {
        if (k.n < 1)
            return dam_error_set(err, "", 0,
                                 "N in LO:HI:N must be a whole number "
                                 "from 1 to %d", DAM_SWEEP_MAX_VALUES);
        if (!(k.hi >= k.lo))
            return dam_error_set(err, "", 0, "HI must be >= LO in LO:HI:N");
        if (k.log && !(k.lo > 0.0))
            return dam_error_set(err, "", 0, "a log range needs LO > 0");
        k.nvalues = k.n;
        k.values = dam_calloc((size_t)k.n, sizeof *k.values);
        for (int v = 0; v < k.n; v++)
            dam_sweep_range_value(&k, k.n > 1 ? (double)v / (k.n - 1) : 0.0,
                        k.values[v]);
    } else {
        k.range = 0;
        int n = 1;
        for (const char *p = text; *p; p++)
            n += *p == ',';
        if (n > DAM_SWEEP_MAX_VALUES)
            return dam_error_set(err, "", 0, "more than %d values",
                                 DAM_SWEEP_MAX_VALUES);
        k.values = dam_calloc((size_t)n, sizeof *k.values);
        const char *p = text;
        for (int v = 0; v < n; v++) {
            const char *e = strchr(p, ',');
            size_t len = e ? (size_t)(e - p) : strlen(p);
            if (len == 0 || len >= DAM_SWEEP_VALUE_MAX) {
                dam_free(k.values);
                return dam_error_set(err, "", 0,
                                     "value %d is empty or longer than "
                                     "%d characters", v + 1,
                                     DAM_SWEEP_VALUE_MAX - 1);
            }
            memcpy(k.values[v], p, len);
            p = e ? e + 1 : p + len;
        }
        k.nvalues = n;
    }
    if (k.lever) {
        /* A value that does not parse is a typo on the command line:
         * reported now. Whether it applies is the point's business. */
        k.set = DAM_SWEEP_SET_LEVER;
        k.levers = dam_calloc((size_t)k.nvalues, sizeof *k.levers);
        for (int v = 0; v < k.nvalues; v++)
            if (lever_of(k.key, k.values[v], &k.levers[v], err) != DAM_OK) {
                char kv[DAM_SWEEP_VALUE_MAX + 80];
                snprintf(kv, sizeof kv, "%s=%s", k.key, k.values[v]);
                dam_lever_error_at(err, "--vary", kv);
                key_free(&k);
                return DAM_EINPUT;
            }
    }
    sw->keys[sw->nkeys++] = k;
    return DAM_OK;
}

int dam_sweep_add(dam_sweep *sw, const char *arg, dam_error *err)
{
    memset(err, 0, sizeof *err);
    int rc = add_key(sw, arg, err);
    if (rc != DAM_OK && !err->file[0]) {
        /* the location is the argument: "--vary KEY=...: error: ..." */
        snprintf(err->file, sizeof err->file, "--vary %.200s%s", arg,
                 strlen(arg) > 200 ? "..." : "");
        err->line = 0;
    }
    return rc;
}

/* ---- prepare ------------------------------------------------------------ */

/* Load sw's text with n overrides into s; the first error into msg
 * (NULL: don't keep it). */
static int load_point_with(const dam_sweep *sw, const dam_setting *ov, int n,
                           dam_key_loads *lk, dam_scenario *s, char *msg,
                           size_t len)
{
    dam_diag d;
    dam_diag_init(&d);
    dam_load_options o = {ov, n, 1, NULL};
    int rc;
    if (lk) { /* one key's value over the parse kept in lk */
        dam_load_options oc = {NULL, 0, 1, NULL};
        rc = dam_key_loads_value(lk, s, ov[0].value, (dam_catalog *)sw->cat,
                                &oc, &d);
    } else {
        rc = dam_scenario_load_with(s, sw->path, sw->text,
                                    (dam_catalog *)sw->cat, &o, &d);
    }
    if (rc != DAM_OK && msg) {
        msg[0] = '\0';
        for (size_t i = 0; i < d.n; i++)
            if (d.items[i].sev == DAM_SEV_ERROR) {
                dam_error_format(&d.items[i], msg, len);
                break;
            }
    }
    dam_diag_free(&d);
    return rc;
}

static int load_point(const dam_sweep *sw, const dam_setting *ov, int n,
                      dam_scenario *s, char *msg, size_t len)
{
    return load_point_with(sw, ov, n, NULL, s, msg, len);
}

/*
 * Decide whether scenario key k may be patched: load each value alone and
 * find the bytes it changes. Returns 1 and fills k's patch when all values
 * together change at most DAM_SWEEP_PATCH_SPANS runs of at most
 * DAM_SWEEP_PATCH_BYTES bytes in all (a price is two doubles: the price
 * and the scenario's own GPU's price), none shared with an earlier
 * patched key.
 */
static int try_patch(dam_sweep *sw, int ki, dam_scenario *tmp)
{
    dam_sweep_key *k = &sw->keys[ki];
    if (k->lever || !is_independent(k->key))
        return 0;
    const unsigned char *b = (const unsigned char *)sw->base;
    const unsigned char *t = (const unsigned char *)tmp;
    size_t size = sizeof *tmp;
    unsigned char *changed = dam_calloc(size, 1);
    char **errors = dam_calloc((size_t)k->nvalues, sizeof *errors);
    /* each value's changed bytes, as (offset, byte) pairs */
    size_t *pos = dam_calloc((size_t)k->nvalues * DAM_SWEEP_PATCH_BYTES,
                             sizeof *pos);
    unsigned char *val = dam_calloc((size_t)k->nvalues,
                                    DAM_SWEEP_PATCH_BYTES);
    int *nval = dam_calloc((size_t)k->nvalues, sizeof *nval);
    size_t nchanged = 0;
    int ok = 1;
    /* One load per value (the file parsed once): the bytes it changes. */
    dam_key_loads *lk = dam_key_loads_open(sw->path, sw->text, k->key);
    for (int v = 0; v < k->nvalues && ok; v++) {
        dam_setting ov = {k->key, k->values[v]};
        char msg[600];
        if (load_point_with(sw, &ov, 1, lk, tmp, msg, sizeof msg) !=
            DAM_OK) {
            errors[v] = dam_strdup(msg);
            continue;
        }
        size_t *vp = pos + (size_t)v * DAM_SWEEP_PATCH_BYTES;
        unsigned char *vb = val + (size_t)v * DAM_SWEEP_PATCH_BYTES;
        for (size_t i = 0; i < size && ok; i++) {
            /* blocks the value leaves as they are, skipped whole (libc's
             * memcmp compares a vector at a time) */
            if ((i & 255) == 0) {
                size_t w = size - i < 256 ? size - i : 256;
                if (memcmp(b + i, t + i, w) == 0) {
                    i += w - 1;
                    continue;
                }
            }
            if (b[i] == t[i])
                continue;
            if (!changed[i]) {
                changed[i] = 1;
                nchanged++;
            }
            ok = nchanged <= DAM_SWEEP_PATCH_BYTES;
            if (ok) {
                vp[nval[v]] = i;
                vb[nval[v]++] = t[i];
            }
        }
    }
    dam_key_loads_close(lk);
    /* Their runs, apart from every other patched key's. */
    int nspans = 0;
    size_t off[DAM_SWEEP_PATCH_SPANS] = {0}, wid[DAM_SWEEP_PATCH_SPANS] = {0};
    for (size_t i = 0; i < size && ok; i++) {
        if (!changed[i] || (i > 0 && changed[i - 1]))
            continue;
        if (nspans == DAM_SWEEP_PATCH_SPANS) {
            ok = 0;
            break;
        }
        size_t e = i;
        while (e < size && changed[e])
            e++;
        off[nspans] = i;
        wid[nspans++] = e - i;
    }
    for (int j = 0; j < sw->nkeys && ok; j++) {
        const dam_sweep_key *o = &sw->keys[j];
        if (j == ki || o->set != DAM_SWEEP_SET_PATCH)
            continue;
        for (int a = 0; a < nspans && ok; a++)
            for (int c = 0; c < o->nspans && ok; c++)
                ok = !(off[a] < o->offset[c] + o->width[c] &&
                       o->offset[c] < off[a] + wid[a]);
    }
    unsigned char (*bytes)[DAM_SWEEP_PATCH_BYTES] = NULL;
    if (ok) {
        /* Each value's bytes of the runs: the base's where it changes
         * nothing, its own where it does. */
        bytes = dam_calloc((size_t)k->nvalues, sizeof *bytes);
        for (int v = 0; v < k->nvalues; v++) {
            if (errors[v])
                continue;
            size_t at = 0;
            for (int a = 0; a < nspans; a++) {
                memcpy(bytes[v] + at, b + off[a], wid[a]);
                for (int q = 0; q < nval[v]; q++) {
                    size_t p = pos[(size_t)v * DAM_SWEEP_PATCH_BYTES + q];
                    if (p >= off[a] && p < off[a] + wid[a])
                        bytes[v][at + p - off[a]] =
                            val[(size_t)v * DAM_SWEEP_PATCH_BYTES + q];
                }
                at += wid[a];
            }
        }
    }
    dam_free(changed);
    dam_free(pos);
    dam_free(val);
    dam_free(nval);
    if (!ok) {
        for (int v = 0; v < k->nvalues; v++)
            dam_free(errors[v]);
        dam_free(errors);
        return 0;
    }
    k->set = DAM_SWEEP_SET_PATCH;
    k->nspans = nspans;
    memcpy(k->offset, off, sizeof off);
    memcpy(k->width, wid, sizeof wid);
    k->patch = bytes;
    k->errors = errors;
    return 1;
}

/* Fisher-Yates permutation of 0..n-1 from a (seed, stream) generator. */
static void permute(uint32_t *p, uint64_t n, uint64_t seed, uint64_t stream)
{
    for (uint64_t i = 0; i < n; i++)
        p[i] = (uint32_t)i;
    uint64_t h = dam_rng_mix(seed, stream);
    for (uint64_t i = n; i > 1; i--) {
        h = dam_rng_mix(h, i);
        uint64_t j = h % i;
        uint32_t x = p[i - 1];
        p[i - 1] = p[j];
        p[j] = x;
    }
}

/*
 * Every scenario key of the sweep is one the scenario schema knows, before
 * any point is solved: a misspelt key is bad input (exit 2), not an error
 * row on every point. Each key is loaded alone with its first value; a
 * value the loader refuses stays a row's error (another value may load),
 * a key it does not know, or cannot set, is reported here.
 */
static int check_keys(const dam_sweep *sw, dam_diag *d)
{
    dam_scenario *tmp = dam_malloc(sizeof *tmp);
    int rc = DAM_OK;
    for (int i = 0; i < sw->nkeys && rc == DAM_OK; i++) {
        const dam_sweep_key *k = &sw->keys[i];
        if (k->lever)
            continue;
        dam_setting ov = {k->key, k->values[0]};
        char msg[512], unknown[200], cannot[200];
        if (load_point(sw, &ov, 1, tmp, msg, sizeof msg) == DAM_OK)
            continue;
        snprintf(unknown, sizeof unknown, "unknown key '%s'", k->key);
        snprintf(cannot, sizeof cannot, "cannot set '%s'", k->key);
        if (strstr(msg, unknown) || strstr(msg, cannot) ||
            strstr(msg, "empty or over-long key")) {
            const char *m = strstr(msg, "error: ");
            dam_diag_error(d, "", 0, "--vary %s: %s", k->key,
                           m ? m + 7 : msg);
            rc = DAM_EINPUT;
        }
    }
    dam_free(tmp);
    return rc;
}

int dam_sweep_prepare(dam_sweep *sw, const char *path, const char *text,
                      dam_catalog *cat, dam_diag *d)
{
    if (sw->nkeys == 0) {
        dam_diag_error(d, "", 0, "a sweep needs at least one --vary KEY=...");
        return DAM_EINPUT;
    }
    sw->path = dam_strdup(path);
    sw->text = dam_strdup(text);
    sw->cat = cat;
    sw->base = dam_malloc(sizeof *sw->base);
    if (dam_scenario_load(sw->base, path, text, cat, d) != DAM_OK)
        return DAM_EINPUT;
    if (check_keys(sw, d) != DAM_OK)
        return DAM_EINPUT;
    if (!sw->have_seed)
        sw->seed = sw->base->seed;
    /* intervals where `run` gives them: uncertain inputs, calibrated
     * constants or the model's step error */
    sw->uncertain =
        dam_uncertainty_sources(sw->base) > 0 && !sw->no_intervals;
    int gpu = 0, price = 0;
    for (int i = 0; i < sw->nkeys; i++)
        if (!sw->keys[i].lever) {
            gpu |= strcmp(sw->keys[i].key, "machine.gpu") == 0;
            price |= strcmp(sw->keys[i].key, "cost.gpu_hour_usd") == 0;
        }
    sw->reprice = gpu && !price;

    if (sw->method == DAM_SWEEP_GRID) {
        if (sw->samples) {
            dam_diag_error(d, "", 0, "--samples needs --method random or lhs");
            return DAM_EINPUT;
        }
        double n = 1.0;
        for (int i = 0; i < sw->nkeys; i++)
            n *= sw->keys[i].nvalues;
        if (n > DAM_SWEEP_MAX_POINTS) {
            dam_diag_error(d, "", 0, "the grid has %.3g points; a sweep "
                           "takes at most %.0e (about %.0f GB of rows): "
                           "fewer values, or --method lhs --samples N", n,
                           DAM_SWEEP_MAX_POINTS,
                           DAM_SWEEP_MAX_POINTS * DAM_SWEEP_ROW_BYTES / 1e9);
            return DAM_EINPUT;
        }
        sw->npoints = (uint64_t)n;
        dam_scenario *tmp = dam_malloc(sizeof *tmp);
        for (int i = 0; i < sw->nkeys; i++)
            if (!sw->keys[i].lever && !sw->no_patch)
                try_patch(sw, i, tmp);
        dam_free(tmp);
    } else {
        if (sw->samples < 1 || (double)sw->samples > DAM_SWEEP_MAX_POINTS) {
            dam_diag_error(d, "", 0,
                           "--method random or lhs needs --samples N "
                           "(1 to %.0f)", DAM_SWEEP_MAX_POINTS);
            return DAM_EINPUT;
        }
        sw->npoints = sw->samples;
        /* the Latin hypercube is a permutation per key, built before the
         * first row: estimated and refused above the memory limit */
        double lhs_bytes = (double)sw->nkeys * (double)sw->samples *
                           (double)sizeof *sw->lhs;
        if (sw->method == DAM_SWEEP_LHS && sw->max_bytes > 0.0 &&
            lhs_bytes > sw->max_bytes) {
            dam_diag_error(d, "", 0,
                           "--method lhs with %llu samples of %d keys needs "
                           "%.3g GB before the first row, above the limit of "
                           "%.3g GB (--max-memory GB lifts it; --method "
                           "random needs none)",
                           (unsigned long long)sw->samples, sw->nkeys,
                           lhs_bytes / 1e9, sw->max_bytes / 1e9);
            return DAM_EINPUT;
        }
        if (sw->method == DAM_SWEEP_LHS) {
            sw->lhs = dam_malloc((size_t)sw->nkeys * sw->samples *
                                 sizeof *sw->lhs);
            for (int i = 0; i < sw->nkeys; i++)
                permute(sw->lhs + (size_t)i * sw->samples, sw->samples,
                        sw->seed, 0x5eed0000ULL + (uint64_t)i);
        }
    }
    return DAM_OK;
}

/* ---- points ------------------------------------------------------------- */

/* Uniform in [0, 1) from (seed, point, key): 53 bits of a mixed hash. */
static double unit(uint64_t seed, uint64_t i, int key)
{
    uint64_t h = dam_rng_mix(dam_rng_mix(seed, i), 0x7a11ULL + (uint64_t)key);
    return (double)(h >> 11) * 0x1.0p-53;
}

/* Index of each key's value on a grid (values[] order), or -1 when the
 * point draws from a range. */
void dam_sweep_point_index(const dam_sweep *sw, uint64_t i, int *idx,
                           double *u)
{
    if (sw->method == DAM_SWEEP_GRID) {
        for (int k = sw->nkeys - 1; k >= 0; k--) {
            uint64_t n = (uint64_t)sw->keys[k].nvalues;
            idx[k] = (int)(i % n);
            i /= n;
        }
        return;
    }
    for (int k = 0; k < sw->nkeys; k++) {
        double x = unit(sw->seed, i, k);
        if (sw->method == DAM_SWEEP_LHS)
            x = (sw->lhs[(size_t)k * sw->samples + i] + x) /
                (double)sw->samples;
        const dam_sweep_key *key = &sw->keys[k];
        if (key->range) {
            idx[k] = -1;
            u[k] = x;
        } else {
            int v = (int)(x * key->nvalues);
            idx[k] = v < key->nvalues ? v : key->nvalues - 1;
        }
    }
}

void dam_sweep_point(const dam_sweep *sw, uint64_t i,
                     char values[][DAM_SWEEP_VALUE_MAX])
{
    int idx[DAM_SWEEP_MAX_KEYS];
    double u[DAM_SWEEP_MAX_KEYS];
    dam_sweep_point_index(sw, i, idx, u);
    for (int k = 0; k < sw->nkeys; k++) {
        if (idx[k] >= 0)
            memcpy(values[k], sw->keys[k].values[idx[k]],
                   DAM_SWEEP_VALUE_MAX);
        else
            dam_sweep_range_value(&sw->keys[k], u[k], values[k]);
    }
}

/* ---- workers ----------------------------------------------------------- */

struct dam_sweep_worker {
    const dam_sweep *sw;
    dam_scenario *loaded;   /* base + reloaded keys + patched keys */
    dam_scenario *cur;      /* loaded + levers */
    char loaded_key[DAM_SWEEP_MAX_KEYS * DAM_SWEEP_VALUE_MAX + 1]; /* its
                                  reloaded values, NUL-separated */
    int loaded_ok;          /* 0: the cached combination failed */
    int have_loaded;        /* 0 until the first point */
    dam_result *r;
    dam_lever lever;        /* a drawn value's lever */
    dam_analytic_memo *memo; /* the device cost of loaded's graph; NULL
                              * when a patch writes into the graph */
    dam_draws *draws;       /* the intervals' draws, kept from point to
                             * point (every point uses the sweep's seed) */
    int full;               /* 1: r is each point's whole result */
};

void dam_sweep_worker_full(dam_sweep_worker *w)
{
    w->full = 1;
}

void dam_sweep_worker_counts(const dam_sweep_worker *w, dam_sweep_counts *c)
{
    if (w->memo) {
        c->graph_costs += w->memo->misses;
        c->graph_reused += w->memo->hits;
    }
    if (w->draws)
        c->draws_reused += dam_draws_memo_hits(w->draws);
}

const dam_result *dam_sweep_worker_result(const dam_sweep_worker *w)
{
    return w->r;
}

/* 1 when a patched key writes bytes of the scenario's stored graph (the
 * memo knows a graph by its address, so then it is not used). */
static int patches_graph(const dam_sweep *sw)
{
    size_t lo = offsetof(dam_scenario, workload.graph);
    size_t hi = lo + sizeof(dam_graph);
    for (int k = 0; k < sw->nkeys; k++) {
        const dam_sweep_key *key = &sw->keys[k];
        if (key->set != DAM_SWEEP_SET_PATCH)
            continue;
        for (int a = 0; a < key->nspans; a++)
            if (key->offset[a] < hi && key->offset[a] + key->width[a] > lo)
                return 1;
    }
    return 0;
}

dam_sweep_worker *dam_sweep_worker_create(const dam_sweep *sw)
{
    dam_sweep_worker *w = dam_calloc(1, sizeof *w);
    w->sw = sw;
    w->loaded = dam_malloc(sizeof *w->loaded);
    w->cur = dam_malloc(sizeof *w->cur);
    w->r = dam_malloc(sizeof *w->r);
    if (!patches_graph(sw)) {
        w->memo = dam_calloc(1, sizeof *w->memo);
        dam_analytic_memo_table(w->memo, DAM_SWEEP_MEMO_ENTRIES);
    }
    return w;
}

void dam_sweep_worker_free(dam_sweep_worker *w)
{
    if (!w)
        return;
    dam_free(w->loaded);
    dam_free(w->cur);
    dam_free(w->r);
    dam_analytic_memo_release(w->memo);
    dam_free(w->memo);
    dam_draws_free(w->draws);
    dam_free(w);
}

/* A point that does not load: load it whole, every scenario key set, so
 * that the message is the one a file with all its values gets (the
 * loader's first error), whichever keys were patched. */
static void fail_whole(dam_sweep_worker *w, dam_sweep_row *row)
{
    const dam_sweep *sw = w->sw;
    dam_setting ov[DAM_SWEEP_MAX_KEYS];
    int n = 0;
    for (int j = 0; j < sw->nkeys; j++)
        if (!sw->keys[j].lever) {
            ov[n].key = sw->keys[j].key;
            ov[n++].value = row->values[j];
        }
    load_point(sw, ov, n, w->cur, row->error, sizeof row->error);
    row->ok = 0;
}

/*
 * A point whose machine.gpu is varied, its price not: the file's price is
 * its own GPU's, so the point is priced as the gpu lever prices a GPU (the
 * scenario's own price for it, else the catalog's, else none: cost n/a),
 * never at the file's GPU's price; the file's own GPU and price stay what
 * the scenario's levers see.
 */
static void reprice(const dam_sweep *sw, dam_scenario *s)
{
    dam_cost *c = &s->cost;
    memcpy(c->base_gpu, sw->base->cost.base_gpu, sizeof c->base_gpu);
    c->base_gpu_hour_usd = sw->base->cost.base_gpu_hour_usd;
    c->gpu_hour_usd =
        dam_lever_gpu_price(s, s->machine.gpu.id, &s->machine.gpu);
}

/* The scenario of the point's reloaded keys into w->loaded (cached). */
static int load_combination(dam_sweep_worker *w,
                            char values[][DAM_SWEEP_VALUE_MAX])
{
    const dam_sweep *sw = w->sw;
    char key[sizeof w->loaded_key];
    size_t used = 0;
    dam_setting ov[DAM_SWEEP_MAX_KEYS];
    int n = 0;
    for (int k = 0; k < sw->nkeys; k++) {
        if (sw->keys[k].set != DAM_SWEEP_SET_RELOAD)
            continue;
        size_t len = strlen(values[k]);
        memcpy(key + used, values[k], len + 1);
        used += len + 1;
        ov[n].key = sw->keys[k].key;
        ov[n].value = values[k];
        n++;
    }
    if (w->have_loaded && memcmp(key, w->loaded_key, used) == 0 &&
        w->loaded_key[used] == '\1')
        return w->loaded_ok;
    if (n == 0) {
        *w->loaded = *sw->base;
        w->loaded_ok = 1;
    } else {
        w->loaded_ok = load_point(sw, ov, n, w->loaded, NULL, 0) == DAM_OK;
        if (w->loaded_ok && sw->reprice)
            reprice(sw, w->loaded);
    }
    memcpy(w->loaded_key, key, used);
    w->loaded_key[used] = '\1'; /* end mark: no value holds it */
    w->have_loaded = 1;
    if (w->memo)
        w->memo->valid = 0; /* another graph at the same address */
    return w->loaded_ok;
}

/* Solve w->cur (the point's scenario) into row. */
static void solve_point(dam_sweep_worker *w, const dam_scenario *s,
                        uint64_t i, dam_sweep_row *row)
{
    const dam_sweep *sw = w->sw;
    dam_result *r = w->r;
    uint64_t seed = dam_rng_mix(sw->seed, i);
    /* the memo only for loaded itself: a lever may change the model; what
     * the row reads, unless the caller reads the whole result or the
     * simulation starts from it */
    dam_analytic_memo *memo = s == w->loaded ? w->memo : NULL;
    if (w->full || sw->simulate)
        dam_analytic_solve_memo(s, r, memo);
    else
        dam_analytic_row_memo(s, r, memo);
    if (sw->simulate) {
        dam_sim_options o;
        memset(&o, 0, sizeof o);
        o.seed = (unsigned long)seed;
        o.have_seed = 1;
        o.replications = sw->replications;
        o.steps = sw->steps;
        o.warmup = -1;
        o.max_events = sw->max_events;
        o.max_bytes = sw->max_bytes;
        dam_error e;
        memset(&e, 0, sizeof e);
        int rc = s->mode == DAM_MODE_SERVING
                     ? dam_sim_serving(s, &o, r, NULL, &e)
                     : dam_sim_training(s, &o, r, NULL, &e);
        if (rc != DAM_OK) {
            dam_error_format(&e, row->error, sizeof row->error);
            row->ok = 0;
            return;
        }
    }
    row->ok = 1;
    row->step = r->step;
    row->throughput = r->throughput;
    row->run_time = r->run_time;
    row->gpu_hours = r->gpu_hours;
    row->cost_usd = r->cost_usd;
    row->run_known = !(s->serving.llm.enabled && !r->has_sim);
    row->priced = row->run_known && dam_gpu_price(s, &s->machine.gpu) > 0.0;
    row->energy_kwh = r->energy_kwh;
    row->bound = r->bound;
    row->fits = r->memory.fits;
    row->overloaded = s->mode == DAM_MODE_SERVING && !s->serving.llm.enabled
                          ? r->serving.overloaded
                          : -1;
    if (sw->uncertain && sw->uncertainty_samples >= 10) {
        dam_uncertainty u;
        dam_error e;
        /* one seed for every point (common random numbers): differences
         * between rows are the varied keys', not sampling noise; so one
         * set of draws serves every point of the worker */
        if (!w->draws) {
            w->draws = dam_draws_create(sw->uncertainty_samples, sw->seed);
            dam_draws_memoize(w->draws);
        }
        /* r is s's analytic solve unless the point was simulated */
        if (dam_uncertainty_intervals_given(w->draws, s,
                                            sw->simulate ? NULL : r, &u,
                                            &e) == DAM_OK) {
            /* simulated: the interval of the simulated figures shown, as
             * run gives it (the draws are the analytic model's) */
            if (sw->simulate) {
                dam_figures shown = dam_figures_of(r);
                dam_interval_carry_run(&u, &shown);
            }
            row->has_interval = 1;
            row->step_i = u.step;
            row->run_time_i = u.run_time;
            row->cost_i = u.cost_usd;
        }
    }
}

void dam_sweep_eval_base(dam_sweep_worker *w, dam_sweep_row *row)
{
    memset(row, 0, sizeof *row);
    solve_point(w, w->sw->base, 0, row);
}

void dam_sweep_eval(dam_sweep_worker *w, uint64_t i, dam_sweep_row *row)
{
    const dam_sweep *sw = w->sw;
    int idx[DAM_SWEEP_MAX_KEYS];
    double u[DAM_SWEEP_MAX_KEYS];
    row->index = i;
    row->ok = 0;
    row->error[0] = '\0';
    row->has_interval = 0;
    dam_sweep_point_index(sw, i, idx, u);
    for (int k = 0; k < sw->nkeys; k++) {
        if (idx[k] >= 0)
            memcpy(row->values[k], sw->keys[k].values[idx[k]],
                   DAM_SWEEP_VALUE_MAX);
        else
            dam_sweep_range_value(&sw->keys[k], u[k], row->values[k]);
    }
    if (!load_combination(w, row->values)) {
        fail_whole(w, row);
        return;
    }
    /* patched keys: every point writes all of them (the cache holds the
     * previous point's bytes) */
    for (int k = 0; k < sw->nkeys; k++) {
        const dam_sweep_key *key = &sw->keys[k];
        if (key->set != DAM_SWEEP_SET_PATCH)
            continue;
        if (key->errors[idx[k]]) {
            fail_whole(w, row);
            return;
        }
        size_t at = 0;
        for (int a = 0; a < key->nspans; a++) {
            memcpy((unsigned char *)w->loaded + key->offset[a],
                   key->patch[idx[k]] + at, key->width[a]);
            at += key->width[a];
        }
    }
    /* levers, in the order the keys were given; an error is located at
     * the lever's --vary KEY=VALUE */
    const dam_scenario *s = w->loaded;
    for (int k = 0; k < sw->nkeys; k++) {
        const dam_sweep_key *key = &sw->keys[k];
        if (key->set != DAM_SWEEP_SET_LEVER)
            continue;
        dam_error e;
        memset(&e, 0, sizeof e);
        int rc = DAM_OK;
        const dam_lever *lv = &w->lever;
        if (idx[k] >= 0)
            lv = &key->levers[idx[k]];
        else
            rc = lever_of(key->key, row->values[k], &w->lever, &e);
        if (rc == DAM_OK)
            rc = dam_lever_apply(s, lv, sw->cat, w->cur, &e);
        if (rc != DAM_OK) {
            char kv[DAM_SWEEP_VALUE_MAX + 80];
            snprintf(kv, sizeof kv, "%s=%s", key->key, row->values[k]);
            dam_lever_error_at(&e, "--vary", kv);
            dam_error_format(&e, row->error, sizeof row->error);
            return;
        }
        s = w->cur;
    }
    solve_point(w, s, i, row);
}

int dam_sweep_has_overload(const dam_sweep *sw)
{
    return sw->base && sw->base->mode == DAM_MODE_SERVING &&
           !sw->base->serving.llm.enabled;
}
