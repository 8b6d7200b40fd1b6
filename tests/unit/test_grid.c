/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Grids: validation, rank <-> coordinates, balanced factorisation. */
#include "unit_util.h"

static void test_grid_init_valid(void **state)
{
    (void)state;
    smp_error err;
    smp_grid g;
    int64_t dims[3] = {4, 3, 5};
    bool per[3] = {true, false, true};
    assert_ok(smp_grid_init(&g, 3, dims, per, &err), err);
    assert_int_equal(g.ndims, 3);
    assert_int_equal(g.size, 60);
    assert_int_equal(g.dims[0], 4);
    assert_int_equal(g.dims[2], 5);
    assert_true(g.periods[0]);
    assert_false(g.periods[1]);
    assert_true(g.periods[2]);
    /* NULL periods means non-periodic */
    assert_ok(smp_grid_init(&g, 2, dims, NULL, &err), err);
    assert_false(g.periods[0]);
    assert_false(g.periods[1]);
    assert_int_equal(g.size, 12);
    /* the largest allowed grid */
    int64_t big[1] = {SMP_MAX_RANKS};
    assert_ok(smp_grid_init(&g, 1, big, NULL, &err), err);
    assert_int_equal(g.size, SMP_MAX_RANKS);
}

static void test_grid_init_rejects(void **state)
{
    (void)state;
    smp_error err;
    smp_grid g;
    int64_t zero[3] = {4, 3, 0}, neg[2] = {-2, 3}, mid[3] = {4, 0, 2};
    assert_err(smp_grid_init(&g, 3, zero, NULL, &err), SMP_ERR_INPUT, err, "grid.dims[2]");
    assert_err(smp_grid_init(&g, 2, neg, NULL, &err), SMP_ERR_INPUT, err, "grid.dims[0]");
    assert_err(smp_grid_init(&g, 3, mid, NULL, &err), SMP_ERR_INPUT, err, "grid.dims[1]");
    /* product overflow, including products that would wrap int64 */
    int64_t over[2] = {65536, 65536}, wrap[3] = {INT64_MAX, 2, 2},
            just[2] = {SMP_MAX_RANKS, 2}, huge[4] = {1 << 20, 1 << 20, 1 << 20, 1 << 20};
    assert_err(smp_grid_init(&g, 2, over, NULL, &err), SMP_ERR_INPUT, err, "grid.dims");
    assert_err(smp_grid_init(&g, 3, wrap, NULL, &err), SMP_ERR_INPUT, err, "grid.dims");
    assert_err(smp_grid_init(&g, 2, just, NULL, &err), SMP_ERR_INPUT, err, "grid.dims");
    assert_err(smp_grid_init(&g, 4, huge, NULL, &err), SMP_ERR_INPUT, err, "grid.dims");
    /* ndims out of range */
    int64_t many[SMP_MAX_DIMS + 1];
    for (int i = 0; i <= SMP_MAX_DIMS; i++)
        many[i] = 1;
    assert_err(smp_grid_init(&g, 0, many, NULL, &err), SMP_ERR_INPUT, err, "grid.dims");
    assert_err(smp_grid_init(&g, SMP_MAX_DIMS + 1, many, NULL, &err), SMP_ERR_INPUT, err,
               "grid.dims");
}

static void test_coords_row_major(void **state)
{
    (void)state;
    smp_error err;
    smp_grid g;
    int64_t dims[2] = {4, 3}, c[2];
    assert_ok(smp_grid_init(&g, 2, dims, NULL, &err), err);
    /* last dimension fastest, as MPI_Cart_create without reorder */
    smp_grid_coords(&g, 1, c);
    assert_int_equal(c[0], 0);
    assert_int_equal(c[1], 1);
    smp_grid_coords(&g, 3, c);
    assert_int_equal(c[0], 1);
    assert_int_equal(c[1], 0);
    smp_grid_coords(&g, 11, c);
    assert_int_equal(c[0], 3);
    assert_int_equal(c[1], 2);
    int64_t q[2] = {2, 1};
    assert_int_equal(smp_grid_rank(&g, q), 7);
}

