/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * fuzz_common.h: what the libFuzzer targets share: the out-of-memory hook
 * (abort, so that the fuzzer reports it) and the built-in catalogs loaded
 * once in LLVMFuzzerInitialize. Included once per fuzz binary.
 */
#ifndef DAM_FUZZ_COMMON_H
#define DAM_FUZZ_COMMON_H

#include <gsl/gsl_errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "model/alloc.h"
#include "model/embedded.h"
#include "model/loader.h"

_Noreturn void dam_out_of_memory(size_t n)
{
    fprintf(stderr, "fuzz: out of memory (asked for %zu bytes)\n", n);
    abort();
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* GSL's error handler off and the built-in GPU catalog (and the model
 * catalog when models is set) into cat; aborts when they do not load. */
static inline void fuzz_catalogs(dam_catalog *cat, int models)
{
    gsl_set_error_handler_off();
    dam_diag d;
    dam_diag_init(&d);
    const dam_embedded_file *g = dam_embedded_find("gpus.cfg");
    const dam_embedded_file *m = dam_embedded_find("models.cfg");
    if (!g || !m ||
        dam_catalog_load_gpus(cat, "gpus.cfg", g->text, &d) != DAM_OK ||
        (models &&
         dam_catalog_load_models(cat, "models.cfg", m->text, &d) != DAM_OK))
        abort();
    dam_diag_free(&d);
}

/* A target that defines DAM_FUZZ_CATALOG before including this file gets
 * the built-in catalogs in cat, loaded once by LLVMFuzzerInitialize (the
 * model catalog too when DAM_FUZZ_CATALOG is 1). */
#ifdef DAM_FUZZ_CATALOG
static dam_catalog cat;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_catalogs(&cat, DAM_FUZZ_CATALOG);
    return 0;
}
#endif

#endif
