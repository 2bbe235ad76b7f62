/* SPDX-License-Identifier: GPL-3.0-or-later */
/* text.h: terminal reports built into a dam_buf (cli/ prints them). */
#ifndef DAM_TEXT_H
#define DAM_TEXT_H

#include "render/buf.h"
#include "solver/diagnose.h"
#include "solver/uncertainty.h"

/* The run report: question, answer, breakdown, iron law, roofline, memory,
 * diagnosis, scorecard. u (may be NULL): the 90 % intervals, shown under
 * the step and run figures. */
/* The diagnosis (headline, evidence, symptoms, levers that work and
 * those wasted) and the scorecard, as every run page shows them. */
void dam_text_diagnosis(dam_buf *b, const dam_diagnosis *d);
void dam_text_run(dam_buf *b, const dam_scenario *s, const dam_result *r,
                  const dam_diagnosis *d, const dam_uncertainty *u);
/* The one-sentence answer to the scenario's question, into buf. */
void dam_text_answer(char *buf, size_t n, const dam_scenario *s,
                     const dam_result *r, const dam_diagnosis *d);
/* A run time (s) and the scenario's deadline (s->deadline, s), each as
 * the reports write times ("200 d", "60 d"), into run and dl; a run that
 * rounds to the deadline is "just under 60 d" or "just over 60 d". */
void dam_text_deadline(char *run, size_t nrun, char *dl, size_t ndl,
                       const dam_scenario *s, double run_time);
/* seconds in milliseconds with sig significant digits ("12 ms", "449
 * ms") while that needs no exponent, else in the unit dam_fmt_time picks
 * ("2.11 s", never "2.11e+03 ms"). */
void dam_text_ms(char *buf, size_t n, double seconds, int sig);
/* The short block's two lines after the answer (run): "Figure" (the
 * number that decides the answer, with its interval) and "Cost". */
void dam_text_short(dam_buf *b, const dam_scenario *s, const dam_result *r,
                    const dam_uncertainty *u);
/* Intervals over the uncertain inputs and calibrated constants, and the
 * tornado of their swings. */
void dam_text_uncertainty(dam_buf *b, const dam_scenario *s,
                          const dam_uncertainty *u);
/* `damsim catalog gpus` / `models`. */
void dam_text_catalog_gpus(dam_buf *b, const dam_catalog *c);
void dam_text_catalog_models(dam_buf *b, const dam_catalog *c);

#endif
