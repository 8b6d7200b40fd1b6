/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Specs: JSON parsing, every rejection path with its field, named and
 * compact specs, and resolving automatic dims. */
#include <sys/stat.h>
#include <unistd.h>

#include "unit_util.h"

static const char *specs_dir;

static smp_status parse(smp_spec *spec, const char *text, smp_error *err)
{
    smp_error_clear(err);
    return smp_spec_parse(spec, text, strlen(text), specs_dir, err);
}

/* The text must be rejected as bad input with needle in the message. */
static void reject(const char *text, const char *needle)
{
    smp_spec spec;
    smp_error err;
    smp_status s = parse(&spec, text, &err);
    if (s != SMP_ERR_INPUT || err.status != SMP_ERR_INPUT || !strstr(err.msg, needle))
        fail_msg("spec %.200s: status %d, message '%s'; wanted %d and '%s'", text, (int)s, err.msg,
                 (int)SMP_ERR_INPUT, needle);
    assert_null(spec.stencil.offsets); /* nothing leaked to the caller */
}

static void test_parse_valid(void **state)
{
    (void)state;
    smp_spec spec;
    smp_error err;
    assert_ok(parse(&spec,
                    "{\"grid\": {\"dims\": [4, 3], \"periods\": [false, true]},"
                    " \"stencil\": \"nearest\", \"algorithm\": \"hyperplane\","
                    " \"description\": \"test\"}",
                    &err),
              err);
    assert_int_equal(spec.grid.ndims, 2);
    assert_int_equal(spec.grid.size, 12);
    assert_false(spec.grid.periods[0]);
    assert_true(spec.grid.periods[1]);
    assert_false(spec.dims_auto);
    assert_int_equal(spec.stencil.count, 4);
    assert_int_equal(spec.algorithm, SMP_ALG_HYPERPLANE);
    smp_spec_free(&spec);

    /* inline offsets with weights; algorithm as an object; periods as one bool */
    assert_ok(parse(&spec,
                    "{\"grid\": {\"dims\": [5, 6, 7], \"ndims\": 3, \"periods\": true},"
                    " \"stencil\": {\"offsets\": [[1,0,0],[-1,0,0],[0,0,3]], \"weights\": [1, 2.5, 4]},"
                    " \"algorithm\": {\"name\": \"kdtree\"}}",
                    &err),
              err);
    assert_int_equal(spec.grid.size, 210);
    for (int i = 0; i < 3; i++)
        assert_true(spec.grid.periods[i]);
    assert_int_equal(spec.stencil.count, 3);
    assert_int_equal(spec.stencil.offsets[8], 3);
    assert_non_null(spec.stencil.weights);
    assert_true(spec.stencil.weights[1] == 2.5);
    assert_int_equal(spec.algorithm, SMP_ALG_KDTREE);
    smp_spec_free(&spec);

    /* defaults: auto algorithm; auto dims; stencil by name object */
    assert_ok(parse(&spec,
                    "{\"grid\": {\"dims\": \"auto\", \"ndims\": 2}, \"stencil\": {\"name\": \"9pt\"}}",
                    &err),
              err);
    assert_true(spec.dims_auto);
    assert_int_equal(spec.grid.ndims, 2);
    assert_int_equal(spec.algorithm, SMP_ALG_AUTO);
    assert_int_equal(spec.stencil.count, 8);
    smp_spec_free(&spec);
}

