/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * isoflop.c: iso-FLOP curves of a scenario (see isoflop.h). The budget's
 * optimum comes in closed form from the fit; the curve is sampled around
 * it and its minimum index kept, so the marked optimum is a sampled point
 * that lies on the drawn line.
 */
#include "solver/isoflop.h"

#include <math.h>
#include <string.h>

#include "model/quality.h"
#include "model/scaling.h"

int dam_isoflop_of(const dam_scenario *s, dam_isoflop *out, dam_error *err)
{
    const dam_scaling_fit *f =
        dam_scaling_fit_get((dam_scaling_fit_id)s->quality.fit);
    if (!f)
        f = dam_scaling_fit_get(DAM_SCALING_DEFAULT);
    memset(out, 0, sizeof *out);
    double n = s->workload.model.params * s->workload.weight_scale;
    double d = dam_quality_tokens(s);
    if (!(n > 0.0) || !(d > 0.0) || !isfinite(n) || !isfinite(d))
        return err ? dam_error_set(err, s->file, 0,
                                   "iso-FLOP curves need a model with "
                                   "parameters and tokens")
                   : DAM_EINPUT;
    double c = dam_scaling_compute(n, d);
    for (int k = -1; k <= 1; k++) {
        dam_isoflop_curve *cu = &out->curves[out->ncurves];
        double ck = c * pow(10.0, k);
        double nopt = 0.0, dopt = 0.0;
        if (dam_scaling_optimal(f, ck, &nopt, &dopt, NULL) != DAM_OK)
            continue;
        if (dam_scaling_isoflop(f, ck, nopt / 30.0, nopt * 30.0,
                                DAM_ISOFLOP_POINTS, cu->params, NULL,
                                cu->loss, NULL) != DAM_OK)
            continue;
        cu->compute = ck;
        cu->n = DAM_ISOFLOP_POINTS;
        cu->optimum = 0;
        for (size_t i = 1; i < cu->n; i++)
            if (cu->loss[i] < cu->loss[cu->optimum])
                cu->optimum = i;
        out->ncurves++;
    }
    if (out->ncurves == 0)
        return err ? dam_error_set(err, s->file, 0,
                                   "no iso-FLOP curve for %.3g FLOP", c)
                   : DAM_EINPUT;
    out->model_params = n;
    out->model_loss = dam_scaling_loss(f, n, d);
    return DAM_OK;
}
