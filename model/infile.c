/* SPDX-License-Identifier: GPL-3.0-or-later */
/* infile.c: regular input files only (see infile.h). */
#include "model/infile.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
    }
    return f;
}
