/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The plugin's remote side: STENCIL_MAP_DIMS and STENCIL_MAP_ORDER into a
 * task's STENCIL_MAP_COORDS, which must be the placement core's
 * coordinates of the same rank in either order. */
#include "unit_util.h"

#include "coords.h"
#include "formats/stencil_env.h"

static void test_coords_both_orders(void **state)
{
    (void)state;
    char msg[160], out[128], want[128];
    int64_t dims[SMP_MAX_DIMS], size;
    int nd;
    assert_int_equal(smp_env_parse_dims("4,3,2", dims, &nd, &size, msg, sizeof(msg)), 0);
    assert_int_equal(nd, 3);
    assert_int_equal(size, 24);
    assert_int_equal(smp_env_parse_order("row-major", msg, sizeof(msg)), 0);
    assert_int_equal(smp_env_parse_order("column-major", msg, sizeof(msg)), 1);
    assert_int_equal(smp_env_parse_order("Column-Major", msg, sizeof(msg)), -1);
    assert_non_null(strstr(msg, "STENCIL_MAP_ORDER"));
    /* PETSc DMDA: rank = i + m*j (+ m*n*k) */
    assert_int_equal(sm_coords_format(dims, nd, 5, 1, out, sizeof(out)), 0);
    assert_string_equal(out, "1,1,0");
    assert_int_equal(sm_coords_format(dims, nd, 5, 0, out, sizeof(out)), 0);
    assert_string_equal(out, "0,2,1");
    assert_int_equal(sm_coords_format(dims, nd, 24, 1, out, sizeof(out)), -1);
    smp_error err;
    smp_grid g;
    assert_ok(smp_grid_init(&g, nd, dims, NULL, &err), err);
    for (int cm = 0; cm < 2; cm++) {
        g.order = cm ? SMP_ORDER_COLUMN_MAJOR : SMP_ORDER_ROW_MAJOR;
        for (int64_t r = 0; r < g.size; r++) {
            int64_t c[SMP_MAX_DIMS];
            smp_grid_coords(&g, r, c);
            snprintf(want, sizeof(want), "%lld,%lld,%lld", (long long)c[0], (long long)c[1],
                     (long long)c[2]);
            assert_int_equal(sm_coords_format(dims, nd, r, cm, out, sizeof(out)), 0);
            assert_string_equal(out, want);
        }
    }
}

/* What the remote side refuses in a forged STENCIL_MAP_DIMS (the in-job
 * library reads the same value through the same parser). */
static void test_dims_refused(void **state)
{
    (void)state;
    static const char *const bad[] = {"",      "abc",   "0,2",       "-1",  "2,,2", "2,",
                                      "04,3",  "+4",    " 4",        "1,1,1,1,1,1,1,1,1",
                                      "99999,99999,99999", "99999999999999999999"};
    char msg[160];
    int64_t dims[SMP_MAX_DIMS], size;
    int nd;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        msg[0] = '\0';
        assert_int_equal(smp_env_parse_dims(bad[i], dims, &nd, &size, msg, sizeof(msg)), -1);
        assert_non_null(strstr(msg, "STENCIL_MAP_DIMS"));
    }
    /* the product bound: 65536 x 32768 = 2^31 ranks, one too many */
    assert_int_equal(smp_env_parse_dims("65536,32768", dims, &nd, &size, msg, sizeof(msg)), -1);
    assert_non_null(strstr(msg, "more than 2147483647 ranks"));
    assert_int_equal(smp_env_parse_dims("65536,32767", dims, &nd, &size, msg, sizeof(msg)), 0);
}

/* The plugin writes what the library reads: the same text both ways. */
static void test_lists_round_trip(void **state)
{
    (void)state;
    const int64_t v[3] = {4, 0, 2147483647};
    char buf[SMP_ENV_LIST_LEN], msg[160];
    smp_env_format_list(buf, sizeof(buf), v, 3);
    assert_string_equal(buf, "4,0,2147483647");
    int64_t back[SMP_MAX_DIMS];
    int n;
    assert_int_equal(smp_env_parse_list("X", buf, SMP_MAX_DIMS, 0, SMP_MAX_RANKS, back, &n, msg,
                                        sizeof(msg)), 0);
    assert_int_equal(n, 3);
    assert_memory_equal(back, v, sizeof(v));
    const int32_t off[6] = {1, 0, -1, 0, 0, -1000000};
    char *s = smp_env_format_stencil(off, 3, 2);
    assert_non_null(s);
    assert_string_equal(s, "1,0;-1,0;0,-1000000");
    free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_coords_both_orders),
        cmocka_unit_test(test_dims_refused),
        cmocka_unit_test(test_lists_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
