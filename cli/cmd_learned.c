/* SPDX-License-Identifier: GPL-2.0-or-later */
/* stencil-map learned list | show APP | forget APP|--all: what the plugin's
 * --stencil-map=learn stored in the user's store (learned/), and the
 * placement each application would get on the current allocation. */
#include <dirent.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "audit.h"
#include "cli.h"
#include "learned_entry.h"
#include "learned_key.h"
#include "learned_lookup.h"
#include "learned_store.h"
#include "private_dir.h"

/* exit status: nothing stored for APP */
#define NOTHING 3

static int usage_error(const char *msg, const char *arg)
{
    fprintf(stderr, "stencil-map learned: %s%s%s\n", msg, arg ? " " : "", arg ? arg : "");
    cli_usage_of("learned", stderr);
    return SMP_ERR_INPUT;
}

typedef struct {
    const char *sub, *app, *learned_dir;
    bool all;
} learned_opts;

/* -1 to go on, else the exit code */
static int parse(int argc, char **argv, learned_opts *o)
{
    static const struct option longopts[] = {
        {"learned-dir", required_argument, NULL, 'd'},
        {"all", no_argument, NULL, 'a'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    memset(o, 0, sizeof(*o));
    int c;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        switch (c) {
        case 'd': o->learned_dir = optarg; break;
        case 'a': o->all = true; break;
        case 'h': cli_usage_of("learned", stdout); return 0;
        case ':': return usage_error("missing value for", argv[optind - 1]);
        default: return usage_error("unknown option", argv[optind - 1]);
        }
    }
    if (optind >= argc)
        return usage_error("missing the command: list, show APP or forget APP|--all", NULL);
    o->sub = argv[optind++];
    if (strcmp(o->sub, "list") && strcmp(o->sub, "show") && strcmp(o->sub, "forget"))
        return usage_error("unknown command (list, show, forget):", o->sub);
    if (optind < argc)
        o->app = argv[optind++];
    if (optind < argc)
        return usage_error("one APP at most, extra:", argv[optind]);
    if (o->all && strcmp(o->sub, "forget"))
        return usage_error("--all goes with forget", NULL);
    if (!strcmp(o->sub, "list") && o->app)
        return usage_error("list takes no APP:", o->app);
    if (!strcmp(o->sub, "show") && !o->app)
        return usage_error("show needs an APP", NULL);
    if (!strcmp(o->sub, "forget") && !o->app == !o->all)
        return usage_error("forget needs an APP or --all (not both)", NULL);
    return -1;
}

/* The store, read-only: --learned-dir, else learned_dir= on the plugin's
 * plugstack.conf line, else the user's XDG state directory.  0, 1 when it
 * does not exist, or the exit code 4 (said). */
static int open_store(const learned_opts *o, learned_store *s)
{
    char root[1024] = "", where[600], plug[4096], msg[1200];
    if (o->learned_dir)
        snprintf(root, sizeof(root), "%s", o->learned_dir);
    else
        audit_plugstack_arg("learned_dir", root, sizeof(root), where, sizeof(where), plug, sizeof(plug));
    int rc = learned_store_open(s, root, false, msg, sizeof(msg));
    if (rc < 0) {
        fprintf(stderr, "stencil-map learned: %s\n", msg);
        return SMP_ERR_SYSTEM;
    }
    if (rc > 0) {
        char path[PATH_MAX];
        const char *from;
        if (!learned_store_path(root, path, sizeof(path), &from, msg, sizeof(msg)))
            printf("nothing learned yet (no store at %s)\n", path);
        return 1;
    }
    return 0;
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* ---- the placement on the current allocation -------------------------- */

typedef struct {
    bool inside;
    smp_nodes nodes;
    smp_levels levels; /* Slurm's network above the nodes, as srun plans on it */
    int64_t ranks;     /* SLURM_NTASKS, 0 when unset */
} allocation;

static void allocation_read(allocation *a)
{
    memset(a, 0, sizeof(*a));
    const char *hl = getenv("SLURM_JOB_NODELIST"), *cpus = getenv("SLURM_JOB_CPUS_PER_NODE");
    smp_error err;
    if (!hl || !*hl || !cpus || !*cpus || smp_nodes_parse(&a->nodes, hl, cpus, &err))
        return;
    a->inside = true;
    /* the levels srun's plugin would read from Slurm (none when Slurm has
     * no topology, or it does not fit: then as without levels) */
    struct cli_opts none = {0};
    if (cli_levels_of(&none, &a->nodes, &a->levels))
        smp_levels_free(&a->levels);
    const char *nt = getenv("SLURM_NTASKS");
    if (!nt || !*nt)
        nt = getenv("SLURM_NPROCS");
    if (nt && *nt && !cli_parse_ranks(nt, &a->ranks))
        a->ranks = 0;
    fprintf(stderr, "stencil-map learned: inside an allocation: placements on '%s', slots '%s'", hl, cpus);
    if (a->ranks)
        fprintf(stderr, ", %" PRId64 " ranks (SLURM_NTASKS)\n", a->ranks);
    else
        fprintf(stderr, ", for each spec's own rank count (SLURM_NTASKS unset)\n");
}

/* "here: ..." for key on the allocation, as srun would decide */
static void here(const learned_store *s, const char *key, int64_t own_ranks, const allocation *a,
                 char *out, size_t n)
{
    out[0] = '\0';
    if (!a->inside)
        return;
    int64_t ranks = a->ranks ? a->ranks : own_ranks;
    learned_found f;
    learned_lookup(s, key, ranks, time(NULL), &f);
    switch (f.kind) {
    case LEARNED_FOUND_NONE:
        snprintf(out, n, "here: profiled again%s", f.expired_verdict ? " (the verdict has expired)" : "");
        break;
    case LEARNED_FOUND_NOT_STENCIL:
        snprintf(out, n, "here: blocked (not a stencil code)");
        break;
    case LEARNED_FOUND_OTHER_RANKS:
        snprintf(out, n, "here: blocked and learned again (learned on %" PRId64 " ranks, not %" PRId64 ")",
                 f.other_ranks, ranks);
        break;
    case LEARNED_FOUND_BAD:
        snprintf(out, n, "here: blocked (%s)", f.msg);
        break;
    case LEARNED_FOUND_SPEC: {
        smp_spec spec;
        smp_error err;
        smp_error_clear(&err);
        smp_placement pl = {0}, bl = {0};
        smp_status st = smp_spec_parse(&spec, f.spec_json, strlen(f.spec_json), smp_specs_dir(), &err);
        if (!st) {
            if (!(st = smp_spec_resolve(&spec, ranks, &err)) &&
                !(st = cli_plan(&spec, &a->nodes, spec.algorithm, &a->levels, SMP_LEVELS_BEST, &pl, &err)) &&
                !(st = smp_plan(&spec.grid, &spec.stencil, a->nodes.slots, a->nodes.count, SMP_ALG_BLOCKED,
                                &bl, &err)))
                snprintf(out, n, "here: %s, %" PRId64 " ranks on %d nodes, inter-node edges %" PRId64
                                 " (blocked %" PRId64 ")%s",
                         smp_algorithm_name(pl.algorithm), pl.ranks, a->nodes.count, pl.score.j_sum,
                         bl.score.j_sum, f.regridded ? ", dims by MPI_Dims_create" : "");
            smp_spec_free(&spec);
        }
        if (st)
            snprintf(out, n, "here: blocked (cannot place: %s)", err.msg);
        smp_placement_free(&pl);
        smp_placement_free(&bl);
        break;
    }
    }
    learned_found_free(&f);
}

/* ---- one application ------------------------------------------------------ */

/* what one entry says, in a few words */
static void summary(const learned_entry *e, char *out, size_t n)
{
    if (e->kind == LEARNED_NOT_STENCIL) {
        snprintf(out, n, "not a stencil code until %.10s (%s)", e->expires, e->reason);
        return;
    }
    char dims[128], from[64] = "";
    learned_entry_dims(e, dims, sizeof(dims));
    if (e->job >= 0)
        snprintf(from, sizeof(from), "job %" PRId64 ".%" PRId64 ", ", e->job, e->step < 0 ? (int64_t)0 : e->step);
    snprintf(out, n, "%" PRId64 " ranks: grid %s from %s, %.1f %% of bytes, %s%.10s", e->ranks, dims,
             e->grid_source, 100 * e->share, from, e->date);
}

/* Has the file at the stored path another key now (rebuilt), or is it gone? */
static const char *staleness(const learned_entry *e)
{
    learned_app app;
    char msg[600];
    if (access(e->executable, F_OK))
        return " (the executable is gone)";
    if (learned_app_key(e->executable, &app, msg, sizeof(msg)))
        return "";
    return strcmp(app.key, e->key) ? " (the executable was rebuilt since: another key)" : "";
}

/* names[from, to) are the entries of one key */
static void list_one(const learned_store *s, char **names, size_t from, size_t to, const allocation *a)
{
    char line[4096] = "", exe[PATH_MAX] = "", key[LEARNED_KEY_MAX] = "", msg[1200];
    size_t at = 0;
    int64_t own = 0;
    const char *stale = "";
    for (size_t i = from; i < to; i++) {
        learned_entry e;
        learned_kind kind;
        int64_t r;
        learned_entry_name_parse(names[i], key, sizeof(key), &kind, &r);
        char what[1500];
        if (learned_entry_read_at(s->fd, s->path, names[i], &e, msg, sizeof(msg)))
            snprintf(what, sizeof(what), "unreadable: %s", msg);
        else {
            summary(&e, what, sizeof(what));
            if (!exe[0]) {
                snprintf(exe, sizeof(exe), "%s", e.executable);
                stale = staleness(&e);
            }
            if (e.kind == LEARNED_SPEC && !own)
                own = e.ranks;
            learned_entry_free(&e);
        }
        if (at < sizeof(line))
            at += (size_t)snprintf(line + at, sizeof(line) - at, "%s%s", i > from ? "; " : "", what);
    }
    char where[2048];
    here(s, key, own, a, where, sizeof(where));
    printf("%-14s %s%s  %s%s%s\n", exe[0] ? base_name(exe) : key, exe[0] ? exe : "?", stale, line,
           where[0] ? "  " : "", where);
}

static int cmd_list(const learned_store *s)
{
    char **names;
    size_t count;
    if (learned_store_names(s, NULL, &names, &count)) {
        fprintf(stderr, "stencil-map learned: %s: cannot list the store\n", s->path);
        return SMP_ERR_SYSTEM;
    }
    if (!count)
        printf("nothing learned yet (the store %s is empty)\n", s->path);
    allocation a;
    if (count)
        allocation_read(&a);
    for (size_t i = 0, j; i < count; i = j) {
        size_t klen = strcspn(names[i], ".");
        for (j = i + 1; j < count && !strncmp(names[j], names[i], klen + 1); j++)
            ;
        list_one(s, names, i, j, &a);
    }
    if (count && a.inside) {
        smp_nodes_free(&a.nodes);
        smp_levels_free(&a.levels);
    }
    learned_names_free(names, count);
    return 0;
}

/* ---- choosing APP's entries ---------------------------------------------- */

/* Does the entry name belong to APP: its key (a key given, or the key of
 * the file APP names), or its executable (the path APP names, or its
 * base name)? */
static bool matches(const learned_store *s, const char *name, const char *app, const char *app_key,
                    const char *app_path)
{
    char key[LEARNED_KEY_MAX], msg[1200];
    learned_kind kind;
    int64_t r;
    if (!learned_entry_name_parse(name, key, sizeof(key), &kind, &r))
        return false;
    if (!strcmp(key, app) || (app_key[0] && !strcmp(key, app_key)))
        return true;
    learned_entry e;
    if (learned_entry_read_at(s->fd, s->path, name, &e, msg, sizeof(msg)))
        return false;
    bool m = (app_path[0] && !strcmp(e.executable, app_path)) || !strcmp(e.executable, app) ||
             (!strchr(app, '/') && !strcmp(base_name(e.executable), app));
    learned_entry_free(&e);
    return m;
}

/* The names of APP's entries (sorted); 0, NOTHING (said) or 4. */
static int select_app(const learned_store *s, const char *app, char ***names, size_t *count)
{
    char path[PATH_MAX] = "", msg[1200];
    learned_app key;
    memset(&key, 0, sizeof(key));
    if (!learned_app_resolve(app, NULL, getenv("PATH"), path, sizeof(path), msg, sizeof(msg)) &&
        learned_app_key(path, &key, msg, sizeof(msg)))
        key.key[0] = '\0';
    if (learned_store_names(s, NULL, names, count)) {
        fprintf(stderr, "stencil-map learned: %s: cannot list the store\n", s->path);
        return SMP_ERR_SYSTEM;
    }
    size_t kept = 0;
    for (size_t i = 0; i < *count; i++) {
        if (matches(s, (*names)[i], app, key.key, path))
            (*names)[kept++] = (*names)[i];
        else
            free((*names)[i]);
    }
    *count = kept;
    if (!kept) {
        free(*names);
        *names = NULL;
        fprintf(stderr, "stencil-map learned: nothing stored for %s in %s\n", app, s->path);
        return NOTHING;
    }
    return 0;
}

/* ---- show ----------------------------------------------------------------- */

static void show_entry(const learned_store *s, const char *name, const allocation *a)
{
    learned_entry e;
    char msg[1200];
    printf("%s/%s\n", s->path, name);
    if (learned_entry_read_at(s->fd, s->path, name, &e, msg, sizeof(msg))) {
        printf("  unreadable: %s\n", msg);
        return;
    }
    printf("  executable   %s%s\n", e.executable, staleness(&e));
    printf("  key          %s (%s)\n", e.key, e.key[0] == 'b' ? "its ELF build ID" : "a hash of the file");
    printf("  learned      %.10s %.8s", e.date, e.date + 11);
    if (e.job >= 0)
        printf(", job %" PRId64 ".%" PRId64, e.job, e.step < 0 ? (int64_t)0 : e.step);
    printf(", %" PRId64 " ranks, %.0f bytes between ranks\n", e.ranks, e.bytes);
    if (e.kind == LEARNED_NOT_STENCIL) {
        printf("  verdict      not a stencil code: %s\n", e.reason);
        printf("  expires      %.10s %.8s (then its next run is profiled again)\n", e.expires, e.expires + 11);
    } else {
        char dims[128];
        learned_entry_dims(&e, dims, sizeof(dims));
        printf("  grid         %s, from %s%s\n", dims, e.grid_source,
               strcmp(e.grid_source, "MPI_Dims_create") ? ": placed on this rank count only"
                                                       : ": recomputed for other rank counts");
        printf("  explains     %.1f %% of the bytes\n", 100 * e.share);
        char *text = json_dumps(e.spec, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        printf("  spec\n");
        for (char *line = text, *next; line && *line; line = next) {
            next = strchr(line, '\n');
            if (next)
                *next++ = '\0';
            printf("    %s\n", line);
            if (!next)
                break;
        }
        free(text);
    }
    char where[2048];
    here(s, e.key, e.kind == LEARNED_SPEC ? e.ranks : 0, a, where, sizeof(where));
    if (where[0])
        printf("  %s\n", where);
    learned_entry_free(&e);
}

static int cmd_show(const learned_store *s, const char *app)
{
    char **names;
    size_t count;
    int rc = select_app(s, app, &names, &count);
    if (rc)
        return rc;
    allocation a;
    allocation_read(&a);
    for (size_t i = 0; i < count; i++)
        show_entry(s, names[i], &a);
    if (a.inside) {
        smp_nodes_free(&a.nodes);
        smp_levels_free(&a.levels);
    }
    learned_names_free(names, count);
    return 0;
}

/* ---- forget --------------------------------------------------------------- */

/* every leftover profile directory (a run that srun never finished) */
static void forget_profiles(const learned_store *s)
{
    char dir[PATH_MAX + 16];
    snprintf(dir, sizeof(dir), "%s/profiles", s->path);
    char msg[1200];
    int fd = sm_subdir_open(s->fd, dir, "profiles", SM_DIR_PRIVATE, false, msg, sizeof(msg));
    if (fd < 0)
        return;
    DIR *d = fdopendir(fd);
    if (!d) {
        close(fd);
        return;
    }
    struct dirent *de;
    while ((de = readdir(d)))
        if (!strncmp(de->d_name, "stencil-map.", 12)) {
            char path[2 * PATH_MAX];
            snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
            sm_private_dir_remove(path);
            printf("forgot the profile %s\n", path);
        }
    closedir(d);
}

static int cmd_forget(const learned_store *s, const char *app)
{
    char **names;
    size_t count;
    int rc = app ? select_app(s, app, &names, &count) : learned_store_names(s, NULL, &names, &count);
    if (rc)
        return rc < 0 ? SMP_ERR_SYSTEM : rc;
    for (size_t i = 0; i < count; i++) {
        if (unlinkat(s->fd, names[i], 0)) {
            fprintf(stderr, "stencil-map learned: %s/%s: cannot remove: %m\n", s->path, names[i]);
            rc = SMP_ERR_SYSTEM;
        } else
            printf("forgot %s/%s\n", s->path, names[i]);
    }
    if (!app)
        forget_profiles(s);
    if (!app && !count)
        printf("nothing learned to forget in %s\n", s->path);
    learned_names_free(names, count);
    return rc;
}

int cmd_learned(int argc, char **argv)
{
    learned_opts o;
    int rc = parse(argc, argv, &o);
    if (rc >= 0)
        return rc;
    learned_store s;
    rc = open_store(&o, &s);
    if (rc == 1) /* no store: nothing to list, show or forget */
        return strcmp(o.sub, "list") && !o.all ? NOTHING : 0;
    if (rc)
        return rc;
    if (!strcmp(o.sub, "list"))
        rc = cmd_list(&s);
    else if (!strcmp(o.sub, "show"))
        rc = cmd_show(&s, o.app);
    else
        rc = cmd_forget(&s, o.all ? NULL : o.app);
    learned_store_close(&s);
    return rc;
}
