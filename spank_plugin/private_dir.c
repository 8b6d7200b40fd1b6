/* Private per-step directories and exclusive file creation. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "private_dir.h"

int sm_dir_check(const char *dir, int private_mode, char *msg, size_t n)
{
    struct stat st;
    if (lstat(dir, &st) != 0) {
        snprintf(msg, n, "%s: %s", dir, strerror(errno));
        return -1;
    }
    if (S_ISLNK(st.st_mode)) {
        snprintf(msg, n, "%s: is a symbolic link; refusing to use it", dir);
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        snprintf(msg, n, "%s: not a directory", dir);
        return -1;
    }
    if (st.st_uid != geteuid() && (private_mode || st.st_uid != 0)) {
        snprintf(msg, n, "%s: owned by uid %u, not by uid %u; refusing to use it", dir,
                 (unsigned)st.st_uid, (unsigned)geteuid());
        return -1;
    }
    if (private_mode && (st.st_mode & 077)) {
        snprintf(msg, n, "%s: mode %03o is open to others (must be 0700)", dir,
                 (unsigned)(st.st_mode & 0777));
        return -1;
    }
    if (!private_mode && (st.st_mode & 002) && !(st.st_mode & S_ISVTX)) {
        snprintf(msg, n, "%s: world-writable without the sticky bit", dir);
        return -1;
    }
    return 0;
}

int sm_dir_ensure_private(const char *dir, char *msg, size_t n)
{
    if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
        snprintf(msg, n, "%s: cannot create: %s", dir, strerror(errno));
        return -1;
    }
    return sm_dir_check(dir, 1, msg, n);
}

int sm_private_dir_create(const char *parent, char *out, size_t outlen, char *msg, size_t n)
{
    if (sm_dir_check(parent, 0, msg, n))
        return -1;
    if ((size_t)snprintf(out, outlen, "%s/stencil-map.XXXXXX", parent) >= outlen) {
        snprintf(msg, n, "%s: path too long", parent);
        return -1;
    }
    if (!mkdtemp(out)) {
        snprintf(msg, n, "%s: cannot create a private directory: %s", parent, strerror(errno));
        out[0] = '\0';
        return -1;
    }
    /* mkdtemp makes it 0700 already; check anyway (umask cannot widen it) */
    if (sm_dir_check(out, 1, msg, n)) {
        rmdir(out);
        out[0] = '\0';
        return -1;
    }
    return 0;
}

FILE *sm_private_file_create(const char *dir, const char *name, int readable, char *path,
                             size_t pathlen, char *msg, size_t n)
{
    if ((size_t)snprintf(path, pathlen, "%s/%s", dir, name) >= pathlen) {
        snprintf(msg, n, "%s/%s: path too long", dir, name);
        return NULL;
    }
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                  readable ? 0644 : 0600);
    if (fd < 0) {
        snprintf(msg, n, "%s: cannot create: %s", path, strerror(errno));
        return NULL;
    }
    FILE *f = fdopen(fd, "w");
    if (!f) {
        snprintf(msg, n, "%s: %s", path, strerror(errno));
        close(fd);
        unlink(path);
    }
    return f;
}

void sm_private_dir_remove(const char *dir)
{
    if (!dir || !*dir)
        return;
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dfd < 0)
        return;
    DIR *d = fdopendir(dfd);
    if (!d) {
        close(dfd);
        return;
    }
    struct dirent *e;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            unlinkat(dfd, e->d_name, 0);
    closedir(d);
    rmdir(dir);
}
