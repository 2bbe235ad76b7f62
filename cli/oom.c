/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * oom.c: damsim's out-of-memory policy (model/alloc.h's hook): remove any
 * temporary output file, say so and exit with the runtime-failure code.
 * Only cli/ ends the process.
 *
 * Fault injection (builds with DAM_FAULT_INJECTION, the sanitizer build):
 * with DAM_FAULT_AT=N in the environment the Nth allocation of the run
 * fails (1 is the first), so every allocation's failure path can be
 * driven in turn (tests/faults/run.sh); with DAM_FAULT_AT=0 none fails and
 * the number of allocations is printed at exit ("damsim: N allocations"),
 * which bounds the loop. The counter is this file's: cli/ is the one layer
 * allowed mutable static state. Single-threaded runs only (the loop runs
 * without -j).
 */
#include <stdio.h>
#include <stdlib.h>

#include "cli/cli.h"
#include "model/alloc.h"

_Noreturn void dam_out_of_memory(size_t n)
{
    dam_cli_remove_temporaries();
    fprintf(stderr, "damsim: out of memory (asked for %zu bytes)\n", n);
    exit(1);
}

#ifdef DAM_FAULT_INJECTION
static long fault_at = -1; /* -1: not read yet */
static long fault_count;

static void report_count(void)
{
    fprintf(stderr, "damsim: %ld allocations\n", fault_count);
}

int dam_alloc_fault(void)
{
    if (fault_at < 0) {
        const char *e = getenv("DAM_FAULT_AT");
        fault_at = e ? strtol(e, NULL, 10) : 0;
        if (fault_at < 0)
            fault_at = 0;
        if (e && fault_at == 0)
            atexit(report_count);
    }
    return ++fault_count == fault_at;
}
#endif
