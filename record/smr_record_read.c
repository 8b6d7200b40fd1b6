/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Reading an audit record (smr_record.h).  Every field the writer
 * produces is checked for its type; a file that fails is reported as
 * unreadable, naming the field, and never half-used.  The grid and the
 * stencil go through the placement core's own parsers. */
#include <stdlib.h>
#include <string.h>

#include "formats/format_numbers.h"
#include "smr_read_util.h"
#include "smr_record.h"
#include "smr_record_json.h"
#include "smr_record_read.h"
#include "formats/spec_internal.h"

static int parse_nodes(json_t *j, smr_record *rec, char *err, size_t n)
{
    json_t *names = json_object_get(j, "nodes"), *slots = json_object_get(j, "slots");
    if (!json_is_array(names))
        return smr_bad(err, n, "nodes: must be an array of node names");
    if (!json_is_array(slots))
        return smr_bad(err, n, "slots: must be an array of slot counts");
    size_t count = json_array_size(names);
    if (json_array_size(slots) != count)
        return smr_bad(err, n, "slots: has %zu entries but nodes has %zu",
                       json_array_size(slots), count);
    if (count > SMP_MAX_NODES)
        return smr_bad(err, n, "nodes: more than %d", SMP_MAX_NODES);
    smp_nodes *nd = &rec->nodes;
    nd->names = calloc(count ? count : 1, sizeof(char *));
    nd->slots = calloc(count ? count : 1, sizeof(int32_t));
    if (!nd->names || !nd->slots)
        return smr_bad(err, n, "out of memory");
    for (size_t i = 0; i < count; i++) {
        json_t *s = json_array_get(names, i), *c = json_array_get(slots, i);
        if (!json_is_string(s) || !json_string_length(s))
            return smr_bad(err, n, "nodes[%zu]: must be a non-empty string", i);
        if (!json_is_integer(c) || json_integer_value(c) < 1 || json_integer_value(c) > INT32_MAX)
            return smr_bad(err, n, "slots[%zu]: must be a positive integer", i);
        if (!(nd->names[i] = strdup(json_string_value(s))))
            return smr_bad(err, n, "out of memory");
        nd->slots[i] = (int32_t)json_integer_value(c);
        nd->total_slots += nd->slots[i];
        nd->count = (int)i + 1;
    }
    return 0;
}

static int parse_grid(json_t *j, smr_record *rec, char *err, size_t n)
{
    json_t *g = json_object_get(j, "grid");
    if (!json_is_object(g))
        return smr_bad(err, n, "grid: must be an object with dims and periods");
    smp_error e;
    smp_error_clear(&e);
    if (smp_grid_from_json(&rec->grid, g, &e))
        return smr_bad(err, n, "%s", e.msg);
    rec->grid_order_given = json_object_get(g, "order") != NULL;
    return 0;
}

/* The stencil as the spec parser reads one; "name" is the record's own
 * label of it, not a name to look up. */
static int parse_stencil(json_t *j, smr_record *rec, char *err, size_t n)
{
    json_t *st = json_object_get(j, "stencil");
    if (!json_is_object(st))
        return smr_bad(err, n, "stencil: must be an object with offsets");
    json_t *name = json_object_get(st, "name");
    if (name && !json_is_string(name))
        return smr_bad(err, n, "stencil.name: must be a string");
    json_t *bare = json_copy(st);
    if (!bare)
        return smr_bad(err, n, "out of memory");
    json_object_del(bare, "name");
    smp_error e;
    smp_error_clear(&e);
    int rc = smp_stencil_from_json(&rec->stencil, bare, 0, "stencil", &e) ? smr_bad(err, n, "%s", e.msg) : 0;
    json_decref(bare);
    if (!rc && name)
        snprintf(rec->stencil.name, sizeof(rec->stencil.name), "%s", json_string_value(name));
    return rc;
}