static void test_parse_rejects(void **state)
{
    (void)state;
    reject("{\"grid\": {\"dims\": [4,3]}, \"stencil\": \"nearest\", \"bogus\": 1}", "bogus");
    reject("{\"grid\": {\"dims\": [4,3], \"colour\": 1}, \"stencil\": \"nearest\"}", "grid");
    reject("{\"grid\": {\"dims\": [4,3,0]}, \"stencil\": \"nearest\"}", "grid.dims[2]");
    reject("{\"grid\": {\"dims\": [4,3,-1]}, \"stencil\": \"nearest\"}", "grid.dims[2]");
    reject("{\"grid\": {\"dims\": [4,2.5]}, \"stencil\": \"nearest\"}", "grid.dims[1]");
    reject("{\"grid\": {\"dims\": [4,3.0]}, \"stencil\": \"nearest\"}", "grid.dims[1]");
    reject("{\"grid\": {\"dims\": [4,\"3\"]}, \"stencil\": \"nearest\"}", "grid.dims[1]");
    reject("{\"grid\": {\"dims\": []}, \"stencil\": \"nearest\"}", "grid.dims");
    reject("{\"grid\": {\"dims\": 12}, \"stencil\": \"nearest\"}", "grid.dims");
    reject("{\"grid\": {\"dims\": [1,1,1,1,1,1,1,1,1]}, \"stencil\": \"nearest\"}", "grid.dims");
    reject("{\"grid\": {\"dims\": \"auto\"}, \"stencil\": \"nearest\"}", "grid.ndims");
    reject("{\"grid\": {\"dims\": \"big\", \"ndims\": 2}, \"stencil\": \"nearest\"}", "grid.dims");
    reject("{\"grid\": {\"dims\": \"auto\", \"ndims\": 0}, \"stencil\": \"nearest\"}", "grid.ndims");
    reject("{\"grid\": {\"dims\": \"auto\", \"ndims\": 9}, \"stencil\": \"nearest\"}", "grid.ndims");
    reject("{\"grid\": {\"dims\": [4,3], \"ndims\": 3}, \"stencil\": \"nearest\"}", "grid.ndims");
    reject("{\"grid\": {\"ndims\": 2}, \"stencil\": \"nearest\"}", "grid.dims");
    reject("{\"grid\": {\"dims\": [4,3], \"periods\": [true]}, \"stencil\": \"nearest\"}",
           "grid.periods");
    reject("{\"grid\": {\"dims\": [4,3], \"periods\": [true, false, true]}, \"stencil\": \"nearest\"}",
           "grid.periods");
    reject("{\"grid\": {\"dims\": [4,3], \"periods\": [true, 1]}, \"stencil\": \"nearest\"}",
           "grid.periods[1]");
    reject("{\"grid\": {\"dims\": [4,3], \"periods\": [\"yes\", true]}, \"stencil\": \"nearest\"}",
           "grid.periods[0]");
    reject("{\"grid\": {\"dims\": [4,3], \"periods\": 1}, \"stencil\": \"nearest\"}", "grid.periods");
    reject("{\"grid\": [4,3], \"stencil\": \"nearest\"}", "grid");
    reject("{\"stencil\": \"nearest\"}", "grid");
    reject("{\"grid\": {\"dims\": [4,3]}}", "stencil");
    reject("{\"grid\": {\"dims\": [4,3]}, \"stencil\": \"nosuchstencil\"}", "nosuchstencil");
    reject("{\"grid\": {\"dims\": [4,3]}, \"stencil\": 5}", "stencil");
    reject("{\"grid\": {\"dims\": [4,3]}, \"stencil\": {\"name\": 5}}", "stencil.name");
    reject("{\"grid\": {\"dims\": [4,3]}, \"stencil\": {\"name\": \"5pt\", \"x\": 1}}", "stencil");
    reject("{\"grid\": {\"dims\": [4]}, \"stencil\": \"component\"}", "component");
    reject("{\"grid\": {\"dims\": [4,3,2]}, \"stencil\": \"5pt\"}", "stencil");
    /* offsets length vs grid */
    reject("{\"grid\": {\"dims\": [4,3]}, \"stencil\": {\"offsets\": [[1,0,0],[0,1,0]]}}",
           "stencil.offsets[0]");
    reject("{\"grid\": {\"dims\": [4,3]}, \"stencil\": {\"offsets\": [[1,0],[0,1,0]]}}",
           "stencil.offsets[1]");
    reject("{\"grid\": {\"dims\": [4,3]}, \"stencil\": {\"offsets\": [[1,0],[0,1.5]]}}",
           "stencil.offsets[1]");
    reject("{\"grid\": {\"dims\": [4,3]}, \"stencil\": {\"offsets\": [[1,0],[0,0]]}}",
           "stencil.offsets[1]");
    reject("{\"grid\": {\"dims\": [4,3]}, \"stencil\": {\"offsets\": [[1,0],[1,0]]}}",
           "stencil.offsets[1]");
    reject("{\"grid\": {\"dims\": [4,3]}, \"stencil\": {\"offsets\": [[1,0],[0,2000000]]}}",
           "stencil.offsets[1]");
    reject("{\"grid\": {\"dims\": [4,3]}, \"stencil\": {\"offsets\": []}}", "stencil.offsets");
    reject("{\"grid\": {\"dims\": [4,3]}, \"stencil\": {\"weights\": [1]}}", "stencil.offsets");
    reject("{\"grid\": {\"dims\": [4,3]}, \"stencil\": {\"offsets\": [[1,0]], \"extra\": 1}}",
           "extra");
    /* weights */
    reject("{\"grid\": {\"dims\": [4,3]}, \"stencil\": {\"offsets\": [[1,0],[0,1]], \"weights\": [1]}}",
           "stencil.weights");
    reject("{\"grid\": {\"dims\": [4,3]}, \"stencil\": {\"offsets\": [[1,0],[0,1]], \"weights\": [1,2,3]}}",
           "stencil.weights");
    reject("{\"grid\": {\"dims\": [4,3]}, \"stencil\": {\"offsets\": [[1,0],[0,1]], \"weights\": [1,-2]}}",
           "stencil.weights[1]");
    reject("{\"grid\": {\"dims\": [4,3]}, \"stencil\": {\"offsets\": [[1,0],[0,1]], \"weights\": [0,2]}}",
           "stencil.weights[0]");
    reject("{\"grid\": {\"dims\": [4,3]}, \"stencil\": {\"offsets\": [[1,0],[0,1]], \"weights\": [1,\"2\"]}}",
           "stencil.weights[1]");
    reject("{\"grid\": {\"dims\": [4,3]}, \"stencil\": {\"offsets\": [[1,0],[0,1]], \"weights\": 1}}",
           "stencil.weights");
    /* algorithm */
    reject("{\"grid\": {\"dims\": [4,3]}, \"stencil\": \"nearest\", \"algorithm\": \"magic\"}",
           "algorithm");
    reject("{\"grid\": {\"dims\": [4,3]}, \"stencil\": \"nearest\", \"algorithm\": 1}", "algorithm");
    reject("{\"grid\": {\"dims\": [4,3]}, \"stencil\": \"nearest\", \"algorithm\": {\"name\": \"x\"}}",
           "algorithm");
    reject("{\"grid\": {\"dims\": [4,3]}, \"stencil\": \"nearest\", \"algorithm\": {\"nom\": \"auto\"}}",
           "algorithm");
    reject("{\"grid\": {\"dims\": [4,3]}, \"stencil\": \"nearest\", \"description\": 7}",
           "description");
    /* malformed JSON, duplicate keys, non-object roots */
    reject("{\"grid\": {\"dims\": [4,3]}, \"stencil\": \"nearest\"", "spec");
    reject("{\"grid\": {\"dims\": [4,3]}, \"stencil\": \"nearest\",}", "spec");
    reject("", "spec");
    reject("{\"grid\": {\"dims\": [4,3]}, \"grid\": {\"dims\": [2]}, \"stencil\": \"nearest\"}",
           "spec");
    reject("{\"grid\": {\"dims\": [4,3], \"dims\": [2,2]}, \"stencil\": \"nearest\"}", "spec");
    reject("[1, 2]", "spec");
    reject("\"grid\"", "spec");
    reject("42", "spec");
    reject("null", "spec");
    /* huge and overflowing numbers */
    reject("{\"grid\": {\"dims\": [1e30, 2]}, \"stencil\": \"nearest\"}", "grid.dims[0]");
    reject("{\"grid\": {\"dims\": [4, 1000000000000000000000000000000]}, \"stencil\": \"nearest\"}",
           "spec");
    reject("{\"grid\": {\"dims\": [4, 9223372036854775807]}, \"stencil\": \"nearest\"}",
           "grid.dims[1]");
    reject("{\"grid\": {\"dims\": [4, 3000000000]}, \"stencil\": \"nearest\"}", "grid.dims[1]");
    reject("{\"grid\": {\"dims\": [65536, 65536]}, \"stencil\": \"nearest\"}", "grid.dims");
    reject("{\"grid\": {\"dims\": [2147483647, 2]}, \"stencil\": \"nearest\"}", "grid.dims");
    reject("{\"grid\": {\"dims\": \"auto\", \"ndims\": 1e30}, \"stencil\": \"nearest\"}", "grid.ndims");
}

