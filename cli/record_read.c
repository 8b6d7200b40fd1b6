/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Reading audit records and their in-job verification files.  Every field
 * the writers produce is checked for its type; a file that fails is
 * reported as unreadable, naming the field, and never half-used.  Whether
 * the values agree with each other is checked later (audit_check.c). */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "audit.h"
#include "formats.h"

/* Records of a million ranks are some 15 MB; anything far beyond that is
 * not a record. */
#define MAX_FILE_BYTES (512L << 20)

static int bad(char *err, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int bad(char *err, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, n, fmt, ap);
    va_end(ap);
    return -1;
}

char *audit_verify_path(const char *record_path)
{
    size_t len = strlen(record_path);
    if (len >= 5 && !strcmp(record_path + len - 5, ".json"))
        len -= 5;
    char *out = malloc(len + sizeof(".verify.json"));
    if (out) {
        memcpy(out, record_path, len);
        strcpy(out + len, ".verify.json");
    }
    return out;
}

/* Non-negative integer; null allowed when nullable (then *v = -1). */
static int get_int(json_t *o, const char *obj, const char *key, bool nullable, int64_t *v,
                   char *err, size_t n)
{
    json_t *x = json_object_get(o, key);
    if (!x)
        return bad(err, n, "%s%s%s: missing", obj, *obj ? "." : "", key);
    if (json_is_null(x) && nullable) {
        *v = -1;
        return 0;
    }
    if (!json_is_integer(x) || json_integer_value(x) < 0)
        return bad(err, n, "%s%s%s: must be a non-negative integer%s", obj, *obj ? "." : "", key,
                   nullable ? " or null" : "");
    *v = json_integer_value(x);
    return 0;
}

static int get_str(json_t *o, const char *key, bool nullable, char *out, size_t size, char *err,
                   size_t n)
{
    json_t *x = json_object_get(o, key);
    if (!x)
        return bad(err, n, "%s: missing", key);
    if (json_is_null(x) && nullable) {
        out[0] = '\0';
        return 0;
    }
    if (!json_is_string(x))
        return bad(err, n, "%s: must be a string%s", key, nullable ? " or null" : "");
    if (json_string_length(x) >= size)
        return bad(err, n, "%s: longer than %zu bytes", key, size - 1);
    memcpy(out, json_string_value(x), json_string_length(x) + 1);
    return 0;
}

/* Opens a record or result without following a symlink and only when it
 * is a regular file: an administrator auditing users' directories must not
 * be led to read other files, nor hang on a FIFO. */
static json_t *load(const char *path, char *err, size_t n, bool *absent)
{
    *absent = false;
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        *absent = errno == ENOENT;
        bad(err, n, "cannot open: %s", errno == ELOOP ? "a symbolic link, not followed" : strerror(errno));
        return NULL;
    }
    struct stat sb;
    if (fstat(fd, &sb) || !S_ISREG(sb.st_mode)) {
        close(fd);
        bad(err, n, "not a regular file");
        return NULL;
    }
    if (sb.st_size > MAX_FILE_BYTES) {
        close(fd);
        bad(err, n, "larger than %ld MB", MAX_FILE_BYTES >> 20);
        return NULL;
    }
    FILE *f = fdopen(fd, "r");
    if (!f) {
        close(fd);
        bad(err, n, "out of memory");
        return NULL;
    }
    json_error_t je;
    json_t *j = json_loadf(f, JSON_REJECT_DUPLICATES, &je);
    if (!j)
        bad(err, n, "invalid JSON at line %d: %s", je.line, je.text);
    fclose(f);
    if (j && !json_is_object(j)) {
        json_decref(j);
        j = NULL;
        bad(err, n, "not a JSON object");
    }
    return j;
}

/* A file names the stencilmap that wrote it and its format; one without a
 * format predates the numbers and is format 1.  A format newer than this
 * reader knows is refused before any other field is read: its fields may
 * mean something else, and a guess would be a misreading. */
