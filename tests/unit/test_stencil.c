/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Stencils: the paper's families and validation of custom offsets. */
#include <math.h>

#include "unit_util.h"

/* true when offset vector v (length d) is in st */
static bool has_offset(const smp_stencil *st, const int32_t *v)
{
    for (int k = 0; k < st->count; k++)
        if (memcmp(st->offsets + k * st->ndims, v, sizeof(int32_t) * (size_t)st->ndims) == 0)
            return true;
    return false;
}

static void test_families(void **state)
{
    (void)state;
    for (int d = 1; d <= 4; d++) {
        smp_error err;
        smp_stencil st;
        int32_t v[SMP_MAX_DIMS];

        assert_ok(smp_stencil_family(&st, "nearest", d, &err), err);
        assert_int_equal(st.count, 2 * d);
        assert_int_equal(st.ndims, d);
        assert_string_equal(st.name, "nearest");
        assert_false(smp_stencil_weighted(&st));
        for (int i = 0; i < d; i++)
            for (int s = -1; s <= 1; s += 2) {
                memset(v, 0, sizeof(v));
                v[i] = s;
                assert_true(has_offset(&st, v));
            }
        smp_stencil_free(&st);

        assert_ok(smp_stencil_family(&st, "hops", d, &err), err);
        assert_int_equal(st.count, 2 * d + 4);
        for (int a = 1; a <= 3; a++)
            for (int s = -1; s <= 1; s += 2) {
                memset(v, 0, sizeof(v));
                v[0] = s * a;
                assert_true(has_offset(&st, v));
            }
        smp_stencil_free(&st);

        if (d == 1) {
            assert_err(smp_stencil_family(&st, "component", d, &err), SMP_ERR_INPUT, err,
                       "component");
            continue;
        }
        assert_ok(smp_stencil_family(&st, "component", d, &err), err);
        assert_int_equal(st.count, 2 * (d - 1));
        for (int k = 0; k < st.count; k++)
            assert_int_equal(st.offsets[k * d + d - 1], 0); /* never along the last dim */
        smp_stencil_free(&st);
    }
    smp_error err;
    smp_stencil st;
    assert_err(smp_stencil_family(&st, "anti-diagonal", 2, &err), SMP_ERR_INPUT, err,
               "anti-diagonal");
    assert_err(smp_stencil_family(&st, "nearest", 0, &err), SMP_ERR_INPUT, err, "nearest");
    assert_err(smp_stencil_family(&st, "nearest", SMP_MAX_DIMS + 1, &err), SMP_ERR_INPUT, err,
               "nearest");
}

/* Family `name` in `d` dimensions holds exactly the `n` offsets in `want`. */
static void expect_exactly(const char *name, int d, const int32_t *want, int n)
{
    smp_error err;
    smp_stencil st;
    assert_ok(smp_stencil_family(&st, name, d, &err), err);
    assert_int_equal(st.count, n);
    assert_string_equal(st.name, name);
    for (int k = 0; k < n; k++)
        assert_true(has_offset(&st, want + k * d));
    smp_stencil_free(&st);
}