/* Every limit: the message names the field and the limit itself. */
static void reject_limit(const char *text, const char *field, const char *limit)
{
    reject(text, field);
    reject(text, limit);
}

static void test_parse_limits(void **state)
{
    (void)state;
    reject_limit("{\"grid\": {\"dims\": [4000000000]}, \"stencil\": \"nearest\"}",
                 "grid.dims[0]", "2147483647");
    /* each size fits, the product does not */
    reject_limit("{\"grid\": {\"dims\": [65536, 65536]}, \"stencil\": \"nearest\"}",
                 "grid.dims", "2147483647");
    reject_limit("{\"grid\": {\"dims\": [1,1,1,1,1,1,1,1,1]}, \"stencil\": \"nearest\"}",
                 "grid.dims", "8");
    reject_limit("{\"grid\": {\"dims\": \"auto\", \"ndims\": 9}, \"stencil\": \"nearest\"}",
                 "grid.ndims", "8");
    reject_limit("{\"grid\": {\"dims\": [4,3]}, \"stencil\": {\"offsets\": [[1,0],[0,1000001]]}}",
                 "stencil.offsets[1]", "1000000");
    /* 4097 distinct offsets */
    size_t cap = 64 + 4097 * 24;
    char *many = malloc(cap);
    assert_non_null(many);
    size_t off = (size_t)snprintf(many, cap, "{\"grid\": {\"dims\": [4,3]}, \"stencil\": {\"offsets\": [");
    for (int k = 0; k < 4097; k++)
        off += (size_t)snprintf(many + off, cap - off, "%s[%d,1]", k ? "," : "", k + 1);
    snprintf(many + off, cap - off, "]}}");
    reject_limit(many, "stencil.offsets", "4096");
    free(many);
}

/* A FIFO or a device named as a spec is refused at once: srun must never
 * block reading it. */
static void test_load_not_regular(void **state)
{
    (void)state;
    char fifo[] = "spec-fifo-XXXXXX";
    int fd = mkstemp(fifo);
    assert_true(fd >= 0);
    close(fd);
    unlink(fifo);
    char path[64];
    snprintf(path, sizeof(path), "%s.json", fifo);
    assert_int_equal(mkfifo(path, 0600), 0);
    smp_spec spec;
    smp_error err;
    assert_err(smp_spec_load(&spec, path, specs_dir, &err), SMP_ERR_INPUT, err,
               "not a regular file");
    unlink(path);
    assert_err(smp_spec_load(&spec, "/dev/zero", specs_dir, &err), SMP_ERR_INPUT, err,
               "not a regular file");
}