static int check_format(json_t *j, const char *what, int known, char *err, size_t n)
{
    json_t *f = json_object_get(j, "format"), *v = json_object_get(j, "stencilmap_version");
    if (v && !json_is_string(v))
        return bad(err, n, "stencilmap_version: must be a string");
    if (!f)
        return 0;
    if (!json_is_integer(f) || json_integer_value(f) < 1)
        return bad(err, n, "format: must be a positive integer");
    if (json_integer_value(f) > known)
        return bad(err, n,
                   "format: %s of format %lld (written by stencilmap %.40s), newer than the "
                   "format %d this stencil-map %s reads; read it with a newer stencil-map",
                   what, (long long)json_integer_value(f), v ? json_string_value(v) : "(unknown)",
                   known, SM_VERSION);
    return 0;
}

static int parse_nodes(json_t *j, audit_record *rec, char *err, size_t n)
{
    json_t *names = json_object_get(j, "nodes"), *slots = json_object_get(j, "slots");
    if (!json_is_array(names))
        return bad(err, n, "nodes: must be an array of node names");
    if (!json_is_array(slots))
        return bad(err, n, "slots: must be an array of slot counts");
    size_t count = json_array_size(names);
    if (json_array_size(slots) != count)
        return bad(err, n, "slots: has %zu entries but nodes has %zu", json_array_size(slots),
                   count);
    if (count > SMP_MAX_NODES)
        return bad(err, n, "nodes: more than %d", SMP_MAX_NODES);
    smp_nodes *nd = &rec->nodes;
    nd->names = calloc(count ? count : 1, sizeof(char *));
    nd->slots = calloc(count ? count : 1, sizeof(int32_t));
    if (!nd->names || !nd->slots)
        return bad(err, n, "out of memory");
    for (size_t i = 0; i < count; i++) {
        json_t *s = json_array_get(names, i), *c = json_array_get(slots, i);
        if (!json_is_string(s) || !json_string_length(s))
            return bad(err, n, "nodes[%zu]: must be a non-empty string", i);
        if (!json_is_integer(c) || json_integer_value(c) < 1 || json_integer_value(c) > INT32_MAX)
            return bad(err, n, "slots[%zu]: must be a positive integer", i);
        if (!(nd->names[i] = strdup(json_string_value(s))))
            return bad(err, n, "out of memory");
        nd->slots[i] = (int32_t)json_integer_value(c);
        nd->total_slots += nd->slots[i];
        nd->count = (int)i + 1;
    }
    return 0;
}

/* Node names sorted, for lookups by name in O(log nodes): a record of a
 * million ranks on thousands of nodes names a node per rank. */
struct name_index {
    const smp_nodes *nodes;
    int *order;
};

static const smp_nodes *sort_nodes;
static int by_name(const void *a, const void *b)
{
    return strcmp(sort_nodes->names[*(const int *)a], sort_nodes->names[*(const int *)b]);
}

static int index_build(struct name_index *ix, const smp_nodes *nodes, char *err, size_t n)
{
    ix->nodes = nodes;
    ix->order = malloc(sizeof(int) * (size_t)(nodes->count ? nodes->count : 1));
    if (!ix->order)
        return bad(err, n, "out of memory");
    for (int i = 0; i < nodes->count; i++)
        ix->order[i] = i;
    sort_nodes = nodes;
    qsort(ix->order, (size_t)nodes->count, sizeof(int), by_name);
    for (int i = 1; i < nodes->count; i++)
        if (!strcmp(nodes->names[ix->order[i]], nodes->names[ix->order[i - 1]])) {
            int k = ix->order[i] > ix->order[i - 1] ? ix->order[i] : ix->order[i - 1];
            free(ix->order);
            ix->order = NULL;
            return bad(err, n, "nodes[%d]: '%.200s' listed twice", k, nodes->names[k]);
        }
    return 0;
}

static int index_find(const struct name_index *ix, const char *name)
{
    int lo = 0, hi = ix->nodes->count - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2, c = strcmp(name, ix->nodes->names[ix->order[mid]]);
        if (!c)
            return ix->order[mid];
        if (c < 0)
            hi = mid - 1;
        else
            lo = mid + 1;
    }
    return -1;
}

