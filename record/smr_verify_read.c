/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Reading an in-job result (smr_verify.h).  The fields the audit compares
 * are required; the descriptive ones (record, time, writer, algorithm,
 * coordinates, per-node counts) are read when present and checked for
 * their type. */
#include <stdlib.h>
#include <string.h>

#include "formats/format_numbers.h"
#include "smr_read_util.h"
#include "smr_verify.h"

static int parse_status(json_t *j, smr_verify *v, char *e, size_t n)
{
    char s[16];
    if (smr_get_str(j, "status", false, s, sizeof(s), e, n))
        return -1;
    if (!strcmp(s, "OK"))
        v->status = SMR_VERIFY_OK;
    else if (!strcmp(s, "MISMATCH"))
        v->status = SMR_VERIFY_MISMATCH;
    else if (!strcmp(s, "ERROR"))
        v->status = SMR_VERIFY_ERROR;
    else
        return smr_bad(e, n, "status: must be OK, MISMATCH or ERROR, not '%.20s'", s);
    return 0;
}

/* {"j_sum": .., "j_max": ..} or null */
static int parse_pair(json_t *j, const char *key, bool *has, int64_t *a, int64_t *b, char *e,
                      size_t n)
{
    json_t *o = json_object_get(j, key);
    *has = false;
    if (!o)
        return smr_bad(e, n, "%s: missing", key);
    if (json_is_null(o))
        return 0;
    if (!json_is_object(o))
        return smr_bad(e, n, "%s: must be an object with j_sum and j_max, or null", key);
    if (smr_get_int(o, key, "j_sum", false, a, e, n) || smr_get_int(o, key, "j_max", false, b, e, n))
        return -1;
    *has = true;
    return 0;
}

static int get_opt_number(json_t *o, const char *obj, const char *key, double *v, char *e,
                          size_t n)
{
    json_t *x = json_object_get(o, key);
    if (x && !json_is_number(x))
        return smr_bad(e, n, "%s.%s: must be a number", obj, key);
    *v = x ? json_number_value(x) : 0;
    return 0;
}

static int get_opt_int(json_t *o, const char *obj, const char *key, int64_t *v, char *e, size_t n)
{
    *v = 0;
    return json_object_get(o, key) ? smr_get_int(o, obj, key, false, v, e, n) : 0;
}

static int parse_nodes(json_t *j, smr_verify *v, char *e, size_t n)
{
    json_t *nodes = json_object_get(j, "nodes");
    if (!nodes)
        return 0;
    if (!json_is_array(nodes))
        return smr_bad(e, n, "nodes: must be an array of objects");
    size_t cnt = json_array_size(nodes);
    if (!(v->nodes = calloc(cnt ? cnt : 1, sizeof(*v->nodes))))
        return smr_bad(e, n, "out of memory");
    for (size_t i = 0; i < cnt; i++) {
        json_t *o = json_array_get(nodes, i), *name = json_object_get(o, "name");
        char field[32];
        snprintf(field, sizeof(field), "nodes[%zu]", i);
        if (!json_is_object(o) || !json_is_string(name))
            return smr_bad(e, n, "%s: must be an object with a name", field);
        if (!(v->nodes[i].name = strdup(json_string_value(name))))
            return smr_bad(e, n, "out of memory");
        v->nnodes = (int)i + 1;
        if (smr_get_int(o, field, "ranks", false, &v->nodes[i].ranks, e, n) ||
            smr_get_int(o, field, "edges_out", false, &v->nodes[i].edges_out, e, n))
            return -1;
    }
    return 0;
}

static int parse_rank_nodes(json_t *j, smr_verify *v, char *e, size_t n)
{
    json_t *nodes = json_object_get(j, "rank_nodes");
    if (!nodes)
        return smr_bad(e, n, "rank_nodes: missing");
    if (json_is_null(nodes))
        return 0;
    if (!json_is_array(nodes))
        return smr_bad(e, n, "rank_nodes: must be an array of node names or null");
    size_t cnt = json_array_size(nodes);
    v->rank_nodes = calloc(cnt ? cnt : 1, sizeof(char *));
    if (!v->rank_nodes)
        return smr_bad(e, n, "out of memory");
    v->has_rank_nodes = true;
    for (size_t i = 0; i < cnt; i++) {
        json_t *s = json_array_get(nodes, i);
        if (!json_is_string(s))
            return smr_bad(e, n, "rank_nodes[%zu]: must be a node name", i);
        if (!(v->rank_nodes[i] = strdup(json_string_value(s))))
            return smr_bad(e, n, "out of memory");
        v->rank_nodes_count = (int64_t)i + 1;
    }
    return 0;
}