static void test_parse_deep_and_large(void **state)
{
    (void)state;
    /* 10000 nested arrays: rejected, not a stack overflow */
    size_t depth = 10000;
    char *deep = malloc(2 * depth + 1);
    assert_non_null(deep);
    memset(deep, '[', depth);
    memset(deep + depth, ']', depth);
    deep[2 * depth] = '\0';
    reject(deep, "spec");
    /* the same depth below a valid key */
    char *deep2 = malloc(2 * depth + 64);
    assert_non_null(deep2);
    int n = sprintf(deep2, "{\"grid\": {\"dims\": ");
    memset(deep2 + n, '[', depth);
    memset(deep2 + n + depth, ']', depth);
    strcpy(deep2 + n + 2 * depth, "}, \"stencil\": \"nearest\"}");
    reject(deep2, "spec");
    free(deep);
    free(deep2);

    /* a spec just over the limit: a valid document padded with blanks */
    const char *body = "{\"grid\": {\"dims\": [4,3]}, \"stencil\": \"nearest\"}";
    size_t len = (size_t)SMP_MAX_SPEC_BYTES + 1;
    char *big = malloc(len + 1);
    assert_non_null(big);
    memset(big, ' ', len);
    memcpy(big, body, strlen(body));
    big[len] = '\0';
    smp_spec spec;
    smp_error err;
    assert_err(smp_spec_parse(&spec, big, len, specs_dir, &err), SMP_ERR_INPUT, err, "spec");
    /* at the limit it is accepted */
    assert_ok(smp_spec_parse(&spec, big, len - 1, specs_dir, &err), err);
    smp_spec_free(&spec);
    /* and through a file */
    char path[] = "spec-big-XXXXXX.json";
    int fd = mkstemps(path, 5);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, big, len), (ssize_t)len);
    close(fd);
    char arg[64];
    snprintf(arg, sizeof(arg), "./%s", path);
    assert_err(smp_spec_load(&spec, arg, specs_dir, &err), SMP_ERR_INPUT, err, "spec");
    unlink(path);
    free(big);
}

static void test_load_named_and_compact(void **state)
{
    (void)state;
    smp_spec spec;
    smp_error err;
    assert_ok(smp_spec_load(&spec, "jacobi2d", specs_dir, &err), err);
    assert_true(spec.dims_auto);
    assert_int_equal(spec.grid.ndims, 2);
    assert_int_equal(spec.stencil.count, 4);
    assert_int_equal(spec.algorithm, SMP_ALG_AUTO);
    assert_string_equal(spec.name, "jacobi2d");
    assert_ok(smp_spec_resolve(&spec, 12, &err), err);
    assert_false(spec.dims_auto);
    assert_int_equal(spec.grid.dims[0], 4);
    assert_int_equal(spec.grid.dims[1], 3);
    assert_int_equal(spec.grid.size, 12);
    smp_spec_free(&spec);

    assert_ok(smp_spec_load(&spec, "climate2d", specs_dir, &err), err);
    assert_false(spec.grid.periods[0]);
    assert_true(spec.grid.periods[1]);
    assert_ok(smp_spec_resolve(&spec, 130, &err), err);
    assert_int_equal(spec.grid.dims[0], 13);
    assert_int_equal(spec.grid.dims[1], 10);
    assert_true(spec.grid.periods[1]); /* kept through resolve */
    smp_spec_free(&spec);

    /* a stencil name alone means auto dims of its ndims */
    assert_ok(smp_spec_load(&spec, "5pt", specs_dir, &err), err);
    assert_true(spec.dims_auto);
    assert_int_equal(spec.grid.ndims, 2);
    assert_int_equal(spec.stencil.count, 4);
    smp_spec_free(&spec);
    assert_err(smp_spec_load(&spec, "nearest", specs_dir, &err), SMP_ERR_INPUT, err, "nearest");

    assert_ok(smp_spec_load(&spec, "auto:2d:5pt", specs_dir, &err), err);
    assert_int_equal(spec.algorithm, SMP_ALG_AUTO);
    assert_true(spec.dims_auto);
    assert_int_equal(spec.grid.ndims, 2);
    assert_int_equal(spec.stencil.count, 4);
    smp_spec_free(&spec);

    assert_ok(smp_spec_load(&spec, "hyperplane:3d:hops", specs_dir, &err), err);
    assert_int_equal(spec.algorithm, SMP_ALG_HYPERPLANE);
    assert_int_equal(spec.grid.ndims, 3);
    assert_int_equal(spec.stencil.count, 10);
    assert_ok(smp_spec_resolve(&spec, 130, &err), err);
    assert_int_equal(spec.grid.dims[0], 13);
    assert_int_equal(spec.grid.dims[1], 5);
    assert_int_equal(spec.grid.dims[2], 2);
    smp_spec_free(&spec);

    /* thesis 000's instance: 33 nodes x 32 processes make MPI's 12x11x8 */
    assert_ok(smp_spec_load(&spec, "auto:3d:diagonal", specs_dir, &err), err);
    assert_string_equal(spec.stencil.name, "diagonal");
    assert_int_equal(spec.stencil.count, 8);
    assert_ok(smp_spec_resolve(&spec, 33 * 32, &err), err);
    assert_int_equal(spec.grid.dims[0], 12);
    assert_int_equal(spec.grid.dims[1], 11);
    assert_int_equal(spec.grid.dims[2], 8);
    smp_spec_free(&spec);
    assert_ok(smp_spec_load(&spec, "auto:2d:crank-nicolson", specs_dir, &err), err);
    assert_int_equal(spec.stencil.count, 4);
    smp_spec_free(&spec);
    assert_ok(smp_spec_load(&spec, "auto:4d:hops-last", specs_dir, &err), err);
    assert_int_equal(spec.stencil.count, 12);
    smp_spec_free(&spec);
    assert_err(smp_spec_load(&spec, "auto:1d:diagonal", specs_dir, &err), SMP_ERR_INPUT, err,
               "'diagonal': needs at least 2 dimensions");

    assert_err(smp_spec_load(&spec, "magic:2d:5pt", specs_dir, &err), SMP_ERR_INPUT, err, "algorithm");
    assert_err(smp_spec_load(&spec, "auto:0d:5pt", specs_dir, &err), SMP_ERR_INPUT, err, "grid.ndims");
    assert_err(smp_spec_load(&spec, "auto:9d:nearest", specs_dir, &err), SMP_ERR_INPUT, err, "grid.ndims");
    assert_err(smp_spec_load(&spec, "auto:3d:5pt", specs_dir, &err), SMP_ERR_INPUT, err, "stencil");
    assert_err(smp_spec_load(&spec, "auto:2d:nosuch", specs_dir, &err), SMP_ERR_INPUT, err, "nosuch");
    assert_err(smp_spec_load(&spec, "auto:2d", specs_dir, &err), SMP_ERR_INPUT, err, "auto:2d");
    assert_err(smp_spec_load(&spec, "auto:2d:5pt:x", specs_dir, &err), SMP_ERR_INPUT, err, "spec");
    assert_err(smp_spec_load(&spec, "auto:2x:5pt", specs_dir, &err), SMP_ERR_INPUT, err, "spec");
    assert_err(smp_spec_load(&spec, "", specs_dir, &err), SMP_ERR_INPUT, err, "spec");
    assert_err(smp_spec_load(&spec, "nosuchspec", specs_dir, &err), SMP_ERR_INPUT, err, "nosuchspec");
    assert_err(smp_spec_load(&spec, "./no/such/file.json", specs_dir, &err), SMP_ERR_INPUT, err,
               "no/such/file.json");
}

