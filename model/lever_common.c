/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * lever_common.c: the helpers more than one lever family uses: the error of
 * an op, the quality change an op makes, weight and activation bytes, the
 * assumptions a lever records, the main-value number syntax and a key's
 * lookup in its type (lever.h says what each op moves; lever.c holds the
 * table).
 */
#include "model/lever_impl.h"

#include <errno.h>
#include <stdarg.h>
#include <string.h>

#include "model/csvline.h"

int dam_lever_fail(const ctx *c, const char *fmt, ...)
{
    char msg[448];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return dam_error_set(c->err, c->file, c->line, "lever '%s': %s",
                         c->lever->name, msg);
}

/* Bytes per weight element as stored. */
double dam_lever_weight_elem_bytes(const dam_workload *w)
{
    return w->master_bytes > 0.0 ? w->master_bytes
                                 : dam_precision_bytes(w->precision);
}

double dam_lever_weight_bytes(const dam_scenario *s)
{
    const dam_workload *w = &s->workload;
    return w->model.params * dam_lever_weight_elem_bytes(w) * w->weight_scale;
}

double dam_lever_act_bytes(const dam_scenario *s)
{
    const dam_workload *w = &s->workload;
    double sum = 0.0;
    for (int i = 0; i < w->model.nphases; i++)
        sum += w->model.phases[i].act_bytes;
    return sum * dam_precision_bytes(w->precision) / 2.0 * w->bytes_scale;
}

/* "fp32, tf32, fp16, bf16, int8": the precisions g has a peak for. */
static void supported_list(const dam_gpu *g, char *buf, size_t n)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int p = 0; p < DAM_PREC_COUNT; p++) {
        if (!(g->peak[p] > 0.0))
            continue;
        int k = snprintf(buf + used, n - used, "%s%s", used ? ", " : "",
                         dam_precision_name((dam_precision)p));
        if (k < 0 || (size_t)k >= n - used)
            break;
        used += (size_t)k;
    }
    if (!used)
        snprintf(buf, n, "none");
}

int dam_lever_unsupported(const ctx *c, dam_precision p, const dam_gpu *g)
{
    char list[96];
    supported_list(g, list, sizeof list);
    return dam_lever_fail(
        c, "precision '%s' is not supported by '%s' (supported: %s)",
        dam_precision_name(p), g->id, list);
}

/* The assumed delta entry i of a states the change op makes (same kind
 * and target)? */
static int same_change(const dam_assumptions *a, int i, const dam_lever_op *op)
{
    if (a->delta[i].kind != op->kind)
        return 0;
    switch (op->kind) {
    case DAM_LEVER_QUANTIZE:
    case DAM_LEVER_PRECISION:
        return a->delta[i].precision == op->precision;
    case DAM_LEVER_PRUNE:
        return a->delta[i].sparsity_kind == op->sparsity_kind &&
               (op->sparsity_kind == DAM_SPARSITY_2TO4 ||
                a->delta[i].sparsity == op->sparsity);
    case DAM_LEVER_DISTILL:
        return a->delta[i].student_params == op->student_params;
    default:
        return 0;
    }
}

void dam_assumptions_add(dam_assumptions *a, const dam_lever *lv)
{
    for (int j = 0; j < lv->nops; j++) {
        const dam_lever_op *o = &lv->ops[j];
        if (o->kind == DAM_LEVER_GPU && o->gpu[0] && o->gpu_hour_usd > 0.0 &&
            a->nprice < DAM_MAX_ASSUMED) {
            snprintf(a->price[a->nprice].gpu, sizeof a->price[0].gpu, "%s",
                     o->gpu);
            a->price[a->nprice++].usd_hour = o->gpu_hour_usd;
        }
        if (o->has_accuracy_delta && a->ndelta < DAM_MAX_ASSUMED &&
            (o->kind == DAM_LEVER_QUANTIZE || o->kind == DAM_LEVER_PRECISION ||
             o->kind == DAM_LEVER_PRUNE || o->kind == DAM_LEVER_DISTILL)) {
            int i = a->ndelta++;
            a->delta[i].kind = o->kind;
            a->delta[i].precision = o->precision;
            a->delta[i].sparsity_kind = o->sparsity_kind;
            a->delta[i].sparsity = o->sparsity;
            a->delta[i].student_params = o->student_params;
            a->delta[i].delta = o->accuracy_delta;
        }
    }
}

/* quality += the op's delta when given; else the scenario's own delta for
 * the same change (one of its levers states it); else the sourced default;
 * else mark it unknown. */
void dam_lever_add_delta(dam_scenario *s, const dam_lever_op *op,
                         int have_default, double def)
{
    const dam_assumptions *a = &s->assume;
    if (op->has_accuracy_delta) {
        s->quality.value += op->accuracy_delta;
        return;
    }
    for (int i = 0; i < a->ndelta; i++)
        if (same_change(a, i, op)) {
            s->quality.value += a->delta[i].delta;
            return;
        }
    if (have_default)
        s->quality.value += def;
    else
        s->quality.delta_unknown++;
}

/* ---- main-value syntaxes -------------------------------------------------- */

/* Parse a whole string as a finite double. */
int dam_lever_parse_num(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = dam_decimal(s, &end);
    if (end == s || *end || errno == ERANGE || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

const dam_lever_key *dam_lever_key_find(const dam_lever_type *t,
                                        const char *name)
{
    if (!t)
        return NULL;
    for (size_t i = 0; i < t->nkeys; i++)
        if (strcmp(t->keys[i].name, name) == 0 ||
            (t->keys[i].alias && strcmp(t->keys[i].alias, name) == 0))
            return &t->keys[i];
    return NULL;
}
