/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The topology parsers and smt_levels_for, driven by data: every file in
 * tests/unit/topology/valid and .../invalid (NAME.conf for topology.conf,
 * NAME.yaml for topology.yaml, NAME.printed for scontrol's output, and
 * NAME.saved for that output saved to a file, read through smt_load and
 * told by content) has a NAME.expect beside it:
 *   nodes HOSTLIST        the step's nodes (default n1)
 *   topology NAME         the topology.yaml topology read (default: the
 *                         cluster's default)
 *   kind K                smt_kind() of the parsed topology
 *   source S              smt_source() (and the levels' source)
 *   level L NAME...       the group name of each step node at level L;
 *                         the levels are exactly those listed
 *   error TEXT            parsing or smt_levels_with fails with SMP_ERR_INPUT
 *                         and a message containing TEXT
 *   warning TEXT          (valid) a warning line contains TEXT; a valid case
 *                         without one must give no warning
 *   strict TEXT           (valid) in strict mode the levels fail with
 *                         SMP_ERR_INPUT and a message containing TEXT
 *   uplinks NAME K        (valid) switch NAME has K uplinks (smt_uplinks)
 *   speed NAME N          (valid) switch NAME has LinkSpeed N (smt_link_speed)
 *   links L G U1 U2 S1 S2 (valid) smt_level_links of level L: G groups of
 *                         switches, uplinks U1 to U2, LinkSpeed S1 to S2
 * Lines starting with '#' are comments.  Then the cases no file can hold:
 * NUL bytes, the limits, loading files that are not regular. */
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include "unit_util.h"
#include "smt_topology.h"

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("cannot open %s", path);
    char *buf = malloc(1 << 20);
    assert_non_null(buf);
    *len = fread(buf, 1, (1 << 20) - 1, f);
    buf[*len] = '\0';
    fclose(f);
    return buf;
}

static const char *data_dir(void)
{
    const char *top = getenv("STENCILMAP_TOP_SRCDIR");
    static char dir[2048];
    if (snprintf(dir, sizeof(dir), "%s/tests/unit/topology", top ? top : "..") >= (int)sizeof(dir))
        fail_msg("STENCILMAP_TOP_SRCDIR too long");
    return dir;
}

/* strict mode refuses the case with a message containing want */
static void check_strict(const smt_topology *t, const smp_nodes *sn, const char *want,
                         const char *path)
{
    smp_levels lv = {0};
    smp_error err;
    smp_error_clear(&err);
    if (!t)
        fail_msg("%s: strict: the file does not parse", path);
    smp_status s = smt_levels_with(t, sn, true, &lv, NULL, &err);
    if (s != SMP_ERR_INPUT || !strstr(err.msg, want))
        fail_msg("%s: strict: status %d, message '%s'; expected an input error containing '%s'",
                 path, s, err.msg, want);
    smp_levels_free(&lv);
}

/* "NAME K": switch NAME has K uplinks */
static void check_uplinks(const smt_topology *t, const char *want, const char *path)
{
    char name[128];
    int k;
    if (sscanf(want, "%127s %d", name, &k) != 2)
        fail_msg("%s: bad uplinks line '%s'", path, want);
    if (!t || smt_uplinks(t, name) != k)
        fail_msg("%s: switch %s has %d uplinks, expected %d", path, name,
                 t ? smt_uplinks(t, name) : -2, k);
}

/* "NAME N": switch NAME has LinkSpeed N */
static void check_speed(const smt_topology *t, const char *want, const char *path)
{
    char name[128];
    long long n;
    if (sscanf(want, "%127s %lld", name, &n) != 2)
        fail_msg("%s: bad speed line '%s'", path, want);
    if (!t || smt_link_speed(t, name) != n)
        fail_msg("%s: switch %s has LinkSpeed %lld, expected %lld", path, name,
                 t ? (long long)smt_link_speed(t, name) : -2LL, n);
}

/* "L G U1 U2 S1 S2": smt_level_links of level L */
static void check_links(const smt_topology *t, const smp_levels *lv, const char *want,
                        const char *path)
{
    int l, g, u1, u2;
    long long s1, s2;
    smt_links k;
    if (sscanf(want, "%d %d %d %d %lld %lld", &l, &g, &u1, &u2, &s1, &s2) != 6)
        fail_msg("%s: bad links line '%s'", path, want);
    bool got = smt_level_links(t, lv, l, &k);
    if (got != (g > 0) || k.groups != g || k.uplinks_min != u1 || k.uplinks_max != u2 ||
        k.speed_min != s1 || k.speed_max != s2)
        fail_msg("%s: level %d links %d %d %d %lld %lld, expected %s", path, l, k.groups,
                 k.uplinks_min, k.uplinks_max, (long long)k.speed_min, (long long)k.speed_max,
                 want);
}

/* every expected warning is in the warnings, and none comes unexpected */
static void check_warnings(const char *got, const char *const *want, int nwant, const char *path)
{
    if (nwant == 0 && got)
        fail_msg("%s: unexpected warning: %s", path, got);
    for (int i = 0; i < nwant; i++)
        if (!got || !strstr(got, want[i]))
            fail_msg("%s: warnings '%s' lack '%s'", path, got ? got : "", want[i]);
}

/* What a .expect file says (its lines are kept in the text). */
struct expect {
    const char *nodes, *kind, *source, *error, *name, *strict;
    const char *warn[8], *up[8], *speed[8], *links[8];
    char *levels[SMP_MAX_LEVELS + 1];
    int nwarn, nup, nspeed, nlinks, nlevels;
};

/* One line of a .expect file, "KEY VALUE" split at sp, into e. */
static void expect_line(struct expect *e, const char *key, char *val, const char *epath)
{
    if (!strcmp(key, "nodes"))
        e->nodes = val;
    else if (!strcmp(key, "kind"))
        e->kind = val;
    else if (!strcmp(key, "source"))
        e->source = val;
    else if (!strcmp(key, "error"))
        e->error = val;
    else if (!strcmp(key, "topology"))
        e->name = val;
    else if (!strcmp(key, "warning") && e->nwarn < 8)
        e->warn[e->nwarn++] = val;
    else if (!strcmp(key, "strict"))
        e->strict = val;
    else if (!strcmp(key, "uplinks") && e->nup < 8)
        e->up[e->nup++] = val;
    else if (!strcmp(key, "links") && e->nlinks < 8)
        e->links[e->nlinks++] = val;
    else if (!strcmp(key, "speed") && e->nspeed < 8)
        e->speed[e->nspeed++] = val;
    else if (!strcmp(key, "level") && e->nlevels <= SMP_MAX_LEVELS) {
        char *names = strchr(val, ' ');
        if (!names || atoi(val) != e->nlevels)
            fail_msg("%s: levels listed in order, from 0: '%s'", epath, val);
        e->levels[e->nlevels++] = names + 1;
    } else
        fail_msg("%s: bad line '%s'", epath, key);
}

static void parse_expect(char *text, const char *epath, struct expect *e)
{
    memset(e, 0, sizeof(*e));
    e->nodes = "n1";
    for (char *save = NULL, *line = strtok_r(text, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save)) {
        if (line[0] == '#')
            continue;
        char *sp = strchr(line, ' ');
        if (!sp)
            fail_msg("%s: bad line '%s'", epath, line);
        *sp = '\0';
        expect_line(e, line, sp + 1, epath);
    }
}

/* The levels got are those expected, group name by group name. */
static void check_levels(const smt_topology *t, const smp_levels *lv, const smp_nodes *sn,
                         const struct expect *e, const char *path)
{
    if (lv->nlevels != e->nlevels)
        fail_msg("%s: %d levels, expected %d", path, lv->nlevels, e->nlevels);
    assert_int_equal(lv->nnodes, sn->count);
    assert_string_equal(lv->source, smt_source(t));
    smp_error cerr;
    if (smp_levels_check(lv, sn->count, &cerr))
        fail_msg("%s: levels do not nest: %s", path, cerr.msg);
    for (int l = 0; l < e->nlevels; l++) {
        char got[4096] = "";
        for (int v = 0; v < sn->count; v++) {
            int32_t g = lv->group_of_node[l][v];
            strncat(got, v ? " " : "", sizeof(got) - strlen(got) - 1);
            strncat(got, lv->group_names[l][g], sizeof(got) - strlen(got) - 1);
        }
        if (strcmp(got, e->levels[l]))
            fail_msg("%s: level %d is '%s', expected '%s'", path, l, got, e->levels[l]);
    }
}

/* Parses the file by its extension; its kind and source as expected. */
static smp_status parse_case(const char *path, const char *text, size_t len,
                             const struct expect *e, smt_topology **t, smp_error *err)
{
    const char *ext = strrchr(path, '.');
    bool printed = !strcmp(ext, ".printed"), yaml = !strcmp(ext, ".yaml"),
         saved = !strcmp(ext, ".saved");
    if (!printed && !saved && smt_is_yaml(text, len) != yaml)
        fail_msg("%s: smt_is_yaml says %d", path, !yaml);
    if (!printed && (smt_printed_form(text, len) != SMT_PRINTED_NOT) != saved)
        fail_msg("%s: smt_printed_form says %d", path, smt_printed_form(text, len));
    smp_status s = saved     ? smt_load(path, t, err)
                   : printed ? smt_parse_printed(text, len, t, err)
                   : yaml  ? smt_parse_yaml(text, len, path, e->name, t, err)
                           : smt_parse_conf(text, len, path, t, err);
    if (!s && e->kind && strcmp(smt_kind(*t), e->kind))
        fail_msg("%s: kind %s, expected %s", path, smt_kind(*t), e->kind);
    if (!s && e->source && strcmp(smt_source(*t), e->source))
        fail_msg("%s: source %s, expected %s", path, smt_source(*t), e->source);
    return s;
}

/* One case: parse, compute the levels, compare with the .expect file. */
static void run_case(const char *dir, const char *file, bool want_valid)
{
    char path[4096], epath[4200];
    if (snprintf(path, sizeof(path), "%s/%s", dir, file) >= (int)sizeof(path))
        fail_msg("%s/%s: path too long", dir, file);
    snprintf(epath, sizeof(epath), "%s", path);
    strcpy(strrchr(epath, '.'), ".expect");
    size_t len, elen;
    char *text = slurp(path, &len), *expect = slurp(epath, &elen), *warnings = NULL;
    struct expect e;
    parse_expect(expect, epath, &e);
    if (want_valid != (e.error == NULL))
        fail_msg("%s: a case in %s must %s an error line", epath, want_valid ? "valid" : "invalid",
                 want_valid ? "not have" : "have");
    smp_error err;
    smp_error_clear(&err);
    smt_topology *t = NULL;
    smp_status s = parse_case(path, text, len, &e, &t, &err);
    smp_levels lv = {0};
    smp_nodes sn = {0};
    if (!s) {
        if (smp_nodes_parse(&sn, e.nodes, "1", &err))
            fail_msg("%s: nodes %s: %s", epath, e.nodes, err.msg);
        s = smt_levels_with(t, &sn, false, &lv, &warnings, &err);
    }
    if (e.strict)
        check_strict(t, &sn, e.strict, path);
    for (int i = 0; i < e.nup; i++)
        check_uplinks(t, e.up[i], path);
    for (int i = 0; i < e.nspeed; i++)
        check_speed(t, e.speed[i], path);
    check_warnings(warnings, e.warn, e.nwarn, path);
    free(warnings);
    if (e.error) {
        if (s != SMP_ERR_INPUT || !strstr(err.msg, e.error))
            fail_msg("%s: status %d, message '%s'; expected an input error containing '%s'", path,
                     s, err.msg, e.error);
        if (strcmp(strrchr(file, '.'), ".printed") && !strstr(err.msg, path) &&
            !strstr(err.msg, "topology "))
            fail_msg("%s: the message '%s' does not name the file", path, err.msg);
    } else if (s) {
        fail_msg("%s: %s", path, err.msg);
    } else {
        check_levels(t, &lv, &sn, &e, path);
        for (int i = 0; i < e.nlinks; i++)
            check_links(t, &lv, e.links[i], path);
    }
    smp_levels_free(&lv);
    smp_nodes_free(&sn);
    smt_free(t);
    free(text);
    free(expect);
}

static int walk(const char *sub, bool valid)
{
    char dir[2100];
    snprintf(dir, sizeof(dir), "%s/%s", data_dir(), sub);
    DIR *d = opendir(dir);
    if (!d)
        fail_msg("cannot open %s", dir);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        const char *ext = strrchr(e->d_name, '.');
        if (!ext || (strcmp(ext, ".conf") && strcmp(ext, ".printed") && strcmp(ext, ".yaml") &&
                     strcmp(ext, ".saved")))
            continue;
        run_case(dir, e->d_name, valid);
        n++;
    }
    closedir(d);
    return n;
}

