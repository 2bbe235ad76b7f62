/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * suggest.c: the "did you mean" matcher (see suggest.h for the rule).
 * Three passes over the candidates, cheapest first; the distance pass keeps
 * the first of equally near candidates.
 */
#include "model/suggest.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "model/alloc.h"

size_t dam_edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    size_t *row = dam_malloc((lb + 1) * sizeof *row);
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            int same = tolower((unsigned char)a[i - 1]) ==
                       tolower((unsigned char)b[j - 1]);
            size_t best = diag + (same ? 0 : 1);
            if (row[j] + 1 < best)
                best = row[j] + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    size_t d = row[lb];
    dam_free(row);
    return d;
}

/* 1 when hay contains needle, case-insensitively. */
static int contains(const char *hay, const char *needle, size_t nl)
{
    for (; *hay; hay++)
        if (strncasecmp(hay, needle, nl) == 0)
            return 1;
    return 0;
}

const char *dam_suggest(const char *word, dam_suggest_name_fn name,
                        const void *ctx, size_t n)
{
    size_t wl = word ? strlen(word) : 0;
    if (wl == 0)
        return NULL;
    if (wl >= 3) {
        for (size_t i = 0; i < n; i++) {
            const char *c = name(ctx, i);
            if (c && strlen(c) > wl && strncasecmp(c, word, wl) == 0)
                return c;
        }
        for (size_t i = 0; i < n; i++) {
            const char *c = name(ctx, i);
            if (c && strlen(c) > wl && contains(c, word, wl))
                return c;
        }
    }
    const char *best = NULL;
    size_t bestd = (size_t)-1;
    for (size_t i = 0; i < n; i++) {
        const char *c = name(ctx, i);
        if (!c)
            continue;
        size_t d = dam_edit_distance(word, c);
        if (d < bestd)
            bestd = d, best = c;
    }
    if (!best)
        return NULL;
    size_t lb = strlen(best);
    size_t lim = (wl > lb ? wl : lb) / 3;
    return bestd <= (lim < 2 ? 2 : lim) ? best : NULL;
}

static const char *list_name(const void *ctx, size_t i)
{
    return ((const char *const *)ctx)[i];
}

const char *dam_suggest_list(const char *word, const char *const *names)
{
    size_t n = 0;
    while (names[n])
        n++;
    return dam_suggest(word, list_name, names, n);
}
