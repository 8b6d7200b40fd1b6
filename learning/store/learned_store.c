/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Where the store of learned specs is and how it is opened (see
 * learned_store.h). */
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "learned_store.h"
#include "private_dir.h"

static int user_name(char *out, size_t n)
{
    struct passwd pw, *res = NULL;
    char buf[4096];
    if (getpwuid_r(getuid(), &pw, buf, sizeof(buf), &res) == 0 && res)
        return snprintf(out, n, "%s", pw.pw_name) < (int)n ? 0 : -1;
    return snprintf(out, n, "uid%u", (unsigned)getuid()) < (int)n ? 0 : -1;
}

static const char *home_dir(void)
{
    const char *h = getenv("HOME");
    if (h && h[0] == '/')
        return h;
    static char pwdir[PATH_MAX];
    struct passwd pw, *res = NULL;
    char buf[4096];
    if (getpwuid_r(getuid(), &pw, buf, sizeof(buf), &res) == 0 && res && res->pw_dir[0] == '/' &&
        strlen(res->pw_dir) < sizeof(pwdir)) {
        strcpy(pwdir, res->pw_dir);
        return pwdir;
    }
    return NULL;
}

/* The base directory and the names below it, outermost first; the last
 * two are private. */
typedef struct {
    char base[PATH_MAX];
    const char *names[5];
    int count;
    const char *from;
} chain;

static int store_chain(const char *site_root, chain *c, char *msg, size_t mn)
{
    memset(c, 0, sizeof(*c));
    if (site_root && *site_root) {
        static char user[256];
        if (user_name(user, sizeof(user))) {
            snprintf(msg, mn, "cannot name the current user");
            return -1;
        }
        snprintf(c->base, sizeof(c->base), "%s", site_root);
        c->names[c->count++] = user;
        c->from = "learned_dir";
        return 0;
    }
    /* the XDG Base Directory rule: a relative XDG_STATE_HOME is ignored */
    const char *xdg = getenv("XDG_STATE_HOME");
    if (xdg && xdg[0] == '/') {
        if (strlen(xdg) >= sizeof(c->base) - 64) {
            snprintf(msg, mn, "XDG_STATE_HOME: path too long");
            return -1;
        }
        snprintf(c->base, sizeof(c->base), "%s", xdg);
        c->from = "XDG_STATE_HOME";
    } else {
        const char *home = home_dir();
        if (!home || strlen(home) >= sizeof(c->base) - 64) {
            snprintf(msg, mn, "no home directory (HOME unset and none in the password database)");
            return -1;
        }
        snprintf(c->base, sizeof(c->base), "%s", home);
        c->names[c->count++] = ".local";
        c->names[c->count++] = "state";
        c->from = "HOME";
    }
    c->names[c->count++] = "stencilmap";
    c->names[c->count++] = "learned";
    return 0;
}

int learned_store_path(const char *site_root, char *out, size_t n, const char **from, char *msg,
                       size_t mn)
{
    chain c;
    if (store_chain(site_root, &c, msg, mn))
        return -1;
    size_t at = (size_t)snprintf(out, n, "%s", c.base);
    for (int i = 0; i < c.count && at < n; i++)
        at += (size_t)snprintf(out + at, n - at, "/%s", c.names[i]);
    if (at >= n) {
        snprintf(msg, mn, "the store's path is too long");
        return -1;
    }
    if (from)
        *from = c.from;
    return 0;
}

static bool missing_at(int fd, const char *name)
{
    struct stat st;
    return fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0 && errno == ENOENT;
}

int learned_store_open(learned_store *s, const char *site_root, bool create, char *msg, size_t n)
{
    s->fd = -1;
    chain c;
    if (store_chain(site_root, &c, msg, n))
        return -1;
    snprintf(s->path, sizeof(s->path), "%s", c.base);
    /* XDG_STATE_HOME itself is made 0700 if missing, as the XDG rule says;
     * HOME and a site's root must exist */
    if (!strcmp(c.from, "XDG_STATE_HOME") && access(c.base, F_OK) && errno == ENOENT) {
        if (!create)
            return 1;
        if (mkdir(c.base, 0700) && errno != EEXIST) {
            snprintf(msg, n, "%s: cannot create: %s", c.base, strerror(errno));
            return -1;
        }
    }
    int fd = sm_dir_open(c.base, SM_DIR_SHARED, msg, n);
    if (fd < 0)
        return -1;
    for (int i = 0; i < c.count; i++) {
        size_t at = strlen(s->path);
        snprintf(s->path + at, sizeof(s->path) - at, "/%s", c.names[i]);
        if (!create && missing_at(fd, c.names[i])) {
            close(fd);
            return 1;
        }
        /* the last two (a site root's: the last one) are the user's alone */
        bool priv = i >= c.count - (strcmp(c.from, "learned_dir") ? 2 : 1);
        int next = sm_subdir_open(fd, s->path, c.names[i], priv ? SM_DIR_PRIVATE : SM_DIR_SHARED,
                                  create, msg, n);
        close(fd);
        if (next < 0)
            return -1;
        fd = next;
    }
    s->fd = fd;
    return 0;
}

void learned_store_close(learned_store *s)
{
    if (s->fd >= 0)
        close(s->fd);
    s->fd = -1;
}

int learned_store_profile_dir(const learned_store *s, char *out, size_t n, char *msg, size_t mn)
{
    char parent[PATH_MAX + 16];
    snprintf(parent, sizeof(parent), "%s/profiles", s->path);
    int pfd = sm_subdir_open(s->fd, parent, "profiles", SM_DIR_PRIVATE, true, msg, mn);
    if (pfd < 0)
        return -1;
    close(pfd);
    int fd = sm_private_dir_create(parent, out, n, msg, mn);
    if (fd < 0)
        return -1;
    close(fd);
    return 0;
}