static int parse_grid(json_t *j, audit_record *rec, char *err, size_t n)
{
    json_t *g = json_object_get(j, "grid");
    if (!json_is_object(g))
        return bad(err, n, "grid: must be an object with dims and periods");
    json_t *dims = json_object_get(g, "dims"), *per = json_object_get(g, "periods");
    if (!json_is_array(dims))
        return bad(err, n, "grid.dims: must be an array");
    if (!json_is_array(per))
        return bad(err, n, "grid.periods: must be an array");
    size_t nd = json_array_size(dims);
    if (nd < 1 || nd > SMP_MAX_DIMS)
        return bad(err, n, "grid.dims: needs 1 to %d entries", SMP_MAX_DIMS);
    if (json_array_size(per) != nd)
        return bad(err, n, "grid.periods: has %zu entries but grid.dims has %zu",
                   json_array_size(per), nd);
    int64_t d[SMP_MAX_DIMS];
    bool p[SMP_MAX_DIMS];
    for (size_t i = 0; i < nd; i++) {
        json_t *x = json_array_get(dims, i), *y = json_array_get(per, i);
        if (!json_is_integer(x))
            return bad(err, n, "grid.dims[%zu]: must be an integer", i);
        if (!json_is_boolean(y))
            return bad(err, n, "grid.periods[%zu]: must be a boolean", i);
        d[i] = json_integer_value(x);
        p[i] = json_is_true(y);
    }
    smp_error e;
    smp_error_clear(&e);
    if (smp_grid_init(&rec->grid, (int)nd, d, p, &e))
        return bad(err, n, "%s", e.msg);
    /* records from before grid.order are row-major */
    json_t *ord = json_object_get(g, "order");
    if (ord && (!json_is_string(ord) || !smp_order_from_name(json_string_value(ord), &rec->grid.order)))
        return bad(err, n, "grid.order: must be \"row-major\" or \"column-major\"");
    return 0;
}

static int parse_stencil(json_t *j, audit_record *rec, char *err, size_t n)
{
    json_t *st = json_object_get(j, "stencil");
    if (!json_is_object(st))
        return bad(err, n, "stencil: must be an object with offsets");
    json_t *offs = json_object_get(st, "offsets"), *w = json_object_get(st, "weights");
    if (!json_is_array(offs))
        return bad(err, n, "stencil.offsets: must be an array");
    size_t k = json_array_size(offs);
    if (k < 1 || k > SMP_MAX_OFFSETS)
        return bad(err, n, "stencil.offsets: needs 1 to %d vectors", SMP_MAX_OFFSETS);
    bool weighted = w && !json_is_null(w);
    if (weighted && (!json_is_array(w) || json_array_size(w) != k))
        return bad(err, n, "stencil.weights: must be an array of %zu numbers", k);
    json_t *v0 = json_array_get(offs, 0);
    size_t nd = json_is_array(v0) ? json_array_size(v0) : 0;
    if (nd < 1 || nd > SMP_MAX_DIMS)
        return bad(err, n, "stencil.offsets[0]: must be an array of 1 to %d integers", SMP_MAX_DIMS);
    int32_t *o = malloc(sizeof(int32_t) * k * nd);
    double *wt = weighted ? malloc(sizeof(double) * k) : NULL;
    int rc = 0;
    if (!o || (weighted && !wt))
        rc = bad(err, n, "out of memory");
    for (size_t i = 0; i < k && !rc; i++) {
        json_t *v = json_array_get(offs, i);
        if (!json_is_array(v) || json_array_size(v) != nd) {
            rc = bad(err, n, "stencil.offsets[%zu]: must hold %zu integers", i, nd);
            break;
        }
        for (size_t c = 0; c < nd && !rc; c++) {
            json_t *x = json_array_get(v, c);
            if (!json_is_integer(x) || json_integer_value(x) > SMP_MAX_OFFSET_ABS ||
                json_integer_value(x) < -SMP_MAX_OFFSET_ABS)
                rc = bad(err, n, "stencil.offsets[%zu][%zu]: must be an integer of at most %d", i,
                         c, SMP_MAX_OFFSET_ABS);
            else
                o[i * nd + c] = (int32_t)json_integer_value(x);
        }
        if (!rc && wt) {
            json_t *x = json_array_get(w, i);
            if (!json_is_number(x))
                rc = bad(err, n, "stencil.weights[%zu]: must be a number", i);
            else
                wt[i] = json_number_value(x);
        }
    }
    smp_error e;
    smp_error_clear(&e);
    if (!rc && smp_stencil_init(&rec->stencil, (int)nd, (int)k, o, wt, "stencil", &e))
        rc = bad(err, n, "%s", e.msg);
    if (!rc) {
        rec->have_stencil = true;
        json_t *name = json_object_get(st, "name");
        if (json_is_string(name))
            snprintf(rec->stencil.name, sizeof(rec->stencil.name), "%s", json_string_value(name));
    }
    free(o);
    free(wt);
    return rc;
}

