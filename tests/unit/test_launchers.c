/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The launchers' formats (launchers/): every writer's file read back by its
 * reader gives each rank the planned node and the plan's J_sum/J_max, on
 * 2-D and 3-D grids, equal and unequal nodes, with and without sockets;
 * what each format promises (distinct cores per node and the planned
 * socket in a rankfile, runs in a machine file, node-by-node and
 * socket-by-socket order and full nodes in a rank order file); the
 * readers' refusals; --env's words per launcher. */
#include "unit_util.h"

#include "launchers.h"

typedef struct {
    smp_nodes nodes;
    smp_grid grid;
    smp_stencil st;
    smp_placement pl;
    int32_t *socket_of_rank; /* NULL without sockets */
} instance;

static void make(instance *in, const char *hosts, const char *slots, int ndims, const int64_t *dims,
                 const char *stencil, int sockets)
{
    smp_error err;
    memset(in, 0, sizeof(*in));
    assert_ok(smp_nodes_parse(&in->nodes, hosts, slots, &err), err);
    assert_ok(smp_grid_init(&in->grid, ndims, dims, NULL, &err), err);
    assert_ok(smp_stencil_family(&in->st, stencil, ndims, &err), err);
    assert_ok(
        smp_plan(&in->grid, &in->st, in->nodes.slots, in->nodes.count, SMP_ALG_AUTO, &in->pl, &err),
        err);
    if (sockets) {
        int32_t *per = malloc(sizeof(int32_t) * (size_t)in->nodes.count);
        in->socket_of_rank = malloc(sizeof(int32_t) * (size_t)in->grid.size);
        assert_non_null(per);
        assert_non_null(in->socket_of_rank);
        for (int i = 0; i < in->nodes.count; i++)
            per[i] = sockets;
        smp_socket_score sc;
        assert_ok(smp_plan_sockets(&in->grid, &in->st, in->pl.node_of_rank, in->pl.nnodes, per,
                                   in->socket_of_rank, &sc, &err),
                  err);
        free(per);
    }
}

static void unmake(instance *in)
{
    smp_placement_free(&in->pl);
    smp_stencil_free(&in->st);
    smp_nodes_free(&in->nodes);
    free(in->socket_of_rank);
}

/* the file's text, in memory */
static char *write_text(sml_launcher l, const instance *in, smp_status want, const char *needle)
{
    smp_error err;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    sml_plan p = {&in->nodes, &in->pl, in->socket_of_rank, "test"};
    if (want == SMP_OK)
        assert_ok(sml_write(l, f, &p, &err), err);
    else
        assert_err(sml_write(l, f, &p, &err), want, err, needle);
    fclose(f);
    return buf;
}

static smp_status read_text(sml_launcher l, const char *text, const smp_nodes *given,
                            sml_read_result *r, smp_error *err)
{
    FILE *f = fmemopen((void *)text, strlen(text), "r");
    assert_non_null(f);
    smp_status s = sml_read(l, f, given, r, err);
    fclose(f);
    return s;
}

/* write, read back: the same node per rank, the same score */
static void round_trip(sml_launcher l, const instance *in)
{
    smp_error err;
    char *text = write_text(l, in, SMP_OK, NULL);
    sml_read_result r;
    assert_ok(read_text(l, text, &in->nodes, &r, &err), err);
    assert_int_equal(r.ranks, in->pl.ranks);
    for (int64_t k = 0; k < r.ranks; k++)
        if (strcmp(r.nodes.names[r.node_of_rank[k]], in->nodes.names[in->pl.node_of_rank[k]]))
            fail_msg("%s: rank %lld read back on %s, planned on %s", sml_name(l), (long long)k,
                     r.nodes.names[r.node_of_rank[k]], in->nodes.names[in->pl.node_of_rank[k]]);
    smp_score sc;
    assert_ok(smp_score_compute(&in->grid, &in->st, r.node_of_rank, r.nodes.count, &sc, &err), err);
    assert_int_equal(sc.j_sum, in->pl.score.j_sum);
    assert_int_equal(sc.j_max, in->pl.score.j_max);
    /* and against the independent scorer of the tests */
    tu_score ref;
    tu_brute_score(in->grid.ndims, in->grid.dims, in->grid.periods, in->st.count, in->st.offsets,
                   NULL, r.node_of_rank, r.nodes.count, &ref);
    assert_int_equal(ref.j_sum, in->pl.score.j_sum);
    assert_int_equal(ref.j_max, in->pl.score.j_max);
    if (l == SML_OPENMPI)
        assert_non_null(r.slot);
    sml_read_result_free(&r);
    free(text);
}

