/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * oom.c: the out-of-memory policy of the test and benchmark programs
 * (model/alloc.h's hook): report and abort, so a test run shows where;
 * and render/out/outfile.h's temporary-file hook (no signal handling here).
 */
#include <stdio.h>
#include <stdlib.h>

#include "model/alloc.h"
#include "render/out/outfile.h"

_Noreturn void dam_out_of_memory(size_t n)
{
    fprintf(stderr, "out of memory (asked for %zu bytes)\n", n);
    abort();
}

void dam_outfile_track(const char *tmp, int live)
{
    (void)tmp;
    (void)live;
}
