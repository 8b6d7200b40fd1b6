/* SPDX-License-Identifier: GPL-2.0-or-later */
/* openmpi: an Open MPI rankfile, as mpirun --rankfile (Open MPI 4.1's
 * orte/mca/rmaps/rank_file, mpirun(1) "Rankfiles") reads it:
 *
 *     rank 0=node1 slot=0        one line per rank
 *     rank 1=node1 slot=1        slot: logical core of the node
 *     rank 5=node2 slot=1:3      with sockets: logical socket 1, its core 3
 *
 * Each node's ranks get distinct cores, counted from 0 in rank order (per
 * socket when the plan split the node over its sockets), so a node needs
 * as many cores as ranks planned there, which holds whenever the slots
 * are its cores.  mpirun also counts the allocation's slots per node
 * (SLURM_TASKS_PER_NODE inside Slurm) and refuses more ranks than that. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "launchers.h"

/* mpirun's rankfile lexer reads a host as a word of letters, digits, '_'
 * and '-', or as a name that starts with a letter and may hold dots;
 * digits alone are a number and a few words are keywords. */
static const char *host_problem(const char *name)
{
    static const char *const keywords[] = {"rank",     "slot",      "slots",
                                           "username", "user-name", "user_name"};
    for (size_t i = 0; i < sizeof(keywords) / sizeof(keywords[0]); i++)
        if (!strcmp(name, keywords[i]))
            return "is a keyword of the rankfile";
    bool digits = true;
    for (const char *c = name; *c; c++)
        digits = digits && isdigit((unsigned char)*c);
    if (digits)
        return "is a number to mpirun's rankfile reader";
    if (strchr(name, '.') && !isalpha((unsigned char)name[0]))
        return "holds a dot but does not start with a letter";
    return NULL;
}

smp_status sml_write_rankfile(FILE *out, const sml_plan *p, smp_error *err)
{
    const smp_nodes *nodes = p->nodes;
    const smp_placement *pl = p->pl;
    for (int i = 0; i < nodes->count; i++) {
        const char *why = host_problem(nodes->names[i]);
        if (why)
            return smp_error_set(err, SMP_ERR_INPUT,
                                 "--launcher openmpi: node name '%s' %s, so mpirun would not "
                                 "read it as a host",
                                 nodes->names[i], why);
    }
    /* the next free core of each node, or of each (node, socket) */
    int64_t *first = calloc((size_t)nodes->count + 1, sizeof(int64_t));
    if (!first)
        return smp_error_set(err, SMP_ERR_SYSTEM, "out of memory");
    for (int64_t r = 0; r < pl->ranks; r++) {
        int64_t s = p->socket_of_rank ? p->socket_of_rank[r] + 1 : 1;
        int32_t n = pl->node_of_rank[r];
        if (s > first[n + 1])
            first[n + 1] = s; /* sockets used on node n, for now */
    }
    for (int i = 0; i < nodes->count; i++)
        first[i + 1] += first[i];
    int32_t *next = calloc((size_t)first[nodes->count] + 1, sizeof(int32_t));
    if (!next) {
        free(first);
        return smp_error_set(err, SMP_ERR_SYSTEM, "out of memory");
    }
    bool bad = fprintf(out,
                       "# Open MPI rankfile from stencil-map%s%s: %lld ranks on %d nodes\n"
                       "# mpirun --rankfile FILE (slot: logical %s)\n",
                       p->title ? ", " : "", p->title ? p->title : "", (long long)pl->ranks,
                       nodes->count, p->socket_of_rank ? "socket:core" : "core") < 0;
    for (int64_t r = 0; r < pl->ranks && !bad; r++) {
        int32_t n = pl->node_of_rank[r];
        if (p->socket_of_rank) {
            int32_t s = p->socket_of_rank[r];
            bad = fprintf(out, "rank %lld=%s slot=%d:%d\n", (long long)r, nodes->names[n], (int)s,
                          (int)next[first[n] + s]++) < 0;
        } else {
            bad = fprintf(out, "rank %lld=%s slot=%d\n", (long long)r, nodes->names[n],
                          (int)next[first[n]]++) < 0;
        }
    }
    free(first);
    free(next);
    return bad ? smp_error_set(err, SMP_ERR_SYSTEM, "Open MPI rankfile: write failed") : SMP_OK;
}

/* ---- reading ------------------------------------------------------------ */

static const char *skip_space(const char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    return s;
}

/* word up to a space, '=' or the end, into buf */
static const char *take_word(const char *s, char *buf, size_t cap)
{
    size_t n = strcspn(s, " \t=");
    if (n == 0 || n >= cap)
        return NULL;
    memcpy(buf, s, n);
    buf[n] = '\0';
    return s + n;
}

