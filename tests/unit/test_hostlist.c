/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Hostlists and slot lists in Slurm's syntax. */
#include "unit_util.h"

static void free_names(char **names, int n)
{
    for (int i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

/* expected: names separated by spaces */
static void expect_expansion(const char *hostlist, const char *expected)
{
    char **names = NULL;
    int n = -1;
    smp_error err;
    smp_error_clear(&err);
    smp_status s = smp_hostlist_expand(hostlist, &names, &n, &err);
    if (s != SMP_OK)
        fail_msg("expand '%s': status %d, '%s'", hostlist, (int)s, err.msg);
    char got[4096] = "";
    size_t used = 0;
    for (int i = 0; i < n; i++)
        used += (size_t)snprintf(got + used, sizeof(got) - used, "%s%s", i ? " " : "", names[i]);
    free_names(names, n);
    if (strcmp(got, expected) != 0)
        fail_msg("expand '%s': got '%s', want '%s'", hostlist, got, expected);
}

static void test_expand(void **state)
{
    (void)state;
    expect_expansion("n[01-04]", "n01 n02 n03 n04");
    expect_expansion("n[1-3,7],gpu[08-10]", "n1 n2 n3 n7 gpu08 gpu09 gpu10");
    expect_expansion("a[1-2]b[3-4]", "a1b3 a1b4 a2b3 a2b4");
    expect_expansion("x,y", "x y");
    expect_expansion("x", "x");
    expect_expansion("n[5]", "n5");
    expect_expansion("rack[1-2]-n[09-10].ib", "rack1-n09.ib rack1-n10.ib rack2-n09.ib rack2-n10.ib");
    expect_expansion("c[0-2,5-6]x,d", "c0x c1x c2x c5x c6x d");
    expect_expansion("[1-3]", "1 2 3");
    expect_expansion("n[098-101]", "n098 n099 n100 n101");
}

static void test_expand_large(void **state)
{
    (void)state;
    char **names = NULL;
    int n = 0;
    smp_error err;
    assert_ok(smp_hostlist_expand("n[00001-10000]", &names, &n, &err), err);
    assert_int_equal(n, 10000);
    assert_string_equal(names[0], "n00001");
    assert_string_equal(names[9999], "n10000");
    free_names(names, n);
}

static void expect_reject(const char *hostlist)
{
    char **names = NULL;
    int n = -1;
    smp_error err;
    smp_error_clear(&err);
    smp_status s = smp_hostlist_expand(hostlist, &names, &n, &err);
    if (s != SMP_ERR_INPUT || err.status != SMP_ERR_INPUT || !strstr(err.msg, "--nodes"))
        fail_msg("expand '%s': status %d (%d names), '%s'; wanted %d naming --nodes", hostlist,
                 (int)s, n, err.msg, (int)SMP_ERR_INPUT);
}

static void test_expand_rejects(void **state)
{
    (void)state;
    expect_reject("n[");
    expect_reject("n[3-1]");
    expect_reject("n[a-b]");
    expect_reject("");
    expect_reject("n]");
    expect_reject("n[1-2");
    expect_reject("n[[1-2]]");
    expect_reject("n[1-]");
    expect_reject("n[-2]");
    expect_reject("n[1-2],,m");
    expect_reject(",n1");
    expect_reject("n[1-2000000]");
    /* a hostfile holds one name per line: no blanks, comments or control
     * bytes in names (found by fuzz_plan: a tab made the round trip differ) */
    expect_reject("node\t1");
    expect_reject("node 1");
    expect_reject("#node1");
    expect_reject("n[1-2],n\xfb");
    expect_reject("n\n1");
    char **names;
    int n;
    smp_error err;
    assert_err(smp_hostlist_expand(NULL, &names, &n, &err), SMP_ERR_INPUT, err, "--nodes");
}

/* "n[]" names no host at all: an empty bracket group must be an error, not
 * a silent empty node list. */
static void test_expand_rejects_empty_brackets(void **state)
{
    (void)state;
    expect_reject("n[]");
    expect_reject("n[1-2],m[]");
}

static void test_nodes_parse(void **state)
{
    (void)state;
    smp_nodes nodes;
    smp_error err;
    assert_ok(smp_nodes_parse(&nodes, "n[1-3],big", "48(x3),32", &err), err);
    assert_int_equal(nodes.count, 4);
    assert_int_equal(nodes.slots[0], 48);
    assert_int_equal(nodes.slots[2], 48);
    assert_int_equal(nodes.slots[3], 32);
    assert_int_equal(nodes.total_slots, 176);
    assert_string_equal(nodes.names[3], "big");
    smp_nodes_free(&nodes);

    assert_ok(smp_nodes_parse(&nodes, "n[01-05]", "8", &err), err);
    assert_int_equal(nodes.count, 5);
    for (int i = 0; i < 5; i++)
        assert_int_equal(nodes.slots[i], 8);
    assert_int_equal(nodes.total_slots, 40);
    smp_nodes_free(&nodes);

    assert_ok(smp_nodes_parse(&nodes, "a,b,c", "1,2,3", &err), err);
    assert_int_equal(nodes.slots[1], 2);
    assert_int_equal(nodes.total_slots, 6);
    smp_nodes_free(&nodes);

    assert_ok(smp_nodes_parse(&nodes, "a,b,c", "2(x2),3", &err), err);
    assert_int_equal(nodes.slots[0], 2);
    assert_int_equal(nodes.slots[1], 2);
    assert_int_equal(nodes.slots[2], 3);
    smp_nodes_free(&nodes);

    /* large counts do not overflow the total */
    assert_ok(smp_nodes_parse(&nodes, "n[1-4]", "2147483647", &err), err);
    assert_int_equal(nodes.total_slots, 4 * (int64_t)2147483647);
    smp_nodes_free(&nodes);
}

static void test_nodes_parse_rejects(void **state)
{
    (void)state;
    smp_nodes nodes;
    smp_error err;
    assert_err(smp_nodes_parse(&nodes, "n[1-4]", "8,8", &err), SMP_ERR_INPUT, err, "--slots");
    assert_err(smp_nodes_parse(&nodes, "n[1-2]", "8(x3)", &err), SMP_ERR_INPUT, err, "--slots");
    assert_err(smp_nodes_parse(&nodes, "n[1-2]", "8,8,8", &err), SMP_ERR_INPUT, err, "--slots");
    assert_err(smp_nodes_parse(&nodes, "n[1-2]", "0", &err), SMP_ERR_INPUT, err, "--slots");
    assert_err(smp_nodes_parse(&nodes, "n[1-2]", "8,0", &err), SMP_ERR_INPUT, err, "--slots");
    assert_err(smp_nodes_parse(&nodes, "n[1-2]", "-4", &err), SMP_ERR_INPUT, err, "--slots");
    assert_err(smp_nodes_parse(&nodes, "n[1-2]", "x", &err), SMP_ERR_INPUT, err, "--slots");
    assert_err(smp_nodes_parse(&nodes, "n[1-2]", "8(3)", &err), SMP_ERR_INPUT, err, "--slots");
    assert_err(smp_nodes_parse(&nodes, "n[1-2]", "8(x0)", &err), SMP_ERR_INPUT, err, "--slots");
    assert_err(smp_nodes_parse(&nodes, "n[1-2]", "8(x2", &err), SMP_ERR_INPUT, err, "--slots");
    assert_err(smp_nodes_parse(&nodes, "n[1-2]", "8;8", &err), SMP_ERR_INPUT, err, "--slots");
    assert_err(smp_nodes_parse(&nodes, "n[1-2]", "2147483648", &err), SMP_ERR_INPUT, err, "--slots");
    assert_err(smp_nodes_parse(&nodes, "n[1-2]", "", &err), SMP_ERR_INPUT, err, "--slots");
    assert_err(smp_nodes_parse(&nodes, "n[1-2]", NULL, &err), SMP_ERR_INPUT, err, "--slots");
    assert_err(smp_nodes_parse(&nodes, "n[2-1]", "8", &err), SMP_ERR_INPUT, err, "--nodes");
    assert_err(smp_nodes_parse(&nodes, "n[1-3],n2", "8", &err), SMP_ERR_INPUT, err,
               "node 'n2' is named twice");
    assert_err(smp_nodes_parse(&nodes, "b,a,b", "8", &err), SMP_ERR_INPUT, err, "'b'");
    assert_int_equal(nodes.count, 0);
    assert_null(nodes.names);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_expand),
        cmocka_unit_test(test_expand_large),
        cmocka_unit_test(test_expand_rejects),
        cmocka_unit_test(test_expand_rejects_empty_brackets),
        cmocka_unit_test(test_nodes_parse),
        cmocka_unit_test(test_nodes_parse_rejects),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