/* A named spec file is read as the same text given as a spec: the same
 * message, naming the same field, for each bad one; weights kept exactly. */
static void test_named_as_text(void **state)
{
    (void)state;
    static const char *const texts[] = {
        "{\"grid\": {\"dims\": [4, 0]}, \"stencil\": \"nearest\"}",
        "{\"grid\": {\"dims\": [4, 3]}, \"stencil\": \"nearest\", \"algorithm\": \"magic\"}",
        "{\"grid\": {\"dims\": [4, 3]}, \"stencil\": {\"offsets\": [[1, 0]], \"weights\": [0]}}",
        "{\"grid\": {\"dims\": [4, 3]}, \"stencil\": \"nearest\", \"objective\": 3}",
        "{\"grid\": {\"dims\": [4, 3]}, \"stencil\": \"nearest\", \"extra\": 1}",
    };
    char tmpl[] = "spec-named-XXXXXX", path[128];
    assert_non_null(mkdtemp(tmpl));
    snprintf(path, sizeof(path), "%s/s.json", tmpl);
    smp_spec spec;
    smp_error by_name, by_text;
    for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fputs(texts[i], f);
        fclose(f);
        assert_int_equal(smp_spec_load(&spec, "s", tmpl, &by_name), SMP_ERR_INPUT);
        assert_int_equal(smp_spec_parse(&spec, texts[i], strlen(texts[i]), tmpl, &by_text),
                         SMP_ERR_INPUT);
        assert_string_equal(by_name.msg, by_text.msg);
    }
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("{\"grid\": {\"dims\": [4, 3]}, \"stencil\": {\"offsets\": [[1, 0], [0, 1]], "
          "\"weights\": [0.1, 2.5e-7]}, \"objective\": \"sum\"}", f);
    fclose(f);
    assert_ok(smp_spec_load(&spec, "s", tmpl, &by_name), by_name);
    assert_true(spec.stencil.weights[0] == 0.1 && spec.stencil.weights[1] == 2.5e-7);
    assert_int_equal(spec.objective, SMP_OBJ_SUM);
    assert_string_equal(spec.name, "s");
    smp_spec_free(&spec);
    /* a stencil file of fixed ndims out of range: the compact form's message */
    f = fopen(path, "w");
    assert_non_null(f);
    fputs("{\"ndims\": 9, \"offsets\": [[1]]}", f);
    fclose(f);
    assert_err(smp_spec_load(&spec, "s", tmpl, &by_name), SMP_ERR_INPUT, by_name, "grid.ndims");
    unlink(path);
    rmdir(tmpl);
}