/* A duration in milliseconds; absent or null is -1 (older records). */
static int get_ms(json_t *o, const char *key, double *v, char *err, size_t n)
{
    json_t *x = json_object_get(o, key);
    *v = -1;
    if (!x || json_is_null(x))
        return 0;
    if (!json_is_number(x) || !(json_number_value(x) >= 0) || json_number_value(x) > 1e12)
        return smr_bad(err, n, "%s: must be a non-negative number of milliseconds or null", key);
    *v = json_number_value(x);
    return 0;
}

/* launched, error and the plugin's timings */
static int parse_launch(json_t *j, smr_record *rec, char *err, size_t n)
{
    json_t *l = json_object_get(j, "launched");
    if (l && !json_is_boolean(l))
        return smr_bad(err, n, "launched: must be true or false");
    rec->launched = !l || json_is_true(l);
    return smr_get_opt_str(j, "error", rec->error, sizeof(rec->error), err, n) ||
                   get_ms(j, "plugin_ms", &rec->plugin_ms, err, n) ||
                   get_ms(j, "plugin_cpu_ms", &rec->plugin_cpu_ms, err, n) ||
                   get_ms(j, "alloc_check_ms", &rec->alloc_check_ms, err, n)
               ? -1
               : 0;
}

/* optional: only steps the plugin bound to sockets carry these */
static int parse_sockets(json_t *j, smr_record *rec, char *err, size_t n)
{
    json_t *b = json_object_get(j, "bind");
    if (!b)
        return 0;
    if (!json_is_string(b) || strcmp(json_string_value(b), "socket"))
        return smr_bad(err, n, "bind: must be \"socket\" where present");
    rec->bound = true;
    json_t *per = json_object_get(j, "sockets");
    if (!json_is_array(per) || (int)json_array_size(per) != rec->nodes.count)
        return smr_bad(err, n, "sockets: must be a list with one count per node (%d)",
                       rec->nodes.count);
    if (!(rec->sockets = calloc((size_t)rec->nodes.count + 1, sizeof(int32_t))))
        return smr_bad(err, n, "out of memory");
    for (size_t i = 0; i < json_array_size(per); i++) {
        json_t *x = json_array_get(per, i);
        if (!json_is_integer(x) || json_integer_value(x) < 1 || json_integer_value(x) > INT32_MAX)
            return smr_bad(err, n, "sockets[%zu]: must be a positive integer", i);
        rec->sockets[i] = (int32_t)json_integer_value(x);
    }
    return smr_get_int(j, "", "j_socket_sum", false, &rec->socket_j_sum, err, n) ||
                   smr_get_int(j, "", "j_socket_max", false, &rec->socket_j_max, err, n) ||
                   smr_get_int(j, "", "naive_j_socket_sum", false, &rec->naive_socket_j_sum, err, n) ||
                   smr_get_int(j, "", "naive_j_socket_max", false, &rec->naive_socket_j_max, err, n) ||
                   smr_get_opt_str(j, "sockets_note", rec->sockets_note, sizeof(rec->sockets_note), err, n)
               ? -1
               : 0;
}

/* what every record has: ids, who, when, the spec and the allocation */
static int parse_head(json_t *j, smr_record *rec, char *err, size_t n)
{
    if (smr_check_format(j, "an audit record", SM_FORMAT_RECORD, &rec->format, rec->version,
                         sizeof(rec->version), err, n) ||
        smr_get_int(j, "", "job_id", false, &rec->job_id, err, n) ||
        smr_get_int(j, "", "step_id", true, &rec->step_id, err, n) ||
        smr_get_str(j, "user", false, rec->user, sizeof(rec->user), err, n) ||
        smr_get_str(j, "time", false, rec->time, sizeof(rec->time), err, n) ||
        smr_get_str(j, "spec", true, rec->spec, sizeof(rec->spec), err, n) ||
        smr_get_str(j, "spec_source", true, rec->spec_source, sizeof(rec->spec_source), err, n) ||
        smr_get_str(j, "algorithm_requested", true, rec->alg_requested,
                    sizeof(rec->alg_requested), err, n) ||
        smr_get_str(j, "algorithm_override", true, rec->alg_override, sizeof(rec->alg_override),
                    err, n) ||
        smr_get_str(j, "algorithm_used", true, rec->alg_used, sizeof(rec->alg_used), err, n))
        return -1;
    if (json_object_get(j, "uid") && smr_get_int(j, "", "uid", false, &rec->uid, err, n))
        return -1;
    return parse_nodes(j, rec, err, n) || parse_launch(j, rec, err, n) ? -1 : 0;
}

