/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* topology.yaml, which Slurm reads from 25.05 on instead of topology.conf:
 * a list of named topologies (or one, as a mapping), each with
 * "topology: NAME", "cluster_default: BOOL" and one of
 *   tree:  {switches: [{switch: NAME, children: HOSTLIST | nodes: HOSTLIST}]}
 *   block: {block_sizes: [N, ...], blocks: [{block: NAME, nodes: HOSTLIST}]}
 *   flat:  true, or {alpha_step_rank: BOOL}
 *   ring:, torus3d: (26.05; recognised, never planned on).
 * Read with libyaml's event parser, so that nothing is built beyond what
 * the file says: aliases are refused (no blow-up), nesting is bounded.
 * Every topology is checked for form; the chosen one (by name, else the
 * first with cluster_default: true, else the first, as slurmctld picks)
 * is built into the model through the same code as topology.conf's
 * switches and blocks (tree.c, conf.c), so both syntaxes plan alike. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <yaml.h>

#include "lines.h"

#define Y_MAX_DEPTH 32  /* nesting skipped inside ring: and torus3d: */
#define Y_MAX_SIZES 16  /* block_sizes entries (Slurm's MAX_BLOCK_LEVELS) */

struct yunit {        /* a switch or a block as read */
    char *name, *nodes, *children;
    int line;
};

struct ytopo {
    char *name;
    char label[SMT_MAX_NAME + 16]; /* "topology 'NAME'" or "topology 2" */
    int line, sizes_line;
    uint32_t base; /* block_sizes' first, 0 before it */
    int nsizes;
    bool is_default;
    const char *kind; /* "tree", "block", "flat", "ring", "torus3d"; NULL: none */
    struct yunit *u;
    int n, cap;
    char sizes[Y_MAX_SIZES * 12]; /* block_sizes as BlockSizes' text, "" if none */
};

struct yreader {
    yaml_parser_t p;
    yaml_event_t ev;
    bool have; /* ev holds an event to delete */
    const char *text, *src;
    smp_error *err;
    struct ytopo *top;
    int ntop, topcap;
    int64_t units; /* topologies, switches and blocks, against SMT_MAX_UNITS */
    int key_line;  /* the line of the key whose value is being read */
};

typedef smp_status (*key_fn)(struct yreader *r, const char *key, void *arg);
typedef smp_status (*item_fn)(struct yreader *r, void *arg);

static int line_of(const struct yreader *r)
{
    return (int)r->ev.start_mark.line + 1;
}

/* An input error at line: "FILE:LINE: ..." */
__attribute__((format(printf, 3, 4))) static smp_status fail_at(struct yreader *r, int line,
                                                                const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return smp_error_set(r->err, SMP_ERR_INPUT, "%s:%d: %s", r->src, line, msg);
}

/* ... at the current event */
#define fail(r, ...) fail_at((r), line_of(r), __VA_ARGS__)

static smp_status parse_error(struct yreader *r)
{
    const yaml_parser_t *p = &r->p;
    if (p->error == YAML_MEMORY_ERROR)
        return smp_error_set(r->err, SMP_ERR_SYSTEM, "%s: out of memory", r->src);
    int line = (int)p->problem_mark.line + 1;
    if (p->error == YAML_READER_ERROR) { /* bad bytes: only an offset is known */
        line = 1;
        for (size_t i = 0; i < p->problem_offset && r->text[i]; i++)
            line += r->text[i] == '\n';
    }
    return smp_error_set(r->err, SMP_ERR_INPUT, "%s:%d: not valid YAML: %s%s%s", r->src, line,
                         p->problem ? p->problem : "cannot parse", p->context ? " " : "",
                         p->context ? p->context : "");
}

static smp_status next(struct yreader *r)
{
    if (r->have)
        yaml_event_delete(&r->ev);
    r->have = false;
    if (!yaml_parser_parse(&r->p, &r->ev))
        return parse_error(r);
    r->have = true;
    if (r->ev.type == YAML_ALIAS_EVENT)
        return fail(r, "an alias (*%.40s): topology.yaml is read without aliases",
                    (const char *)r->ev.data.alias.anchor);
    return SMP_OK;
}

static const char *event_name(const struct yreader *r)
{
    switch (r->ev.type) {
    case YAML_SCALAR_EVENT: return "a value";
    case YAML_SEQUENCE_START_EVENT: return "a list";
    case YAML_MAPPING_START_EVENT: return "a mapping";
    default: return "the end of a block";
    }
}