/* Names must not escape the specs directory, even when the target exists. */
static void test_path_traversal(void **state)
{
    (void)state;
    char tmpl[] = "spec-dir-XXXXXX";
    assert_non_null(mkdtemp(tmpl));
    char sub[128], evil[128], evil_spec[128], hidden[128];
    snprintf(sub, sizeof(sub), "%s/specs", tmpl);
    snprintf(evil, sizeof(evil), "%s/evil.json", tmpl);
    snprintf(evil_spec, sizeof(evil_spec), "%s/specs/x.json", tmpl);
    snprintf(hidden, sizeof(hidden), "%s/specs/.hidden.json", tmpl);
    assert_int_equal(mkdir(sub, 0700), 0);
    const char *stencil = "{\"ndims\": 2, \"offsets\": [[1,0],[-1,0]]}";
    FILE *f = fopen(evil, "w");
    assert_non_null(f);
    fputs(stencil, f);
    fclose(f);
    f = fopen(hidden, "w");
    assert_non_null(f);
    fputs(stencil, f);
    fclose(f);
    f = fopen(evil_spec, "w");
    assert_non_null(f);
    fputs("{\"grid\": {\"dims\": [4,3]}, \"stencil\": \"../evil\"}", f);
    fclose(f);

    smp_spec spec;
    smp_error err;
    assert_err(smp_spec_load(&spec, "auto:2d:../evil", sub, &err), SMP_ERR_INPUT, err, "../evil");
    assert_err(smp_spec_load(&spec, "auto:2d:.hidden", sub, &err), SMP_ERR_INPUT, err, ".hidden");
    assert_err(smp_spec_load(&spec, ".hidden", sub, &err), SMP_ERR_INPUT, err, ".hidden");
    assert_err(smp_spec_load(&spec, "x", sub, &err), SMP_ERR_INPUT, err, "../evil");
    assert_err(parse(&spec, "{\"grid\": {\"dims\": [4,3]}, \"stencil\": \"../evil\"}", &err),
               SMP_ERR_INPUT, err, "../evil");
    assert_err(parse(&spec, "{\"grid\": {\"dims\": [4,3]}, \"stencil\": {\"name\": \"/etc/passwd\"}}", &err),
               SMP_ERR_INPUT, err, "/etc/passwd");
    assert_err(parse(&spec, "{\"grid\": {\"dims\": [4,3]}, \"stencil\": \"..\"}", &err),
               SMP_ERR_INPUT, err, "stencil");
    smp_stencil st;
    assert_err(smp_stencil_named(&st, "../evil", 2, sub, &err), SMP_ERR_INPUT, err, "../evil");
    /* sanity: the same file is fine as a stencil of its own directory */
    assert_ok(smp_stencil_named(&st, "evil", 2, tmpl, &err), err);
    assert_int_equal(st.count, 2);
    smp_stencil_free(&st);

    unlink(evil);
    unlink(hidden);
    unlink(evil_spec);
    rmdir(sub);
    rmdir(tmpl);
}

static void test_load_file(void **state)
{
    (void)state;
    char path[] = "spec-file-XXXXXX.json";
    int fd = mkstemps(path, 5);
    assert_true(fd >= 0);
    const char *bad = "{\"grid\": {\"dims\": [4, 0]}, \"stencil\": \"nearest\"}";
    assert_int_equal(write(fd, bad, strlen(bad)), (ssize_t)strlen(bad));
    close(fd);
    smp_spec spec;
    smp_error err;
    /* a bare name ending in .json is a path too */
    assert_err(smp_spec_load(&spec, path, specs_dir, &err), SMP_ERR_INPUT, err, "grid.dims[1]");
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("{\"grid\": {\"dims\": [4, 3]}, \"stencil\": \"5pt\", \"algorithm\": \"strips\"}", f);
    fclose(f);
    assert_ok(smp_spec_load(&spec, path, specs_dir, &err), err);
    assert_int_equal(spec.grid.size, 12);
    assert_int_equal(spec.algorithm, SMP_ALG_STRIPS);
    assert_string_equal(spec.name, "");
    smp_spec_free(&spec);
    unlink(path);
}

