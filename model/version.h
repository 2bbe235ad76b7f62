/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * version.h: which damsim this is, for programs built on libdamsim (the
 * same text `damsim --version` prints).
 */
#ifndef DAM_VERSION_H
#define DAM_VERSION_H

/* The version, "MAJOR.MINOR.PATCH" (a static string). */
const char *dam_version(void);

#endif