/* The current scalar, copied; at most max bytes, no NUL ("\0" escapes). */
static smp_status scalar(struct yreader *r, const char *field, size_t max, char **out)
{
    if (r->ev.type != YAML_SCALAR_EVENT)
        return fail(r, "%s: a value expected, found %s", field, event_name(r));
    const char *v = (const char *)r->ev.data.scalar.value;
    size_t len = r->ev.data.scalar.length;
    if (len > max)
        return fail(r, "%s: a value of %zu bytes, longer than the limit of %zu", field, len, max);
    if (memchr(v, '\0', len))
        return fail(r, "%s: a NUL character", field);
    free(*out);
    if (!(*out = strndup(v, len)))
        return smp_error_set(r->err, SMP_ERR_SYSTEM, "%s: out of memory", r->src);
    return SMP_OK;
}

static smp_status boolean(struct yreader *r, const char *field, bool *v)
{
    static const char *const yes[] = {"true", "yes", "on"}, *const no[] = {"false", "no", "off"};
    if (r->ev.type != YAML_SCALAR_EVENT)
        return fail(r, "%s: true or false expected, found %s", field, event_name(r));
    const char *s = (const char *)r->ev.data.scalar.value;
    for (int i = 0; i < 3; i++) {
        if (!strcasecmp(s, yes[i]) || !strcasecmp(s, no[i])) {
            *v = !strcasecmp(s, yes[i]);
            return SMP_OK;
        }
    }
    return fail(r, "%s: '%.40s' is not true or false", field, s);
}

/* Passes over the current node (a value, or a list or mapping to its end). */
static smp_status skip(struct yreader *r)
{
    int depth = r->ev.type == YAML_SEQUENCE_START_EVENT || r->ev.type == YAML_MAPPING_START_EVENT;
    while (depth > 0) {
        smp_status s = next(r);
        if (s)
            return s;
        if (r->ev.type == YAML_SEQUENCE_START_EVENT || r->ev.type == YAML_MAPPING_START_EVENT) {
            if (++depth > Y_MAX_DEPTH)
                return fail(r, "nested deeper than %d levels", Y_MAX_DEPTH);
        } else if (r->ev.type == YAML_SEQUENCE_END_EVENT || r->ev.type == YAML_MAPPING_END_EVENT) {
            depth--;
        }
    }
    return SMP_OK;
}

/* The current mapping: each key must be one of keys (NULL-terminated) and
 * appear once; fn reads its value, the current event on return being the
 * value's last. */
static smp_status each_key(struct yreader *r, const char *field, const char *const *keys,
                           key_fn fn, void *arg)
{
    if (r->ev.type != YAML_MAPPING_START_EVENT)
        return fail(r, "%s: a mapping (key: value) expected, found %s", field, event_name(r));
    unsigned seen = 0;
    for (;;) {
        smp_status s = next(r);
        if (s || r->ev.type == YAML_MAPPING_END_EVENT)
            return s;
        if (r->ev.type != YAML_SCALAR_EVENT)
            return fail(r, "%s: a key that is %s", field, event_name(r));
        const char *k = (const char *)r->ev.data.scalar.value;
        int i = 0;
        while (keys[i] && strcmp(keys[i], k))
            i++;
        if (!keys[i]) {
            char known[160] = "";
            for (int j = 0; keys[j]; j++)
                snprintf(known + strlen(known), sizeof(known) - strlen(known), "%s%s",
                         j ? ", " : "", keys[j]);
            return fail(r, "%s: unknown key '%.40s' (%s)", field, k, known);
        }
        if (seen & (1u << i))
            return fail(r, "%s: '%s' given twice", field, keys[i]);
        seen |= 1u << i;
        r->key_line = line_of(r);
        if ((s = next(r)) || (s = fn(r, keys[i], arg)))
            return s;
    }
}

/* The current list, fn on each item; a single mapping is a list of one. */
static smp_status each_item(struct yreader *r, const char *field, item_fn fn, void *arg)
{
    if (r->ev.type == YAML_MAPPING_START_EVENT)
        return fn(r, arg);
    if (r->ev.type != YAML_SEQUENCE_START_EVENT)
        return fail(r, "%s: a list expected, found %s", field, event_name(r));
    for (;;) {
        smp_status s = next(r);
        if (s || r->ev.type == YAML_SEQUENCE_END_EVENT)
            return s;
        if ((s = fn(r, arg)))
            return s;
    }
}

