/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A hand-written spec against a measured profile (see spec_check.h). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "spec_check.h"

/* offset a of the profile's view is offset b of the spec's stencil */
static bool same_offset(const smp_grid *g, const int32_t *a, const int32_t *b)
{
    for (int d = 0; d < g->ndims; d++) {
        int64_t n = g->dims[d];
        if (g->periods[d] ? ((a[d] - b[d]) % n + n) % n != 0 : a[d] != b[d])
            return false;
    }
    return true;
}

/* the profile's offset matching the spec's offset k, or -1 */
static int find_offset(const learn_result *r, const smp_spec *spec, int k)
{
    int nd = spec->grid.ndims;
    for (int i = 0; i < r->noffsets; i++)
        if (same_offset(&spec->grid, r->offsets[i].off, spec->stencil.offsets + (size_t)k * nd))
            return i;
    return -1;
}

bool spec_check_covered(const learn_profile *p, const smp_spec *spec, double *share, smp_error *err)
{
    learn_result r;
    if (learn_evaluate(p, &spec->grid, &r, err))
        return false;
    double cov = 0;
    for (int i = 0; i < r.noffsets; i++)
        for (int k = 0; k < spec->stencil.count; k++)
            if (same_offset(&spec->grid, r.offsets[i].off, spec->stencil.offsets + (size_t)k * spec->grid.ndims)) {
                cov += r.offsets[i].bytes;
                break;
            }
    learn_result_free(&r);
    *share = p->total_bytes > 0 ? cov / p->total_bytes : 1.0;
    return true;
}

static void dims_of(const smp_grid *g, bool reversed, char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = '\0';
    for (int d = 0; d < g->ndims && at < len; d++)
        at += (size_t)snprintf(buf + at, len - at, "%s%" PRId64, d ? ", " : "",
                               g->dims[reversed ? g->ndims - 1 - d : d]);
}