static void test_resolve(void **state)
{
    (void)state;
    smp_spec spec;
    smp_error err;
    assert_ok(parse(&spec, "{\"grid\": {\"dims\": [4,3]}, \"stencil\": \"nearest\"}", &err), err);
    assert_ok(smp_spec_resolve(&spec, 12, &err), err);
    assert_ok(smp_spec_resolve(&spec, 0, &err), err); /* no task count: nothing to check */
    assert_err(smp_spec_resolve(&spec, 10, &err), SMP_ERR_INPUT, err, "grid.dims");
    assert_non_null(strstr(err.msg, "12"));
    assert_non_null(strstr(err.msg, "10"));
    assert_err(smp_spec_resolve(&spec, 13, &err), SMP_ERR_INPUT, err, "13");
    smp_spec_free(&spec);

    assert_ok(parse(&spec,
                    "{\"grid\": {\"dims\": \"auto\", \"ndims\": 3, \"periods\": [true,false,true]},"
                    " \"stencil\": \"hops\"}",
                    &err),
              err);
    assert_err(smp_spec_resolve(&spec, 0, &err), SMP_ERR_INPUT, err, "grid.dims");
    assert_err(smp_spec_resolve(&spec, -3, &err), SMP_ERR_INPUT, err, "grid.dims");
    assert_ok(smp_spec_resolve(&spec, 24, &err), err);
    assert_int_equal(spec.grid.dims[0], 4);
    assert_int_equal(spec.grid.dims[1], 3);
    assert_int_equal(spec.grid.dims[2], 2);
    assert_int_equal(spec.grid.size, 24);
    assert_true(spec.grid.periods[0]);
    assert_false(spec.grid.periods[1]);
    assert_true(spec.grid.periods[2]);
    /* resolved: now the size is fixed */
    assert_err(smp_spec_resolve(&spec, 25, &err), SMP_ERR_INPUT, err, "grid.dims");
    smp_spec_free(&spec);
}

/* grid.order: row-major by default, column-major on request, kept when
 * automatic dims are resolved; anything else rejected naming the field. */
static void test_parse_order(void **state)
{
    (void)state;
    smp_spec spec;
    smp_error err;
    assert_ok(parse(&spec, "{\"grid\": {\"dims\": [4,3]}, \"stencil\": \"5pt\"}", &err), err);
    assert_int_equal(spec.grid.order, SMP_ORDER_ROW_MAJOR);
    smp_spec_free(&spec);
    assert_ok(parse(&spec, "{\"grid\": {\"dims\": [4,3], \"order\": \"row-major\"}, \"stencil\": \"5pt\"}",
                    &err),
              err);
    assert_int_equal(spec.grid.order, SMP_ORDER_ROW_MAJOR);
    smp_spec_free(&spec);
    assert_ok(parse(&spec,
                    "{\"grid\": {\"dims\": \"auto\", \"ndims\": 2, \"order\": \"column-major\"},"
                    " \"stencil\": \"5pt\"}",
                    &err),
              err);
    assert_int_equal(spec.grid.order, SMP_ORDER_COLUMN_MAJOR);
    assert_ok(smp_spec_resolve(&spec, 12, &err), err);
    assert_int_equal(spec.grid.order, SMP_ORDER_COLUMN_MAJOR);
    smp_spec_free(&spec);
    reject("{\"grid\": {\"dims\": [4,3], \"order\": \"fortran\"}, \"stencil\": \"5pt\"}",
           "grid.order: unknown 'fortran'");
    reject("{\"grid\": {\"dims\": [4,3], \"order\": 1}, \"stencil\": \"5pt\"}",
           "grid.order: must be");
}

/* "bind" and "sockets": defaults, values, and every rejection. */
static void test_parse_binding(void **state)
{
    (void)state;
    smp_spec spec;
    smp_error err;
    assert_ok(parse(&spec, "{\"grid\": {\"dims\": [4,3]}, \"stencil\": \"nearest\"}", &err), err);
    assert_int_equal(spec.bind, SMP_BIND_NONE);
    assert_int_equal(spec.sockets, 0);
    smp_spec_free(&spec);
    assert_ok(parse(&spec, "{\"grid\": {\"dims\": [4,3]}, \"stencil\": \"nearest\", "
                           "\"bind\": \"socket\", \"sockets\": 2}", &err), err);
    assert_int_equal(spec.bind, SMP_BIND_SOCKET);
    assert_int_equal(spec.sockets, 2);
    smp_spec_free(&spec);
    assert_ok(parse(&spec, "{\"grid\": {\"dims\": [4,3]}, \"stencil\": \"nearest\", "
                           "\"bind\": \"none\"}", &err), err);
    assert_int_equal(spec.bind, SMP_BIND_NONE);
    smp_spec_free(&spec);
    reject("{\"grid\": {\"dims\": [4,3]}, \"stencil\": \"nearest\", \"bind\": \"core\"}",
           "bind: unknown 'core'");
    reject("{\"grid\": {\"dims\": [4,3]}, \"stencil\": \"nearest\", \"bind\": 1}",
           "bind: must be");
    reject("{\"grid\": {\"dims\": [4,3]}, \"stencil\": \"nearest\", \"sockets\": 0}",
           "sockets: must be 1 to");
    reject("{\"grid\": {\"dims\": [4,3]}, \"stencil\": \"nearest\", \"sockets\": 5000}",
           "sockets: must be 1 to");
    reject("{\"grid\": {\"dims\": [4,3]}, \"stencil\": \"nearest\", \"sockets\": \"2\"}",
           "sockets: must be an integer");
    reject("{\"grid\": {\"dims\": [4,3]}, \"stencil\": \"nearest\", \"sockets\": 2.5}",
           "sockets: must be an integer");
}

