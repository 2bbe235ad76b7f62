/* SPDX-License-Identifier: GPL-3.0-or-later */
/* infile.c: regular input files only (see infile.h). */
#include "model/infile.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/alloc.h"

/* The defaults for programs built on libdamsim that track nothing (weak:
 * damsim's cli/signals.c replaces them). */
__attribute__((weak)) void dam_infile_note(unsigned long long dev,
                                           unsigned long long ino)
{
    (void)dev;
    (void)ino;
}

__attribute__((weak)) int dam_infile_was_read(unsigned long long dev,
                                              unsigned long long ino)
{
    (void)dev;
    (void)ino;
    return 0;
}

FILE *dam_infile_open(const char *path, char *why, size_t n)
{
    return dam_infile_open_max(path, DAM_MAX_INPUT_BYTES, why, n);
}

FILE *dam_infile_open_max(const char *path, long max, char *why, size_t n)
{
    char big[48];
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        snprintf(why, n, "%s", strerror(errno));
        return NULL;
    }
    struct stat st;
    const char *bad = NULL;
    if (fstat(fd, &st) != 0)
        bad = strerror(errno);
    else if (S_ISDIR(st.st_mode))
        bad = "a folder, not a regular file";
    else if (S_ISFIFO(st.st_mode))
        bad = "a FIFO, not a regular file";
    else if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode))
        bad = "a device, not a regular file";
    else if (!S_ISREG(st.st_mode))
        bad = "not a regular file";
    else if (st.st_size > max) {
        snprintf(big, sizeof big, "larger than %ld MiB", max >> 20);
        bad = big;
    }
    int fl = bad ? 0 : fcntl(fd, F_GETFL);
    if (!bad && (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0))
        bad = strerror(errno);
    FILE *f = bad ? NULL : fdopen(fd, "r");
    if (!f) {
        snprintf(why, n, "%s", bad ? bad : strerror(errno));
        close(fd);
        return NULL;
    }
    dam_infile_note((unsigned long long)st.st_dev,
                    (unsigned long long)st.st_ino);
    return f;
}

char *dam_infile_read(const char *path, size_t *len, char *why, size_t n)
{
    FILE *f = dam_infile_open(path, why, n);
    if (!f)
        return NULL;
    size_t cap = 4096, used = 0;
    char *s = dam_malloc(cap);
    for (;;) {
        if (used + 1 >= cap) {
            /* the size was checked at open; a file growing since is cut
             * at the same cap */
            if (cap > (size_t)DAM_MAX_INPUT_BYTES) {
                snprintf(why, n, "larger than 64 MiB");
                break;
            }
            cap *= 2;
            s = dam_realloc(s, cap);
        }
        size_t got = fread(s + used, 1, cap - 1 - used, f);
        used += got;
        if (got == 0) {
            if (ferror(f) && errno == EINTR) {
                clearerr(f);
                continue;
            }
            if (ferror(f))
                snprintf(why, n, "%s", strerror(errno));
            else
                why = NULL; /* end of file */
            break;
        }
    }
    fclose(f);
    if (why) {
        dam_free(s);
        return NULL;
    }
    s[used] = '\0';
    if (len)
        *len = used;
    return s;
}
