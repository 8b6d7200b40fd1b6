/* SPDX-License-Identifier: GPL-2.0-or-later */
/* plugstack.conf arguments: default=, algorithm=, on_error=, record_dir=,
 * max_ranks=, bind=, objective=, effort=, learned_dir=, topology=,
 * topology_strict=, levels_mode=, routing=, uplinks=, uplink_speed=.  Anything
 * else is an error, so a typo is never ignored. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy.h"

#define KNOWN_KEYS \
    "default, algorithm, on_error, record_dir, max_ranks, bind, objective, effort, learned_dir, " \
    "topology, topology_strict, levels_mode, routing, uplinks, uplink_speed"

__attribute__((format(printf, 3, 4))) static int fail(char *msg, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, n, fmt, ap);
    va_end(ap);
    return -1;
}

#define NOT_MINE 1 /* a parse_* helper's answer for a key it does not know */

/* In a parse_* helper: whether the key of arg (its first klen bytes) is k. */
#define KEY(k) (klen == sizeof(k) - 1 && !strncmp(arg, k, klen))

/* The keys whose value is kept as text: default, record_dir, learned_dir
 * and topology (a file there).  0, -1 with msg, or NOT_MINE. */
static int parse_text(sm_policy *pol, const char *arg, size_t klen, const char *val, char *msg,
                      size_t n)
{
    if (KEY("default")) {
        if (!*val || strlen(val) >= sizeof(pol->default_spec))
            return fail(msg, n, "plugstack argument default=%.100s: %s", val,
                        "must be a non-empty spec shorter than 1024 bytes");
        strcpy(pol->default_spec, val);
    } else if (KEY("record_dir")) {
        if (val[0] != '/' || strlen(val) >= sizeof(pol->record_dir) - 256)
            return fail(msg, n, "plugstack argument record_dir=%.100s: %s", val,
                        "must be an absolute path shorter than 768 bytes");
        strcpy(pol->record_dir, val);
    } else if (KEY("learned_dir")) {
        if (val[0] != '/' || strlen(val) >= sizeof(pol->learned_dir) - 256)
            return fail(msg, n, "plugstack argument learned_dir=%.100s: %s", val,
                        "must be an absolute path shorter than 768 bytes");
        strcpy(pol->learned_dir, val);
    } else if (KEY("topology")) {
        /* the file is only named here: srun reads it, as the user */
        if (!strcmp(val, "slurm")) {
            pol->topology = SM_TOPOLOGY_SLURM;
        } else if (!strcmp(val, "none")) {
            pol->topology = SM_TOPOLOGY_NONE;
        } else if (val[0] == '/' && strlen(val) < sizeof(pol->topology_file)) {
            pol->topology = SM_TOPOLOGY_FILE;
            strcpy(pol->topology_file, val);
        } else {
            return fail(msg, n, "plugstack argument topology=%.100s: %s", val,
                        "must be 'slurm', 'none' or the absolute path of a topology.conf "
                        "or topology.yaml file, with :NAME for one of the yaml's topologies "
                        "(shorter than 1024 bytes)");
        }
    } else {
        return NOT_MINE;
    }
    return 0;
}

/* The keys whose value is one of a few names: algorithm, on_error, bind,
 * topology_strict, objective, levels_mode.  0, -1 with msg, or NOT_MINE. */
static int parse_choice(sm_policy *pol, const char *arg, size_t klen, const char *val,
                        char *msg, size_t n)
{
    if (KEY("algorithm")) {
        if (!smp_algorithm_from_name(val, &pol->algorithm))
            return fail(msg, n, "plugstack argument algorithm=%.100s: unknown algorithm (%s)",
                        val, smp_algorithm_names());
        pol->have_algorithm = true;
    } else if (KEY("on_error")) {
        if (!strcmp(val, "fail"))
            pol->on_error = SM_ON_ERROR_FAIL;
        else if (!strcmp(val, "blocked"))
            pol->on_error = SM_ON_ERROR_BLOCKED;
        else
            return fail(msg, n, "plugstack argument on_error=%.100s: %s", val,
                        "must be 'fail' or 'blocked'");
    } else if (KEY("bind")) {
        if (!strcmp(val, "socket"))
            pol->bind_socket = true;
        else if (!strcmp(val, "none"))
            pol->bind_socket = false;
        else
            return fail(msg, n, "plugstack argument bind=%.100s: %s", val,
                        "must be 'none' or 'socket'");
    } else if (KEY("topology_strict")) {
        if (strcmp(val, "yes") && strcmp(val, "no"))
            return fail(msg, n, "plugstack argument topology_strict=%.100s: %s", val,
                        "must be 'yes' or 'no'");
        pol->topology_strict = !strcmp(val, "yes");
    } else if (KEY("objective")) {
        if (!smp_objective_from_name(val, &pol->objective))
            return fail(msg, n, "plugstack argument objective=%.100s: %s", val,
                        "must be 'sum' or 'max'");
        pol->have_objective = true;
    } else if (KEY("levels_mode")) {
        if (!smp_levels_mode_from_name(val, &pol->levels_mode))
            return fail(msg, n, "plugstack argument levels_mode=%.100s: %s", val,
                        "must be 'best', 'groups-first' or 'nodes-first'");
    } else if (KEY("routing")) {
        if (!smp_routing_from_name(val, &pol->routing))
            return fail(msg, n, "plugstack argument routing=%.100s: %s", val,
                        "must be 'static', 'adaptive' or 'direct'");
    } else {
        return NOT_MINE;
    }
    return 0;
}