/* optional: only steps planned on network levels have "levels" */
static int parse_levels(json_t *j, smr_verify *v, char *e, size_t n)
{
    json_t *lv = json_object_get(j, "levels");
    if (!lv)
        return 0;
    if (!json_is_array(lv) || json_array_size(lv) < 1 ||
        json_array_size(lv) > SMR_VERIFY_MAX_LEVELS)
        return smr_bad(e, n, "levels: must be a list of 1 to %d levels", SMR_VERIFY_MAX_LEVELS);
    for (size_t l = 0; l < json_array_size(lv); l++) {
        json_t *o = json_array_get(lv, l);
        char field[32];
        snprintf(field, sizeof(field), "levels[%zu]", l);
        if (!json_is_object(o))
            return smr_bad(e, n, "%s: must be an object", field);
        bool has_planned, has_observed;
        smr_verify_level *x = &v->levels[l];
        char why[256];
        if (parse_pair(o, "planned", &has_planned, &x->planned_j_sum, &x->planned_j_max, why,
                       sizeof(why)) ||
            parse_pair(o, "observed", &has_observed, &x->observed_j_sum, &x->observed_j_max, why,
                       sizeof(why)))
            return smr_bad(e, n, "%s.%s", field, why);
        if (!has_observed)
            return smr_bad(e, n, "%s.observed: must be an object with j_sum and j_max", field);
        if (!has_planned)
            x->planned_j_sum = x->planned_j_max = -1;
        v->nlevels = (int)l + 1;
    }
    return 0;
}

static int parse_measured(json_t *j, smr_verify *v, char *e, size_t n)
{
    if (parse_pair(j, "planned", &v->has_planned, &v->planned_j_sum, &v->planned_j_max, e, n) ||
        parse_pair(j, "observed", &v->has_observed, &v->observed_j_sum, &v->observed_j_max, e, n))
        return -1;
    if (v->status != SMR_VERIFY_ERROR && !v->has_observed)
        return smr_bad(e, n, "observed: null, but status is %s", smr_verify_status_name(v->status));
    json_t *obs = json_object_get(j, "observed");
    if (v->has_observed && (get_opt_number(obs, "observed", "w_sum", &v->observed_w_sum, e, n) ||
                            get_opt_number(obs, "observed", "w_max", &v->observed_w_max, e, n)))
        return -1;
    return get_opt_int(j, "", "coords_checked", &v->coords_checked, e, n) ||
                   get_opt_int(j, "", "coords_wrong", &v->coords_wrong, e, n) ||
                   parse_nodes(j, v, e, n) || parse_rank_nodes(j, v, e, n) ||
                   parse_levels(j, v, e, n)
               ? -1
               : 0;
}

static int parse(json_t *j, smr_verify *v, char *e, size_t n)
{
    if (smr_check_format(j, "an in-job result", SM_FORMAT_VERIFY, &v->format, v->version,
                         sizeof(v->version), e, n) ||
        smr_get_int(j, "", "job_id", true, &v->job_id, e, n) ||
        smr_get_int(j, "", "step_id", true, &v->step_id, e, n) || parse_status(j, v, e, n) ||
        smr_get_str(j, "message", false, v->message, sizeof(v->message), e, n) ||
        smr_get_int(j, "", "ranks", false, &v->ranks, e, n) ||
        smr_get_opt_str(j, "record", v->record, sizeof(v->record), e, n) ||
        smr_get_opt_str(j, "time", v->time, sizeof(v->time), e, n) ||
        smr_get_opt_str(j, "writer", v->writer, sizeof(v->writer), e, n) ||
        smr_get_opt_str(j, "algorithm", v->algorithm, sizeof(v->algorithm), e, n))
        return -1;
    return parse_measured(j, v, e, n);
}

int smr_verify_read(const char *path, smr_verify *v, char *err, size_t n)
{
    memset(v, 0, sizeof(*v));
    v->job_id = v->step_id = -1;
    bool absent;
    json_t *j = smr_load(path, err, n, &absent);
    if (!j) {
        if (absent)
            err[0] = '\0';
        return absent ? 1 : -1;
    }
    int rc = parse(j, v, err, n);
    json_decref(j);
    return rc;
}

void smr_verify_free(smr_verify *v)
{
    for (int64_t i = 0; v->rank_nodes && i < v->rank_nodes_count; i++)
        free(v->rank_nodes[i]);
    free(v->rank_nodes);
    for (int i = 0; v->nodes && i < v->nnodes; i++)
        free(v->nodes[i].name);
    free(v->nodes);
    memset(v, 0, sizeof(*v));
}