static int by_value(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* the spec's grid against the learned one (row-major); prints a warning
 * and returns 1 when they differ */
static int check_grid(FILE *out, const char *who, const smp_grid *spec, const learn_result *learned)
{
    const smp_grid *g = &learned->grid;
    bool colmajor = spec->order == SMP_ORDER_COLUMN_MAJOR;
    bool same = spec->ndims == g->ndims, perm = same, periods = true;
    int64_t a[SMP_MAX_DIMS], b[SMP_MAX_DIMS];
    for (int d = 0; same && d < g->ndims; d++) {
        int e = colmajor ? g->ndims - 1 - d : d;
        same = spec->dims[e] == g->dims[d];
        /* on 2 ranks or fewer the neighbour across the edge is the other
         * side's too: the traffic cannot tell periodic from not */
        periods = periods && (g->dims[d] <= 2 || spec->periods[e] == g->periods[d]);
    }
    if (!same && perm) {
        memcpy(a, spec->dims, sizeof(int64_t) * (size_t)g->ndims);
        memcpy(b, g->dims, sizeof(int64_t) * (size_t)g->ndims);
        qsort(a, (size_t)g->ndims, sizeof(int64_t), by_value);
        qsort(b, (size_t)g->ndims, sizeof(int64_t), by_value);
        perm = !memcmp(a, b, sizeof(int64_t) * (size_t)g->ndims);
    }
    char want[256], have[256];
    dims_of(g, false, want, sizeof(want));
    dims_of(spec, colmajor, have, sizeof(have));
    if (same && periods)
        return 0;
    if (same)
        fprintf(out, "%s: warning: periods: the application's grid [%s] (%s) wraps around in other "
                     "dimensions than the spec's\n", who, want, learned->source);
    else
        fprintf(out, "%s: warning: %s: the spec's grid is [%s]%s, the application's [%s] (%s)\n", who,
                perm ? "wrong dimension order" : "another grid", have,
                colmajor ? " row-major (column-major as written)" : "", want, learned->source);
    return 1;
}

/* the spec's weights (none: all 1) against the bytes per message measured
 * on each of its offsets; prints a warning and returns 1 when they differ */
static int check_weights(FILE *out, const char *who, const smp_spec *spec, const learn_result *r)
{
    const smp_stencil *st = &spec->stencil;
    double lo = 0, hi = 0;
    for (int k = 0; k < st->count; k++) {
        int i = find_offset(r, spec, k);
        if (i < 0 || r->offsets[i].typical <= 0)
            continue; /* no traffic there: the share covered says so */
        double q = r->offsets[i].typical / (st->weights ? st->weights[k] : 1.0);
        lo = lo > 0 && lo < q ? lo : q;
        hi = hi > q ? hi : q;
    }
    if (lo <= 0 || hi <= SPEC_CHECK_WEIGHT_RATIO * lo)
        return 0;
    fprintf(out, "%s: warning: %s: the bytes per message measured on its offsets differ up to %.2fx from "
                 "them:", who, st->weights ? "the spec's weights" : "the spec has no weights", hi / lo);
    double least = 0;
    for (int k = 0; k < st->count; k++) {
        int i = find_offset(r, spec, k);
        if (i >= 0 && r->offsets[i].typical > 0 && (least <= 0 || r->offsets[i].typical < least))
            least = r->offsets[i].typical;
    }
    for (int k = 0, nd = st->ndims; k < st->count; k++) {
        int i = find_offset(r, spec, k);
        fputs(k ? ", [" : " [", out);
        for (int d = 0; d < nd; d++)
            fprintf(out, "%s%d", d ? ", " : "", st->offsets[(size_t)k * nd + d]);
        fprintf(out, "] %.3g", i >= 0 ? r->offsets[i].typical / least : 0.0);
    }
    fputs(" (stencil-map learn writes them)\n", out);
    return 1;
}

int spec_check_report(FILE *out, const char *who, const learn_profile *p, const smp_spec *spec,
                      smp_error *err)
{
    double cov;
    if (!spec_check_covered(p, spec, &cov, err))
        return -1;
    int n = 0;
    if (cov < LEARN_WARN_SHARE) {
        fprintf(out, "%s: warning: the spec's stencil covers only %.1f %% of the measured bytes: check the dims, "
                     "their order, the periods and the offsets (stencil-map learn writes a spec from the "
                     "profile)\n", who, 100 * cov);
        n++;
    }
    learn_result learned, own;
    int max_dims = spec->grid.ndims > 3 ? spec->grid.ndims : 3;
    if (learn_infer(p, max_dims, &learned, err))
        return -1;
    int grid = check_grid(out, who, &spec->grid, &learned);
    learn_result_free(&learned);
    n += grid;
    if (grid)
        return n; /* weights on a wrong grid mean nothing */
    if (learn_evaluate(p, &spec->grid, &own, err))
        return -1;
    n += check_weights(out, who, spec, &own);
    learn_result_free(&own);
    return n;
}

const char *spec_check_take_profile(int *argc, char **argv, bool *bad)
{
    const char *dir = NULL;
    *bad = false;
    for (int i = 1; i < *argc; i++) {
        int take = 0;
        if (!strcmp(argv[i], "--")) {
            break;
        } else if (!strcmp(argv[i], "--profile")) {
            take = 2;
            if (i + 1 >= *argc || !*argv[i + 1]) {
                *bad = true;
                return NULL;
            }
            dir = argv[i + 1];
        } else if (!strncmp(argv[i], "--profile=", 10)) {
            take = 1;
            dir = argv[i] + 10;
            if (!*dir) {
                *bad = true;
                return NULL;
            }
        }
        if (take) {
            memmove(argv + i, argv + i + take, sizeof(char *) * (size_t)(*argc - i - take + 1));
            *argc -= take;
            i--;
        }
    }
    return dir;
}

int spec_check_dir(const char *who, const char *dir, const smp_spec *spec, smp_error *err)
{
    learn_profile p;
    if (learn_profile_read(dir, &p, err))
        return -1;
    int n = -1;
    if (p.ranks != spec->grid.size)
        smp_error_set(err, SMP_ERR_INPUT, "%" PRId64 " ranks, the spec's grid %" PRId64, p.ranks,
                      spec->grid.size);
    else
        n = spec_check_report(stderr, who, &p, spec, err);
    learn_profile_free(&p);
    return n;
}