/* Thesis 000, section 1.2.4, written out by hand for 2-D and 3-D. */
static void test_thesis_families(void **state)
{
    (void)state;
    static const int32_t diag2[] = {1, 1, 1, -1, -1, 1, -1, -1};
    static const int32_t diag3[] = {1,  1, 1,  1,  1, -1, 1,  -1, 1,  1,  -1, -1,
                                    -1, 1, 1,  -1, 1, -1, -1, -1, 1,  -1, -1, -1};
    static const int32_t cn2[] = {1, 0, -1, 0, 1, 1, -1, 1};
    static const int32_t cn3[] = {1, 0, 0, -1, 0, 0, 0, 1, 0, 0, -1, 0,
                                  1, 0, 1, -1, 0, 1, 0, 1, 1, 0, -1, 1};
    static const int32_t hl2[] = {1, 0, -1, 0, 0, 1, 0, -1, 0, 2, 0, -2, 0, 3, 0, -3};
    static const int32_t hl3[] = {1, 0, 0, -1, 0, 0, 0, 1, 0, 0, -1, 0, 0, 0, 1,
                                  0, 0, -1, 0, 0, 2, 0, 0, -2, 0, 0, 3, 0, 0, -3};
    expect_exactly("diagonal", 2, diag2, 4);
    expect_exactly("diagonal", 3, diag3, 8);
    expect_exactly("crank-nicolson", 2, cn2, 4);
    expect_exactly("crank-nicolson", 3, cn3, 8);
    expect_exactly("hops-last", 2, hl2, 8);
    expect_exactly("hops-last", 3, hl3, 10);
    smp_error err;
    smp_stencil st;
    for (int d = 2; d <= SMP_MAX_DIMS; d++) {
        assert_ok(smp_stencil_family(&st, "diagonal", d, &err), err);
        assert_int_equal(st.count, 1 << d);
        for (int k = 0; k < st.count * d; k++)
            assert_int_equal(abs(st.offsets[k]), 1); /* never along an axis */
        smp_stencil_free(&st);
        assert_ok(smp_stencil_family(&st, "crank-nicolson", d, &err), err);
        assert_int_equal(st.count, 4 * (d - 1));
        for (int k = 0; k < st.count; k++) /* the last dimension forward only */
            assert_true(st.offsets[k * d + d - 1] == (k >= 2 * (d - 1)));
        smp_stencil_free(&st);
        assert_ok(smp_stencil_family(&st, "hops-last", d, &err), err);
        assert_int_equal(st.count, 2 * d + 4);
        smp_stencil_free(&st);
    }
    /* in 1-D the diagonal has no diagonals and crank-nicolson no space
     * dimension; hops-last is hops there */
    assert_err(smp_stencil_family(&st, "diagonal", 1, &err), SMP_ERR_INPUT, err,
               "stencil 'diagonal': needs at least 2 dimensions");
    assert_err(smp_stencil_family(&st, "crank-nicolson", 1, &err), SMP_ERR_INPUT, err,
               "stencil 'crank-nicolson': needs at least 2 dimensions");
    static const int32_t hl1[] = {1, -1, 2, -2, 3, -3};
    expect_exactly("hops-last", 1, hl1, 6);
    /* by name, as a spec names them */
    const char *dir = smp_specs_dir();
    static const char *const names[] = {"diagonal", "crank-nicolson", "hops-last"};
    for (int i = 0; i < 3; i++) {
        assert_ok(smp_stencil_named(&st, names[i], 3, dir, &err), err);
        assert_string_equal(st.name, names[i]);
        smp_stencil_free(&st);
    }
}

static void test_init_valid_copies(void **state)
{
    (void)state;
    smp_error err;
    smp_stencil st;
    int32_t offs[] = {1, 0, -1, 0, 0, 2, 5, -7};
    double w[] = {1, 1, 0.5, 3};
    assert_ok(smp_stencil_init(&st, 2, 4, offs, w, "stencil", &err), err);
    offs[0] = 99; /* the stencil holds its own copy */
    w[0] = 99;
    assert_int_equal(st.offsets[0], 1);
    assert_true(st.weights[0] == 1.0);
    assert_int_equal(st.offsets[7], -7);
    assert_true(smp_stencil_weighted(&st));
    smp_stencil_free(&st);
    assert_null(st.offsets);
    double ones[] = {1, 1, 1, 1};
    assert_ok(smp_stencil_init(&st, 2, 4, offs, ones, "stencil", &err), err);
    assert_false(smp_stencil_weighted(&st)); /* unit weights are not "weighted" */
    smp_stencil_free(&st);
}