static void test_parse_objective(void **state)
{
    (void)state;
    smp_spec spec;
    smp_error err;
    assert_ok(parse(&spec, "{\"grid\": {\"dims\": [4,3]}, \"stencil\": \"nearest\"}", &err), err);
    assert_false(spec.have_objective);
    assert_int_equal(spec.objective, SMP_OBJ_DEFAULT);
    assert_int_equal(SMP_OBJ_DEFAULT, SMP_OBJ_MAX);
    smp_spec_free(&spec);
    assert_ok(parse(&spec, "{\"grid\": {\"dims\": [4,3]}, \"stencil\": \"nearest\", "
                           "\"objective\": \"max\"}", &err), err);
    assert_true(spec.have_objective);
    assert_int_equal(spec.objective, SMP_OBJ_MAX);
    smp_spec_free(&spec);
    assert_ok(parse(&spec, "{\"grid\": {\"dims\": [4,3]}, \"stencil\": \"nearest\", "
                           "\"objective\": \"sum\"}", &err), err);
    assert_true(spec.have_objective);
    assert_int_equal(spec.objective, SMP_OBJ_SUM);
    smp_spec_free(&spec);
    reject("{\"grid\": {\"dims\": [4,3]}, \"stencil\": \"nearest\", \"objective\": \"avg\"}",
           "objective: unknown 'avg' (one of sum, max)");
    reject("{\"grid\": {\"dims\": [4,3]}, \"stencil\": \"nearest\", \"objective\": \"MAX\"}",
           "objective: unknown 'MAX'");
    reject("{\"grid\": {\"dims\": [4,3]}, \"stencil\": \"nearest\", \"objective\": 1}",
           "objective: must be \"sum\" or \"max\", not an integer");
    reject("{\"grid\": {\"dims\": [4,3]}, \"stencil\": \"nearest\", \"objective\": null}",
           "objective: must be");
    smp_objective o;
    assert_true(smp_objective_from_name("max", &o));
    assert_int_equal(o, SMP_OBJ_MAX);
    assert_string_equal(smp_objective_name(o), "max");
    assert_false(smp_objective_from_name("", &o));
    assert_false(smp_objective_from_name(NULL, &o));
}

/* "effort": an integer 1 to SMP_MAX_EFFORT, 0 in the spec when not given. */
static void test_parse_effort(void **state)
{
    (void)state;
    smp_spec spec;
    smp_error err;
    assert_ok(parse(&spec, "{\"grid\": {\"dims\": [4,3]}, \"stencil\": \"nearest\"}", &err), err);
    assert_int_equal(spec.effort, 0);
    smp_spec_free(&spec);
    assert_ok(parse(&spec, "{\"grid\": {\"dims\": [4,3]}, \"stencil\": \"nearest\", "
                           "\"effort\": 16, \"objective\": \"sum\"}", &err), err);
    assert_int_equal(spec.effort, 16);
    assert_int_equal(spec.objective, SMP_OBJ_SUM);
    smp_spec_free(&spec);
    assert_ok(parse(&spec, "{\"grid\": {\"dims\": [4,3]}, \"stencil\": \"nearest\", "
                           "\"effort\": 64}", &err), err);
    assert_int_equal(spec.effort, SMP_MAX_EFFORT);
    smp_spec_free(&spec);
    reject("{\"grid\": {\"dims\": [4,3]}, \"stencil\": \"nearest\", \"effort\": 0}",
           "effort: must be 1 to 64, not 0");
    reject("{\"grid\": {\"dims\": [4,3]}, \"stencil\": \"nearest\", \"effort\": 65}",
           "effort: must be 1 to 64, not 65");
    reject("{\"grid\": {\"dims\": [4,3]}, \"stencil\": \"nearest\", \"effort\": -3}",
           "effort: must be 1 to 64, not -3");
    reject("{\"grid\": {\"dims\": [4,3]}, \"stencil\": \"nearest\", \"effort\": \"16\"}",
           "effort: must be an integer 1 to 64, not a string");
    reject("{\"grid\": {\"dims\": [4,3]}, \"stencil\": \"nearest\", \"effort\": 2.5}",
           "effort: must be an integer");
    reject("{\"grid\": {\"dims\": [4,3]}, \"stencil\": \"nearest\", \"effort\": 99999999999999999}",
           "effort: must be 1 to 64");
}

int main(void)
{
    specs_dir = getenv("STENCILMAP_SPECS_DIR");
    if (!specs_dir) {
        fprintf(stderr, "STENCILMAP_SPECS_DIR must point at stencil-specs/\n");
        return 99;
    }
    if (strcmp(smp_specs_dir(), specs_dir) != 0) {
        fprintf(stderr, "smp_specs_dir() ignores STENCILMAP_SPECS_DIR\n");
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_valid),
        cmocka_unit_test(test_parse_rejects),
        cmocka_unit_test(test_parse_limits),
        cmocka_unit_test(test_parse_deep_and_large),
        cmocka_unit_test(test_load_not_regular),
        cmocka_unit_test(test_load_named_and_compact),
        cmocka_unit_test(test_named_as_text),
        cmocka_unit_test(test_path_traversal),
        cmocka_unit_test(test_load_file),
        cmocka_unit_test(test_resolve),
        cmocka_unit_test(test_parse_binding),
        cmocka_unit_test(test_parse_objective),
        cmocka_unit_test(test_parse_effort),
        cmocka_unit_test(test_parse_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
