/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * suggest.h: the one "did you mean" matcher. Every unknown name damsim
 * reports (a scenario key, a lever key or value, a GPU or model id, a fit,
 * a precision) gets its suggestion from dam_suggest, so the rule is the
 * same everywhere:
 *
 *   1. a candidate that starts with what was typed (at least 3 characters,
 *      case-insensitive): "H200" -> "H200-SXM-141GB";
 *   2. else a candidate that contains it (at least 3 characters):
 *      "SXM5-80GB" -> "H100-SXM5-80GB";
 *   3. else the candidate nearest by edit distance (case-insensitive
 *      Levenshtein), if within a third of the longer string and at least
 *      2 edits: "loader_worker" -> "loader_workers".
 *
 * Ties go to the earlier candidate, so results are deterministic. Nothing
 * here allocates beyond one row of the distance table, nor keeps state.
 */
#ifndef DAM_SUGGEST_H
#define DAM_SUGGEST_H

#include <stddef.h>

/* Names of the candidates: the i-th name of ctx (i < n), or NULL to skip. */
typedef const char *(*dam_suggest_name_fn)(const void *ctx, size_t i);

/* The candidate closest to word by the rule above, or NULL when none is
 * close enough (or word is empty). The result points into the caller's
 * candidates. */
const char *dam_suggest(const char *word, dam_suggest_name_fn name,
                        const void *ctx, size_t n);

/* Same over a NULL-terminated array of strings. */
const char *dam_suggest_list(const char *word, const char *const *names);

/* Edit distance (case-insensitive Levenshtein) between a and b. */
size_t dam_edit_distance(const char *a, const char *b);

#endif