/* Node names become indices; names the record's node list lacks become -1
 * (an inconsistency the checks report, not a reading error). */
static int parse_placement(json_t *j, audit_record *rec, char *err, size_t n)
{
    json_t *pl = json_object_get(j, "placement");
    if (!json_is_array(pl))
        return bad(err, n, "placement: must be an array of node names");
    size_t count = json_array_size(pl);
    if ((int64_t)count > SMP_MAX_RANKS)
        return bad(err, n, "placement: more than %lld entries", (long long)SMP_MAX_RANKS);
    rec->node_of_rank = malloc(sizeof(int32_t) * (count ? count : 1));
    if (!rec->node_of_rank)
        return bad(err, n, "out of memory");
    struct name_index ix;
    if (index_build(&ix, &rec->nodes, err, n))
        return -1;
    int last = -1; /* names repeat in long runs */
    for (size_t r = 0; r < count; r++) {
        json_t *s = json_array_get(pl, r);
        if (!json_is_string(s)) {
            free(ix.order);
            return bad(err, n, "placement[%zu]: must be a node name", r);
        }
        const char *name = json_string_value(s);
        int i = (last >= 0 && !strcmp(rec->nodes.names[last], name)) ? last : index_find(&ix, name);
        rec->node_of_rank[r] = i;
        if (i >= 0)
            last = i;
    }
    free(ix.order);
    rec->placement_count = (int64_t)count;
    return 0;
}

/* A duration in milliseconds; absent or null is -1 (older records). */
static int get_ms(json_t *o, const char *key, double *v, char *err, size_t n)
{
    json_t *x = json_object_get(o, key);
    *v = -1;
    if (!x || json_is_null(x))
        return 0;
    if (!json_is_number(x) || !(json_number_value(x) >= 0) || json_number_value(x) > 1e12)
        return bad(err, n, "%s: must be a non-negative number of milliseconds or null", key);
    *v = json_number_value(x);
    return 0;
}

/* launched, error and the plugin's timings */
static int parse_launch(json_t *j, audit_record *rec, char *err, size_t n)
{
    json_t *l = json_object_get(j, "launched");
    if (l && !json_is_boolean(l))
        return bad(err, n, "launched: must be true or false");
    rec->launched = !l || json_is_true(l);
    json_t *e = json_object_get(j, "error");
    if (e && !json_is_null(e)) {
        if (!json_is_string(e))
            return bad(err, n, "error: must be a string or null");
        if (get_str(j, "error", true, rec->launch_error, sizeof(rec->launch_error), err, n))
            return -1;
    }
    return get_ms(j, "plugin_ms", &rec->plugin_ms, err, n) ||
                   get_ms(j, "plugin_cpu_ms", &rec->plugin_cpu_ms, err, n) ||
                   get_ms(j, "alloc_check_ms", &rec->alloc_check_ms, err, n)
               ? -1
               : 0;
}

