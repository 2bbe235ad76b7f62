/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_outfile.c: safe output files (render/out/outfile.h). A target that is
 * not a regular file (FIFO, folder, link to one) is refused and left as it
 * was; a link to a regular file is followed and kept; the temporary is
 * created exclusively in the target's folder, never through a planted
 * link, and is gone after commit and after abort; a failed write leaves
 * the old file untouched.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "model/error.h"
#include "render/out/buf.h"
#include "render/out/outfile.h"

static char dir[256];

static void path_of(char *out, size_t n, const char *name)
{
    snprintf(out, n, "%s/%s", dir, name);
}

/* A symbolic link named name in the test folder to target; its path in
 * out. */
static void link_to(char *out, size_t n, const char *name, const char *target,
                    const char *what)
{
    path_of(out, n, name);
    dam_check(symlink(target, out) == 0, "%s", what);
}

/* Files in dir whose names start with '.' (temporaries), other than . and .. */
static int temporaries(void)
{
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (e->d_name[0] == '.' && strcmp(e->d_name, ".") &&
            strcmp(e->d_name, ".."))
            n++;
    if (d)
        closedir(d);
    return n;
}

static void slurp(const char *path, char *buf, size_t n)
{
    buf[0] = '\0';
    FILE *f = fopen(path, "rb");
    if (!f)
        return;
    size_t k = fread(buf, 1, n - 1, f);
    buf[k] = '\0';
    fclose(f);
}

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/dam_outfile_XXXXXX");
    if (!mkdtemp(dir)) {
        dam_check(0, "mkdtemp");
        return dam_check_done();
    }
    char a[512], b[512], buf[256];
    dam_error e;

    /* a new file, then replaced */
    path_of(a, sizeof a, "out.txt");
    dam_check_int(dam_write_file_atomic(a, "one\n", 4, &e), DAM_OK,
                  "a new file is written");
    dam_check_int(dam_write_file_atomic(a, "two\n", 4, &e), DAM_OK,
                  "an existing regular file is replaced");
    slurp(a, buf, sizeof buf);
    dam_check_str(buf, "two\n", "it holds the new text");
    dam_check_int(temporaries(), 0, "no temporary is left after commit");

    /* abort removes the temporary and keeps the old file */
    dam_outfile o;
    dam_check_int(dam_outfile_open(&o, a, &e), DAM_OK, "open for writing");
    dam_check(o.tmp && strncmp(o.tmp, dir, strlen(dir)) == 0,
              "the temporary is in the target's folder");
    dam_check_int(temporaries(), 1, "the temporary exists while writing");
    fputs("half", o.fp);
    dam_outfile_abort(&o);
    dam_check_int(temporaries(), 0, "abort removes the temporary");
    slurp(a, buf, sizeof buf);
    dam_check_str(buf, "two\n", "abort leaves the old file as it was");
    dam_outfile_abort(&o); /* idempotent */

    /* a FIFO and a folder are refused, and stay what they were */
    path_of(b, sizeof b, "fifo");
    mkfifo(b, 0600);
    dam_check_int(dam_write_file_atomic(b, "x", 1, &e), DAM_EINPUT,
                  "a FIFO target is refused as bad input");
    dam_check(strstr(e.msg, "FIFO") != NULL, "the message says FIFO: %s",
              e.msg);
    struct stat st;
    dam_check(lstat(b, &st) == 0 && S_ISFIFO(st.st_mode),
              "the FIFO is still a FIFO");
    path_of(b, sizeof b, "sub");
    mkdir(b, 0700);
    dam_check_int(dam_outfile_check_target(b, &e), DAM_EINPUT,
                  "a folder is not a file target");

    /* a link to a FIFO is refused; a dangling link too */
    char l[512];
    path_of(b, sizeof b, "fifo");
    link_to(l, sizeof l, "link-to-fifo", b, "symlink to the FIFO");
    dam_check_int(dam_write_file_atomic(l, "x", 1, &e), DAM_EINPUT,
                  "a link to a FIFO is refused");
    dam_check(lstat(l, &st) == 0 && S_ISLNK(st.st_mode),
              "the link is still a link");
    link_to(l, sizeof l, "dangling", "/nonexistent/dam", "dangling symlink");
    dam_check_int(dam_write_file_atomic(l, "x", 1, &e), DAM_EINPUT,
                  "a dangling link is refused");

    /* a link to a regular file: the file is written, the link kept */
    link_to(l, sizeof l, "link-to-out", a, "symlink to out.txt");
    dam_check_int(dam_write_file_atomic(l, "three\n", 6, &e), DAM_OK,
                  "a link to a regular file is written through");
    dam_check(lstat(l, &st) == 0 && S_ISLNK(st.st_mode),
              "the link stays a link");
    slurp(a, buf, sizeof buf);
    dam_check_str(buf, "three\n", "the file it names holds the new text");

    /* a missing folder: a runtime failure, nothing created */
    path_of(b, sizeof b, "no/such/folder/x.txt");
    dam_check_int(dam_write_file_atomic(b, "x", 1, &e), DAM_ERUNTIME,
                  "a missing folder is a runtime failure");
    dam_check_int(temporaries(), 0, "no temporary is left after failures");

    /* clean up */
    const char *names[] = {"out.txt", "fifo", "link-to-fifo", "dangling",
                           "link-to-out", NULL};
    for (int i = 0; names[i]; i++) {
        path_of(b, sizeof b, names[i]);
        unlink(b);
    }
    path_of(b, sizeof b, "sub");
    rmdir(b);
    dam_check(rmdir(dir) == 0, "the test folder is empty at the end");
    return dam_check_done();
}