static void test_valid_files(void **state)
{
    (void)state;
    assert_true(walk("valid", true) >= 15);
}

static void test_invalid_files(void **state)
{
    (void)state;
    assert_true(walk("invalid", false) >= 30);
}

static void test_nul_and_limits(void **state)
{
    (void)state;
    smp_error err;
    smt_topology *t = NULL;
    static const char nul[] = "SwitchName=s0 Nodes=n1\nSwitchName=s1\0 Nodes=n2\n";
    assert_err(smt_parse_conf(nul, sizeof(nul) - 1, "x.conf", &t, &err), SMP_ERR_INPUT, err,
               "x.conf:2: a NUL byte");
    assert_null(t);
    /* a line longer than the limit */
    size_t big = SMT_MAX_LINE + 100;
    char *line = malloc(big + 1);
    assert_non_null(line);
    memcpy(line, "SwitchName=s0 Nodes=", 20);
    memset(line + 20, 'a', big - 20);
    line[big] = '\0';
    assert_err(smt_parse_conf(line, big, "long.conf", &t, &err), SMP_ERR_INPUT, err,
               "long.conf:1: a line longer than");
    assert_err(smt_parse_printed(line, SMT_MAX_BYTES + 1, &t, &err), SMP_ERR_INPUT, err,
               "larger than the limit");
    free(line);
    /* a name one past the limit, and one at it */
    char name[SMT_MAX_NAME + 40];
    snprintf(name, sizeof(name), "SwitchName=%0*d Nodes=n1\n", SMT_MAX_NAME + 1, 7);
    assert_err(smt_parse_conf(name, strlen(name), "n.conf", &t, &err), SMP_ERR_INPUT, err,
               "a name of 1 to 64");
    snprintf(name, sizeof(name), "SwitchName=%0*d Nodes=n1\n", SMT_MAX_NAME, 7);
    assert_ok(smt_parse_conf(name, strlen(name), "n.conf", &t, &err), err);
    smt_free(t);
    /* too many pairs on a line */
    char pairs[1024] = "SwitchName=s0";
    for (int i = 0; i < 20; i++)
        strcat(pairs, " Nodes=n1");
    assert_err(smt_parse_conf(pairs, strlen(pairs), "p.conf", &t, &err), SMP_ERR_INPUT, err,
               "p.conf:1: more than 16 KEY=VALUE pairs");
}

