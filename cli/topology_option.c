/* SPDX-License-Identifier: GPL-2.0-or-later */
#define _GNU_SOURCE /* pipe2, execvpe */
/* The network levels above the nodes for the subcommands: from
 * --topology FILE[:NAME] (topology.conf or topology.yaml), off with
 * --topology none, and inside an allocation without the option from Slurm
 * itself: `scontrol show topology` run without a shell (SLURM_TOPO_LEN
 * unset: it cuts lines), its output read by the topology library.  What
 * Slurm accepts but does not nest is repaired, one warning line each on
 * stderr (--topology-strict refuses it).  A topology the user named must
 * otherwise fit the nodes (exit 2 otherwise); Slurm's, taken unasked,
 * only warns and plans without levels when it does not. */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "smt_topology.h"

extern char **environ;

/* The environment without SLURM_TOPO_LEN (the strings are environ's), or
 * NULL on ENOMEM. */
static char **env_without_topo_len(void)
{
    size_t n = 0;
    while (environ[n])
        n++;
    char **env = malloc(sizeof(char *) * (n + 1));
    if (!env)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (strncmp(environ[i], "SLURM_TOPO_LEN=", 15))
            env[k++] = environ[i];
    env[k] = NULL;
    return env;
}

/* In the child: `scontrol show topology` with stdout to out, stdin and
 * stderr to /dev/null; does not return. */
__attribute__((noreturn)) static void exec_scontrol(int out, char **env)
{
    int null = open("/dev/null", O_RDWR);
    dup2(out, STDOUT_FILENO);
    if (null >= 0) {
        dup2(null, STDIN_FILENO);
        dup2(null, STDERR_FILENO); /* "No topology information available" */
    }
    char *argv[] = {"scontrol", "show", "topology", NULL};
    execvpe("scontrol", argv, env);
    _exit(127);
}

/* All of fd into a buffer (NUL room kept), its length in *len; NULL with
 * *too_big set past SMT_MAX_BYTES, NULL alone on ENOMEM. */