static int parse_placed(json_t *j, smr_record *rec, char *err, size_t n)
{
    if (smr_get_int(j, "", "ranks", false, &rec->ranks, err, n) ||
        smr_get_int(j, "", "j_sum", false, &rec->j_sum, err, n) ||
        smr_get_int(j, "", "j_max", false, &rec->j_max, err, n) ||
        smr_get_int(j, "", "blocked_j_sum", false, &rec->blocked_j_sum, err, n) ||
        smr_get_int(j, "", "blocked_j_max", false, &rec->blocked_j_max, err, n) ||
        smr_get_opt_str(j, "objective", rec->objective, sizeof(rec->objective), err, n) ||
        smr_get_opt_str(j, "hostfile", rec->hostfile, sizeof(rec->hostfile), err, n) ||
        parse_sockets(j, rec, err, n))
        return -1;
    json_t *effort = json_object_get(j, "effort");
    if (effort && !json_is_null(effort) &&
        smr_get_int(j, "", "effort", false, &rec->effort, err, n))
        return -1;
    if (parse_grid(j, rec, err, n) || parse_stencil(j, rec, err, n))
        return -1;
    return smr_parse_placement(j, rec, err, n) || smr_parse_levels(j, rec, err, n) ||
                   smr_parse_origin(j, rec, err, n)
               ? -1
               : 0;
}

static int parse(json_t *j, smr_record *rec, char *err, size_t n)
{
    if (parse_head(j, rec, err, n))
        return -1;
    json_t *fb = json_object_get(j, "fallback");
    if (!fb)
        return smr_bad(err, n, "fallback: missing");
    if (!json_is_null(fb)) {
        json_t *reason = json_object_get(fb, "reason");
        if (!json_is_object(fb) || !json_is_string(reason))
            return smr_bad(err, n, "fallback: must be null or an object with a reason");
        snprintf(rec->fallback, sizeof(rec->fallback), "%s", json_string_value(reason));
        rec->kind = SMR_KIND_FALLBACK;
        return 0;
    }
    if (!rec->alg_used[0]) {
        /* a plan that failed: no figures to read (they are null) */
        rec->kind = SMR_KIND_NOTHING;
        return 0;
    }
    rec->kind = SMR_KIND_PLACED;
    return parse_placed(j, rec, err, n);
}

int smr_record_read(const char *path, smr_record *rec, char *err, size_t n)
{
    smr_record_init(rec);
    bool absent;
    json_t *j = smr_load(path, err, n, &absent);
    if (!j)
        return -1;
    int rc = parse(j, rec, err, n);
    json_decref(j);
    return rc;
}

int smr_record_read_time(const char *path, char *out, size_t n)
{
    char err[512];
    bool absent;
    json_t *j = smr_load(path, err, sizeof(err), &absent);
    int rc = j ? smr_get_str(j, "time", false, out, n, err, sizeof(err)) : -1;
    json_decref(j);
    return rc;
}

void smr_record_free(smr_record *rec)
{
    smp_nodes_free(&rec->nodes);
    if (rec->kind == SMR_KIND_PLACED)
        smp_stencil_free(&rec->stencil);
    free(rec->node_of_rank);
    for (int64_t i = 0; rec->strays && i < rec->stray_count; i++)
        free(rec->strays[i].name);
    free(rec->strays);
    free(rec->sockets);
    smp_levels_free(&rec->levels);
    for (int l = 0; l < SMP_MAX_LEVELS; l++)
        free(rec->link_uplinks_per_group[l]);
    free(rec->topology_warnings);
    smr_record_init(rec);
}