/* optional: only steps the plugin bound to sockets carry these */
static int parse_sockets(json_t *j, audit_record *rec, char *err, size_t n)
{
    json_t *b = json_object_get(j, "bind");
    if (!b)
        return 0;
    if (!json_is_string(b) || strcmp(json_string_value(b), "socket"))
        return bad(err, n, "bind: must be \"socket\" where present");
    rec->bound = true;
    json_t *per = json_object_get(j, "sockets");
    if (!json_is_array(per) || (int)json_array_size(per) != rec->nodes.count)
        return bad(err, n, "sockets: must be a list with one count per node (%d)",
                   rec->nodes.count);
    for (size_t i = 0; i < json_array_size(per); i++)
        if (!json_is_integer(json_array_get(per, i)) ||
            json_integer_value(json_array_get(per, i)) < 1)
            return bad(err, n, "sockets[%zu]: must be a positive integer", i);
    return get_int(j, "", "j_socket_sum", false, &rec->socket_j_sum, err, n) ||
                   get_int(j, "", "j_socket_max", false, &rec->socket_j_max, err, n) ||
                   get_int(j, "", "naive_j_socket_sum", false, &rec->naive_socket_j_sum, err, n) ||
                   get_int(j, "", "naive_j_socket_max", false, &rec->naive_socket_j_max, err, n)
               ? -1
               : 0;
}

static int parse(json_t *j, audit_record *rec, char *err, size_t n)
{
    if (check_format(j, "an audit record", SM_FORMAT_RECORD, err, n) ||
        get_int(j, "", "job_id", false, &rec->job_id, err, n) ||
        get_int(j, "", "step_id", true, &rec->step_id, err, n) ||
        get_str(j, "user", false, rec->user, sizeof(rec->user), err, n) ||
        get_str(j, "time", false, rec->time, sizeof(rec->time), err, n) ||
        get_str(j, "spec", true, rec->spec, sizeof(rec->spec), err, n) ||
        get_str(j, "spec_source", true, rec->spec_source, sizeof(rec->spec_source), err, n) ||
        get_str(j, "algorithm_requested", true, rec->alg_requested, sizeof(rec->alg_requested),
                err, n) ||
        get_str(j, "algorithm_override", true, rec->alg_override, sizeof(rec->alg_override), err,
                n) ||
        get_str(j, "algorithm_used", true, rec->alg_used, sizeof(rec->alg_used), err, n))
        return -1;
    if (parse_nodes(j, rec, err, n) || parse_launch(j, rec, err, n))
        return -1;
    json_t *fb = json_object_get(j, "fallback");
    if (!fb)
        return bad(err, n, "fallback: missing");
    rec->ranks = rec->j_sum = rec->j_max = rec->blocked_j_sum = rec->blocked_j_max = -1;
    if (!json_is_null(fb)) {
        json_t *reason = json_object_get(fb, "reason");
        if (!json_is_object(fb) || !json_is_string(reason))
            return bad(err, n, "fallback: must be null or an object with a reason");
        snprintf(rec->fallback, sizeof(rec->fallback), "%s", json_string_value(reason));
        rec->kind = AUDIT_KIND_FALLBACK;
        return 0;
    }
    if (!rec->alg_used[0]) {
        /* a plan that failed: no figures to read (they are null) */
        rec->kind = AUDIT_KIND_NOTHING;
        return 0;
    }
    rec->kind = AUDIT_KIND_PLACED;
    rec->placed = true;
    if (get_int(j, "", "ranks", false, &rec->ranks, err, n) ||
        get_int(j, "", "j_sum", false, &rec->j_sum, err, n) ||
        get_int(j, "", "j_max", false, &rec->j_max, err, n) ||
        get_int(j, "", "blocked_j_sum", false, &rec->blocked_j_sum, err, n) ||
        get_int(j, "", "blocked_j_max", false, &rec->blocked_j_max, err, n) ||
        parse_sockets(j, rec, err, n))
        return -1;
    if (parse_grid(j, rec, err, n) || parse_stencil(j, rec, err, n))
        return -1;
    return parse_placement(j, rec, err, n);
}

int audit_record_read(const char *path, audit_record *rec)
{
    memset(rec, 0, sizeof(*rec));
    rec->job_id = rec->step_id = -1;
    rec->ranks = -1;
    rec->launched = true;
    rec->plugin_ms = rec->plugin_cpu_ms = rec->alloc_check_ms = -1;
    rec->verify.job_id = rec->verify.step_id = -1;
    rec->path = strdup(path);
    if (!rec->path)
        return bad(rec->error, sizeof(rec->error), "out of memory");
    bool absent;
    rec->json = load(path, rec->error, sizeof(rec->error), &absent);
    if (!rec->json || parse(rec->json, rec, rec->error, sizeof(rec->error)))
        return -1;
    char *vpath = audit_verify_path(path);
    if (!vpath)
        return bad(rec->error, sizeof(rec->error), "out of memory");
    audit_verify_read(vpath, &rec->verify);
    free(vpath);
    return 0;
}

