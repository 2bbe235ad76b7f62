/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * sim.c: the simulator dispatch. One table names each simulator, the
 * scenarios it takes and what follows its solve; dam_sim_training and
 * dam_sim_serving are the two doors (each refuses the other's mode) and
 * both go through it: the work is checked before the run (sim_work.c),
 * the simulator runs, and what binds is then classified where the
 * simulator leaves that to the diagnosis (plain serving:
 * dam_diagnose_serving_bound). The simulators call none of each other
 * and never the diagnosis.
 */
#include "solver/sim.h"

#include "solver/diagnose.h"

typedef int (*sim_run)(const dam_scenario *s, const dam_sim_options *opt,
                       dam_result *r, dam_trace *trace, dam_error *err);

static int takes_llm(const dam_scenario *s)
{
    return s->mode == DAM_MODE_SERVING && s->serving.llm.enabled;
}

static int takes_serving(const dam_scenario *s)
{
    return s->mode == DAM_MODE_SERVING;
}

static int takes_layout(const dam_scenario *s)
{
    return s->layout.on;
}

static int takes_any(const dam_scenario *s)
{
    (void)s;
    return 1;
}

/* The simulators, tried in order: the first that takes the scenario runs
 * it. bound, when not NULL, classifies what binds after the solve. */
static const struct simulator {
    int (*takes)(const dam_scenario *s);
    sim_run run;
    dam_bound (*bound)(const dam_scenario *s, const dam_result *r);
} simulators[] = {
    {takes_llm, dam_sim_llm, NULL},                       /* sim_llm.c */
    {takes_serving, dam_sim_serving_batches,              /* sim_serving.c */
     dam_diagnose_serving_bound},
    {takes_layout, dam_sim_parallel, NULL},               /* sim_parallel.c */
    {takes_any, dam_sim_training_gpus, NULL},             /* sim_training.c */
};

/* Check the work, run the simulator that takes s, then classify. */
static int dispatch(const dam_scenario *s, const dam_sim_options *opt,
                    dam_result *r, dam_trace *trace, dam_error *err)
{
    size_t i = 0;
    while (!simulators[i].takes(s))
        i++;
    if (dam_sim_work_check(s, opt, err) != DAM_OK)
        return DAM_EINPUT;
    int rc = simulators[i].run(s, opt, r, trace, err);
    if (rc == DAM_OK && simulators[i].bound)
        r->bound = simulators[i].bound(s, r);
    return rc;
}

int dam_sim_training(const dam_scenario *s, const dam_sim_options *opt,
                     dam_result *r, dam_trace *trace, dam_error *err)
{
    static const dam_sim_options none = {.warmup = -1};
    dam_error tmp;
    if (!err)
        err = &tmp;
    if (!opt)
        opt = &none;
    if (s->mode == DAM_MODE_SERVING)
        return dam_error_set(err, s->file, 0, "serving scenarios are "
                             "simulated by dam_sim_serving");
    return dispatch(s, opt, r, trace, err);
}

int dam_sim_serving(const dam_scenario *s, const dam_sim_options *opt,
                    dam_result *r, dam_trace *trace, dam_error *err)
{
    static const dam_sim_options none;
    if (!opt)
        opt = &none;
    if (s->mode != DAM_MODE_SERVING)
        return dam_error_set(err, s->file, 0,
                             "dam_sim_serving needs a serving scenario, got "
                             "mode \"%s\"",
                             dam_mode_name(s->mode));
    return dispatch(s, opt, r, trace, err);
}
