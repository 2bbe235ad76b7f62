/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * json.h: machine-readable output through jansson (escaping and number
 * formatting done by the library). Every number of the result is there;
 * a non-finite number is written as null, never as NaN.
 */
#ifndef DAM_JSON_H
#define DAM_JSON_H

#include "render/out/buf.h"
#include "solver/diagnose.h"

struct json_t;

/* The scenario's inputs as a JSON object (new reference). */
struct json_t *dam_json_scenario(const dam_scenario *s);
/* A result and its diagnosis as a JSON object (new reference). */
struct json_t *dam_json_result(const dam_scenario *s, const dam_result *r,
                               const dam_diagnosis *d);
/* Intervals over uncertain inputs (new reference). */
#include "solver/uncertainty.h"
/* The 90 % intervals of one answer (uncertainty.h): {"draws", "step_s",
 * "throughput", with per_run "run_s", "gpu_hours" and "cost_usd", each
 * {p05, p50, p95}, and against a baseline "speedup" and the shares of
 * draws faster and slower}. per_run 0 for a service: its run figures are
 * of the simulated window, not of the cost per 1,000 requests beside
 * them (the text prints "-" there). */
struct json_t *dam_json_answer_interval(const dam_answer_interval *a,
                                        int per_run);
struct json_t *dam_json_uncertainty(const dam_scenario *s,
                                    const dam_uncertainty *u);
/* The GPU catalog (gpus), the model catalog (models) or both as one JSON
 * object with "gpus" and "models" arrays (new reference). */
#include "model/catalog.h"
struct json_t *dam_json_catalog(const dam_catalog *cat, int gpus,
                                int models);
/* The lever table (model/lever.h): one object per lever type with its
 * name, summary, valid modes, keys (name, unit, range), quality effect and
 * example (new reference). */
struct json_t *dam_json_levers(void);
/* Serialise a JSON value (indent 2, key order kept) into b and release it. */
void dam_json_dump(dam_buf *b, struct json_t *v);
/* A number, or null when not finite. */
struct json_t *dam_json_num(double v);

#endif