static const int64_t dims2[2] = {8, 6}, dims3[3] = {4, 4, 3};

static void test_round_trips(void **state)
{
    (void)state;
    instance in;
    for (int l = 0; l < SML_COUNT; l++) {
        make(&in, "node[1-4]", "16,16,10,6", 2, dims2, "nearest", 0);
        round_trip((sml_launcher)l, &in);
        unmake(&in);
        make(&in, "n[01-03]", "16", 3, dims3, "hops", 0);
        round_trip((sml_launcher)l, &in);
        unmake(&in);
        make(&in, "a,b7,c-x.y", "12(x2),24", 3, dims3, "nearest", 2);
        round_trip((sml_launcher)l, &in);
        unmake(&in);
    }
}

/* Open MPI: a node's ranks on distinct cores 0..k-1, per socket with
 * sockets, on the socket of the split */
static void check_slots(const instance *in)
{
    smp_error err;
    char *text = write_text(SML_OPENMPI, in, SMP_OK, NULL);
    sml_read_result r;
    assert_ok(read_text(SML_OPENMPI, text, NULL, &r, &err), err);
    int64_t p = in->pl.ranks;
    for (int64_t a = 0; a < p; a++) {
        int s = 0, c = 0;
        char tail;
        if (in->socket_of_rank) {
            assert_int_equal(sscanf(r.slot[a], "%d:%d%c", &s, &c, &tail), 2);
            assert_int_equal(s, in->socket_of_rank[a]);
        } else {
            assert_int_equal(sscanf(r.slot[a], "%d%c", &c, &tail), 1);
        }
        /* c counts the earlier ranks of the same node (and socket) */
        int64_t before = 0;
        for (int64_t b = 0; b < a; b++)
            before += in->pl.node_of_rank[b] == in->pl.node_of_rank[a] &&
                      (!in->socket_of_rank || in->socket_of_rank[b] == s);
        assert_int_equal(c, before);
    }
    sml_read_result_free(&r);
    free(text);
}

static void test_rankfile(void **state)
{
    (void)state;
    instance in;
    make(&in, "node[1-4]", "16,16,10,6", 2, dims2, "nearest", 0);
    check_slots(&in);
    char *text = write_text(SML_OPENMPI, &in, SMP_OK, NULL);
    assert_non_null(
        strstr(text, "# Open MPI rankfile from stencil-map, test: 48 ranks on 4 nodes"));
    free(text);
    unmake(&in);
    make(&in, "node[1-3]", "16", 3, dims3, "nearest", 2);
    check_slots(&in);
    text = write_text(SML_OPENMPI, &in, SMP_OK, NULL);
    assert_non_null(strstr(text, "slot: logical socket:core"));
    free(text);
    unmake(&in);
    /* names mpirun would not read as hosts */
    make(&in, "rank,node2", "8", 2, (int64_t[]){4, 4}, "nearest", 0);
    free(write_text(SML_OPENMPI, &in, SMP_ERR_INPUT, "node name 'rank' is a keyword"));
    unmake(&in);
    make(&in, "007,n2", "8", 2, (int64_t[]){4, 4}, "nearest", 0);
    free(write_text(SML_OPENMPI, &in, SMP_ERR_INPUT, "'007' is a number"));
    unmake(&in);
    make(&in, "1.x,n2", "8", 2, (int64_t[]){4, 4}, "nearest", 0);
    free(write_text(SML_OPENMPI, &in, SMP_ERR_INPUT, "does not start with a letter"));
    unmake(&in);
}