static smp_status count_unit(struct yreader *r)
{
    if (++r->units > SMT_MAX_UNITS)
        return fail(r, "more than %d topologies, switches and blocks", SMT_MAX_UNITS);
    return SMP_OK;
}

/* ---- switches and blocks ---------------------------------------------- */
struct unit_ctx {
    struct ytopo *t;
    const char *kind; /* "switch" or "block": also the key of its name */
    struct yunit u;
};

static smp_status unit_key(struct yreader *r, const char *key, void *arg)
{
    struct unit_ctx *c = arg;
    char field[sizeof(c->t->label) + 40];
    snprintf(field, sizeof(field), "%s: %s%s", c->t->label, c->kind, c->kind[0] == 's' ? "es" : "s");
    char sub[sizeof(field) + 16];
    snprintf(sub, sizeof(sub), "%s: %s", field, key);
    if (!strcmp(key, "nodes"))
        return scalar(r, sub, SMT_MAX_LINE, &c->u.nodes);
    if (!strcmp(key, "children"))
        return scalar(r, sub, SMT_MAX_LINE, &c->u.children);
    smp_status s = scalar(r, sub, SMT_MAX_NAME + 64, &c->u.name);
    if (!s && !smt_name_ok(c->u.name, strlen(c->u.name), false))
        s = fail(r, "%s: %s '%.80s': a name of 1 to %d letters, digits, '-', '_', '.'", field,
                 c->kind, c->u.name, SMT_MAX_NAME);
    return s;
}

static smp_status unit_check(struct yreader *r, const struct unit_ctx *c)
{
    const char *k = c->kind, *lb = c->t->label;
    int line = c->u.line;
    if (!c->u.name)
        return fail_at(r, line, "%s: a %s without '%s: NAME'", lb, k, k);
    if (!strcmp(k, "block") && !c->u.nodes)
        return fail_at(r, line, "%s: block '%s' has no nodes", lb, c->u.name);
    if (c->u.nodes && c->u.children)
        return fail_at(r, line, "%s: switch '%s' has both children and nodes", lb, c->u.name);
    if (!c->u.nodes && !c->u.children)
        return fail_at(r, line, "%s: switch '%s' has neither children nor nodes", lb, c->u.name);
    return SMP_OK;
}

static smp_status unit_item(struct yreader *r, struct ytopo *t, const char *kind)
{
    static const char *const sw_keys[] = {"switch", "children", "nodes", NULL},
                             *const bl_keys[] = {"block", "nodes", NULL};
    struct unit_ctx c = {.t = t, .kind = kind, .u = {.line = line_of(r)}};
    char field[sizeof(t->label) + 40];
    snprintf(field, sizeof(field), "%s: %s", t->label, kind[0] == 's' ? "switches" : "blocks");
    smp_status s = each_key(r, field, kind[0] == 's' ? sw_keys : bl_keys, unit_key, &c);
    if (!s)
        s = unit_check(r, &c);
    if (!s)
        s = count_unit(r);
    if (!s && t->n == t->cap) {
        int cap = t->cap ? 2 * t->cap : 16;
        struct yunit *u = realloc(t->u, sizeof(*u) * (size_t)cap);
        if (!u)
            s = smp_error_set(r->err, SMP_ERR_SYSTEM, "%s: out of memory", r->src);
        else {
            t->u = u;
            t->cap = cap;
        }
    }
    if (s) {
        free(c.u.name);
        free(c.u.nodes);
        free(c.u.children);
        return s;
    }
    t->u[t->n++] = c.u;
    return SMP_OK;
}

static smp_status switch_item(struct yreader *r, void *arg)
{
    return unit_item(r, arg, "switch");
}

static smp_status block_item(struct yreader *r, void *arg)
{
    return unit_item(r, arg, "block");
}

/* ---- block_sizes: node counts, the first the base block's, each a
 * power-of-two multiple of it (as BlockSizes= in topology.conf) ---------- */