static char *read_all(int fd, size_t *len, bool *too_big)
{
    size_t cap = 65536;
    char *buf = malloc(cap + 1);
    *too_big = false;
    while (buf) {
        if (*len == cap) {
            if (cap >= SMT_MAX_BYTES) {
                *too_big = true;
                break;
            }
            char *nb = realloc(buf, 2 * cap + 1);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
        ssize_t got = read(fd, buf + *len, cap - *len);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            break;
        *len += (size_t)got;
    }
    if (*too_big) {
        free(buf);
        buf = NULL;
    }
    return buf;
}

/* Runs `scontrol show topology`, its stdout into *out (at most
 * SMT_MAX_BYTES); non-zero with a reason in why when it cannot. */
static int run_scontrol(char **out, size_t *len, char *why, size_t whylen)
{
    int fd[2];
    *out = NULL;
    *len = 0;
    if (pipe2(fd, O_CLOEXEC)) {
        snprintf(why, whylen, "pipe: %s", strerror(errno));
        return -1;
    }
    char **env = env_without_topo_len();
    if (!env) {
        close(fd[0]);
        close(fd[1]);
        snprintf(why, whylen, "out of memory");
        return -1;
    }
    pid_t pid = fork();
    if (pid == 0)
        exec_scontrol(fd[1], env);
    free(env);
    close(fd[1]);
    if (pid < 0) {
        close(fd[0]);
        snprintf(why, whylen, "fork: %s", strerror(errno));
        return -1;
    }
    bool too_big;
    char *buf = read_all(fd[0], len, &too_big);
    close(fd[0]);
    if (too_big)
        kill(pid, SIGKILL);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (!buf) {
        snprintf(why, whylen, too_big ? "more than %d bytes of output" : "out of memory",
                 SMT_MAX_BYTES);
        return -1;
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        free(buf);
        if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
            snprintf(why, whylen, "scontrol not found in PATH");
        else
            snprintf(why, whylen, "scontrol exited with status %d",
                     WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
        return -1;
    }
    buf[*len] = '\0';
    *out = buf;
    return 0;
}

/* What the topology said beyond the groups, for plan's summary and JSON:
 * the repairs' warning lines and each level's links upward (one process
 * reads one topology). */
static struct {
    char *warnings;                 /* lines ending in '\n', or NULL */
    smt_links links[SMP_MAX_LEVELS];
} notes;

/* Each level's links, from t. */
static void keep_links(const smt_topology *t, const smp_levels *lv)
{
    memset(notes.links, 0, sizeof(notes.links));
    for (int l = 0; l < lv->nlevels && l < SMP_MAX_LEVELS; l++)
        smt_level_links(t, lv, l, &notes.links[l]);
}

/* Keeps the warnings and the links of t for plan, before t is freed. */
static void keep_notes(const smt_topology *t, const smp_levels *lv, const char *warnings)
{
    free(notes.warnings);
    notes.warnings = warnings ? strdup(warnings) : NULL;
    keep_links(t, lv);
}

const char *cli_topology_warnings(void)
{
    return notes.warnings;
}

/* Level level's links, or NULL when none of its groups is a switch. */
static const smt_links *cli_level_links(int level)
{
    return level >= 0 && level < SMP_MAX_LEVELS && notes.links[level].groups > 0
               ? &notes.links[level]
               : NULL;
}

/* "2" or "1-2" */
static void range(char *buf, size_t n, int64_t lo, int64_t hi)
{
    if (lo == hi)
        snprintf(buf, n, "%lld", (long long)lo);
    else
        snprintf(buf, n, "%lld-%lld", (long long)lo, (long long)hi);
}

void cli_topology_print(FILE *out, const smp_levels *lv)
{
    for (int l = 0; l < lv->nlevels && l < SMP_MAX_LEVELS; l++) {
        const smt_links *k = cli_level_links(l);
        if (!k)
            continue;
        char up[48], speed[48];
        range(up, sizeof(up), k->uplinks_min, k->uplinks_max);
        range(speed, sizeof(speed), k->speed_min, k->speed_max);
        fprintf(out, "stencil-map: level %d links: %d groups of switches, uplinks per group %s, "
                "LinkSpeed %s%s\n", l, k->groups, up, speed,
                k->speed_max == 0 ? " (not given)" : "");
    }
    /* a step the levels do not split plans, and is summed up, as without
     * them: the repairs stay on stderr (and in the JSON) */
    for (const char *line = notes.warnings, *nl;
         lv->nlevels > 0 && line && (nl = strchr(line, '\n')); line = nl + 1)
        fprintf(out, "stencil-map: topology repaired: %.*s\n", (int)(nl - line), line);
}

void cli_topology_json(json_t *obj, json_t *levels)
{
    json_t *w = json_array();
    for (const char *line = notes.warnings, *nl; line && (nl = strchr(line, '\n'));
         line = nl + 1)
        json_array_append_new(w, json_stringn(line, (size_t)(nl - line)));
    json_object_set_new(obj, "topology_warnings", w);
    for (size_t l = 0; levels && l < json_array_size(levels); l++) {
        const smt_links *k = cli_level_links((int)l);
        if (k)
            json_object_set_new(json_array_get(levels, l), "links",
                                json_pack("{s:i,s:i,s:i,s:I,s:I}", "groups", k->groups,
                                          "uplinks_min", k->uplinks_min,
                                          "uplinks_max", k->uplinks_max,
                                          "link_speed_min", (json_int_t)k->speed_min,
                                          "link_speed_max", (json_int_t)k->speed_max));
    }
}

/* "2 levels (4 and 2 groups)" */
static void describe(const smp_levels *lv, char *buf, size_t len)
{
    int k = snprintf(buf, len, "%d level%s (", lv->nlevels, lv->nlevels == 1 ? "" : "s");
    for (int l = 0; l < lv->nlevels && k > 0 && (size_t)k < len; l++)
        k += snprintf(buf + k, len - (size_t)k, "%s%d", l == 0 ? "" : l + 1 == lv->nlevels ? " and " : ", ",
                      lv->ngroups[l]);
    if (k > 0 && (size_t)k < len)
        snprintf(buf + k, len - (size_t)k, " groups)");
}

/* Each warning line on stderr after prefix; frees them. */
static void print_warnings(const char *prefix, char *warnings)
{
    for (char *line = warnings, *nl; line && *line; line = nl + 1) {
        if (!(nl = strchr(line, '\n')))
            break;
        fprintf(stderr, "stencil-map: %swarning: %.*s\n", prefix, (int)(nl - line), line);
    }
    free(warnings);
}

/* Each group's uplinks as the topology has them (smt_group_uplinks, the
 * count the plugin plans with too). */
static int uplinks_from(const smt_topology *t, const smp_levels *lv, smp_links *lk)
{
    for (int l = 0; lk && l < lv->nlevels; l++) {
        if (!(lk->uplinks[l] = malloc(sizeof(int32_t) * (size_t)lv->ngroups[l]))) {
            fprintf(stderr, "stencil-map: out of memory\n");
            return SMP_ERR_SYSTEM;
        }
        smt_group_uplinks(t, lv, l, lk->uplinks[l]);
    }
    return 0;
}

static int from_slurm(const smp_nodes *nodes, bool strict, smp_levels *lv, smp_links *lk)
{
    char *text, why[256];
    size_t len;
    if (run_scontrol(&text, &len, why, sizeof(why))) {
        fprintf(stderr, "stencil-map: inside an allocation: no network levels: scontrol show "
                        "topology failed (%s)\n", why);
        return 0;
    }
    smt_topology *t = NULL;
    smp_error err;
    smp_status s = smt_parse_printed(text, len, &t, &err);
    char *warnings = NULL;
    free(text);
    if (!s)
        s = smt_levels_with(t, nodes, strict, lv, &warnings, &err);
    if (!s)
        keep_notes(t, lv, warnings);
    print_warnings("inside an allocation: ", warnings);
    if (s) {
        fprintf(stderr, "stencil-map: inside an allocation: no network levels: %s\n", err.msg);
        smp_levels_free(lv);
    } else if (lv->nlevels == 0) {
        fprintf(stderr, "stencil-map: inside an allocation: no network levels (%s: %s)\n",
                smt_kind(t), !strcmp(smt_kind(t), "none")
                                 ? "scontrol show topology lists no switches or blocks"
                                 : "the nodes share one leaf switch or block");
    } else {
        char d[160];
        describe(lv, d, sizeof(d));
        fprintf(stderr, "stencil-map: inside an allocation: network levels from %s: %s\n",
                lv->source, d);
    }
    int rc = !s && lv->nlevels ? uplinks_from(t, lv, lk) : 0;
    smt_free(t);
    return rc;
}

int cli_levels_of(const struct cli_opts *o, const smp_nodes *nodes, smp_levels *lv)
{
    return cli_levels_links_of(o, nodes, lv, NULL);
}

int cli_levels_links_of(const struct cli_opts *o, const smp_nodes *nodes, smp_levels *lv,
                        smp_links *lk)
{
    memset(lv, 0, sizeof(*lv));
    if (o->topology && !strcmp(o->topology, "none"))
        return 0;
    if (!o->topology) {
        if (getenv("SLURM_JOB_ID") && *getenv("SLURM_JOB_ID"))
            return from_slurm(nodes, o->topology_strict, lv, lk);
        return 0;
    }
    smt_topology *t;
    smp_error err;
    smp_status s = smt_load(o->topology, &t, &err);
    if (!s) {
        char *warnings = NULL;
        s = smt_levels_with(t, nodes, o->topology_strict, lv, &warnings, &err);
        if (!s)
            keep_notes(t, lv, warnings);
        print_warnings("--topology: ", warnings);
        if (!s && !strcmp(smt_kind(t), "none")) /* topology.yaml's flat */
            fprintf(stderr, "stencil-map: --topology %s: a flat topology, no network levels: "
                            "planned as without a topology\n", o->topology);
        int rc = !s ? uplinks_from(t, lv, lk) : 0;
        smt_free(t);
        if (rc)
            return rc;
    }
    if (s) {
        fprintf(stderr, "stencil-map: --topology: %s\n", err.msg);
        return (int)s;
    }
    snprintf(lv->source, sizeof(lv->source), "file %s", o->topology);
    return 0;
}

void cli_levels_print(const smp_placement *pl, const smp_placement *blocked, const smp_levels *lv,
                      bool weighted)
{
    static const char *const kind[] = {"groups", "groups of groups", "level-2 groups",
                                       "level-3 groups"};
    for (int l = 0; l < lv->nlevels && l < pl->nlevels; l++) {
        const smp_score *a = &pl->level[l], *b = blocked ? &blocked->level[l] : NULL;
        printf("stencil-map: level %d (%d %s, %s): ", l, lv->ngroups[l], kind[l], lv->source);
        if (weighted)
            printf("weighted inter-group edges %g", a->w_sum);
        else
            printf("inter-group edges %lld", (long long)a->j_sum);
        if (b)
            weighted ? printf(" (blocked %g)", b->w_sum) : printf(" (blocked %lld)", (long long)b->j_sum);
        if (weighted)
            printf(", max per group %g", a->w_max);
        else
            printf(", max per group %lld", (long long)a->j_max);
        if (b)
            weighted ? printf(" (blocked %g)", b->w_max) : printf(" (blocked %lld)", (long long)b->j_max);
        printf("\n");
    }
}

json_t *cli_levels_json(const smp_placement *pl, const smp_placement *blocked,
                        const smp_levels *lv, bool weighted)
{
    json_t *arr = json_array();
    for (int l = 0; l < lv->nlevels && l < pl->nlevels; l++) {
        const smp_score *a = &pl->level[l];
        json_t *e = json_pack("{s:i,s:i,s:I,s:I}", "level", l, "groups", lv->ngroups[l], "j_sum",
                              (json_int_t)a->j_sum, "j_max", (json_int_t)a->j_max);
        if (lv->group_names[l] && lv->group_names[l][a->j_max_node])
            json_object_set_new(e, "j_max_group", json_string(lv->group_names[l][a->j_max_node]));
        if (weighted)
            json_object_set_new(e, "weighted", json_pack("{s:f,s:f}", "j_sum", a->w_sum, "j_max",
                                                         a->w_max));
        if (blocked) {
            const smp_score *b = &blocked->level[l];
            json_object_set_new(e, "blocked", json_pack("{s:I,s:I}", "j_sum", (json_int_t)b->j_sum,
                                                        "j_max", (json_int_t)b->j_max));
            if (weighted)
                json_object_set_new(json_object_get(e, "blocked"), "weighted",
                                    json_pack("{s:f,s:f}", "j_sum", b->w_sum, "j_max", b->w_max));
        }
        json_array_append_new(arr, e);
    }
    return arr;
}