/* column-major: the first dimension fastest, PETSc DMDA's rank = i + m*j */
static void test_coords_column_major(void **state)
{
    (void)state;
    smp_error err;
    smp_grid g;
    int64_t dims[3] = {4, 3, 2}, c[3];
    assert_ok(smp_grid_init(&g, 3, dims, NULL, &err), err);
    assert_int_equal(g.order, SMP_ORDER_ROW_MAJOR);
    g.order = SMP_ORDER_COLUMN_MAJOR;
    for (int64_t r = 0; r < g.size; r++) {
        smp_grid_coords(&g, r, c);
        assert_int_equal(c[0], r % 4);
        assert_int_equal(c[1], r / 4 % 3);
        assert_int_equal(c[2], r / 12);
        assert_int_equal(smp_grid_rank(&g, c), r);
        assert_int_equal(c[0] + 4 * c[1] + 12 * c[2], r);
    }
    smp_order o;
    assert_true(smp_order_from_name("column-major", &o) && o == SMP_ORDER_COLUMN_MAJOR);
    assert_true(smp_order_from_name("row-major", &o) && o == SMP_ORDER_ROW_MAJOR);
    assert_false(smp_order_from_name("fortran", &o));
    assert_string_equal(smp_order_name(SMP_ORDER_COLUMN_MAJOR), "column-major");
    assert_string_equal(smp_order_name(SMP_ORDER_ROW_MAJOR), "row-major");
}

static void test_coords_round_trip(void **state)
{
    (void)state;
    tu_rng rng = {42};
    for (int trial = 0; trial < 200; trial++) {
        smp_error err;
        smp_grid g;
        int d = (int)tu_range(&rng, 1, SMP_MAX_DIMS);
        int64_t dims[SMP_MAX_DIMS];
        for (int i = 0; i < d; i++)
            dims[i] = tu_range(&rng, 1, d > 4 ? 3 : 7);
        assert_ok(smp_grid_init(&g, d, dims, NULL, &err), err);
        int64_t expect[SMP_MAX_DIMS] = {0};
        for (int64_t r = 0; r < g.size; r++) {
            int64_t c[SMP_MAX_DIMS];
            smp_grid_coords(&g, r, c);
            for (int i = 0; i < d; i++) {
                assert_true(c[i] >= 0 && c[i] < dims[i]);
                assert_int_equal(c[i], expect[i]); /* odometer, last dim fastest */
            }
            assert_int_equal(smp_grid_rank(&g, c), r);
            for (int i = d - 1; i >= 0; i--) {
                if (++expect[i] < dims[i])
                    break;
                expect[i] = 0;
            }
        }
    }
    /* a large grid, sampled */
    smp_error err;
    smp_grid g;
    int64_t dims[3] = {1290, 1290, 1290};
    assert_ok(smp_grid_init(&g, 3, dims, NULL, &err), err);
    for (int k = 0; k < 1000; k++) {
        int64_t r = tu_range(&rng, 0, g.size - 1), c[3];
        smp_grid_coords(&g, r, c);
        assert_int_equal(smp_grid_rank(&g, c), r);
    }
}

static void check_dims(int64_t p, int d, const int64_t *want)
{
    smp_error err;
    int64_t dims[SMP_MAX_DIMS];
    assert_ok(smp_dims_create(p, d, dims, &err), err);
    for (int i = 0; i < d; i++)
        if (dims[i] != want[i])
            fail_msg("smp_dims_create(%lld, %d): dims[%d] = %lld, want %lld", (long long)p, d,
                     i, (long long)dims[i], (long long)want[i]);
}

static void test_dims_create_examples(void **state)
{
    (void)state;
    check_dims(12, 2, (int64_t[]){4, 3});
    check_dims(130, 3, (int64_t[]){13, 5, 2});
    check_dims(1, 3, (int64_t[]){1, 1, 1});
    check_dims(1, 1, (int64_t[]){1});
    check_dims(16, 2, (int64_t[]){4, 4});
    check_dims(24, 3, (int64_t[]){4, 3, 2});
    check_dims(7, 1, (int64_t[]){7});
    /* primes cannot be split */
    check_dims(13, 2, (int64_t[]){13, 1});
    check_dims(97, 4, (int64_t[]){97, 1, 1, 1});
    check_dims(2147483647, 3, (int64_t[]){2147483647, 1, 1});
    check_dims(1000000, 3, (int64_t[]){100, 100, 100});
}