static smp_status size_item(struct yreader *r, void *arg)
{
    struct ytopo *t = arg;
    if (r->ev.type != YAML_SCALAR_EVENT)
        return fail(r, "%s: block_sizes: a number expected, found %s", t->label, event_name(r));
    const char *v = (const char *)r->ev.data.scalar.value;
    uint32_t n, base = t->base;
    if (!smt_parse_u32(v, &n) || n == 0)
        return fail(r, "%s: block_sizes: '%.20s' is not a positive node count", t->label, v);
    if (!base)
        t->base = n;
    uint32_t ratio = base ? n / base : 1;
    if (base && (n % base || (ratio & (ratio - 1)) || ratio > (1u << 15)))
        return fail(r, "%s: block_sizes: %u is not the first size (%u) times a power of two up "
                    "to 2^15", t->label, n, base);
    if (++t->nsizes > Y_MAX_SIZES)
        return fail(r, "%s: block_sizes: more than %d sizes", t->label, Y_MAX_SIZES);
    size_t len = strlen(t->sizes); /* 11 bytes a size at most: always room */
    snprintf(t->sizes + len, sizeof(t->sizes) - len, "%s%u", len ? "," : "", n);
    return SMP_OK;
}

static smp_status block_key(struct yreader *r, const char *key, void *arg)
{
    struct ytopo *t = arg;
    if (!strcmp(key, "blocks"))
        return each_item(r, "blocks", block_item, t);
    t->sizes_line = line_of(r);
    if (r->ev.type == YAML_SCALAR_EVENT) /* a single size */
        return size_item(r, t);
    if (r->ev.type != YAML_SEQUENCE_START_EVENT)
        return fail(r, "%s: block_sizes: a list of node counts expected", t->label);
    smp_status s = each_item(r, "block_sizes", size_item, t);
    if (!s && !t->sizes[0])
        s = fail(r, "%s: block_sizes: empty", t->label);
    return s;
}

static smp_status tree_key(struct yreader *r, const char *key, void *arg)
{
    (void)key; /* only switches */
    return each_item(r, "switches", switch_item, arg);
}

static smp_status flat_key(struct yreader *r, const char *key, void *arg)
{
    bool v;
    (void)arg;
    return boolean(r, key, &v);
}

/* ---- a topology ------------------------------------------------------- */
static smp_status set_kind(struct yreader *r, struct ytopo *t, const char *kind)
{
    if (t->kind)
        return fail_at(r, r->key_line, "%s: both %s and %s (tree, block, flat, ring and "
                       "torus3d exclude each other)", t->label, t->kind, kind);
    t->kind = kind;
    return SMP_OK;
}

static smp_status topo_key(struct yreader *r, const char *key, void *arg)
{
    static const char *const tree_keys[] = {"switches", NULL},
                             *const block_keys[] = {"block_sizes", "blocks", NULL},
                             *const flat_keys[] = {"alpha_step_rank", NULL};
    struct ytopo *t = arg;
    char field[sizeof(t->label) + 16];
    snprintf(field, sizeof(field), "%s: %s", t->label, key);
    smp_status s = SMP_OK;
    if (!strcmp(key, "topology")) {
        s = scalar(r, "topology", SMT_MAX_NAME + 64, &t->name);
        if (!s && !smt_name_ok(t->name, strlen(t->name), false))
            return fail(r, "topology '%.80s': a name of 1 to %d letters, digits, '-', '_', '.'",
                        t->name, SMT_MAX_NAME);
        if (!s)
            snprintf(t->label, sizeof(t->label), "topology '%s'", t->name);
        return s;
    }
    if (!strcmp(key, "cluster_default"))
        return boolean(r, field, &t->is_default);
    bool on = true;
    if (!strcmp(key, "flat") && r->ev.type == YAML_SCALAR_EVENT && (s = boolean(r, field, &on)))
        return s;
    if (!on) /* flat: false says nothing */
        return SMP_OK;
    if ((s = set_kind(r, t, key)))
        return s;
    if (!strcmp(key, "tree"))
        return each_key(r, field, tree_keys, tree_key, t);
    if (!strcmp(key, "block"))
        return each_key(r, field, block_keys, block_key, t);
    if (!strcmp(key, "flat"))
        return r->ev.type == YAML_SCALAR_EVENT ? SMP_OK : each_key(r, field, flat_keys, flat_key, t);
    return skip(r); /* ring, torus3d: another network, read when chosen (an error) */
}

static smp_status topo_check(struct yreader *r, const struct ytopo *t)
{
    int line = t->line;
    if (!t->name)
        return fail_at(r, line, "%s: no 'topology: NAME'", t->label);
    if (!t->kind)
        return fail_at(r, line, "%s: none of tree, block, flat, ring or torus3d", t->label);
    if (!strcmp(t->kind, "tree") && t->n == 0)
        return fail_at(r, line, "%s: tree: no switches", t->label);
    if (!strcmp(t->kind, "block") && t->n == 0)
        return fail_at(r, line, "%s: block: no blocks", t->label);
    return SMP_OK;
}

