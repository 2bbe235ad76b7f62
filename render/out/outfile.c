/* SPDX-License-Identifier: GPL-3.0-or-later */
/* outfile.c: safe output files (see outfile.h for the design note). */
#define _XOPEN_SOURCE 700 /* realpath */
#include "render/out/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "model/alloc.h"
#include "model/infile.h"

/* The default tracking hook for programs built on libdamsim that define
 * none (weak: damsim's cli/signals.c replaces it): nothing is tracked, so
 * such a program's own signal handling decides about temporaries. */
__attribute__((weak)) void dam_outfile_track(const char *tmp, int live)
{
    (void)tmp;
    (void)live;
}

static const char *kind_of(mode_t m)
{
    if (S_ISDIR(m))
        return "a folder";
    if (S_ISCHR(m) || S_ISBLK(m))
        return "a device";
    if (S_ISFIFO(m))
        return "a FIFO";
    if (S_ISSOCK(m))
        return "a socket";
    return "not a regular file";
}

int dam_outfile_check_target(const char *path, dam_error *err)
{
    struct stat ls, st;
    if (!path || !*path)
        return dam_error_set(err, "", 0, "an output path is empty");
    if (lstat(path, &ls) != 0)
        return DAM_OK; /* does not exist (or cannot be seen): created new */
    if (stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
        dam_infile_was_read((unsigned long long)st.st_dev,
                            (unsigned long long)st.st_ino))
        return dam_error_set(err, path, 0, "refusing to write: it is one of "
                             "this run's input files");
    if (S_ISREG(ls.st_mode))
        return DAM_OK;
    if (S_ISLNK(ls.st_mode)) {
        if (stat(path, &st) != 0)
            return dam_error_set(err, path, 0, "refusing to write through "
                                 "a dangling symbolic link");
        if (S_ISREG(st.st_mode))
            return DAM_OK;
        return dam_error_set(err, path, 0, "refusing to write: it is a "
                             "symbolic link to %s, not a regular file",
                             kind_of(st.st_mode));
    }
    return dam_error_set(err, path, 0, "refusing to write: it is %s, not a "
                         "regular file", kind_of(ls.st_mode));
}

/* The folder part of path ("." when none), into a fresh string. */
static char *folder_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return dam_strdup(".");
    size_t n = slash == path ? 1 : (size_t)(slash - path);
    char *d = dam_malloc(n + 1);
    memcpy(d, path, n);
    d[n] = '\0';
    return d;
}

int dam_outfile_open(dam_outfile *o, const char *path, dam_error *err)
{
    memset(o, 0, sizeof *o);
    int rc = dam_outfile_check_target(path, err);
    if (rc != DAM_OK)
        return rc;
    /* A link to a regular file: write beside the file it names. */
    struct stat ls;
    char *real = NULL;
    if (lstat(path, &ls) == 0 && S_ISLNK(ls.st_mode))
        real = realpath(path, NULL);
    o->path = dam_strdup(real ? real : path);
    free(real); /* realpath's memory is libc's */
    const char *slash = strrchr(o->path, '/');
    const char *base = slash ? slash + 1 : o->path;
    char *dir = folder_of(o->path);
    size_t tn = strlen(dir) + strlen(base) + 96;
    o->tmp = dam_malloc(tn);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    int fd = -1, e = 0;
    for (unsigned i = 0; i < 100 && fd < 0; i++) {
        snprintf(o->tmp, tn, "%s/.%s.%ld.%lx.%lx.%u.tmp", dir, base,
                 (long)getpid(), (unsigned long)(uintptr_t)o,
                 (unsigned long)ts.tv_nsec, i);
        fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                  0666);
        e = errno;
        if (fd < 0 && e != EEXIST)
            break;
    }
    dam_free(dir);
    if (fd >= 0) {
        dam_outfile_track(o->tmp, 1);
        /* a replaced file keeps its permission bits */
        struct stat st;
        if (stat(o->path, &st) == 0 && S_ISREG(st.st_mode) &&
            fchmod(fd, st.st_mode & 07777) != 0) {
            e = errno;
            close(fd);
            unlink(o->tmp);
            dam_outfile_track(o->tmp, 0);
            fd = -1;
        }
    }
    if (fd >= 0) {
        o->fp = fdopen(fd, "wb");
        if (o->fp)
            return DAM_OK;
        e = errno;
        close(fd);
        unlink(o->tmp);
        dam_outfile_track(o->tmp, 0);
    }
    dam_error_set(err, path, 0, "cannot create a temporary file beside it: %s",
                  strerror(e));
    dam_free(o->tmp);
    dam_free(o->path);
    memset(o, 0, sizeof *o);
    return DAM_ERUNTIME;
}

void dam_outfile_abort(dam_outfile *o)
{
    if (!o)
        return;
    if (o->fp)
        fclose(o->fp);
    if (o->tmp) {
        unlink(o->tmp);
        dam_outfile_track(o->tmp, 0);
    }
    dam_free(o->tmp);
    dam_free(o->path);
    memset(o, 0, sizeof *o);
}

int dam_outfile_commit(dam_outfile *o, dam_error *err)
{
    return dam_outfile_commit_as(o, o->path, err);
}

int dam_outfile_commit_as(dam_outfile *o, const char *path, dam_error *err)
{
    int bad = fflush(o->fp) != 0 || ferror(o->fp);
    int e = errno;
    if (fclose(o->fp) != 0 && !bad) {
        bad = 1;
        e = errno;
    }
    o->fp = NULL;
    if (!bad && rename(o->tmp, path) != 0) {
        bad = 1;
        e = errno;
    }
    if (bad) {
        dam_error_set(err, path, 0, "write error: %s", strerror(e ? e : EIO));
        dam_outfile_abort(o);
        return DAM_ERUNTIME;
    }
    dam_outfile_track(o->tmp, 0);
    dam_free(o->tmp);
    dam_free(o->path);
    memset(o, 0, sizeof *o);
    return DAM_OK;
}
