/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The audit record written: the struct as JSON (Jansson), in a fixed key
 * order, then stored atomically under its name (smr_atomic.h). */
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "formats/format_numbers.h"
#include "smr_atomic.h"
#include "smr_record.h"
#include "smr_record_json.h"
#include "smr_record_read.h"

void smr_record_init(smr_record *rec)
{
    memset(rec, 0, sizeof(*rec));
    rec->format = SM_FORMAT_RECORD;
    rec->job_id = rec->step_id = rec->uid = rec->ranks = -1;
    rec->j_sum = rec->j_max = rec->blocked_j_sum = rec->blocked_j_max = -1;
    rec->plugin_ms = rec->plugin_cpu_ms = rec->alloc_check_ms = -1;
    rec->launched = true;
    rec->kind = SMR_KIND_NOTHING;
    rec->link_l_max = rec->link_bound = -1;
}

static json_t *str_or_null(const char *s)
{
    return s[0] ? json_string(s) : json_null();
}

static json_t *int_or_null(int64_t v)
{
    return v >= 0 ? json_integer(v) : json_null();
}

static json_t *ms_or_null(double v)
{
    return v >= 0 ? json_real(v) : json_null();
}

static void set(json_t *j, const char *key, json_t *v)
{
    json_object_set_new(j, key, v);
}

/* who, when, what was asked, on which allocation, and how srun went */
static void add_head(json_t *j, const smr_record *rec)
{
    set(j, "stencilmap_version", json_string(SM_VERSION));
    set(j, "format", json_integer(SM_FORMAT_RECORD));
    set(j, "job_id", json_integer(rec->job_id));
    set(j, "step_id", int_or_null(rec->step_id));
    set(j, "user", json_string(rec->user));
    set(j, "uid", json_integer(rec->uid));
    set(j, "time", json_string(rec->time));
    set(j, "spec", json_string(rec->spec));
    set(j, "spec_source", json_string(rec->spec_source));
    json_t *nodes = json_array(), *slots = json_array();
    for (int i = 0; i < rec->nodes.count; i++) {
        json_array_append_new(nodes, json_string(rec->nodes.names[i]));
        json_array_append_new(slots, json_integer(rec->nodes.slots[i]));
    }
    set(j, "nodes", nodes);
    set(j, "slots", slots);
    set(j, "launched", json_boolean(rec->launched));
    set(j, "error", str_or_null(rec->error));
    set(j, "plugin_ms", ms_or_null(rec->plugin_ms));
    set(j, "plugin_cpu_ms", ms_or_null(rec->plugin_cpu_ms));
    set(j, "alloc_check_ms", ms_or_null(rec->alloc_check_ms));
    set(j, "ranks", rec->kind == SMR_KIND_PLACED ? json_integer(rec->ranks) : json_null());
}

static json_t *grid_json(const smp_grid *g)
{
    json_t *dims = json_array(), *per = json_array();
    for (int i = 0; i < g->ndims; i++) {
        json_array_append_new(dims, json_integer(g->dims[i]));
        json_array_append_new(per, json_boolean(g->periods[i]));
    }
    return json_pack("{s:o,s:o,s:s}", "dims", dims, "periods", per, "order",
                     smp_order_name(g->order));
}

static json_t *stencil_json(const smp_stencil *sc)
{
    json_t *offs = json_array();
    for (int k = 0; k < sc->count; k++) {
        json_t *o = json_array();
        for (int d = 0; d < sc->ndims; d++)
            json_array_append_new(o, json_integer(sc->offsets[k * sc->ndims + d]));
        json_array_append_new(offs, o);
    }
    json_t *j = json_pack("{s:s,s:o}", "name", sc->name[0] ? sc->name : "custom", "offsets", offs);
    if (smp_stencil_weighted(sc)) {
        json_t *w = json_array();
        for (int k = 0; k < sc->count; k++)
            json_array_append_new(w, json_real(sc->weights[k]));
        set(j, "weights", w);
    }
    return j;
}

/* optional fields: only steps bound to sockets have them */
static void add_sockets(json_t *j, const smr_record *rec)
{
    json_t *socks = json_array();
    for (int i = 0; i < rec->nodes.count; i++)
        json_array_append_new(socks, json_integer(rec->sockets[i]));
    set(j, "bind", json_string("socket"));
    set(j, "sockets", socks);
    set(j, "j_socket_sum", json_integer(rec->socket_j_sum));
    set(j, "j_socket_max", json_integer(rec->socket_j_max));
    set(j, "naive_j_socket_sum", json_integer(rec->naive_socket_j_sum));
    set(j, "naive_j_socket_max", json_integer(rec->naive_socket_j_max));
    set(j, "sockets_note", str_or_null(rec->sockets_note));
}