static int cmp_topo(const void *a, const void *b)
{
    const struct ytopo *x = *(const struct ytopo *const *)a, *y = *(const struct ytopo *const *)b;
    int c = strcmp(x->name, y->name);
    return c ? c : (x->line > y->line) - (x->line < y->line);
}

/* Topology names are unique: sorted, so that a file of many stays fast. */
static smp_status names_unique(struct yreader *r)
{
    const struct ytopo **v = malloc(sizeof(*v) * (size_t)r->ntop);
    if (!v)
        return smp_error_set(r->err, SMP_ERR_SYSTEM, "%s: out of memory", r->src);
    for (int i = 0; i < r->ntop; i++)
        v[i] = &r->top[i];
    qsort(v, (size_t)r->ntop, sizeof(*v), cmp_topo);
    smp_status s = SMP_OK;
    for (int i = 1; i < r->ntop && !s; i++)
        if (!strcmp(v[i - 1]->name, v[i]->name))
            s = fail_at(r, v[i]->line, "%s is already defined on line %d", v[i]->label,
                        v[i - 1]->line);
    free(v);
    return s;
}

static smp_status topo_item(struct yreader *r, void *arg)
{
    static const char *const keys[] = {"topology", "cluster_default", "tree", "block",
                                       "flat", "ring", "torus3d", NULL};
    (void)arg;
    smp_status s = count_unit(r);
    if (!s && r->ntop == r->topcap) {
        int cap = r->topcap ? 2 * r->topcap : 8;
        struct ytopo *t = realloc(r->top, sizeof(*t) * (size_t)cap);
        if (!t)
            return smp_error_set(r->err, SMP_ERR_SYSTEM, "%s: out of memory", r->src);
        r->top = t;
        r->topcap = cap;
    }
    if (s)
        return s;
    struct ytopo *t = &r->top[r->ntop++];
    *t = (struct ytopo){.line = line_of(r)};
    snprintf(t->label, sizeof(t->label), "topology %d", r->ntop);
    s = each_key(r, t->label, keys, topo_key, t);
    return s ? s : topo_check(r, t);
}

/* The whole stream: one document, a list of topologies or one. */
static smp_status read_all(struct yreader *r)
{
    smp_status s = next(r); /* stream start */
    if (!s)
        s = next(r);
    if (!s && r->ev.type == YAML_STREAM_END_EVENT)
        return fail(r, "no topology (an empty file)");
    if (!s)
        s = next(r); /* the root node */
    if (!s && r->ev.type == YAML_SCALAR_EVENT && !r->ev.data.scalar.length)
        return fail(r, "no topology (an empty document)");
    if (!s)
        s = each_item(r, "the file", topo_item, NULL);
    if (!s)
        s = next(r); /* document end */
    if (!s)
        s = next(r);
    if (!s && r->ev.type != YAML_STREAM_END_EVENT)
        s = fail(r, "a second YAML document: topology.yaml holds one");
    if (!s && r->ntop == 0)
        s = fail(r, "no topology (an empty list)");
    return s ? s : names_unique(r);
}

/* ---- the chosen topology into the model -------------------------------- */
static smp_status choose(struct yreader *r, const char *name, const struct ytopo **out)
{
    *out = NULL;
    for (int i = 0; i < r->ntop && !*out; i++)
        if (name ? !strcmp(r->top[i].name, name) : r->top[i].is_default)
            *out = &r->top[i];
    if (!name && !*out)
        *out = &r->top[0]; /* slurmctld's pick when none is the default */
    if (*out)
        return SMP_OK;
    char names[300] = "";
    for (int i = 0; i < r->ntop && strlen(names) + 4 < sizeof(names); i++)
        snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s", i ? ", " : "",
                 r->top[i].name);
    return smp_error_set(r->err, SMP_ERR_INPUT, "%s: no topology named '%.80s' (the file defines "
                         "%s)", r->src, name, names);
}