static void test_load_conf(void **state)
{
    (void)state;
    smp_error err;
    smt_topology *t = NULL;
    char path[2200];
    snprintf(path, sizeof(path), "%s/valid/tree-two-tier.conf", data_dir());
    assert_ok(smt_load_conf(path, &t, &err), err);
    assert_string_equal(smt_source(t), path);
    assert_string_equal(smt_kind(t), "topology/tree");
    smt_free(t);
    assert_err(smt_load_conf("/nonexistent/topology.conf", &t, &err), SMP_ERR_INPUT, err,
               "topology '/nonexistent/topology.conf': cannot open");
    assert_err(smt_load_conf("/dev/null", &t, &err), SMP_ERR_INPUT, err,
               "topology '/dev/null': not a regular file");
    char fifo[] = "/tmp/smt-fifo-XXXXXX";
    assert_non_null(mkdtemp(fifo));
    char fpath[64];
    snprintf(fpath, sizeof(fpath), "%s/f", fifo);
    assert_int_equal(mkfifo(fpath, 0600), 0);
    assert_err(smt_load_conf(fpath, &t, &err), SMP_ERR_INPUT, err, "not a regular file");
    unlink(fpath);
    rmdir(fifo);
}

/* smt_load: FILE:NAME picks a topology.yaml topology; a file whose name
 * holds a ':' is still read whole; NAME on topology.conf is refused. */