/* uplinks=N[,N...]: 1 to SMP_MAX_LEVELS counts of 1 to 1000000. */
static int parse_uplinks(sm_policy *pol, const char *val, char *msg, size_t n)
{
    const char *p = val;
    pol->nuplinks = 0;
    while (*p) {
        char *end;
        errno = 0;
        long v = strtol(p, &end, 10);
        if (errno || end == p || v < 1 || v > 1000000 ||
            (*end && (*end != ',' || !end[1])) || pol->nuplinks == SMP_MAX_LEVELS)
            return fail(msg, n, "plugstack argument uplinks=%.100s: %s", val,
                        "must be 1 to 4 counts from 1 to 1000000, comma-separated");
        pol->uplinks[pol->nuplinks++] = (int32_t)v;
        p = *end ? end + 1 : end;
    }
    if (!pol->nuplinks)
        return fail(msg, n, "plugstack argument uplinks=: no count given");
    return 0;
}

/* uplink_speed=S[,S...]: 1 to SMP_MAX_LEVELS speeds (smp_link_speeds_parse) */
static int parse_speeds(sm_policy *pol, const char *val, char *msg, size_t n)
{
    int bad;
    if (!(pol->nspeeds = smp_link_speeds_parse(val, pol->uplink_speed, &bad)))
        return fail(msg, n, "plugstack argument uplink_speed=%.100s: value %d: %s", val, bad,
                    "must be 1 to 4 plain decimals above 0 and at most 1000, comma-separated "
                    "(a node's link is 1)");
    return 0;
}

/* The keys whose value is a number: max_ranks, effort, uplinks,
 * uplink_speed.  0, -1
 * with msg, or NOT_MINE. */
static int parse_number(sm_policy *pol, const char *arg, size_t klen, const char *val,
                        char *msg, size_t n)
{
    char *end;
    if (KEY("max_ranks")) {
        errno = 0;
        long long v = strtoll(val, &end, 10);
        if (errno || end == val || *end || v < 1 || v > SMP_MAX_RANKS)
            return fail(msg, n, "plugstack argument max_ranks=%.100s: %s", val,
                        "must be a positive integer");
        pol->max_ranks = v;
    } else if (KEY("effort")) {
        errno = 0;
        long v = strtol(val, &end, 10);
        if (errno || end == val || *end || v < 1 || v > SMP_MAX_EFFORT)
            return fail(msg, n, "plugstack argument effort=%.100s: must be an integer 1 to %d",
                        val, SMP_MAX_EFFORT);
        pol->effort = (int)v;
    } else if (KEY("uplinks")) {
        return parse_uplinks(pol, val, msg, n);
    } else if (KEY("uplink_speed")) {
        return parse_speeds(pol, val, msg, n);
    } else {
        return NOT_MINE;
    }
    return 0;
}

#undef KEY

int sm_policy_parse(sm_policy *pol, int ac, char **av, char *msg, size_t n)
{
    memset(pol, 0, sizeof(*pol));
    pol->on_error = SM_ON_ERROR_FAIL;
    for (int i = 0; i < ac; i++) {
        const char *arg = av[i];
        const char *eq = strchr(arg, '=');
        if (!eq)
            return fail(msg, n, "plugstack argument '%.100s': expected KEY=VALUE (keys: %s)", arg,
                        KNOWN_KEYS);
        size_t klen = (size_t)(eq - arg);
        const char *val = eq + 1;
        int rc = parse_text(pol, arg, klen, val, msg, n);
        if (rc == NOT_MINE)
            rc = parse_choice(pol, arg, klen, val, msg, n);
        if (rc == NOT_MINE)
            rc = parse_number(pol, arg, klen, val, msg, n);
        if (rc == NOT_MINE)
            return fail(msg, n, "plugstack argument '%.100s': unknown key (known: %s)", arg,
                        KNOWN_KEYS);
        if (rc)
            return rc;
    }
    return 0;
}

smp_objective sm_policy_objective(const sm_policy *pol, const smp_spec *spec)
{
    if (spec->have_objective)
        return spec->objective;
    return pol->have_objective ? pol->objective : SMP_OBJ_DEFAULT;
}

int sm_policy_effort(const sm_policy *pol, const smp_spec *spec)
{
    if (spec->effort)
        return spec->effort;
    return pol->effort ? pol->effort : SMP_EFFORT_DEFAULT;
}
