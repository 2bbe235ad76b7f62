/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_html_review.c: what the HTML review leaves out (issue 27): a table
 * without rows is not written (no "(no rows)"), a column whose every cell
 * is empty, "-" or a zero is dropped with its header, and a column with
 * one real value among zeros stays; the summary's chart is not squeezed
 * beside the text (no flex row), and a review without an explorer holds
 * no script.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "model/alloc.h"
#include "render/out/html.h"
#include "render/review/report.h"

/* Occurrences of s in t. */
static int count(const char *t, const char *s)
{
    int n = 0;
    for (const char *p = t; (p = strstr(p, s)) != NULL; p += strlen(s))
        n++;
    return n;
}

int main(void)
{
    static const char *const head[4] = {"option", "quality", "spare",
                                        "latency"};
    static const int num[4] = {0, 1, 1, 1};
    /* quality: zeros and "0?" only; spare: a zero and one real value */
    static const char *const cells[] = {"baseline", "0",  "-",   "2.8 s",
                                        "H200",     "0?", "1.5", "4.3 s",
                                        "FP8",      "",   "0 %", "4.3 s"};
    static const char *const phead[2] = {"phase", "time"};
    dam_report_table tables[2] = {
        {"Each lever", 4, head, cells, 3, num},
        {"Roofline of each compute phase", 2, phead, NULL, 0, NULL},
    };
    dam_report r;
    memset(&r, 0, sizeof r);
    r.title = "a serving review";
    r.question = "Does it meet the SLO?";
    r.answer = "Yes.";
    r.tables = tables;
    r.ntables = 2;
    dam_error err;
    memset(&err, 0, sizeof err);
    int rc = dam_report_write("html_review.html", &r, &err);
    dam_check(rc == DAM_OK, "the review is written (%s)",
              rc ? err.msg : "ok");
    char *t = (char *)dam_test_slurp("html_review.html", NULL);
    dam_check(t != NULL, "and read back");
    if (t) {
        dam_check(!strstr(t, "no rows") && !strstr(t, "Roofline"),
                  "a table without rows is left out, its heading too");
        dam_check(!strstr(t, ">quality<"),
                  "a column of zeros, '0?' and blanks is dropped");
        dam_check(count(t, "<td class=\"num\">0?</td>") == 0 &&
                      count(t, "<td class=\"num\">0</td>") == 0,
                  "and its cells with it");
        dam_check(strstr(t, ">spare<") && strstr(t, ">1.5<"),
                  "a column with one real value among zeros stays");
        dam_check(count(t, "<td") == 9,
                  "3 rows of 3 kept columns: %d cells", count(t, "<td"));
        dam_check(!strstr(t, "display:flex"),
                  "the summary is not a flex row (its chart at full width)");
        dam_check(!strstr(t, "<script"), "no script without an explorer");
    }
    dam_free(t);
    remove("html_review.html");
    return dam_check_done();
}