static void test_init_rejects(void **state)
{
    (void)state;
    smp_error err;
    smp_stencil st;
    int32_t zero[] = {1, 0, 0, 0, 0, 1};
    assert_err(smp_stencil_init(&st, 2, 3, zero, NULL, "stencil", &err), SMP_ERR_INPUT, err,
               "stencil.offsets[1]");
    int32_t dup[] = {1, 0, 0, 1, 1, 0};
    assert_err(smp_stencil_init(&st, 2, 3, dup, NULL, "stencil", &err), SMP_ERR_INPUT, err,
               "stencil.offsets[2]");
    assert_non_null(strstr(err.msg, "offsets[0]"));
    int32_t ok[] = {1, 0, -1, 0, 0, 1};
    double nanw[] = {1, NAN, 1}, infw[] = {1, 1, INFINITY}, negw[] = {-1, 1, 1},
           zerow[] = {1, 0, 1};
    assert_err(smp_stencil_init(&st, 2, 3, ok, nanw, "stencil", &err), SMP_ERR_INPUT, err,
               "stencil.weights[1]");
    assert_err(smp_stencil_init(&st, 2, 3, ok, infw, "stencil", &err), SMP_ERR_INPUT, err,
               "stencil.weights[2]");
    assert_err(smp_stencil_init(&st, 2, 3, ok, negw, "stencil", &err), SMP_ERR_INPUT, err,
               "stencil.weights[0]");
    assert_err(smp_stencil_init(&st, 2, 3, ok, zerow, "stencil", &err), SMP_ERR_INPUT, err,
               "stencil.weights[1]");
    /* the field prefix is the caller's */
    assert_err(smp_stencil_init(&st, 2, 3, zero, NULL, "mystencil", &err), SMP_ERR_INPUT, err,
               "mystencil.offsets[1]");
    int32_t big[] = {SMP_MAX_OFFSET_ABS + 1, 0};
    assert_err(smp_stencil_init(&st, 2, 1, big, NULL, "stencil", &err), SMP_ERR_INPUT, err,
               "stencil.offsets[0]");
    assert_err(smp_stencil_init(&st, 2, 0, ok, NULL, "stencil", &err), SMP_ERR_INPUT, err,
               "stencil.offsets");
    assert_err(smp_stencil_init(&st, 0, 1, ok, NULL, "stencil", &err), SMP_ERR_INPUT, err,
               "stencil");
}

static void test_named_families_and_files(void **state)
{
    (void)state;
    const char *dir = smp_specs_dir();
    smp_error err;
    smp_stencil st;
    assert_ok(smp_stencil_named(&st, "nearest", 3, dir, &err), err);
    assert_int_equal(st.count, 6);
    smp_stencil_free(&st);
    assert_ok(smp_stencil_named(&st, "5pt", 2, dir, &err), err);
    assert_int_equal(st.count, 4);
    assert_string_equal(st.name, "5pt");
    smp_stencil_free(&st);
    assert_ok(smp_stencil_named(&st, "27pt", 3, dir, &err), err);
    assert_int_equal(st.count, 26);
    smp_stencil_free(&st);
    assert_err(smp_stencil_named(&st, "5pt", 3, dir, &err), SMP_ERR_INPUT, err, "stencil");
    assert_err(smp_stencil_named(&st, "no-such-stencil", 2, dir, &err), SMP_ERR_INPUT, err,
               "no-such-stencil");
    assert_err(smp_stencil_named(&st, "../stencil-specs/5pt", 2, dir, &err), SMP_ERR_INPUT, err,
               "stencil");
    assert_err(smp_stencil_named(&st, "jacobi2d", 2, dir, &err), SMP_ERR_INPUT, err, "jacobi2d");
}

int main(void)
{
    if (!getenv("STENCILMAP_SPECS_DIR")) {
        fprintf(stderr, "STENCILMAP_SPECS_DIR must point at stencil-specs/\n");
        return 99;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_families),
        cmocka_unit_test(test_thesis_families),
        cmocka_unit_test(test_init_valid_copies),
        cmocka_unit_test(test_init_rejects),
        cmocka_unit_test(test_named_families_and_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
