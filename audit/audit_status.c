/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The status of an audited step: its name in the output, the exit status
 * it stands for, and how problems make it worse. */
#include <stdarg.h>
#include <stdio.h>

#include "audit_internal.h"

const char *audit_status_name(audit_status st)
{
    switch (st) {
    case AUDIT_ST_OK: return "ok";
    case AUDIT_ST_FALLBACK: return "fallback";
    case AUDIT_ST_NOT_LAUNCHED: return "not launched";
    case AUDIT_ST_NOT_PLACED: return "not placed";
    case AUDIT_ST_FAILED: return "failed";
    case AUDIT_ST_INCONSISTENT: return "inconsistent";
    default: return "unreadable";
    }
}

int audit_status_exit(audit_status st)
{
    switch (st) {
    case AUDIT_ST_UNREADABLE: return AUDIT_UNREADABLE;
    case AUDIT_ST_INCONSISTENT: return AUDIT_INCONSISTENT;
    case AUDIT_ST_NOT_PLACED: return AUDIT_MISSING;
    case AUDIT_ST_FAILED: return AUDIT_FAILED;
    default: return AUDIT_OK; /* ok, fallback, not launched */
    }
}

int audit_worse(int a, int b)
{
    /* severity by exit code: ok 0, missing 1, failed 2, inconsistent 3,
     * unreadable 4, usage 5 */
    static const int severity[] = {0, 3, 5, 1, 4, 2};
    return severity[b] > severity[a] ? b : a;
}

void audit_problem(audit_result *res, audit_status status, const char *fmt, ...)
{
    char buf[1200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    json_array_append_new(json_object_get(res->j, "problems"), json_string(buf));
    int now = audit_status_exit(res->status);
    if (audit_worse(now, audit_status_exit(status)) != now)
        res->status = status;
}

void audit_result_finish(audit_result *res)
{
    json_object_set_new(res->j, "status", json_string(audit_status_name(res->status)));
}

json_t *audit_pair(int64_t a, int64_t b)
{
    return json_pack("{s:I,s:I}", "j_sum", (json_int_t)a, "j_max", (json_int_t)b);
}

json_t *audit_check_json(const char *source, const char *level, bool ok, const char *detail)
{
    return json_pack("{s:s,s:s,s:s,s:s}", "source", source, "level", level, "result",
                     ok ? "matches" : "differs", "detail", detail);
}
