/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * signals.c: what damsim does on SIGINT, SIGTERM, SIGHUP and SIGPIPE, and
 * the program's list of the files it read. The output layer
 * tells the program of every temporary file it holds (render/out/outfile.h's
 * dam_outfile_track); this file keeps them in a fixed table of slots, and
 * the handler removes them, says so and exits 128 + the signal (130 for
 * SIGINT, 143 SIGTERM, 129 SIGHUP; a closed pipe, 141, silently). Nothing
 * half-written survives.
 *
 * The input layer tells the program of every file it opened
 * (model/infile.h's dam_infile_note); the output layer asks
 * (dam_infile_was_read) before it replaces a file, so no output ever
 * overwrites an input. The inputs sit in another fixed table (device and
 * inode, claimed with an atomic counter: readers on sweep threads may add
 * at once); past DAM_INPUT_SLOTS distinct files the rest go unlisted
 * (the -o check in main.c also compares against every file named on the
 * command line).
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
#include "model/infile.h"
#include "render/out/outfile.h"

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

#define DAM_INPUT_SLOTS 512

static atomic_int input_count;
static atomic_int input_ready[DAM_INPUT_SLOTS];
static unsigned long long input_dev[DAM_INPUT_SLOTS];
static unsigned long long input_ino[DAM_INPUT_SLOTS];

int dam_infile_was_read(unsigned long long dev, unsigned long long ino)
{
    int n = atomic_load(&input_count);
    for (int i = 0; i < n && i < DAM_INPUT_SLOTS; i++)
        if (atomic_load(&input_ready[i]) && input_dev[i] == dev &&
            input_ino[i] == ino)
            return 1;
    return 0;
}

void dam_infile_note(unsigned long long dev, unsigned long long ino)
{
    if (dam_infile_was_read(dev, ino))
        return; /* a sweep's points reread the same few files */
    int i = atomic_fetch_add(&input_count, 1);
    if (i >= DAM_INPUT_SLOTS) {
        atomic_store(&input_count, DAM_INPUT_SLOTS);
        return;
    }
    input_dev[i] = dev;
    input_ino[i] = ino;
    atomic_store(&input_ready[i], 1);
}

/* Written by progress.c, read by the handler below. */
volatile sig_atomic_t dam_cli_progress_visible;

static void say(const char *s)
{
    ssize_t r = write(STDERR_FILENO, s, strlen(s));
    (void)r;
}

void dam_cli_exit_on_signal(int sig)
{
    int removed = 0;
    for (int i = 0; i < DAM_SIG_SLOTS; i++)
        if (atomic_load(&slot_state[i]) == 2 && unlink(slot_path[i]) == 0)
            removed++;
    if (sig == SIGPIPE)
        _exit(128 + sig); /* the reader went away: nobody to tell */
    /* over a progress line: erase it; else start a line of our own */
    say(dam_cli_progress_visible ? "\r\033[K" : "\n");
    say(sig == SIGINT   ? "damsim: interrupted (SIGINT)"
        : sig == SIGHUP ? "damsim: hung up (SIGHUP)"
                        : "damsim: terminated (SIGTERM)");
    say(removed ? "; the unfinished output file was removed\n"
                : "; no output file was written\n");
    _exit(128 + sig);
}

static void on_signal(int sig)
{
    dam_cli_exit_on_signal(sig);
}

void dam_cli_signals_install(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        sigaddset(&sa.sa_mask, sigs[i]);
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        /* nohup (SIGHUP) and an ignored SIGPIPE stay ignored; SIGINT is
         * caught even in a background job, whose shell ignores it */
        struct sigaction old;
        if ((sigs[i] == SIGHUP || sigs[i] == SIGPIPE) &&
            sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
            continue;
        sigaction(sigs[i], &sa, NULL);
    }
}
