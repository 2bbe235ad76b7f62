/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * oom.c: damsim's out-of-memory policy (model/alloc.h's hook): say so and
 * exit with the runtime-failure code. Only cli/ ends the process.
 */
#include <stdio.h>
#include <stdlib.h>

#include "model/alloc.h"

_Noreturn void dam_out_of_memory(size_t n)
{
    fprintf(stderr, "damsim: out of memory (asked for %zu bytes)\n", n);
    exit(1);
}