/* "rank R=HOST slot=LIST"; false when the line is not one */
static bool parse_line(const char *line, long long *rank, char *host, size_t hcap, char *slot,
                       size_t scap)
{
    char word[32];
    const char *s = take_word(skip_space(line), word, sizeof(word));
    if (!s || strcmp(word, "rank"))
        return false;
    char *end;
    s = skip_space(s);
    if (!isdigit((unsigned char)*s))
        return false;
    *rank = strtoll(s, &end, 10);
    s = skip_space(end);
    if (*s++ != '=')
        return false;
    if (!(s = take_word(skip_space(s), host, hcap)))
        return false;
    if (!(s = take_word(skip_space(s), word, sizeof(word))) ||
        (strcmp(word, "slot") && strcmp(word, "slots")))
        return false;
    s = skip_space(s);
    if (*s++ != '=')
        return false;
    if (!(s = take_word(skip_space(s), slot, scap)))
        return false;
    return *skip_space(s) == '\0';
}

/* The ranks read so far, indexed by rank, cap entries each. */
struct rank_table {
    int64_t cap, max;  /* max: the highest rank placed, -1 before any */
    int64_t *line_of;  /* the line that placed it, 0 if none */
    int32_t *node_of;
    char **slot_of;
};

/* Room for rank in t (new entries unplaced); false on ENOMEM, t still
 * whole. */
static bool grow_ranks(struct rank_table *t, long long rank)
{
    if (rank < t->cap)
        return true;
    int64_t nc = t->cap ? t->cap : 64;
    while (nc <= rank)
        nc *= 2;
    int64_t *l2 = realloc(t->line_of, sizeof(int64_t) * (size_t)nc);
    int32_t *n2 = l2 ? realloc(t->node_of, sizeof(int32_t) * (size_t)nc) : NULL;
    char **s2 = n2 ? realloc(t->slot_of, sizeof(char *) * (size_t)nc) : NULL;
    if (l2)
        t->line_of = l2;
    if (n2)
        t->node_of = n2;
    if (s2)
        t->slot_of = s2;
    if (!s2)
        return false;
    for (int64_t i = t->cap; i < nc; i++) {
        t->line_of[i] = 0;
        t->slot_of[i] = NULL;
    }
    t->cap = nc;
    return true;
}

/* One line of the file (lineno) into t: blank and comment lines skipped,
 * a rank placed once on a host of r. */
static smp_status read_rank_line(const char *line, int64_t lineno, const char *what,
                                 struct rank_table *t, sml_read_result *r, smp_error *err)
{
    char host[256], slot[512];
    const char *s = skip_space(line);
    if (!*s || *s == '#')
        return SMP_OK;
    long long rank;
    if (!parse_line(line, &rank, host, sizeof(host), slot, sizeof(slot)))
        return smp_error_set(err, SMP_ERR_INPUT,
                             "%s: line %lld: expected 'rank N=HOST slot=LIST', got '%.80s'", what,
                             (long long)lineno, s);
    if (rank >= SMP_MAX_RANKS)
        return smp_error_set(err, SMP_ERR_INPUT, "%s: line %lld: rank %lld is above %lld", what,
                             (long long)lineno, rank, (long long)SMP_MAX_RANKS - 1);
    if (!grow_ranks(t, rank))
        return smp_error_set(err, SMP_ERR_SYSTEM, "out of memory");
    if (t->line_of[rank])
        return smp_error_set(err, SMP_ERR_INPUT,
                             "%s: line %lld: rank %lld is placed twice (line %lld too)", what,
                             (long long)lineno, rank, (long long)t->line_of[rank]);
    int idx = sml_node_index(r, host, err);
    if (idx < 0 || !(t->slot_of[rank] = strdup(slot)))
        return idx < 0 ? err->status : smp_error_set(err, SMP_ERR_SYSTEM, "out of memory");
    t->line_of[rank] = lineno;
    t->node_of[rank] = idx;
    if (rank > t->max)
        t->max = rank;
    return SMP_OK;
}

smp_status sml_read_rankfile(FILE *in, const smp_nodes *given, sml_read_result *r, smp_error *err)
{
    (void)given;
    const char *what = "Open MPI rankfile";
    char line[1024];
    int64_t lineno = 0;
    struct rank_table t = {.max = -1};
    int got;
    smp_status s = SMP_OK;
    while (!s && (got = sml_getline(in, line, sizeof(line), &lineno, what, err)) > 0)
        s = read_rank_line(line, lineno, what, &t, r, err);
    if (!s && got < 0)
        s = err->status;
    for (int64_t k = 0; !s && k <= t.max; k++)
        if (!t.line_of[k])
            s = smp_error_set(err, SMP_ERR_INPUT,
                              "%s: rank %lld is missing (ranks 0 to %lld are placed)", what,
                              (long long)k, (long long)t.max);
    if (!s && t.max < 0)
        s = smp_error_set(err, SMP_ERR_INPUT, "%s: no rank in the file", what);
    for (int64_t k = 0; !s && k <= t.max; k++)
        s = sml_push_rank(r, t.node_of[k], err);
    if (!s) {
        r->slot = t.slot_of;
        t.slot_of = NULL;
    }
    if (t.slot_of)
        for (int64_t k = 0; k < t.cap; k++)
            free(t.slot_of[k]);
    free(t.slot_of);
    free(t.line_of);
    free(t.node_of);
    return s;
}