static smp_status build(const struct ytopo *y, smt_topology *t, smp_error *err)
{
    bool tree = !strcmp(y->kind, "tree");
    struct smt_switch_rec *recs = tree ? calloc((size_t)y->n, sizeof(*recs)) : NULL;
    char **nodes = tree ? NULL : calloc((size_t)y->n, sizeof(char *));
    int *lines = tree ? NULL : calloc((size_t)y->n, sizeof(int));
    smp_status s = SMP_OK;
    if (tree ? !recs : !nodes || !lines)
        s = smp_error_set(err, SMP_ERR_SYSTEM, "%s: out of memory", t->source);
    for (int i = 0; i < y->n && !s; i++) {
        const struct yunit *u = &y->u[i];
        int32_t k = smt_add_unit(t, u->name, strlen(u->name), u->nodes != NULL, u->line, err);
        if (k < 0)
            s = err->status;
        else if (tree)
            recs[i] = (struct smt_switch_rec){.unit = k, .nodes = u->nodes,
                                              .switches = u->children, .line = u->line};
        else {
            nodes[i] = u->nodes;
            lines[i] = u->line;
        }
    }
    if (!s && tree)
        s = smt_tree_build(t, recs, y->n, err);
    else if (!s) {
        char sizes[sizeof(y->sizes)];
        snprintf(sizes, sizeof(sizes), "%s", y->sizes);
        s = smt_blocks_build(t, nodes, lines, y->n, sizes[0] ? sizes : NULL, y->sizes_line, err);
    }
    free(recs);
    free(nodes);
    free(lines);
    return s;
}

static smp_status model_of(const struct ytopo *y, const char *src, smt_topology **out,
                           smp_error *err)
{
    if (!strcmp(y->kind, "ring") || !strcmp(y->kind, "torus3d"))
        return smp_error_set(err, SMP_ERR_INPUT,
                             "%s:%d: topology '%s' is a %s (topology/%s): stencil-map plans on "
                             "tree, block and flat topologies only", src, y->line, y->name,
                             y->kind, y->kind);
    bool flat = !strcmp(y->kind, "flat");
    smt_topology *t = smt_new(flat ? SMT_NONE : !strcmp(y->kind, "tree") ? SMT_TREE : SMT_BLOCK,
                              src);
    if (!t)
        return smp_error_set(err, SMP_ERR_SYSTEM, "%s: out of memory", src);
    t->yaml = true;
    smp_status s = flat ? smt_finish(t, err) : build(y, t, err);
    if (s)
        smt_free(t);
    else
        *out = t;
    return s;
}

static void reader_free(struct yreader *r)
{
    if (r->have)
        yaml_event_delete(&r->ev);
    yaml_parser_delete(&r->p);
    for (int i = 0; i < r->ntop; i++) {
        struct ytopo *t = &r->top[i];
        for (int j = 0; j < t->n; j++) {
            free(t->u[j].name);
            free(t->u[j].nodes);
            free(t->u[j].children);
        }
        free(t->u);
        free(t->name);
    }
    free(r->top);
}

smp_status smt_parse_yaml(const char *text, size_t len, const char *source, const char *name,
                          smt_topology **out, smp_error *err)
{
    *out = NULL;
    char src[128];
    snprintf(src, sizeof(src), "%s", source ? source : "topology.yaml");
    if (len > SMT_MAX_BYTES)
        return smp_error_set(err, SMP_ERR_INPUT, "%s: %zu bytes, larger than the limit of %d",
                             src, len, SMT_MAX_BYTES);
    struct yreader r = {.text = text, .src = src, .err = err};
    if (!yaml_parser_initialize(&r.p))
        return smp_error_set(err, SMP_ERR_SYSTEM, "%s: out of memory", src);
    yaml_parser_set_input_string(&r.p, (const unsigned char *)text, len);
    const struct ytopo *y = NULL;
    smp_status s = read_all(&r);
    if (!s)
        s = choose(&r, name, &y);
    if (!s)
        s = model_of(y, src, out, err);
    reader_free(&r);
    return s;
}

bool smt_is_yaml(const char *text, size_t len)
{
    const char *p = text, *end = text + len;
    if (len >= 3 && !memcmp(p, "\xef\xbb\xbf", 3)) /* a UTF-8 byte order mark */
        p += 3;
    while (p < end) { /* the first line that is not blank or a comment */
        while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
            p++;
        if (p < end && *p != '#')
            break;
        while (p < end && *p != '\n')
            p++;
    }
    size_t left = (size_t)(end - p);
    if (left == 0)
        return false;
    if (*p == '-' || *p == '%' || *p == '{' || *p == '[') /* "- topology:", "---", "%YAML" */
        return true;
    const char *q = p; /* "topology: NAME": a key and ':' before any '=' */
    while (q < end && (*q == '_' || (*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') ||
                       (*q >= '0' && *q <= '9')))
        q++;
    return q > p && q < end && *q == ':';
}