static void add_placed(json_t *j, const smr_record *rec)
{
    set(j, "grid", grid_json(&rec->grid));
    set(j, "stencil", stencil_json(&rec->stencil));
    set(j, "algorithm_requested", str_or_null(rec->alg_requested));
    set(j, "algorithm_override", str_or_null(rec->alg_override));
    set(j, "algorithm_used", str_or_null(rec->alg_used));
    set(j, "objective", str_or_null(rec->objective));
    set(j, "effort", rec->effort ? json_integer(rec->effort) : json_null());
    set(j, "fallback", json_null());
    set(j, "j_sum", json_integer(rec->j_sum));
    set(j, "j_max", json_integer(rec->j_max));
    set(j, "blocked_j_sum", json_integer(rec->blocked_j_sum));
    set(j, "blocked_j_max", json_integer(rec->blocked_j_max));
    set(j, "hostfile", json_string(rec->hostfile));
    json_t *place = json_array();
    for (int64_t r = 0; r < rec->placement_count; r++)
        json_array_append_new(place, json_string(smr_record_node_of(rec, r)));
    set(j, "placement", place);
    if (rec->bound)
        add_sockets(j, rec);
    if (rec->levels.source[0]) /* where the levels came from, or why there are none */
        set(j, "topology_source", json_string(rec->levels.source));
    if (rec->topology_warnings) /* what the topology's reader repaired */
        set(j, "topology_warnings", smr_warnings_json(rec->topology_warnings));
    if (rec->levels.nlevels > 0)
        set(j, "topology", smr_levels_json(rec));
    if (rec->origin.source[0]) /* written inside the application */
        set(j, "origin", smr_origin_json(rec));
}

/* nothing placed: a fallback to blocked, or a plan that failed */
static void add_unplaced(json_t *j, const smr_record *rec)
{
    set(j, "grid", json_null());
    set(j, "stencil", json_null());
    set(j, "algorithm_requested", str_or_null(rec->alg_requested));
    set(j, "algorithm_override", str_or_null(rec->alg_override));
    set(j, "algorithm_used", str_or_null(rec->alg_used));
    set(j, "fallback", rec->kind == SMR_KIND_FALLBACK
                           ? json_pack("{s:s,s:s}", "to", "blocked", "reason", rec->fallback)
                           : json_null());
    static const char *const figures[] = {"j_sum", "j_max", "blocked_j_sum", "blocked_j_max",
                                          "hostfile", "placement"};
    for (size_t i = 0; i < sizeof(figures) / sizeof(*figures); i++)
        set(j, figures[i], json_null());
}

char *smr_record_dumps(const smr_record *rec)
{
    json_t *j = json_object();
    if (!j)
        return NULL;
    add_head(j, rec);
    if (rec->kind == SMR_KIND_PLACED)
        add_placed(j, rec);
    else
        add_unplaced(j, rec);
    char *text = json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    json_decref(j);
    return text;
}

static int emit(FILE *f, const void *arg, char *msg, size_t n)
{
    if (fputs(arg, f) != EOF && fputc('\n', f) != EOF)
        return 0;
    snprintf(msg, n, "write failed: %s", strerror(errno));
    return -1;
}

struct naming {
    const smr_record *rec;
    long pid;
};

static void name_of(int k, char *name, size_t n, const void *arg)
{
    const struct naming *nm = arg;
    smr_record_name(name, n, nm->rec->job_id, nm->rec->step_id, nm->pid, k);
}

int smr_record_write_at(int dir_fd, const char *dir, const smr_record *rec, long pid,
                        char *name, size_t name_len, char *msg, size_t n)
{
    char *text = smr_record_dumps(rec);
    if (!text) {
        snprintf(msg, n, "out of memory");
        return -1;
    }
    char tmp[96];
    smr_record_tmp_name(tmp, sizeof(tmp), rec->job_id, rec->step_id, pid);
    struct naming nm = {rec, pid};
    int rc = smr_atomic_write(dir_fd, dir, tmp, emit, text, name_of, &nm, SMR_NAME_TRIES, name,
                              name_len, msg, n);
    free(text);
    return rc;
}