static void test_load_yaml(void **state)
{
    (void)state;
    smp_error err;
    smt_topology *t = NULL;
    char path[2200], arg[2300];
    snprintf(path, sizeof(path), "%s/valid/yaml-three-named.yaml", data_dir());
    assert_ok(smt_load(path, &t, &err), err); /* the default: the tree */
    assert_string_equal(smt_kind(t), "topology/tree");
    assert_string_equal(smt_source(t), path);
    smt_free(t);
    snprintf(arg, sizeof(arg), "%s:racks", path);
    assert_ok(smt_load(arg, &t, &err), err);
    assert_string_equal(smt_kind(t), "topology/block");
    smt_free(t);
    snprintf(arg, sizeof(arg), "%s:none-at-all", path);
    assert_ok(smt_load(arg, &t, &err), err);
    assert_string_equal(smt_kind(t), "none");
    smt_free(t);
    snprintf(arg, sizeof(arg), "%s:nope", path);
    assert_err(smt_load(arg, &t, &err), SMP_ERR_INPUT, err,
               "no topology named 'nope' (the file defines fat-tree, racks, none-at-all)");
    assert_null(t);
    snprintf(path, sizeof(path), "%s/valid/tree-two-tier.conf", data_dir());
    snprintf(arg, sizeof(arg), "%s:x", path);
    assert_err(smt_load(arg, &t, &err), SMP_ERR_INPUT, err, "is in topology.conf syntax");
    assert_ok(smt_load_conf(path, &t, &err), err);
    smt_free(t);
    char dir[] = "/tmp/smt-yaml-XXXXXX";
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/a:b", dir); /* a ':' in the file's own name */
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("# leaf switches\n\n- topology: t\n  tree:\n    switches:\n"
          "      - {switch: s1, nodes: n1}\n", f);
    fclose(f);
    assert_ok(smt_load(path, &t, &err), err);
    assert_string_equal(smt_kind(t), "topology/tree");
    smt_free(t);
    unlink(path);
    rmdir(dir);
    static const char nul[] = "- topology: t\n  flat: \"tr\\0ue\"\n";
    assert_err(smt_parse_yaml(nul, sizeof(nul) - 1, "nul.yaml", NULL, &t, &err), SMP_ERR_INPUT,
               err, "nul.yaml:2: topology 't': flat: 'tr' is not true or false");
    static const char raw[] = "- topology: t\n\0  flat: true\n";
    assert_err(smt_parse_yaml(raw, sizeof(raw) - 1, "raw.yaml", NULL, &t, &err), SMP_ERR_INPUT,
               err, "raw.yaml:2: not valid YAML");
    assert_err(smt_parse_yaml(raw, SMT_MAX_BYTES + 1, "big.yaml", NULL, &t, &err),
               SMP_ERR_INPUT, err, "larger than the limit");
    assert_err(smt_parse_yaml("# nothing\n", 10, "e.yaml", NULL, &t, &err), SMP_ERR_INPUT, err,
               "e.yaml:2: no topology");
}