static void test_dims_create_large(void **state)
{
    (void)state;
    /* 2147483646 = 2 * 3^2 * 7 * 11 * 31 * 151 * 331: many divisors */
    /* 2095133040 is highly composite (1600 divisors); it is searched up to
     * 4 dims only, since the exhaustive search takes seconds beyond that */
    int64_t ps[] = {2147483646, 2147483647, 2095133040, 1073741824, 720720};
    for (size_t k = 0; k < sizeof(ps) / sizeof(ps[0]); k++)
        for (int d = 1; d <= (ps[k] == 2095133040 ? 4 : SMP_MAX_DIMS); d++) {
            smp_error err;
            int64_t dims[SMP_MAX_DIMS];
            assert_ok(smp_dims_create(ps[k], d, dims, &err), err);
            int64_t prod = 1;
            for (int i = 0; i < d; i++) {
                assert_true(dims[i] >= 1);
                if (i)
                    assert_true(dims[i] <= dims[i - 1]);
                prod *= dims[i];
            }
            assert_int_equal(prod, ps[k]);
        }
    int64_t dims[SMP_MAX_DIMS];
    check_dims(1073741824, 2, (int64_t[]){32768, 32768});
    check_dims(1073741824, 3, (int64_t[]){1024, 1024, 1024});
    smp_error err;
    assert_err(smp_dims_create(0, 2, dims, &err), SMP_ERR_INPUT, err, "0");
    assert_err(smp_dims_create(-5, 2, dims, &err), SMP_ERR_INPUT, err, "-5");
    assert_err(smp_dims_create(SMP_MAX_RANKS + 1, 2, dims, &err), SMP_ERR_INPUT, err, "2147483648");
    assert_err(smp_dims_create(12, 0, dims, &err), SMP_ERR_INPUT, err, "ndims");
    assert_err(smp_dims_create(12, SMP_MAX_DIMS + 1, dims, &err), SMP_ERR_INPUT, err, "ndims");
}

/* Brute force: the smallest max/min ratio over all non-increasing
 * factorisations, as a fraction num/den. */
static void best_ratio(int64_t p, int d, int64_t cap, int64_t first, int64_t *num, int64_t *den)
{
    if (d == 1) {
        if (p <= cap) {
            int64_t top = first ? first : p;
            /* ratio top/p better than num/den? */
            if (*den == 0 || top * *den < *num * p) {
                *num = top;
                *den = p;
            }
        }
        return;
    }
    for (int64_t f = cap < p ? cap : p; f >= 1; f--)
        if (p % f == 0)
            best_ratio(p / f, d - 1, f, first ? first : f, num, den);
}

static void test_dims_create_brute_force(void **state)
{
    (void)state;
    for (int64_t p = 1; p <= 200; p++)
        for (int d = 1; d <= 4; d++) {
            smp_error err;
            int64_t dims[SMP_MAX_DIMS];
            assert_ok(smp_dims_create(p, d, dims, &err), err);
            int64_t prod = 1;
            for (int i = 0; i < d; i++) {
                if (i && dims[i] > dims[i - 1])
                    fail_msg("dims_create(%lld, %d): not non-increasing at %d", (long long)p, d, i);
                prod *= dims[i];
            }
            if (prod != p)
                fail_msg("dims_create(%lld, %d): product %lld", (long long)p, d, (long long)prod);
            int64_t num = 0, den = 0;
            best_ratio(p, d, p, 0, &num, &den);
            /* dims[0]/dims[d-1] == num/den */
            if (dims[0] * den != num * dims[d - 1])
                fail_msg("dims_create(%lld, %d): ratio %lld/%lld, best %lld/%lld", (long long)p, d,
                         (long long)dims[0], (long long)dims[d - 1], (long long)num, (long long)den);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_grid_init_valid),
        cmocka_unit_test(test_grid_init_rejects),
        cmocka_unit_test(test_coords_row_major),
        cmocka_unit_test(test_coords_column_major),
        cmocka_unit_test(test_coords_round_trip),
        cmocka_unit_test(test_dims_create_examples),
        cmocka_unit_test(test_dims_create_large),
        cmocka_unit_test(test_dims_create_brute_force),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
