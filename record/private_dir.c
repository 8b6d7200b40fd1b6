/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Private per-step directories and exclusive file creation, all through
 * directory descriptors (see private_dir.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "private_dir.h"

/* Checks an open directory; 0 or -1 with a message about path. */
static int check_fd(int fd, const char *path, sm_dir_kind kind, char *msg, size_t n)
{
    struct stat st;
    if (fstat(fd, &st) != 0) {
        snprintf(msg, n, "%s: %s", path, strerror(errno));
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        snprintf(msg, n, "%s: not a directory", path);
        return -1;
    }
    if (st.st_uid != geteuid() && (kind == SM_DIR_PRIVATE || st.st_uid != 0)) {
        snprintf(msg, n, "%s: owned by uid %u, not by uid %u; refusing to use it", path,
                 (unsigned)st.st_uid, (unsigned)geteuid());
        return -1;
    }
    if (kind == SM_DIR_PRIVATE && (st.st_mode & 077)) {
        snprintf(msg, n, "%s: mode %03o is open to others (must be 0700); refusing to use it",
                 path, (unsigned)(st.st_mode & 0777));
        return -1;
    }
    if (kind == SM_DIR_SHARED && (st.st_mode & 002) && !(st.st_mode & S_ISVTX)) {
        snprintf(msg, n, "%s: world-writable without the sticky bit; refusing to use it", path);
        return -1;
    }
    return 0;
}

/* Opens path relative to at (AT_FDCWD for absolute paths) as a directory,
 * refusing a symbolic link in the last component. */
static int open_dir_at(int at, const char *name, const char *path, sm_dir_kind kind, char *msg,
                       size_t n)
{
    int fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ELOOP || errno == ENOTDIR) {
            struct stat st;
            if (fstatat(at, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
                snprintf(msg, n, "%s: is a symbolic link; refusing to use it", path);
            else
                snprintf(msg, n, "%s: not a directory", path);
        } else {
            snprintf(msg, n, "%s: %s", path, strerror(errno));
        }
        return -1;
    }
    if (check_fd(fd, path, kind, msg, n)) {
        close(fd);
        return -1;
    }
    return fd;
}

int sm_dir_open(const char *dir, sm_dir_kind kind, char *msg, size_t n)
{
    return open_dir_at(AT_FDCWD, dir, dir, kind, msg, n);
}

int sm_subdir_open(int parent_fd, const char *path, const char *name, sm_dir_kind kind,
                   bool create, char *msg, size_t n)
{
    if (create && mkdirat(parent_fd, name, 0700) != 0 && errno != EEXIST) {
        snprintf(msg, n, "%s: cannot create: %s", path, strerror(errno));
        return -1;
    }
    return open_dir_at(parent_fd, name, path, kind, msg, n);
}

int sm_subdir_open_private(int parent_fd, const char *path, const char *name, char *msg,
                           size_t n)
{
    return sm_subdir_open(parent_fd, path, name, SM_DIR_PRIVATE, true, msg, n);
}

int sm_private_dir_create(const char *parent, char *out, size_t outlen, char *msg, size_t n)
{
    out[0] = '\0';
    int pfd = sm_dir_open(parent, SM_DIR_SHARED, msg, n);
    if (pfd < 0)
        return -1;
    close(pfd);
    if ((size_t)snprintf(out, outlen, "%s/stencil-map.XXXXXX", parent) >= outlen) {
        snprintf(msg, n, "%s: path too long", parent);
        out[0] = '\0';
        return -1;
    }
    if (!mkdtemp(out)) {
        snprintf(msg, n, "%s: cannot create a private directory: %s", parent, strerror(errno));
        out[0] = '\0';
        return -1;
    }
    /* mkdtemp made a new 0700 directory; open that very directory and check
     * it, so a later swap of the name cannot redirect the hostfile */
    int fd = sm_dir_open(out, SM_DIR_PRIVATE, msg, n);
    if (fd < 0) {
        rmdir(out);
        out[0] = '\0';
    }
    return fd;
}

FILE *sm_file_create_at(int dir_fd, const char *path, const char *name, char *msg, size_t n)
{
    int fd = openat(dir_fd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) {
        snprintf(msg, n, "%s/%s: cannot create: %s", path, name, strerror(errno));
        return NULL;
    }
    FILE *f = fdopen(fd, "w");
    if (!f) {
        snprintf(msg, n, "%s/%s: %s", path, name, strerror(errno));
        close(fd);
        unlinkat(dir_fd, name, 0);
    }
    return f;
}

void sm_private_dir_remove(const char *dir)
{
    if (!dir || !*dir)
        return;
    char msg[8];
    int dfd = sm_dir_open(dir, SM_DIR_PRIVATE, msg, sizeof(msg));
    if (dfd < 0)
        return;
    int dup_fd = dup(dfd);
    DIR *d = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
    if (!d) {
        if (dup_fd >= 0)
            close(dup_fd);
        close(dfd);
        return;
    }
    struct dirent *e;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            unlinkat(dfd, e->d_name, 0);
    closedir(d);
    close(dfd);
    rmdir(dir);
}