static void test_rankfile_refused(void **state)
{
    (void)state;
    smp_error err;
    sml_read_result r;
    assert_ok(
        read_text(SML_OPENMPI, "# c\n\nrank 1 = b slots=1\n  rank 0=a slot=0:1\n", NULL, &r, &err),
        err);
    assert_int_equal(r.ranks, 2);
    assert_string_equal(r.nodes.names[r.node_of_rank[0]], "a");
    assert_string_equal(r.slot[0], "0:1");
    sml_read_result_free(&r);
    assert_err(read_text(SML_OPENMPI, "rank 0=a slot=0\nrank 2=a slot=1\n", NULL, &r, &err),
               SMP_ERR_INPUT, err, "rank 1 is missing");
    assert_err(read_text(SML_OPENMPI, "rank 0=a slot=0\nrank 0=b slot=1\n", NULL, &r, &err),
               SMP_ERR_INPUT, err, "line 2: rank 0 is placed twice (line 1 too)");
    assert_err(read_text(SML_OPENMPI, "rank 0=a\n", NULL, &r, &err), SMP_ERR_INPUT, err,
               "line 1: expected 'rank N=HOST slot=LIST'");
    assert_err(read_text(SML_OPENMPI, "rank x=a slot=1\n", NULL, &r, &err), SMP_ERR_INPUT, err,
               "line 1: expected");
    assert_err(read_text(SML_OPENMPI, "rank 0=a slot=1 extra\n", NULL, &r, &err), SMP_ERR_INPUT,
               err, "line 1: expected");
    assert_err(read_text(SML_OPENMPI, "# nothing\n", NULL, &r, &err), SMP_ERR_INPUT, err,
               "no rank in the file");
}

/* Hydra: one line per run, never the same host on two lines in a row */
static void test_machinefile(void **state)
{
    (void)state;
    instance in;
    make(&in, "node[1-4]", "16,16,10,6", 2, dims2, "nearest", 0);
    char *text = write_text(SML_MPICH, &in, SMP_OK, NULL);
    int64_t runs = 1;
    for (int64_t r = 1; r < in.pl.ranks; r++)
        runs += in.pl.node_of_rank[r] != in.pl.node_of_rank[r - 1];
    char prev[64] = "";
    int lines = 0;
    int64_t total = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        if (line[0] == '#')
            continue;
        char host[64];
        long long count;
        assert_int_equal(sscanf(line, "%63[^:]:%lld", host, &count), 2);
        assert_true(count >= 1);
        assert_string_not_equal(host, prev);
        strcpy(prev, host);
        lines++;
        total += count;
    }
    assert_int_equal(lines, runs);
    assert_int_equal(total, in.pl.ranks);
    free(text);
    unmake(&in);

    smp_error err;
    sml_read_result r;
    /* host:1 per rank is the same list (Hydra adds up a repeated line) */
    assert_ok(read_text(SML_MPICH, "a\na:1 # one\nb:2\na\n", NULL, &r, &err), err);
    assert_int_equal(r.ranks, 5);
    const char *want[] = {"a", "a", "b", "b", "a"};
    for (int k = 0; k < 5; k++)
        assert_string_equal(r.nodes.names[r.node_of_rank[k]], want[k]);
    sml_read_result_free(&r);
    assert_err(read_text(SML_MPICH, "a:0\n", NULL, &r, &err), SMP_ERR_INPUT, err,
               "line 1: the count after 'a:' must be a positive integer, not '0'");
    assert_err(read_text(SML_MPICH, "a:2x\n", NULL, &r, &err), SMP_ERR_INPUT, err, "not '2x'");
    assert_err(read_text(SML_MPICH, "a:2 binding=core\n", NULL, &r, &err), SMP_ERR_INPUT, err,
               "line 1: expected HOST[:COUNT] alone");
    assert_err(read_text(SML_MPICH, ":3\n", NULL, &r, &err), SMP_ERR_INPUT, err,
               "no host before ':'");
    assert_err(read_text(SML_MPICH, "\n# x\n", NULL, &r, &err), SMP_ERR_INPUT, err,
               "no host in the file");
}

