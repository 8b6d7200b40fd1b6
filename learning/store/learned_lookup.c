/* SPDX-License-Identifier: GPL-2.0-or-later */
/* See learned_lookup.h. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "learned_lookup.h"

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int learned_store_names(const learned_store *s, const char *key, char ***names, size_t *count)
{
    *names = NULL;
    *count = 0;
    int fd = dup(s->fd);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    rewinddir(d);
    size_t cap = 0;
    int rc = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        char k[LEARNED_KEY_MAX];
        learned_kind kind;
        int64_t ranks;
        if (!learned_entry_name_parse(de->d_name, k, sizeof(k), &kind, &ranks) ||
            (key && strcmp(k, key)))
            continue;
        if (*count == cap) {
            cap = cap ? 2 * cap : 16;
            char **grown = realloc(*names, cap * sizeof(char *));
            if (!grown) {
                rc = -1;
                break;
            }
            *names = grown;
        }
        if (!((*names)[*count] = strdup(de->d_name))) {
            rc = -1;
            break;
        }
        (*count)++;
    }
    closedir(d);
    if (rc) {
        learned_names_free(*names, *count);
        *names = NULL;
        *count = 0;
        return -1;
    }
    if (*count)
        qsort(*names, *count, sizeof(char *), by_name);
    return 0;
}

void learned_names_free(char **names, size_t count)
{
    for (size_t i = 0; i < count; i++)
        free(names[i]);
    free(names);
}

/* reads name into f->entry; false (f is BAD) when it cannot be read */
static bool read_entry(const learned_store *s, const char *name, learned_found *f)
{
    if (!learned_entry_read_at(s->fd, s->path, name, &f->entry, f->msg, sizeof(f->msg)))
        return true;
    f->kind = LEARNED_FOUND_BAD;
    return false;
}

static bool use_spec(learned_found *f, int64_t ranks)
{
    f->spec_json = learned_entry_spec_for(&f->entry, ranks, &f->regridded);
    if (f->spec_json) {
        f->kind = LEARNED_FOUND_SPEC;
        return true;
    }
    return false;
}

void learned_lookup(const learned_store *s, const char *key, int64_t ranks, time_t now,
                    learned_found *f)
{
    memset(f, 0, sizeof(*f));
    learned_entry_init(&f->entry);
    char **names;
    size_t count;
    if (learned_store_names(s, key, &names, &count)) {
        f->kind = LEARNED_FOUND_BAD;
        snprintf(f->msg, sizeof(f->msg), "%.900s: cannot list the store", s->path);
        return;
    }
    char exact[LEARNED_KEY_MAX + 64];
    learned_entry_name(exact, sizeof(exact), key, LEARNED_SPEC, ranks);
    const char *verdict = NULL;
    bool found = false;
    /* the spec of this very rank count */
    for (size_t i = 0; i < count && ranks > 0 && !found; i++)
        if (!strcmp(names[i], exact))
            found = !read_entry(s, names[i], f) || use_spec(f, ranks);
    /* a spec whose dims MPI_Dims_create gives for any count */
    for (size_t i = 0; i < count && !found; i++) {
        char k[LEARNED_KEY_MAX];
        learned_kind kind;
        int64_t r;
        learned_entry_name_parse(names[i], k, sizeof(k), &kind, &r);
        if (kind == LEARNED_NOT_STENCIL) {
            verdict = names[i];
            continue;
        }
        f->other_ranks = r;
        if (ranks <= 0)
            continue;
        if (!read_entry(s, names[i], f))
            found = true;
        else if (!use_spec(f, ranks))
            learned_entry_free(&f->entry);
        else
            found = true;
    }
    if (!found && verdict) {
        if (!read_entry(s, verdict, f))
            found = true;
        else if (f->entry.expires_at > now) {
            f->kind = LEARNED_FOUND_NOT_STENCIL;
            found = true;
        } else {
            f->expired_verdict = true;
            learned_entry_free(&f->entry);
        }
    }
    if (!found)
        f->kind = f->other_ranks ? LEARNED_FOUND_OTHER_RANKS : LEARNED_FOUND_NONE;
    learned_names_free(names, count);
}

void learned_found_free(learned_found *f)
{
    learned_entry_free(&f->entry);
    free(f->spec_json);
    f->spec_json = NULL;
}
