/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The plugin's remote side: STENCIL_MAP_DIMS and STENCIL_MAP_ORDER into a
 * task's STENCIL_MAP_COORDS, which must be the placement core's
 * coordinates of the same rank in either order. */
#include "unit_util.h"

#include "coords.h"

static void test_coords_both_orders(void **state)
{
    (void)state;
    char msg[160], out[128], want[128];
    int64_t dims[SMP_MAX_DIMS], size;
    int nd;
    assert_int_equal(sm_dims_parse("4,3,2", dims, &nd, &size, msg, sizeof(msg)), 0);
    assert_int_equal(nd, 3);
    assert_int_equal(sm_order_parse("row-major", msg, sizeof(msg)), 0);
    assert_int_equal(sm_order_parse("column-major", msg, sizeof(msg)), 1);
    assert_int_equal(sm_order_parse("Column-Major", msg, sizeof(msg)), -1);
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_coords_both_orders),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