/* Cray: one line per node, its ranks socket by socket; full nodes only */
static void test_rank_order(void **state)
{
    (void)state;
    instance in;
    make(&in, "node[1-3]", "16", 3, dims3, "nearest", 2);
    char *text = write_text(SML_CRAY, &in, SMP_OK, NULL);
    char *save = NULL;
    int node = 0;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        assert_true(node < in.nodes.count);
        int64_t n = 0, prev = -1;
        int prev_socket = -1;
        for (char *tok = strtok(line, ","); tok; tok = strtok(NULL, ",")) {
            int64_t r = strtoll(tok, NULL, 10);
            assert_int_equal(in.pl.node_of_rank[r], node);
            int s = in.socket_of_rank[r];
            assert_true(s > prev_socket || (s == prev_socket && r > prev));
            prev_socket = s;
            prev = r;
            n++;
        }
        assert_int_equal(n, in.nodes.slots[node]);
        node++;
    }
    assert_int_equal(node, in.nodes.count);
    free(text);
    unmake(&in);
    /* 40 ranks on nodes of 16: the third node would take 8 of its 16 */
    make(&in, "node[1-3]", "16", 2, (int64_t[]){8, 5}, "nearest", 0);
    free(write_text(SML_CRAY, &in, SMP_ERR_INFEASIBLE,
                    "node node3 would take 8 ranks but has 16 slots"));
    unmake(&in);

    smp_error err;
    sml_read_result r;
    smp_nodes given;
    assert_ok(smp_nodes_parse(&given, "x[1-2]", "3,2", &err), err);
    assert_ok(read_text(SML_CRAY, "4, 0,2\n1 3\n", &given, &r, &err), err);
    const char *want[] = {"x1", "x2", "x1", "x2", "x1"};
    for (int k = 0; k < 5; k++)
        assert_string_equal(r.nodes.names[r.node_of_rank[k]], want[k]);
    sml_read_result_free(&r);
    assert_err(read_text(SML_CRAY, "0,1,2,3\n", &given, &r, &err), SMP_ERR_INPUT, err,
               "4 ranks listed, but the launch has 5");
    assert_err(read_text(SML_CRAY, "0,1,2,3,1\n", &given, &r, &err), SMP_ERR_INPUT, err,
               "rank 1 is listed twice (in places 2 and 5)");
    assert_err(read_text(SML_CRAY, "0,1,2,3,5\n", &given, &r, &err), SMP_ERR_INPUT, err,
               "rank 5, but the launch has 5 ranks");
    assert_err(read_text(SML_CRAY, "0,1,-2\n", &given, &r, &err), SMP_ERR_INPUT, err,
               "'-2' is not a rank");
    assert_err(read_text(SML_CRAY, "0,1,2x\n", &given, &r, &err), SMP_ERR_INPUT, err,
               "'2x' is not a rank");
    assert_err(read_text(SML_CRAY, "0\n", NULL, &r, &err), SMP_ERR_INPUT, err,
               "needs the launch's nodes");
    smp_nodes_free(&given);
}

static void test_names(void **state)
{
    (void)state;
    sml_launcher l;
    assert_true(sml_from_name("openmpi", &l) && l == SML_OPENMPI);
    assert_true(sml_from_name("cray", &l) && l == SML_CRAY);
    assert_false(sml_from_name("pmix", &l));
    assert_false(sml_from_name(NULL, &l));
    assert_string_equal(sml_names(), "slurm, openmpi, mpich, cray");
    assert_string_equal(sml_slots_variable(SML_SLURM), "SLURM_JOB_CPUS_PER_NODE");
    assert_string_equal(sml_slots_variable(SML_OPENMPI), "SLURM_TASKS_PER_NODE");
    assert_string_equal(sml_slots_variable(SML_MPICH), "SLURM_JOB_CPUS_PER_NODE");
    assert_string_equal(sml_slots_variable(SML_CRAY), "SLURM_TASKS_PER_NODE");
    for (int i = 0; i < SML_COUNT; i++)
        assert_true(sml_from_name(sml_name((sml_launcher)i), &l) && l == (sml_launcher)i);
}