static int parse_pair(json_t *j, const char *key, bool *has, int64_t *a, int64_t *b, char *e,
                      size_t n)
{
    json_t *o = json_object_get(j, key);
    *has = false;
    if (!o)
        return bad(e, n, "%s: missing", key);
    if (json_is_null(o))
        return 0;
    if (!json_is_object(o))
        return bad(e, n, "%s: must be an object with j_sum and j_max, or null", key);
    if (get_int(o, key, "j_sum", false, a, e, n) || get_int(o, key, "j_max", false, b, e, n))
        return -1;
    *has = true;
    return 0;
}

static int parse_verify(json_t *j, audit_verify *v)
{
    char *e = v->error;
    size_t n = sizeof(v->error);
    if (check_format(j, "an in-job result", SM_FORMAT_VERIFY, e, n) ||
        get_int(j, "", "job_id", true, &v->job_id, e, n) ||
        get_int(j, "", "step_id", true, &v->step_id, e, n) ||
        get_str(j, "status", false, v->status, sizeof(v->status), e, n) ||
        get_str(j, "message", false, v->message, sizeof(v->message), e, n) ||
        get_int(j, "", "ranks", false, &v->ranks, e, n))
        return -1;
    if (strcmp(v->status, "OK") && strcmp(v->status, "MISMATCH") && strcmp(v->status, "ERROR"))
        return bad(e, n, "status: must be OK, MISMATCH or ERROR, not '%.20s'", v->status);
    if (parse_pair(j, "planned", &v->has_planned, &v->planned_j_sum, &v->planned_j_max, e, n) ||
        parse_pair(j, "observed", &v->has_observed, &v->observed_j_sum, &v->observed_j_max, e, n))
        return -1;
    if (strcmp(v->status, "ERROR") && !v->has_observed)
        return bad(e, n, "observed: null, but status is %s", v->status);
    json_t *nodes = json_object_get(j, "rank_nodes");
    if (!nodes)
        return bad(e, n, "rank_nodes: missing");
    if (json_is_null(nodes))
        return 0;
    if (!json_is_array(nodes))
        return bad(e, n, "rank_nodes: must be an array of node names or null");
    size_t cnt = json_array_size(nodes);
    v->rank_nodes = calloc(cnt ? cnt : 1, sizeof(char *));
    if (!v->rank_nodes)
        return bad(e, n, "out of memory");
    for (size_t i = 0; i < cnt; i++) {
        json_t *s = json_array_get(nodes, i);
        if (!json_is_string(s))
            return bad(e, n, "rank_nodes[%zu]: must be a node name", i);
        if (!(v->rank_nodes[i] = strdup(json_string_value(s))))
            return bad(e, n, "out of memory");
        v->rank_nodes_count = (int64_t)i + 1;
    }
    return 0;
}

int audit_verify_read(const char *path, audit_verify *v)
{
    memset(v, 0, sizeof(*v));
    v->job_id = v->step_id = -1;
    v->path = strdup(path);
    bool absent;
    json_t *j = load(path, v->error, sizeof(v->error), &absent);
    v->present = !absent;
    if (!j) {
        if (absent)
            v->error[0] = '\0';
        return absent ? 0 : -1;
    }
    int rc = parse_verify(j, v);
    json_decref(j);
    v->readable = rc == 0;
    return rc;
}

void audit_verify_free(audit_verify *v)
{
    for (int64_t i = 0; v->rank_nodes && i < v->rank_nodes_count; i++)
        free(v->rank_nodes[i]);
    free(v->rank_nodes);
    free(v->path);
    memset(v, 0, sizeof(*v));
}

void audit_record_free(audit_record *rec)
{
    json_decref(rec->json);
    smp_nodes_free(&rec->nodes);
    if (rec->have_stencil)
        smp_stencil_free(&rec->stencil);
    free(rec->node_of_rank);
    free(rec->path);
    audit_verify_free(&rec->verify);
    memset(rec, 0, sizeof(*rec));
}
