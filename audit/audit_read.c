/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A record and the in-job result beside it, read through the record
 * module for the audit's checks. */
#include <stdlib.h>
#include <string.h>

#include "audit.h"

static void verify_read(const char *path, audit_verify *v)
{
    memset(v, 0, sizeof(*v));
    v->path = strdup(path);
    int rc = smr_verify_read(path, &v->v, v->error, sizeof(v->error));
    v->present = rc != 1;
    v->readable = rc == 0;
}

int audit_record_read(const char *path, audit_record *rec)
{
    memset(rec, 0, sizeof(*rec));
    rec->path = strdup(path);
    if (!rec->path) {
        smr_record_init(&rec->r);
        snprintf(rec->error, sizeof(rec->error), "out of memory");
        return -1;
    }
    if (smr_record_read(path, &rec->r, rec->error, sizeof(rec->error)))
        return -1;
    rec->placed = rec->r.kind == SMR_KIND_PLACED;
    char *vpath = smr_verify_path(path);
    if (!vpath) {
        snprintf(rec->error, sizeof(rec->error), "out of memory");
        return -1;
    }
    verify_read(vpath, &rec->verify);
    free(vpath);
    return 0;
}

void audit_record_free(audit_record *rec)
{
    smr_record_free(&rec->r);
    free(rec->path);
    free(rec->verify.path);
    smr_verify_free(&rec->verify.v);
    memset(rec, 0, sizeof(*rec));
}