/* More levels than SMP_MAX_LEVELS: the finest and the coarsest stay. */
static void test_deep_tree(void **state)
{
    (void)state;
    /* a binary tree of depth 6 over 64 nodes: 6 levels split them */
    char text[8192] = "";
    for (int i = 0; i < 32; i++)
        snprintf(text + strlen(text), sizeof(text) - strlen(text),
                 "SwitchName=L0x%d Nodes=n[%d-%d]\n", i, 2 * i, 2 * i + 1);
    for (int l = 1; l <= 5; l++)
        for (int i = 0; i < 32 >> l; i++)
            snprintf(text + strlen(text), sizeof(text) - strlen(text),
                     "SwitchName=L%dx%d Switches=L%dx[%d-%d]\n", l, i, l - 1, 2 * i, 2 * i + 1);
    smp_error err;
    smt_topology *t;
    assert_ok(smt_parse_conf(text, strlen(text), "deep.conf", &t, &err), err);
    smp_nodes sn;
    assert_ok(smp_nodes_parse(&sn, "n[0-63]", "1", &err), err);
    smp_levels lv;
    assert_ok(smt_levels_for(t, &sn, &lv, &err), err);
    assert_int_equal(lv.nlevels, SMP_MAX_LEVELS);
    assert_int_equal(lv.ngroups[0], 32);
    assert_int_equal(lv.ngroups[1], 16);
    assert_int_equal(lv.ngroups[2], 8);
    assert_int_equal(lv.ngroups[3], 2); /* the coarsest split, L4x0 and L4x1 */
    assert_string_equal(lv.group_names[3][lv.group_of_node[3][63]], "L4x1");
    assert_ok(smp_levels_check(&lv, 64, &err), err);
    smp_levels_free(&lv);
    smp_nodes_free(&sn);
    smt_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_valid_files),   cmocka_unit_test(test_invalid_files),
        cmocka_unit_test(test_nul_and_limits), cmocka_unit_test(test_load_conf),
        cmocka_unit_test(test_deep_tree),     cmocka_unit_test(test_load_yaml),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
