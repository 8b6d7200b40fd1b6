/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The network levels of a placed step in its tasks' environment, both
 * ways (stencil_env.h): the plugin writes the step's node names once and,
 * per level, the group of each node; the in-job check reads them to count
 * the stencil edges that cross groups where the ranks really run.  Only
 * user processes read these (slurmstepd never does), and the reader
 * trusts nothing: every name, group and length is checked. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <stencilmap/placement.h>

#include "formats/stencil_env.h"
#include "formats/stencil_env_msg.h"

_Static_assert(SMP_ENV_LEVELS_MAX_LEN < 128 * 1024, "below MAX_ARG_STRLEN");
_Static_assert(SMP_ENV_MAX_LEVELS == SMP_MAX_LEVELS, "the placement core's levels");

char *smp_env_format_level_nodes(char *const *names, int n, int *too_long)
{
    *too_long = 0;
    size_t need = 1;
    for (int i = 0; i < n; i++) {
        need += strlen(names[i]) + 1;
        if (need > SMP_ENV_LEVELS_MAX_LEN + 1) {
            *too_long = 1;
            return NULL;
        }
    }
    char *buf = malloc(need);
    if (!buf)
        return NULL;
    size_t off = 0;
    buf[0] = '\0';
    for (int i = 0; i < n; i++)
        off += (size_t)snprintf(buf + off, need - off, "%s%s", i ? "," : "", names[i]);
    return buf;
}

char *smp_env_format_levels(int32_t *const *group, int nlevels, int nnodes, int *too_long)
{
    *too_long = 0;
    /* an int32 and its separator take at most 11 characters */
    size_t cap = (size_t)nlevels * (size_t)nnodes * 11 + 1;
    if (cap > (size_t)SMP_ENV_LEVELS_MAX_LEN * 11 + 1)
        cap = (size_t)SMP_ENV_LEVELS_MAX_LEN * 11 + 1; /* the text is cut below anyway */
    char *buf = malloc(cap);
    if (!buf)
        return NULL;
    size_t off = 0;
    buf[0] = '\0';
    for (int l = 0; l < nlevels; l++)
        for (int i = 0; i < nnodes; i++) {
            off += (size_t)snprintf(buf + off, cap - off, "%s%d", i ? "," : (l ? ";" : ""),
                                    group[l][i]);
            if (off > SMP_ENV_LEVELS_MAX_LEN) {
                free(buf);
                *too_long = 1;
                return NULL;
            }
        }
    return buf;
}

void smp_env_levels_free(smp_env_levels *lv)
{
    if (!lv)
        return;
    if (lv->names)
        for (int i = 0; i < lv->nnodes; i++)
            free(lv->names[i]);
    free(lv->names);
    for (int l = 0; l < SMP_ENV_MAX_LEVELS; l++)
        free(lv->group[l]);
    free(lv->sorted);
    memset(lv, 0, sizeof(*lv));
}

static int name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '-' || c == '_' || c == '.';
}

/* names sorted with their indices (no global state: tasks may be threaded) */
struct named {
    const char *name;
    int32_t index;
};
static int cmp_named(const void *a, const void *b)
{
    return strcmp(((const struct named *)a)->name, ((const struct named *)b)->name);
}

