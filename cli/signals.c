/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * signals.c: what damsim does on SIGINT and SIGTERM. The output layer
 * tells the program of every temporary file it holds (render/outfile.h's
 * dam_outfile_track); this file keeps them in a fixed table of slots, and
 * the handler removes them, says so and exits 130 (SIGINT) or 143
 * (SIGTERM), the shell's 128 + signal. Nothing half-written survives.
 *
 * Design note: the handler may only use async-signal-safe calls (unlink,
 * write, _exit), so the table is plain storage claimed slot by slot with
 * C11 atomics (no lock to deadlock on, safe with threads); a slot's path is
 * written before the slot is published and unpublished before it is
 * reused. More than DAM_SIG_SLOTS temporaries at once (never: damsim writes
 * files one at a time) would go untracked, not crash. This is cli/, the
 * one layer allowed mutable static state.
 */
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/sweep.h"
#include "render/outfile.h"

#define DAM_SIG_SLOTS 16
#define DAM_SIG_PATH 4200

/* 0 free, 1 being filled or emptied, 2 holds a live temporary. */
static atomic_int slot_state[DAM_SIG_SLOTS];
static char slot_path[DAM_SIG_SLOTS][DAM_SIG_PATH];

void dam_outfile_track(const char *tmp, int live)
{
    if (live) {
        if (strlen(tmp) >= DAM_SIG_PATH)
            return;
        for (int i = 0; i < DAM_SIG_SLOTS; i++) {
            int expect = 0;
            if (atomic_compare_exchange_strong(&slot_state[i], &expect, 1)) {
                memcpy(slot_path[i], tmp, strlen(tmp) + 1);
                atomic_store(&slot_state[i], 2);
                return;
            }
        }
        return;
    }
    for (int i = 0; i < DAM_SIG_SLOTS; i++) {
        int expect = 2;
        if (strcmp(slot_path[i], tmp) == 0 &&
            atomic_compare_exchange_strong(&slot_state[i], &expect, 1)) {
            slot_path[i][0] = '\0';
            atomic_store(&slot_state[i], 0);
            return;
        }
    }
}

void dam_cli_remove_temporaries(void)
{
    for (int i = 0; i < DAM_SIG_SLOTS; i++)
        if (atomic_load(&slot_state[i]) == 2)
            unlink(slot_path[i]);
}

static void say(const char *s)
{
    ssize_t r = write(STDERR_FILENO, s, strlen(s));
    (void)r;
}

static void on_signal(int sig)
{
    int removed = 0;
    for (int i = 0; i < DAM_SIG_SLOTS; i++)
        if (atomic_load(&slot_state[i]) == 2 && unlink(slot_path[i]) == 0)
            removed++;
    /* over a progress line: erase it; else start a line of our own */
    say(dam_cli_progress_visible ? "\r\033[K" : "\n");
    say(sig == SIGINT ? "damsim: interrupted (SIGINT)"
                      : "damsim: terminated (SIGTERM)");
    say(removed ? "; the unfinished output file was removed\n"
                : "; no output file was written\n");
    _exit(128 + sig);
}

void dam_cli_signals_install(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaddset(&sa.sa_mask, SIGINT);
    sigaddset(&sa.sa_mask, SIGTERM);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}
