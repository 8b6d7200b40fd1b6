/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Hostfiles: write, read back, node order of first appearance. */
#include "unit_util.h"

static void test_round_trip(void **state)
{
    (void)state;
    smp_error err;
    smp_nodes nodes;
    assert_ok(smp_nodes_parse(&nodes, "n[01-04]", "4", &err), err);
    smp_grid g;
    smp_stencil st;
    int64_t dims[2] = {4, 3};
    assert_ok(smp_grid_init(&g, 2, dims, NULL, &err), err);
    assert_ok(smp_stencil_family(&st, "nearest", 2, &err), err);
    smp_placement pl;
    assert_ok(smp_plan(&g, &st, nodes.slots, nodes.count, SMP_ALG_HYPERPLANE, &pl, &err), err);

    FILE *f = tmpfile();
    assert_non_null(f);
    assert_ok(smp_hostfile_write(f, &nodes, &pl, &err), err);
    rewind(f);
    /* the text: one name per line, line r is rank r's node */
    char line[64];
    for (int64_t r = 0; r < pl.ranks; r++) {
        assert_non_null(fgets(line, sizeof(line), f));
        line[strcspn(line, "\n")] = '\0';
        assert_string_equal(line, nodes.names[pl.node_of_rank[r]]);
    }
    assert_null(fgets(line, sizeof(line), f));
    rewind(f);

    smp_nodes back = {0};
    int32_t *nor = NULL;
    int64_t ranks = 0;
    assert_ok(smp_hostfile_read(f, &back, &nor, &ranks, &err), err);
    fclose(f);
    assert_int_equal(ranks, 12);
    assert_int_equal(back.count, 3); /* 12 ranks fill 3 of the 4 nodes */
    assert_int_equal(back.total_slots, 12);
    /* indices in order of first appearance, names preserved */
    int32_t next = 0;
    for (int64_t r = 0; r < ranks; r++) {
        assert_true(nor[r] >= 0 && nor[r] < back.count);
        if (nor[r] == next)
            next++;
        else
            assert_true(nor[r] < next);
        assert_string_equal(back.names[nor[r]], nodes.names[pl.node_of_rank[r]]);
    }
    assert_int_equal(next, back.count);
    /* slots: lines per node */
    for (int i = 0; i < back.count; i++) {
        int cnt = 0;
        for (int64_t r = 0; r < ranks; r++)
            cnt += nor[r] == i;
        assert_int_equal(back.slots[i], cnt);
    }
    /* the score survives the round trip */
    smp_score sc;
    assert_ok(smp_score_compute(&g, &st, nor, back.count, &sc, &err), err);
    assert_int_equal(sc.j_sum, pl.score.j_sum);
    assert_int_equal(sc.j_max, pl.score.j_max);
    free(nor);
    smp_nodes_free(&back);
    smp_placement_free(&pl);
    smp_stencil_free(&st);
    smp_nodes_free(&nodes);
}

static FILE *text_file(const char *text)
{
    FILE *f = tmpfile();
    assert_non_null(f);
    fputs(text, f);
    rewind(f);
    return f;
}

static void test_read_order_and_format(void **state)
{
    (void)state;
    smp_error err;
    smp_nodes nodes = {0};
    int32_t *nor = NULL;
    int64_t ranks = 0;
    FILE *f = text_file("zeta\nalpha\n# comment\n\n  zeta  \nmid\r\nalpha\nzeta");
    assert_ok(smp_hostfile_read(f, &nodes, &nor, &ranks, &err), err);
    fclose(f);
    assert_int_equal(ranks, 6);
    assert_int_equal(nodes.count, 3);
    assert_string_equal(nodes.names[0], "zeta");
    assert_string_equal(nodes.names[1], "alpha");
    assert_string_equal(nodes.names[2], "mid");
    int32_t want[6] = {0, 1, 0, 2, 1, 0};
    for (int r = 0; r < 6; r++)
        assert_int_equal(nor[r], want[r]);
    assert_int_equal(nodes.slots[0], 3);
    assert_int_equal(nodes.slots[1], 2);
    assert_int_equal(nodes.slots[2], 1);
    assert_int_equal(nodes.total_slots, 6);
    free(nor);
    smp_nodes_free(&nodes);

    /* known nodes keep their index and slot count; new ones are appended */
    assert_ok(smp_nodes_parse(&nodes, "a,b", "8", &err), err);
    f = text_file("c\nb\nc\na\n");
    assert_ok(smp_hostfile_read(f, &nodes, &nor, &ranks, &err), err);
    fclose(f);
    assert_int_equal(ranks, 4);
    assert_int_equal(nodes.count, 3);
    assert_string_equal(nodes.names[2], "c");
    assert_int_equal(nor[0], 2);
    assert_int_equal(nor[1], 1);
    assert_int_equal(nor[3], 0);
    assert_int_equal(nodes.slots[0], 8);
    assert_int_equal(nodes.slots[1], 8);
    assert_int_equal(nodes.slots[2], 2);
    assert_int_equal(nodes.total_slots, 18);
    free(nor);
    smp_nodes_free(&nodes);

    /* empty file: zero ranks */
    f = text_file("");
    assert_ok(smp_hostfile_read(f, &nodes, &nor, &ranks, &err), err);
    fclose(f);
    assert_int_equal(ranks, 0);
    free(nor);
    smp_nodes_free(&nodes);
}

static void test_read_many_and_long(void **state)
{
    (void)state;
    smp_error err;
    smp_nodes nodes = {0};
    int32_t *nor = NULL;
    int64_t ranks = 0;
    FILE *f = tmpfile();
    assert_non_null(f);
    for (int r = 0; r < 5000; r++) /* beyond the reader's first buffer */
        fprintf(f, "node%03d\n", (r * 7) % 500);
    rewind(f);
    assert_ok(smp_hostfile_read(f, &nodes, &nor, &ranks, &err), err);
    fclose(f);
    assert_int_equal(ranks, 5000);
    assert_int_equal(nodes.count, 500);
    for (int r = 0; r < 5000; r++) {
        char name[16];
        snprintf(name, sizeof(name), "node%03d", (r * 7) % 500);
        assert_string_equal(nodes.names[nor[r]], name);
    }
    free(nor);
    smp_nodes_free(&nodes);

    char longname[2000];
    memset(longname, 'x', sizeof(longname) - 2);
    longname[sizeof(longname) - 2] = '\n';
    longname[sizeof(longname) - 1] = '\0';
    f = text_file(longname);
    nor = NULL;
    assert_err(smp_hostfile_read(f, &nodes, &nor, &ranks, &err), SMP_ERR_INPUT, err, "hostfile");
    fclose(f);
    smp_nodes_free(&nodes);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_read_order_and_format),
        cmocka_unit_test(test_read_many_and_long),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
