/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* topology.conf, as Slurm's tree and block plugins read it.
 *
 * Tree: "SwitchName=NAME [LinkSpeed=N] Nodes=HOSTLIST" for a leaf switch,
 * "SwitchName=NAME [LinkSpeed=N] Switches=HOSTLIST" above; a switch with
 * both or neither is refused, as Slurm refuses it.
 *
 * Block: "BlockName=NAME Nodes=HOSTLIST" in order, and the sizes of the
 * aggregated levels: "BlockSizes=N,M,..." (24.05 on; node counts, the
 * first the base block's, each a power-of-two multiple of it) or
 * "BlockLevels=LIST" (23.11: bit numbers such as 0-4), by default levels
 * 0 to 4.  A level of 2^k blocks aggregates consecutive blocks in file
 * order, starting at multiples of 2^k; a short tail is aggregated only
 * when it is larger than the level below, all as the block plugin's
 * block_record_validate() does (24.11, 26.05). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lines.h"

#define SMT_MAX_BLOCK_LEVELS 16 /* Slurm's MAX_BLOCK_LEVELS */

struct conf_state {
    smt_topology *t;
    struct smt_switch_rec *sw;
    int nsw, swcap;
    char **bnodes; /* block records: their Nodes text */
    int *bline;
    int nb, bcap;
    char *sizes;  /* BlockSizes, or BlockLevels */
    bool levels_given; /* BlockLevels (23.11) rather than BlockSizes */
    int sizes_line;
};

static smp_status set_kind(struct conf_state *c, enum smt_kind_e kind, const struct smt_line *l,
                           smp_error *err)
{
    if (c->t->kind == SMT_NONE || c->t->kind == kind) {
        c->t->kind = kind;
        return SMP_OK;
    }
    return smp_error_set(err, SMP_ERR_INPUT,
                         "%s:%d: %s: switches and blocks in one file (topology/tree reads "
                         "SwitchName, topology/block BlockName)",
                         c->t->source, l->number, l->p[0].key);
}

static smp_status name_check(const smt_topology *t, const struct smt_line *l, smp_error *err)
{
    const char *v = l->p[0].value;
    if (!smt_name_ok(v, strlen(v), false))
        return smp_error_set(err, SMP_ERR_INPUT,
                             "%s:%d: %s '%.80s': a name of 1 to %d letters, digits, '-', '_', '.'",
                             t->source, l->number, l->p[0].key, v, SMT_MAX_NAME);
    return SMP_OK;
}

static char *dup_or_null(const char *s)
{
    return s ? strdup(s) : NULL;
}

static smp_status switch_line(struct conf_state *c, const struct smt_line *l, smp_error *err)
{
    static const char *const keys[] = {"LinkSpeed", "Nodes", "Switches", NULL};
    smt_topology *t = c->t;
    smp_status s = set_kind(c, SMT_TREE, l, err);
    if (!s)
        s = name_check(t, l, err);
    if (!s)
        s = smt_keys_check(l, 1, keys, t->source, err);
    if (s)
        return s;
    const char *name = l->p[0].value, *nodes = smt_value(l, 1, "Nodes"),
               *switches = smt_value(l, 1, "Switches"), *speed = smt_value(l, 1, "LinkSpeed");
    uint32_t v = 0;
    if (speed && !smt_parse_u32(speed, &v))
        return smp_error_set(err, SMP_ERR_INPUT, "%s:%d: switch '%s': LinkSpeed '%.40s' is not "
                             "an unsigned 32-bit number", t->source, l->number, name, speed);
    if (nodes && switches)
        return smp_error_set(err, SMP_ERR_INPUT,
                             "%s:%d: switch '%s' has both child switches and nodes", t->source,
                             l->number, name);
    if (!nodes && !switches)
        return smp_error_set(err, SMP_ERR_INPUT,
                             "%s:%d: switch '%s' has neither child switches nor nodes", t->source,
                             l->number, name);
    int32_t u = smt_add_unit(t, name, strlen(name), nodes != NULL, l->number, err);
    if (u < 0)
        return err->status;
    t->u[u].link_speed = v;
    if (c->nsw == c->swcap) {
        int cap = c->swcap ? 2 * c->swcap : 64;
        struct smt_switch_rec *r = realloc(c->sw, sizeof(*r) * (size_t)cap);
        if (!r)
            return smp_error_set(err, SMP_ERR_SYSTEM, "%s: out of memory", t->source);
        c->sw = r;
        c->swcap = cap;
    }
    struct smt_switch_rec *r = &c->sw[c->nsw++];
    *r = (struct smt_switch_rec){.unit = u, .nodes = dup_or_null(nodes),
                                 .switches = dup_or_null(switches), .line = l->number};
    if ((nodes && !r->nodes) || (switches && !r->switches))
        return smp_error_set(err, SMP_ERR_SYSTEM, "%s: out of memory", t->source);
    return SMP_OK;
}

static smp_status block_line(struct conf_state *c, const struct smt_line *l, smp_error *err)
{
    static const char *const keys[] = {"Nodes", NULL};
    smt_topology *t = c->t;
    smp_status s = set_kind(c, SMT_BLOCK, l, err);
    if (!s)
        s = name_check(t, l, err);
    if (!s)
        s = smt_keys_check(l, 1, keys, t->source, err);
    if (s)
        return s;
    const char *name = l->p[0].value, *nodes = smt_value(l, 1, "Nodes");
    if (!nodes)
        return smp_error_set(err, SMP_ERR_INPUT, "%s:%d: block '%s' has no Nodes=", t->source,
                             l->number, name);
    if (smt_add_unit(t, name, strlen(name), true, l->number, err) < 0)
        return err->status;
    if (c->nb == c->bcap) {
        int cap = c->bcap ? 2 * c->bcap : 64;
        char **bn = realloc(c->bnodes, sizeof(char *) * (size_t)cap);
        if (bn)
            c->bnodes = bn;
        int *bl = realloc(c->bline, sizeof(int) * (size_t)cap);
        if (bl)
            c->bline = bl;
        if (!bn || !bl)
            return smp_error_set(err, SMP_ERR_SYSTEM, "%s: out of memory", t->source);
        c->bcap = cap;
    }
    c->bline[c->nb] = l->number;
    if (!(c->bnodes[c->nb++] = strdup(nodes)))
        return smp_error_set(err, SMP_ERR_SYSTEM, "%s: out of memory", t->source);
    return SMP_OK;
}

static smp_status sizes_line(struct conf_state *c, const struct smt_line *l, bool levels,
                             smp_error *err)
{
    smt_topology *t = c->t;
    smp_status s = set_kind(c, SMT_BLOCK, l, err);
    if (s)
        return s;
    if (l->npairs > 1)
        return smp_error_set(err, SMP_ERR_INPUT, "%s:%d: %s: nothing else on its line", t->source,
                             l->number, l->p[0].key);
    if (c->sizes)
        return smp_error_set(err, SMP_ERR_INPUT, "%s:%d: %s: block sizes already given on line %d",
                             t->source, l->number, l->p[0].key, c->sizes_line);
    c->levels_given = levels;
    c->sizes_line = l->number;
    if (!(c->sizes = strdup(l->p[0].value)))
        return smp_error_set(err, SMP_ERR_SYSTEM, "%s: out of memory", t->source);
    return SMP_OK;
}

/* The aggregation levels that are set (bits of Slurm's block_levels), and
 * the base block's node count when BlockSizes gives it (else 0). */
static smp_status block_levels(const struct conf_state *c, bool *level, uint32_t *base,
                               smp_error *err)
{
    const smt_topology *t = c->t;
    memset(level, 0, sizeof(bool) * SMT_MAX_BLOCK_LEVELS);
    *base = 0;
    if (!c->sizes) { /* Slurm's default: levels 0 to 4 */
        for (int k = 0; k <= 4; k++)
            level[k] = true;
        return SMP_OK;
    }
    const char *what = c->levels_given ? "BlockLevels" : "BlockSizes";
    char *copy = strdup(c->sizes), *save = NULL;
    if (!copy)
        return smp_error_set(err, SMP_ERR_SYSTEM, "%s: out of memory", t->source);
    smp_status s = SMP_OK;
    int count = 0;
    for (char *tok = strtok_r(copy, ",", &save); tok && !s; tok = strtok_r(NULL, ",", &save)) {
        count++;
        uint32_t lo, hi;
        char *dash = c->levels_given ? strchr(tok, '-') : NULL;
        if (dash)
            *dash = '\0';
        bool ok = smt_parse_u32(tok, &lo) && (!dash || smt_parse_u32(dash + 1, &hi));
        if (!dash)
            hi = lo;
        if (c->levels_given) { /* bit numbers: 0-4, 0,2,3 */
            if (!ok || lo > hi || hi >= SMT_MAX_BLOCK_LEVELS) {
                s = smp_error_set(err, SMP_ERR_INPUT,
                                  "%s:%d: BlockLevels '%.80s': levels from 0 to %d, as 0-4 or 0,2,3",
                                  t->source, c->sizes_line, c->sizes, SMT_MAX_BLOCK_LEVELS - 1);
                break;
            }
            for (uint32_t k = lo; k <= hi; k++)
                level[k] = true;
            continue;
        }
        if (!ok || lo == 0) {
            s = smp_error_set(err, SMP_ERR_INPUT, "%s:%d: %s '%.80s': '%.20s' is not a positive "
                              "node count", t->source, c->sizes_line, what, c->sizes, tok);
            break;
        }
        if (!*base)
            *base = lo;
        uint32_t ratio = lo / *base;
        if (lo % *base || (ratio & (ratio - 1)) || ratio > (1u << 15)) {
            s = smp_error_set(err, SMP_ERR_INPUT,
                              "%s:%d: %s '%.80s': %u is not the first size (%u) times a power of "
                              "two up to 2^15", t->source, c->sizes_line, what, c->sizes, lo, *base);
            break;
        }
        int k = 0;
        while ((1u << k) < ratio)
            k++;
        level[k] = true;
    }
    if (!s && count == 0)
        s = smp_error_set(err, SMP_ERR_INPUT, "%s:%d: %s: empty", t->source, c->sizes_line, what);
    free(copy);
    return s;
}

/* A report name for the aggregate of base blocks [first, first + count):
 * "b[1-4]" when the names are a prefix and consecutive numbers of one
 * width, else "b1,...,b4" (Slurm prints the hostlist form). */
static char *aggregate_name(const smt_topology *t, int first, int count)
{
    char buf[2 * SMT_MAX_NAME + 32];
    const char *a = t->u[first].name, *z = t->u[first + count - 1].name;
    size_t la = strlen(a), p = la;
    while (p > 0 && a[p - 1] >= '0' && a[p - 1] <= '9')
        p--;
    bool numbered = p < la && la - p <= 9;
    long lo = numbered ? strtol(a + p, NULL, 10) : 0;
    for (int i = 0; i < count && numbered; i++) {
        const char *n = t->u[first + i].name;
        numbered = strlen(n) == la && !strncmp(n, a, p) && strtol(n + p, NULL, 10) == lo + i;
        for (size_t j = p; j < la && numbered; j++)
            numbered = n[j] >= '0' && n[j] <= '9';
    }
    if (count == 1)
        snprintf(buf, sizeof(buf), "%s", a);
    else if (numbered)
        snprintf(buf, sizeof(buf), "%.*s[%s-%s]", (int)p, a, a + p, z + p);
    else
        snprintf(buf, sizeof(buf), "%s,...,%s", a, z);
    return strdup(buf);
}

/* Slurm takes the base size from the first block when BlockSizes does
 * not give it (base 0), and refuses a block with fewer nodes. */
static smp_status check_base_size(const struct conf_state *c, uint32_t base, smp_error *err)
{
    const smt_topology *t = c->t;
    int nb = c->nb;
    int64_t *count = calloc((size_t)nb, sizeof(int64_t));
    if (!count)
        return smp_error_set(err, SMP_ERR_SYSTEM, "%s: out of memory", t->source);
    for (int64_t m = 0; m < t->nm; m++)
        count[t->m[m].unit]++;
    if (!base)
        base = (uint32_t)count[0];
    smp_status s = SMP_OK;
    for (int i = 0; i < nb && !s; i++)
        if (count[i] < base)
            s = smp_error_set(err, SMP_ERR_INPUT,
                              "%s:%d: block '%s' has %lld nodes, fewer than the base block's %u",
                              t->source, c->bline[i], t->u[i].name, (long long)count[i], base);
    free(count);
    return s;
}

/* The sizes in blocks of the levels given, up to the first that holds all
 * nb blocks; their count. */
static int level_sizes(const bool *level, int nb, int64_t *size)
{
    int nsizes = 0;
    for (int k = 0; k < SMT_MAX_BLOCK_LEVELS; k++)
        if (level[k]) {
            size[nsizes++] = (int64_t)1 << k;
            if (size[nsizes - 1] >= nb)
                break;
        }
    return nsizes;
}

/* The aggregates made so far: per aggregate, its first base block. */
struct aggregates {
    int32_t *first_of;
    int n, cap;
};

/* A new aggregate unit of span base blocks from block i into *a, its first
 * block recorded in ag. */
static smp_status open_aggregate(struct conf_state *c, int i, int span, struct aggregates *ag,
                                 int32_t *a, smp_error *err)
{
    smt_topology *t = c->t;
    char *name = aggregate_name(t, i, span);
    if (!name)
        return smp_error_set(err, SMP_ERR_SYSTEM, "%s: out of memory", t->source);
    *a = smt_add_unit(t, name, strlen(name), false, c->bline[i], err);
    free(name);
    if (*a < 0)
        return err->status;
    if (ag->n == ag->cap) {
        ag->cap = ag->cap ? 2 * ag->cap : 64;
        int32_t *f = realloc(ag->first_of, sizeof(int32_t) * (size_t)ag->cap);
        if (!f)
            return smp_error_set(err, SMP_ERR_SYSTEM, "%s: out of memory", t->source);
        ag->first_of = f;
    }
    ag->first_of[ag->n++] = i;
    return SMP_OK;
}

/* agg_of[i * nsizes + j]: base block i's aggregate of level j, or -1 (level
 * 0, or a short tail that level skips); each aggregate is opened at its
 * first block. */
static smp_status aggregate_blocks(struct conf_state *c, const int64_t *size, int nsizes,
                                   int32_t *agg_of, struct aggregates *ag, smp_error *err)
{
    int nb = c->nb;
    int32_t open_agg[SMT_MAX_BLOCK_LEVELS]; /* the aggregate filling at each level */
    for (int j = 0; j < nsizes; j++)
        open_agg[j] = -1;
    smp_status s = SMP_OK;
    for (int i = 0; i < nb && !s; i++) {
        for (int j = 0; j < nsizes; j++)
            agg_of[(size_t)i * nsizes + j] = -1;
        for (int j = 1; j < nsizes && !s; j++) {
            if (i % size[j] == 0) {
                int64_t remaining = nb - i;
                if (size[j] > remaining && size[j - 1] >= remaining) {
                    open_agg[j] = -1;
                    continue;
                }
                int64_t span = size[j] < remaining ? size[j] : remaining;
                if ((s = open_aggregate(c, i, (int)span, ag, &open_agg[j], err)))
                    break;
            }
            agg_of[(size_t)i * nsizes + j] = open_agg[j];
        }
    }
    return s;
}

/* Parents: a base block's is its aggregate of the first level above, an
 * aggregate's the one of the next level holding its first block (if a
 * level skips a tail, every level above skips it too). */
static void link_parents(smt_topology *t, int nb, const int32_t *agg_of, int nsizes,
                         const int32_t *first_of)
{
    for (int i = 0; i < nb; i++)
        for (int j = 1; j < nsizes; j++) {
            int32_t a = agg_of[(size_t)i * nsizes + j];
            if (a < 0)
                break;
            if (j == 1)
                t->u[i].parent = a;
            if (j + 1 < nsizes && first_of[a - nb] == i)
                t->u[a].parent = agg_of[(size_t)i * nsizes + j + 1];
        }
}

/* Base blocks, their nodes, and the aggregated levels above them. */
static smp_status build_blocks(struct conf_state *c, smp_error *err)
{
    smt_topology *t = c->t;
    int nb = c->nb;
    smp_status s = smt_index_units(t, err); /* duplicate names */
    for (int i = 0; i < nb && !s; i++) {
        char what[256];
        snprintf(what, sizeof(what), "%s:%d: block '%s': Nodes", t->source, c->bline[i],
                 t->u[i].name);
        s = smt_add_members(t, i, c->bnodes[i], what, err);
    }
    bool level[SMT_MAX_BLOCK_LEVELS];
    uint32_t base = 0;
    if (!s)
        s = block_levels(c, level, &base, err);
    if (!s)
        s = check_base_size(c, base, err);
    if (s)
        return s;
    int64_t size[SMT_MAX_BLOCK_LEVELS];
    int nsizes = level_sizes(level, nb, size);
    struct aggregates ag = {0};
    int32_t *agg_of = malloc(sizeof(int32_t) * (size_t)nb * (size_t)(nsizes ? nsizes : 1));
    if (!agg_of)
        return smp_error_set(err, SMP_ERR_SYSTEM, "%s: out of memory", t->source);
    s = aggregate_blocks(c, size, nsizes, agg_of, &ag, err);
    if (!s)
        link_parents(t, nb, agg_of, nsizes, ag.first_of);
    free(agg_of);
    free(ag.first_of);
    if (!s)
        s = smt_finish(t, err);
    return s;
}

static void state_free(struct conf_state *c)
{
    for (int i = 0; i < c->nsw; i++) {
        free(c->sw[i].nodes);
        free(c->sw[i].switches);
    }
    free(c->sw);
    for (int i = 0; i < c->nb; i++)
        free(c->bnodes[i]);
    free(c->bnodes);
    free(c->bline);
    free(c->sizes);
}

smp_status smt_blocks_build(smt_topology *t, char **nodes, int *lines, int n, char *sizes,
                            int sizes_line, smp_error *err)
{
    struct conf_state c = {.t = t, .bnodes = nodes, .bline = lines, .nb = n, .bcap = n,
                           .sizes = sizes, .sizes_line = sizes_line};
    return build_blocks(&c, err); /* c owns nothing: the caller frees */
}

smp_status smt_parse_conf(const char *text, size_t len, const char *source, smt_topology **out,
                          smp_error *err)
{
    *out = NULL;
    char src[128];
    snprintf(src, sizeof(src), "%s", source ? source : "topology.conf");
    if (len > SMT_MAX_BYTES)
        return smp_error_set(err, SMP_ERR_INPUT, "%s: %zu bytes, larger than the limit of %d",
                             src, len, SMT_MAX_BYTES);
    struct conf_state c = {.t = smt_new(SMT_NONE, src)};
    if (!c.t)
        return smp_error_set(err, SMP_ERR_SYSTEM, "%s: out of memory", src);
    struct smt_reader r = {.text = text, .end = text + len, .conf = true, .source = c.t->source};
    struct smt_line l;
    int got;
    smp_status s = SMP_OK;
    while (!s && (got = smt_next_line(&r, &l, NULL, err)) > 0) {
        const char *k = l.p[0].key;
        if (!strcasecmp(k, "SwitchName"))
            s = switch_line(&c, &l, err);
        else if (!strcasecmp(k, "BlockName"))
            s = block_line(&c, &l, err);
        else if (!strcasecmp(k, "BlockSizes"))
            s = sizes_line(&c, &l, false, err);
        else if (!strcasecmp(k, "BlockLevels"))
            s = sizes_line(&c, &l, true, err);
        else
            s = smp_error_set(err, SMP_ERR_INPUT,
                              "%s:%d: unknown key '%.40s' (SwitchName, BlockName, BlockSizes, "
                              "BlockLevels)", c.t->source, l.number, k);
        smt_line_free(&l);
    }
    if (!s && got < 0)
        s = err->status;
    if (!s && c.t->kind == SMT_NONE)
        s = smp_error_set(err, SMP_ERR_INPUT, "%s: no SwitchName or BlockName lines", src);
    if (!s && c.t->kind == SMT_BLOCK && c.nb == 0)
        s = smp_error_set(err, SMP_ERR_INPUT, "%s: block sizes but no BlockName lines", src);
    if (!s && c.t->kind == SMT_TREE)
        s = smt_tree_build(c.t, c.sw, c.nsw, err);
    if (!s && c.t->kind == SMT_BLOCK)
        s = build_blocks(&c, err);
    state_free(&c);
    if (s) {
        smt_free(c.t);
        return s;
    }
    *out = c.t;
    return SMP_OK;
}
