/* SPDX-License-Identifier: GPL-3.0-or-later */
/* version.c: the version string, set by the build (CMake's project
 * version). */
#include "model/version.h"

#ifndef DAM_VERSION
#define DAM_VERSION "unknown"
#endif

const char *dam_version(void)
{
    return DAM_VERSION;
}