static int parse_names(const char *s, smp_env_levels *lv, char *msg, size_t len)
{
    if (!*s)
        return smp_env_msg(msg, len, "%s: empty", SMP_ENV_LEVEL_NODES);
    int n = 1;
    for (const char *p = s; *p; p++)
        n += *p == ',';
    if (!(lv->names = calloc((size_t)n, sizeof(char *))) ||
        !(lv->sorted = malloc(sizeof(int32_t) * (size_t)n)))
        return smp_env_msg(msg, len, "%s: out of memory", SMP_ENV_LEVEL_NODES);
    const char *p = s;
    for (int i = 0; i < n; i++) {
        size_t l = strcspn(p, ",");
        if (l == 0 || l > SMP_ENV_NODE_NAME_MAX)
            return smp_env_msg(msg, len, "%s: name %d is %s", SMP_ENV_LEVEL_NODES, i + 1,
                          l ? "longer than 255 characters" : "empty");
        for (size_t k = 0; k < l; k++)
            if (!name_char(p[k]))
                return smp_env_msg(msg, len, "%s: name %d '%.*s' holds '%c' (letters, digits, "
                              "'-', '_' and '.' only)", SMP_ENV_LEVEL_NODES, i + 1,
                              (int)(l > 40 ? 40 : l), p, p[k]);
        if (!(lv->names[i] = strndup(p, l)))
            return smp_env_msg(msg, len, "%s: out of memory", SMP_ENV_LEVEL_NODES);
        lv->nnodes = i + 1;
        p += l + 1;
    }
    struct named *tmp = malloc(sizeof(*tmp) * (size_t)n);
    if (!tmp)
        return smp_env_msg(msg, len, "%s: out of memory", SMP_ENV_LEVEL_NODES);
    for (int i = 0; i < n; i++)
        tmp[i] = (struct named){lv->names[i], i};
    qsort(tmp, (size_t)n, sizeof(*tmp), cmp_named);
    for (int i = 0; i < n; i++)
        lv->sorted[i] = tmp[i].index;
    free(tmp);
    for (int i = 1; i < n; i++)
        if (!strcmp(lv->names[lv->sorted[i]], lv->names[lv->sorted[i - 1]]))
            return smp_env_msg(msg, len, "%s: node '%.60s' is listed twice", SMP_ENV_LEVEL_NODES,
                          lv->names[lv->sorted[i]]);
    return 0;
}

int smp_env_parse_levels(const char *nodes, const char *levels, smp_env_levels *lv, char *msg,
                         size_t len)
{
    memset(lv, 0, sizeof(*lv));
    if (strlen(nodes) > SMP_ENV_LEVELS_MAX_LEN || strlen(levels) > SMP_ENV_LEVELS_MAX_LEN)
        return smp_env_msg(msg, len, "%s: longer than %d bytes",
                      strlen(nodes) > SMP_ENV_LEVELS_MAX_LEN ? SMP_ENV_LEVEL_NODES : SMP_ENV_LEVELS,
                      SMP_ENV_LEVELS_MAX_LEN);
    if (parse_names(nodes, lv, msg, len))
        return -1;
    const char *p = levels;
    for (int l = 0;; l++) {
        if (l == SMP_ENV_MAX_LEVELS)
            return smp_env_msg(msg, len, "%s: more than %d levels", SMP_ENV_LEVELS, SMP_ENV_MAX_LEVELS);
        size_t seg = strcspn(p, ";");
        if (!(lv->group[l] = malloc(sizeof(int32_t) * (size_t)lv->nnodes)))
            return smp_env_msg(msg, len, "%s: out of memory", SMP_ENV_LEVELS);
        lv->nlevels = l + 1;
        const char *q = p;
        for (int i = 0; i < lv->nnodes; i++) {
            size_t k = 0;
            while (q + k < p + seg && q[k] != ',')
                k++;
            /* digits only, no leading zeros, below nnodes */
            int ok = k > 0 && k <= 10 && !(q[0] == '0' && k > 1);
            long long v = 0;
            for (size_t j = 0; ok && j < k; j++) {
                ok = q[j] >= '0' && q[j] <= '9';
                v = v * 10 + (q[j] - '0');
            }
            if (!ok || v >= lv->nnodes)
                return smp_env_msg(msg, len, "%s: level %d, node %d ('%.60s'): '%.*s' is not a group "
                              "index in [0, %d)", SMP_ENV_LEVELS, l, i + 1, lv->names[i],
                              (int)(k > 20 ? 20 : k), q, lv->nnodes);
            lv->group[l][i] = (int32_t)v;
            q += k;
            int last = i == lv->nnodes - 1;
            if (last ? q != p + seg : *q != ',')
                return smp_env_msg(msg, len, "%s: level %d has %s groups than the %d nodes of %s",
                              SMP_ENV_LEVELS, l, last ? "more" : "fewer", lv->nnodes,
                              SMP_ENV_LEVEL_NODES);
            q++;
        }
        if (!p[seg])
            break;
        p += seg + 1;
    }
    return 0;
}

int32_t smp_env_levels_group(const smp_env_levels *lv, int level, const char *name)
{
    if (level < 0 || level >= lv->nlevels)
        return -1;
    int lo = 0, hi = lv->nnodes - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        int c = strcmp(name, lv->names[lv->sorted[mid]]);
        if (!c)
            return lv->group[level][lv->sorted[mid]];
        if (c < 0)
            hi = mid - 1;
        else
            lo = mid + 1;
    }
    return -1;
}