static char *env_text(sml_launcher l, const sml_env_opts *o, smp_status want, const char *needle)
{
    smp_error err;
    char *v[3] = {strdup("4,3"), strdup("1,0;-1,0"), strdup("1e+20,0.5")};
    smp_task_env env = {
        3,
        {{"STENCIL_MAP_DIMS", v[0]}, {"STENCIL_MAP_STENCIL", v[1]}, {"STENCIL_MAP_WEIGHTS", v[2]}}};
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (want == SMP_OK)
        assert_ok(sml_write_env(l, f, &env, o, &err), err);
    else
        assert_err(sml_write_env(l, f, &env, o, &err), want, err, needle);
    fclose(f);
    smp_task_env_free(&env);
    return buf;
}

static void test_env(void **state)
{
    (void)state;
    sml_env_opts o = {NULL, false, "/usr/libexec/stencilmap/hydra-srun"};
    char *t = env_text(SML_SLURM, &o, SMP_OK, NULL);
    assert_string_equal(t, "export STENCIL_MAP_DIMS='4,3'\nexport STENCIL_MAP_STENCIL='1,0;-1,0'\n"
                           "export STENCIL_MAP_WEIGHTS='1e+20,0.5'\n");
    free(t);
    t = env_text(SML_OPENMPI, &o, SMP_OK, NULL);
    assert_string_equal(t, "-x STENCIL_MAP_DIMS=4,3 -x STENCIL_MAP_STENCIL=1,0;-1,0 "
                           "-x STENCIL_MAP_WEIGHTS=1e+20,0.5\n");
    free(t);
    t = env_text(SML_MPICH, &o, SMP_OK, NULL);
    assert_string_equal(t, "-genv STENCIL_MAP_DIMS 4,3 -genv STENCIL_MAP_STENCIL 1,0;-1,0 "
                           "-genv STENCIL_MAP_WEIGHTS 1e+20,0.5\n");
    free(t);
    o.in_allocation = true;
    t = env_text(SML_MPICH, &o, SMP_OK, NULL);
    assert_true(!strncmp(t,
                         "-launcher rsh -launcher-exec /usr/libexec/stencilmap/hydra-srun -genv "
                         "STENCIL_MAP_DIMS 4,3 ",
                         90));
    free(t);
    /* cray: the method, and the file by its absolute path */
    char dir[] = "/tmp/test_launchers.XXXXXX";
    assert_non_null(mkdtemp(dir));
    char cwd[4096], path[4200];
    assert_non_null(getcwd(cwd, sizeof(cwd)));
    assert_int_equal(chdir(dir), 0);
    FILE *f = fopen("order", "w");
    assert_non_null(f);
    fclose(f);
    o.output = "order";
    t = env_text(SML_CRAY, &o, SMP_OK, NULL);
    snprintf(path, sizeof(path),
             "export STENCIL_MAP_WEIGHTS='1e+20,0.5'\nexport MPICH_RANK_REORDER_METHOD=3\n"
             "export MPICH_RANK_REORDER_FILE='%s/order'\n",
             dir);
    assert_non_null(strstr(t, path));
    free(t);
    o.output = "-"; /* no file to name */
    t = env_text(SML_CRAY, &o, SMP_OK, NULL);
    assert_null(strstr(t, "MPICH_RANK_REORDER_FILE"));
    assert_non_null(strstr(t, "MPICH_RANK_REORDER_METHOD=3\n"));
    free(t);
    o.output = "missing";
    free(env_text(SML_CRAY, &o, SMP_ERR_SYSTEM, "cannot resolve the path of 'missing'"));
    assert_int_equal(remove("order"), 0);
    assert_int_equal(chdir(cwd), 0);
    assert_int_equal(rmdir(dir), 0);
    /* a value the shell would change is refused */
    smp_error err;
    smp_task_env bad = {1, {{"STENCIL_MAP_ALGORITHM", strdup("a b")}}};
    assert_err(sml_write_env(SML_OPENMPI, stdout, &bad, &o, &err), SMP_ERR_INPUT, err,
               "STENCIL_MAP_ALGORITHM='a b' is not plain text");
    smp_task_env_free(&bad);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trips),
        cmocka_unit_test(test_rankfile),
        cmocka_unit_test(test_rankfile_refused),
        cmocka_unit_test(test_machinefile),
        cmocka_unit_test(test_rank_order),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_env),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
