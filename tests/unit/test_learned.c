/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The store of learned specs (learning/store/): keys of executables (ELF build
 * ID, else a hash of the content), the store's directories and their
 * checks, the entry file both ways with its format number, hostile and
 * corrupt files, one winner of two concurrent writers, the lookup's
 * choices (exact count, MPI_Dims_create regrid, verdicts and their
 * expiry), and the judge of a profile (spec, not a stencil code, not
 * whole). */
#include "unit_util.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "formats/format_numbers.h"
#include "learned_entry.h"
#include "learned_judge.h"
#include "learned_key.h"
#include "learned_lookup.h"
#include "learned_store.h"

static char scratch[PATH_MAX];

static int setup(void **state)
{
    (void)state;
    const char *t = getenv("TMPDIR");
    snprintf(scratch, sizeof(scratch), "%s/test_learned.XXXXXX", t && *t == '/' ? t : "/tmp");
    return mkdtemp(scratch) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", scratch);
    return system(cmd) == 0 ? 0 : -1;
}

static void path_of(char *out, size_t n, const char *name)
{
    snprintf(out, n, "%s/%s", scratch, name);
}

static void write_file(const char *path, const void *data, size_t len, mode_t mode)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, data, len), (ssize_t)len);
    close(fd);
}

static void write_text(const char *path, const char *text)
{
    write_file(path, text, strlen(text), 0600);
}

/* ---- keys ------------------------------------------------------------------ */

static void test_key_build_id(void **state)
{
    (void)state;
    learned_app app;
    char msg[600], self[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
    assert_true(len > 0);
    self[len] = '\0';
    assert_int_equal(learned_app_key(self, &app, msg, sizeof(msg)), 0);
    /* Debian's toolchain links with --build-id (SHA-1, 20 bytes) */
    assert_true(app.build_id);
    assert_int_equal(app.key[0], 'b');
    assert_int_equal(strlen(app.key), 41);
    assert_true(learned_key_valid(app.key));
    /* a copy elsewhere is the same application; one changed byte at the
     * end (outside the note) keeps the build ID, as a rebuild would not */
    char copy[PATH_MAX + 32], cmd[3 * PATH_MAX];
    path_of(copy, sizeof(copy), "copy-of-test");
    snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", self, copy);
    assert_int_equal(system(cmd), 0);
    learned_app app2;
    assert_int_equal(learned_app_key(copy, &app2, msg, sizeof(msg)), 0);
    assert_string_equal(app.key, app2.key);
}

static void test_key_hash(void **state)
{
    (void)state;
    char a[PATH_MAX + 32], b[PATH_MAX + 32], msg[600];
    path_of(a, sizeof(a), "script-a");
    path_of(b, sizeof(b), "script-b");
    write_text(a, "#!/bin/sh\necho one\n");
    write_text(b, "#!/bin/sh\necho one\n");
    learned_app ka, kb;
    assert_int_equal(learned_app_key(a, &ka, msg, sizeof(msg)), 0);
    assert_int_equal(learned_app_key(b, &kb, msg, sizeof(msg)), 0);
    assert_false(ka.build_id);
    assert_int_equal(ka.key[0], 'h');
    assert_true(learned_key_valid(ka.key));
    assert_string_equal(ka.key, kb.key);
    assert_non_null(strstr(ka.key, "-19")); /* the size */
    write_text(b, "#!/bin/sh\necho two\n");
    assert_int_equal(learned_app_key(b, &kb, msg, sizeof(msg)), 0);
    assert_string_not_equal(ka.key, kb.key);
}

/* A file that starts as an ELF header but lies: program headers past the
 * end, a note whose sizes overflow.  No crash, a hash key instead. */
static void test_key_hostile_elf(void **state)
{
    (void)state;
    unsigned char buf[512];
    memset(buf, 0, sizeof(buf));
    char self[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
    assert_true(len > 0);
    self[len] = '\0';
    int fd = open(self, O_RDONLY);
    assert_true(fd >= 0);
    assert_int_equal(read(fd, buf, 64), 64); /* a real header of this machine */
    close(fd);
    char p[PATH_MAX + 32], msg[600];
    path_of(p, sizeof(p), "liar");
    /* e_phoff far beyond the file */
    unsigned char liar[512];
    memcpy(liar, buf, sizeof(liar));
    memset(liar + 32, 0xff, 8);
    write_file(p, liar, sizeof(liar), 0700);
    learned_app app;
    assert_int_equal(learned_app_key(p, &app, msg, sizeof(msg)), 0);
    assert_false(app.build_id);
    /* one PT_NOTE at 120 whose note claims a name of 4 GB */
    memcpy(liar, buf, sizeof(liar));
    uint64_t phoff = 64;
    uint16_t phnum = 1;
    memcpy(liar + 32, &phoff, 8);
    memcpy(liar + 56, &phnum, 2);
    uint32_t type = 4 /* PT_NOTE */;
    uint64_t off = 120, size = 64;
    memset(liar + 64, 0, 56);
    memcpy(liar + 64, &type, 4);
    memcpy(liar + 64 + 8, &off, 8);
    memcpy(liar + 64 + 32, &size, 8);
    uint32_t nh[3] = {0xfffffff0u, 20, 3};
    memcpy(liar + 120, nh, sizeof(nh));
    write_file(p, liar, sizeof(liar), 0700);
    assert_int_equal(learned_app_key(p, &app, msg, sizeof(msg)), 0);
    assert_false(app.build_id);
    /* and a well-formed build ID note is found */
    uint32_t good[3] = {4, 8, 3};
    memcpy(liar + 120, good, sizeof(good));
    memcpy(liar + 132, "GNU", 4);
    memcpy(liar + 136, "\x01\x23\x45\x67\x89\xab\xcd\xef", 8);
    write_file(p, liar, sizeof(liar), 0700);
    assert_int_equal(learned_app_key(p, &app, msg, sizeof(msg)), 0);
    assert_true(app.build_id);
    assert_string_equal(app.key, "b0123456789abcdef");
    /* keys are safe file-name parts */
    assert_false(learned_key_valid("../etc"));
    assert_false(learned_key_valid("b12/x"));
    assert_false(learned_key_valid("bXYZ"));
    assert_false(learned_key_valid("b"));
    assert_false(learned_key_valid("b12-3"));
    assert_true(learned_key_valid("h0123-45"));
}

static void test_resolve(void **state)
{
    (void)state;
    char bin[PATH_MAX + 32], prog[PATH_MAX + 64], out[PATH_MAX], msg[600];
    path_of(bin, sizeof(bin), "bin");
    assert_int_equal(mkdir(bin, 0700), 0);
    snprintf(prog, sizeof(prog), "%s/myapp", bin);
    write_file(prog, "#!/bin/sh\n", 10, 0700);
    char path_env[2 * PATH_MAX];
    snprintf(path_env, sizeof(path_env), "/nonexistent:%s:/usr/bin", bin);
    assert_int_equal(learned_app_resolve("myapp", NULL, path_env, out, sizeof(out), msg, sizeof(msg)), 0);
    assert_string_equal(out, prog);
    /* a relative name against --chdir */
    assert_int_equal(learned_app_resolve("./myapp", bin, "", out, sizeof(out), msg, sizeof(msg)), 0);
    assert_string_equal(out, prog);
    assert_int_equal(learned_app_resolve("bin/myapp", scratch, "", out, sizeof(out), msg, sizeof(msg)), 0);
    assert_string_equal(out, prog);
    /* a symbolic link resolves to the real file */
    char link[PATH_MAX + 32];
    path_of(link, sizeof(link), "link-to-app");
    assert_int_equal(symlink(prog, link), 0);
    assert_int_equal(learned_app_resolve(link, NULL, "", out, sizeof(out), msg, sizeof(msg)), 0);
    assert_string_equal(out, prog);
    /* not executable, or nowhere */
    chmod(prog, 0600);
    assert_int_equal(learned_app_resolve("myapp", NULL, path_env, out, sizeof(out), msg, sizeof(msg)), -1);
    assert_non_null(strstr(msg, "'myapp' is no executable file in PATH"));
    assert_int_equal(learned_app_resolve("", NULL, path_env, out, sizeof(out), msg, sizeof(msg)), -1);
}

/* ---- the store ------------------------------------------------------------- */

static void test_store_dirs(void **state)
{
    (void)state;
    char xdg[PATH_MAX + 32], path[PATH_MAX], msg[600];
    const char *from;
    path_of(xdg, sizeof(xdg), "state");
    setenv("XDG_STATE_HOME", xdg, 1);
    learned_store s;
    /* not there yet, and not asked to create it */
    assert_int_equal(learned_store_open(&s, NULL, false, msg, sizeof(msg)), 1);
    assert_int_equal(learned_store_open(&s, NULL, true, msg, sizeof(msg)), 0);
    assert_int_equal(learned_store_path(NULL, path, sizeof(path), &from, msg, sizeof(msg)), 0);
    assert_string_equal(from, "XDG_STATE_HOME");
    assert_string_equal(s.path, path);
    assert_non_null(strstr(path, "/state/stencilmap/learned"));
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0700);
    learned_store_close(&s);
    /* open to others: refused, named */
    chmod(path, 0777);
    assert_int_equal(learned_store_open(&s, NULL, true, msg, sizeof(msg)), -1);
    assert_non_null(strstr(msg, "mode 777 is open to others"));
    assert_non_null(strstr(msg, "learned"));
    chmod(path, 0700);
    /* a symbolic link in its place: refused */
    char moved[PATH_MAX + 16];
    snprintf(moved, sizeof(moved), "%s.real", path);
    assert_int_equal(rename(path, moved), 0);
    assert_int_equal(symlink(moved, path), 0);
    assert_int_equal(learned_store_open(&s, NULL, true, msg, sizeof(msg)), -1);
    assert_non_null(strstr(msg, "is a symbolic link; refusing"));
    unlink(path);
    assert_int_equal(rename(moved, path), 0);
    /* a relative XDG_STATE_HOME is ignored: HOME's */
    char home[PATH_MAX + 32];
    path_of(home, sizeof(home), "home");
    assert_int_equal(mkdir(home, 0755), 0);
    setenv("XDG_STATE_HOME", "relative/state", 1);
    setenv("HOME", home, 1);
    assert_int_equal(learned_store_open(&s, NULL, true, msg, sizeof(msg)), 0);
    assert_int_equal(learned_store_path(NULL, path, sizeof(path), &from, msg, sizeof(msg)), 0);
    assert_string_equal(from, "HOME");
    char want[2 * PATH_MAX];
    snprintf(want, sizeof(want), "%s/.local/state/stencilmap/learned", home);
    assert_string_equal(path, want);
    learned_store_close(&s);
    /* a site's root: <root>/<user>, 0700 */
    char site[PATH_MAX + 32];
    path_of(site, sizeof(site), "site");
    assert_int_equal(mkdir(site, 0700), 0);
    chmod(site, 01777);
    assert_int_equal(learned_store_open(&s, site, true, msg, sizeof(msg)), 0);
    assert_int_equal(strncmp(s.path, site, strlen(site)), 0);
    assert_int_equal(stat(s.path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0700);
    /* a profile directory in it */
    char prof[PATH_MAX];
    assert_int_equal(learned_store_profile_dir(&s, prof, sizeof(prof), msg, sizeof(msg)), 0);
    assert_int_equal(stat(prof, &st), 0);
    assert_true(S_ISDIR(st.st_mode) && (st.st_mode & 0777) == 0700);
    learned_store_close(&s);
    /* a world-writable root without the sticky bit: refused */
    chmod(site, 0777);
    assert_int_equal(learned_store_open(&s, site, true, msg, sizeof(msg)), -1);
    assert_non_null(strstr(msg, "world-writable without the sticky bit"));
    unsetenv("XDG_STATE_HOME");
}

/* ---- entries ----------------------------------------------------------------- */

static const char spec_4x4[] =
    "{\"grid\": {\"dims\": [4, 4], \"periods\": [false, false]}, \"stencil\": {\"offsets\": "
    "[[0, 1], [0, -1], [1, 0], [-1, 0]]}, \"algorithm\": \"auto\"}";

static void make_spec_entry(learned_entry *e, const char *key, const char *source)
{
    learned_entry_init(e);
    e->kind = LEARNED_SPEC;
    snprintf(e->key, sizeof(e->key), "%s", key);
    snprintf(e->executable, sizeof(e->executable), "/opt/app/halo");
    e->job = 12;
    e->step = 0;
    snprintf(e->date, sizeof(e->date), "2026-01-02T03:04:05Z");
    e->ranks = 16;
    e->bytes = 1.5e6;
    e->share = 1.0;
    snprintf(e->grid_source, sizeof(e->grid_source), "%s", source);
    e->spec = json_loads(spec_4x4, 0, NULL);
    assert_non_null(e->spec);
}

/* a store of its own under the scratch directory */
static int open_store(learned_store *s, const char *name)
{
    char xdg[PATH_MAX + 32], msg[600];
    path_of(xdg, sizeof(xdg), name);
    setenv("XDG_STATE_HOME", xdg, 1);
    int rc = learned_store_open(s, NULL, true, msg, sizeof(msg));
    unsetenv("XDG_STATE_HOME");
    return rc;
}

static void test_entry_names(void **state)
{
    (void)state;
    char key[LEARNED_KEY_MAX], name[256];
    learned_kind kind;
    int64_t ranks;
    learned_entry_name(name, sizeof(name), "b00ff", LEARNED_SPEC, 16);
    assert_string_equal(name, "b00ff.n16.json");
    assert_true(learned_entry_name_parse(name, key, sizeof(key), &kind, &ranks));
    assert_string_equal(key, "b00ff");
    assert_int_equal(kind, LEARNED_SPEC);
    assert_int_equal(ranks, 16);
    learned_entry_name(name, sizeof(name), "h12-7", LEARNED_NOT_STENCIL, 0);
    assert_string_equal(name, "h12-7.not-stencil.json");
    assert_true(learned_entry_name_parse(name, key, sizeof(key), &kind, &ranks));
    assert_int_equal(kind, LEARNED_NOT_STENCIL);
    const char *bad[] = {"b00ff.n0.json", "b00ff.n016.json", "b00ff.n16.json~", ".tmp.1.2.3",
                         "profiles", "bXY.n4.json", "b00ff.n99999999999.json", "b00ff.json", NULL};
    for (int i = 0; bad[i]; i++)
        assert_false(learned_entry_name_parse(bad[i], key, sizeof(key), &kind, &ranks));
}

static void test_entry_round_trip(void **state)
{
    (void)state;
    learned_store s;
    char msg[1200];
    assert_int_equal(open_store(&s, "store-round-trip"), 0);
    learned_entry e, r;
    make_spec_entry(&e, "b0011", "MPI_Dims_create");
    assert_int_equal(learned_entry_write_at(s.fd, s.path, &e, msg, sizeof(msg)), 0);
    assert_int_equal(learned_entry_read_at(s.fd, s.path, "b0011.n16.json", &r, msg, sizeof(msg)), 0);
    assert_int_equal(r.format, SM_FORMAT_LEARNED);
    assert_string_equal(r.version, SM_VERSION);
    assert_int_equal(r.kind, LEARNED_SPEC);
    assert_string_equal(r.executable, "/opt/app/halo");
    assert_int_equal(r.job, 12);
    assert_int_equal(r.step, 0);
    assert_int_equal(r.ranks, 16);
    assert_string_equal(r.grid_source, "MPI_Dims_create");
    assert_true(json_equal(r.spec, e.spec));
    char dims[64];
    learned_entry_dims(&r, dims, sizeof(dims));
    assert_string_equal(dims, "4x4");
    /* the file is the user's alone */
    struct stat st;
    assert_int_equal(fstatat(s.fd, "b0011.n16.json", &st, 0), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
    /* a second writer of the same entry does not replace it */
    learned_entry other;
    make_spec_entry(&other, "b0011", "MPI_Dims_create");
    other.job = 99;
    assert_int_equal(learned_entry_write_at(s.fd, s.path, &other, msg, sizeof(msg)), 1);
    learned_entry_free(&r);
    assert_int_equal(learned_entry_read_at(s.fd, s.path, "b0011.n16.json", &r, msg, sizeof(msg)), 0);
    assert_int_equal(r.job, 12);
    learned_entry_free(&r);
    learned_entry_free(&other);
    /* a verdict */
    learned_entry v;
    learned_entry_init(&v);
    v.kind = LEARNED_NOT_STENCIL;
    snprintf(v.key, sizeof(v.key), "b0022");
    snprintf(v.executable, sizeof(v.executable), "/usr/bin/hostname");
    snprintf(v.date, sizeof(v.date), "2026-01-02T03:04:05Z");
    v.ranks = 4;
    snprintf(v.reason, sizeof(v.reason), "no task called MPI_Init (not an MPI program)");
    snprintf(v.expires, sizeof(v.expires), "2026-01-09T03:04:05Z");
    assert_int_equal(learned_entry_write_at(s.fd, s.path, &v, msg, sizeof(msg)), 0);
    assert_int_equal(learned_entry_read_at(s.fd, s.path, "b0022.not-stencil.json", &r, msg, sizeof(msg)), 0);
    assert_int_equal(r.kind, LEARNED_NOT_STENCIL);
    assert_string_equal(r.reason, v.reason);
    assert_int_equal(r.job, -1);
    struct tm tm = {.tm_year = 126, .tm_mon = 0, .tm_mday = 9, .tm_hour = 3, .tm_min = 4, .tm_sec = 5};
    assert_int_equal(r.expires_at, timegm(&tm));
    learned_entry_free(&r);
    learned_entry_free(&e);
    learned_store_close(&s);
}

/* a stored file, written as text, must be refused with needle in the message */
static void refused(learned_store *s, const char *name, const char *text, const char *needle)
{
    char path[2 * PATH_MAX], msg[1200];
    snprintf(path, sizeof(path), "%s/%s", s->path, name);
    unlink(path);
    write_text(path, text);
    learned_entry r;
    assert_int_equal(learned_entry_read_at(s->fd, s->path, name, &r, msg, sizeof(msg)), -1);
    if (!strstr(msg, needle))
        fail_msg("'%s' not in '%s'", needle, msg);
    assert_non_null(strstr(msg, name));
    unlink(path);
}

static void test_entry_corrupt(void **state)
{
    (void)state;
    learned_store s;
    assert_int_equal(open_store(&s, "store-corrupt"), 0);
    const char *n = "b0033.n16.json";
#define HEAD "{\"format\": 1, \"kind\": \"spec\", \"key\": \"b0033\", \"executable\": \"/x\", "
#define EV "\"learned\": {\"job\": 1, \"step\": 0, \"date\": \"2026-01-02T03:04:05Z\", \"ranks\": 16, " \
           "\"grid_source\": \"inferred\"}, "
    refused(&s, n, "{\"format\": 1, ", "invalid JSON at line 1");
    refused(&s, n, "[1, 2]", "must be a JSON object");
    refused(&s, n, "{\"format\": 2, \"kind\": \"spec\"}", "format 2 is newer than this stencilmap's (1)");
    refused(&s, n, "{\"format\": 1, \"format\": 1}", "invalid JSON");
    refused(&s, n, "{\"format\": 1, \"kind\": \"maybe\"}", "kind: unknown 'maybe'");
    refused(&s, n, HEAD EV "\"spec\": {\"grid\": {\"dims\": [4, 0]}, \"stencil\": {\"offsets\": [[0, 1], [0, -1]]}}}",
            "spec: grid.dims[1]: must be a positive integer");
    refused(&s, n, HEAD EV "\"spec\": {\"grid\": {\"dims\": [4, 8]}, \"stencil\": {\"offsets\": [[0, 1], [0, -1]]}}}",
            "the grid holds 32 ranks but learned.ranks is 16");
    refused(&s, n, HEAD EV "\"spec\": {\"grid\": {\"dims\": \"auto\", \"ndims\": 2}, \"stencil\": {\"offsets\": [[0, 1], [0, -1]]}}}",
            "must be the learned dims");
    refused(&s, n, HEAD "\"learned\": {\"date\": \"2026-01-02T03:04:05Z\", \"ranks\": -3}, \"spec\": {}}",
            "learned.ranks: must be an integer");
    refused(&s, n, HEAD "\"learned\": {\"date\": \"yesterday\", \"ranks\": 16}}", "learned.date: 'yesterday'");
    refused(&s, n, HEAD "\"learned\": {\"job\": \"x\"}}", "learned.job: must be an integer");
    refused(&s, n, HEAD EV "\"spec\": 7}", "spec: must be an object");
    refused(&s, n, "{\"format\": 1, \"kind\": \"spec\", \"key\": \"b9999\", \"executable\": \"/x\"}",
            "is not the file name's key");
    refused(&s, n, "{\"format\": 1, \"kind\": \"spec\", \"key\": \"b0033\", \"executable\": \"x\"}",
            "executable: must be an absolute path");
    refused(&s, n, HEAD EV "\"spec\": {\"grid\": {\"dims\": [4, 4]}, \"stencil\": {\"offsets\": [[0, 1], [0, -1]]}, \"bogus\": 1}}",
            "bogus");
    refused(&s, "b0033.n8.json", HEAD EV "\"spec\": {\"grid\": {\"dims\": [4, 4]}, \"stencil\": {\"offsets\": [[0, 1], [0, -1]]}}}",
            "learned.ranks: 16 but the file name says 8");
    refused(&s, "b0033.not-stencil.json", HEAD EV "\"spec\": {}}", "does not fit the file name");
    /* a symbolic link, a FIFO (not opened for long: no writer), a big file */
    char path[2 * PATH_MAX], msg[1200];
    learned_entry r;
    snprintf(path, sizeof(path), "%s/%s", s.path, n);
    assert_int_equal(symlink("/etc/passwd", path), 0);
    assert_int_equal(learned_entry_read_at(s.fd, s.path, n, &r, msg, sizeof(msg)), -1);
    assert_non_null(strstr(msg, "symbolic link"));
    unlink(path);
    assert_int_equal(mkfifo(path, 0600), 0);
    assert_int_equal(learned_entry_read_at(s.fd, s.path, n, &r, msg, sizeof(msg)), -1);
    assert_non_null(strstr(msg, "not a regular file"));
    unlink(path);
    int fd = open(path, O_WRONLY | O_CREAT, 0600);
    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, LEARNED_ENTRY_MAX_BYTES + 1), 0);
    close(fd);
    assert_int_equal(learned_entry_read_at(s.fd, s.path, n, &r, msg, sizeof(msg)), -1);
    assert_non_null(strstr(msg, "above the limit"));
    unlink(path);
    learned_store_close(&s);
#undef HEAD
#undef EV
}

/* ---- lookup ---------------------------------------------------------------- */

static void test_lookup(void **state)
{
    (void)state;
    learned_store s;
    char msg[1200];
    assert_int_equal(open_store(&s, "store-lookup"), 0);
    learned_found f;
    time_t now = 1767323045; /* 2026-01-02T03:04:05Z */
    learned_lookup(&s, "b0044", 16, now, &f);
    assert_int_equal(f.kind, LEARNED_FOUND_NONE);
    learned_found_free(&f);
    /* a grid from MPI_Dims_create: exact, then recomputed for 32 */
    learned_entry e;
    make_spec_entry(&e, "b0044", "MPI_Dims_create");
    assert_int_equal(learned_entry_write_at(s.fd, s.path, &e, msg, sizeof(msg)), 0);
    learned_entry_free(&e);
    learned_lookup(&s, "b0044", 16, now, &f);
    assert_int_equal(f.kind, LEARNED_FOUND_SPEC);
    assert_false(f.regridded);
    smp_spec spec;
    smp_error err;
    assert_int_equal(smp_spec_parse(&spec, f.spec_json, strlen(f.spec_json), NULL, &err), SMP_OK);
    assert_int_equal(spec.grid.size, 16);
    smp_spec_free(&spec);
    learned_found_free(&f);
    learned_lookup(&s, "b0044", 32, now, &f);
    assert_int_equal(f.kind, LEARNED_FOUND_SPEC);
    assert_true(f.regridded);
    assert_int_equal(smp_spec_parse(&spec, f.spec_json, strlen(f.spec_json), NULL, &err), SMP_OK);
    assert_true(spec.dims_auto);
    assert_int_equal(smp_spec_resolve(&spec, 32, &err), SMP_OK);
    assert_int_equal(spec.grid.dims[0], 8);
    assert_int_equal(spec.grid.dims[1], 4);
    assert_int_equal(spec.stencil.count, 4);
    smp_spec_free(&spec);
    learned_found_free(&f);
    /* a grid of its own (MPI_Cart_create): only its own count */
    make_spec_entry(&e, "b0055", "MPI_Cart_create");
    assert_int_equal(learned_entry_write_at(s.fd, s.path, &e, msg, sizeof(msg)), 0);
    learned_entry_free(&e);
    learned_lookup(&s, "b0055", 32, now, &f);
    assert_int_equal(f.kind, LEARNED_FOUND_OTHER_RANKS);
    assert_int_equal(f.other_ranks, 16);
    learned_found_free(&f);
    learned_lookup(&s, "b0055", 0, now, &f);
    assert_int_equal(f.kind, LEARNED_FOUND_OTHER_RANKS);
    learned_found_free(&f);
    /* verdicts stand until they expire */
    learned_entry v;
    learned_entry_init(&v);
    v.kind = LEARNED_NOT_STENCIL;
    snprintf(v.key, sizeof(v.key), "b0066");
    snprintf(v.executable, sizeof(v.executable), "/bin/ring");
    snprintf(v.date, sizeof(v.date), "2026-01-02T03:04:05Z");
    v.ranks = 8;
    snprintf(v.reason, sizeof(v.reason), "explains only 12 %%");
    snprintf(v.expires, sizeof(v.expires), "2026-01-09T03:04:05Z");
    assert_int_equal(learned_entry_write_at(s.fd, s.path, &v, msg, sizeof(msg)), 0);
    learned_lookup(&s, "b0066", 8, now, &f);
    assert_int_equal(f.kind, LEARNED_FOUND_NOT_STENCIL);
    assert_string_equal(f.entry.reason, "explains only 12 %");
    learned_found_free(&f);
    learned_lookup(&s, "b0066", 8, now + 8 * 86400, &f);
    assert_int_equal(f.kind, LEARNED_FOUND_NONE);
    assert_true(f.expired_verdict);
    learned_found_free(&f);
    /* a corrupt file blocks, named */
    char path[2 * PATH_MAX];
    snprintf(path, sizeof(path), "%s/b0077.n16.json", s.path);
    write_text(path, "{ not json");
    learned_lookup(&s, "b0077", 16, now, &f);
    assert_int_equal(f.kind, LEARNED_FOUND_BAD);
    assert_non_null(strstr(f.msg, "b0077.n16.json: invalid JSON"));
    learned_found_free(&f);
    /* the listing: every entry, by name; one key's */
    char **names;
    size_t count;
    assert_int_equal(learned_store_names(&s, NULL, &names, &count), 0);
    assert_int_equal(count, 4);
    assert_string_equal(names[0], "b0044.n16.json");
    learned_names_free(names, count);
    assert_int_equal(learned_store_names(&s, "b0066", &names, &count), 0);
    assert_int_equal(count, 1);
    learned_names_free(names, count);
    learned_store_close(&s);
}

/* two processes store the same application at once: one file, whole */
static void test_concurrent_writers(void **state)
{
    (void)state;
    learned_store s;
    assert_int_equal(open_store(&s, "store-concurrent"), 0);
    int stored = 0;
    for (int round = 0; round < 20; round++) {
        char key[32];
        snprintf(key, sizeof(key), "b%04x", 0x100 + round);
        pid_t kids[4];
        for (int k = 0; k < 4; k++) {
            kids[k] = fork();
            assert_true(kids[k] >= 0);
            if (kids[k] == 0) {
                learned_entry e;
                char msg[1200];
                make_spec_entry(&e, key, "inferred");
                e.job = 1000 + k;
                _exit(learned_entry_write_at(s.fd, s.path, &e, msg, sizeof(msg)) == 0 ? 10 : 11);
            }
        }
        int winners = 0;
        for (int k = 0; k < 4; k++) {
            int st;
            assert_int_equal(waitpid(kids[k], &st, 0), kids[k]);
            assert_true(WIFEXITED(st));
            winners += WEXITSTATUS(st) == 10;
        }
        assert_int_equal(winners, 1);
        char name[64], msg[1200];
        snprintf(name, sizeof(name), "%s.n16.json", key);
        learned_entry r;
        assert_int_equal(learned_entry_read_at(s.fd, s.path, name, &r, msg, sizeof(msg)), 0);
        assert_true(r.job >= 1000 && r.job < 1004);
        learned_entry_free(&r);
        stored++;
    }
    assert_int_equal(stored, 20);
    /* no temporary file left behind */
    char **names;
    size_t count;
    assert_int_equal(learned_store_names(&s, NULL, &names, &count), 0);
    learned_names_free(names, count);
    char cmd[PATH_MAX + 64];
    snprintf(cmd, sizeof(cmd), "test -z \"$(ls -A '%s' | grep '^\\.tmp')\"", s.path);
    assert_int_equal(system(cmd), 0);
    learned_store_close(&s);
}

/* ---- the judge ------------------------------------------------------------- */

/* a profile of a dims[0] x dims[1] grid, non-periodic, 5-point, bytes per
 * neighbour; with MPI_Cart_create and MPI_Dims_create lines when cart */
static void write_profile(const char *dir, int d0, int d1, int bytes, bool cart, const char *extra)
{
    assert_int_equal(mkdir(dir, 0700), 0);
    int p = d0 * d1;
    for (int r = 0; r < p; r++) {
        char path[PATH_MAX + 32];
        snprintf(path, sizeof(path), "%s/rank.%d", dir, r);
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fprintf(f, "stencilmap-profile 1\nrank %d %d\n", r, p);
        if (extra && r == 1)
            fputs(extra, f);
        if (cart)
            fprintf(f, "dims_create %d 2 %d %d\ncart %d 2 %d %d 0 0 0 %d\n", p, d0, d1, p, d0, d1, r);
        int i = r / d1, j = r % d1;
        int nb[4][2] = {{i - 1, j}, {i + 1, j}, {i, j - 1}, {i, j + 1}};
        for (int k = 0; k < 4; k++)
            if (nb[k][0] >= 0 && nb[k][0] < d0 && nb[k][1] >= 0 && nb[k][1] < d1)
                fprintf(f, "d %d 10 %d\n", nb[k][0] * d1 + nb[k][1], 10 * bytes);
        fclose(f);
    }
}

static void test_judge(void **state)
{
    (void)state;
    char dir[PATH_MAX + 32], why[800];
    time_t now = 1767323045;
    learned_entry e;
    /* the halo's: its grid is MPI_Dims_create's */
    path_of(dir, sizeof(dir), "prof-halo");
    write_profile(dir, 4, 4, 1000, true, NULL);
    learned_entry_init(&e);
    e.job = 7;
    e.step = 2;
    assert_int_equal(learned_judge(dir, 16, now, &e, why, sizeof(why)), LEARNED_JUDGED_SPEC);
    assert_int_equal(e.kind, LEARNED_SPEC);
    assert_string_equal(e.grid_source, "MPI_Dims_create");
    assert_true(e.share > 0.999);
    assert_string_equal(e.date, "2026-01-02T03:04:05Z");
    assert_non_null(strstr(why, "100.0 % of the bytes by 4 offsets"));
    assert_non_null(strstr(json_string_value(json_object_get(e.spec, "description")), "from job 7.2"));
    learned_entry_free(&e);
    /* the step had another task count than the profile */
    learned_entry_init(&e);
    assert_int_equal(learned_judge(dir, 32, now, &e, why, sizeof(why)), LEARNED_JUDGED_FAILED);
    assert_non_null(strstr(why, "the profile has 16 ranks but the step 32 tasks"));
    /* a grid MPI_Dims_create would not give (8x2): the application's own */
    path_of(dir, sizeof(dir), "prof-8x2");
    write_profile(dir, 8, 2, 1000, true, NULL);
    learned_entry_init(&e);
    assert_int_equal(learned_judge(dir, 16, now, &e, why, sizeof(why)), LEARNED_JUDGED_SPEC);
    assert_string_equal(e.grid_source, "MPI_Cart_create");
    learned_entry_free(&e);
    /* no MPI_Cart_create: inferred */
    path_of(dir, sizeof(dir), "prof-inferred");
    write_profile(dir, 4, 4, 1000, false, NULL);
    learned_entry_init(&e);
    assert_int_equal(learned_judge(dir, 16, now, &e, why, sizeof(why)), LEARNED_JUDGED_SPEC);
    assert_string_equal(e.grid_source, "inferred");
    learned_entry_free(&e);
    /* a rank stopped by a signal, one that exited without MPI_Finalize */
    path_of(dir, sizeof(dir), "prof-killed");
    write_profile(dir, 4, 4, 1000, true, "partial 15\n");
    learned_entry_init(&e);
    assert_int_equal(learned_judge(dir, 16, now, &e, why, sizeof(why)), LEARNED_JUDGED_FAILED);
    assert_non_null(strstr(why, "1 of 16 ranks were stopped by a signal"));
    path_of(dir, sizeof(dir), "prof-exit");
    write_profile(dir, 4, 4, 1000, true, "partial 0\n");
    learned_entry_init(&e);
    assert_int_equal(learned_judge(dir, 16, now, &e, why, sizeof(why)), LEARNED_JUDGED_FAILED);
    assert_non_null(strstr(why, "1 of 16 ranks exited without MPI_Finalize"));
    /* a whole profile of a step that failed afterwards: a task's status */
    path_of(dir, sizeof(dir), "prof-failed-after");
    write_profile(dir, 4, 4, 1000, true, NULL);
    for (int t = 0; t < 16; t++) {
        char path[2 * PATH_MAX];
        snprintf(path, sizeof(path), "%s/exit.%d.%d", dir, t, 200 + t);
        write_text(path, t == 5 ? "stencilmap-profile 1\nexit 2 1\n" : "stencilmap-profile 1\nexit 0 1\n");
    }
    learned_entry_init(&e);
    assert_int_equal(learned_judge(dir, 16, now, &e, why, sizeof(why)), LEARNED_JUDGED_FAILED);
    assert_non_null(strstr(why, "1 process of the 16 tasks exited with an error"));
    /* a rank that wrote nothing */
    path_of(dir, sizeof(dir), "prof-missing");
    write_profile(dir, 4, 4, 1000, true, NULL);
    char gone[2 * PATH_MAX];
    snprintf(gone, sizeof(gone), "%s/rank.9", dir);
    unlink(gone);
    learned_entry_init(&e);
    assert_int_equal(learned_judge(dir, 16, now, &e, why, sizeof(why)), LEARNED_JUDGED_FAILED);
    assert_non_null(strstr(why, "rank.9"));
    /* all to all: no stencil explains it */
    path_of(dir, sizeof(dir), "prof-alltoall");
    assert_int_equal(mkdir(dir, 0700), 0);
    for (int r = 0; r < 8; r++) {
        char path[2 * PATH_MAX];
        snprintf(path, sizeof(path), "%s/rank.%d", dir, r);
        FILE *f = fopen(path, "w");
        fprintf(f, "stencilmap-profile 1\nrank %d 8\n", r);
        for (int q = 0; q < 8; q++)
            if (q != r)
                fprintf(f, "d %d 5 %d\n", q, 1000 + 37 * ((r * 8 + q) % 11));
        fclose(f);
    }
    learned_entry_init(&e);
    assert_int_equal(learned_judge(dir, 8, now, &e, why, sizeof(why)), LEARNED_JUDGED_NOT_STENCIL);
    assert_int_equal(e.kind, LEARNED_NOT_STENCIL);
    assert_non_null(strstr(e.reason, "a dense exchange: each rank sends to 7.0 of the 7 others"));
    assert_int_equal(e.expires_at, now + LEARNED_VERDICT_DAYS * 86400);
    assert_string_equal(e.expires, "2026-01-09T03:04:05Z");
    /* a ring: a stencil of one dimension, which blocked already serves */
    path_of(dir, sizeof(dir), "prof-ring");
    assert_int_equal(mkdir(dir, 0700), 0);
    for (int r = 0; r < 16; r++) {
        char path[2 * PATH_MAX];
        snprintf(path, sizeof(path), "%s/rank.%d", dir, r);
        FILE *f = fopen(path, "w");
        fprintf(f, "stencilmap-profile 1\nrank %d 16\nd %d 100 800\n", r, (r + 1) % 16);
        fclose(f);
    }
    learned_entry_init(&e);
    assert_int_equal(learned_judge(dir, 16, now, &e, why, sizeof(why)), LEARNED_JUDGED_NOT_STENCIL);
    assert_non_null(strstr(e.reason, "a chain or ring of 16 ranks (one dimension, 1 offset, periodic)"));
    /* scattered: each rank to three pseudo-random others, varied sizes */
    path_of(dir, sizeof(dir), "prof-random");
    assert_int_equal(mkdir(dir, 0700), 0);
    tu_rng rng = {.s = 26};
    for (int r = 0; r < 16; r++) {
        char path[2 * PATH_MAX];
        snprintf(path, sizeof(path), "%s/rank.%d", dir, r);
        FILE *f = fopen(path, "w");
        fprintf(f, "stencilmap-profile 1\nrank %d 16\n", r);
        bool used[16] = {false};
        used[r] = true;
        for (int k = 0; k < 3; k++) {
            int q;
            do
                q = (int)tu_range(&rng, 0, 15);
            while (used[q]);
            used[q] = true;
            fprintf(f, "d %d 3 %d\n", q, (int)tu_range(&rng, 1000, 100000));
        }
        fclose(f);
    }
    learned_entry_init(&e);
    assert_int_equal(learned_judge(dir, 16, now, &e, why, sizeof(why)), LEARNED_JUDGED_NOT_STENCIL);
    assert_non_null(strstr(e.reason, "explain only"));
    assert_true(e.share < LEARNED_MIN_SHARE);
    /* not MPI: every task's exit file, status 0, no MPI_Init */
    path_of(dir, sizeof(dir), "prof-nompi");
    assert_int_equal(mkdir(dir, 0700), 0);
    for (int t = 0; t < 4; t++) {
        char path[2 * PATH_MAX];
        snprintf(path, sizeof(path), "%s/exit.%d.%d", dir, t, 100 + t);
        write_text(path, "stencilmap-profile 1\nexit 0 0\n");
    }
    /* a task's prolog wrote one too (another pid): the same task */
    char prolog[2 * PATH_MAX];
    snprintf(prolog, sizeof(prolog), "%s/exit.2.999", dir);
    write_text(prolog, "stencilmap-profile 1\nexit 0 0\n");
    learned_entry_init(&e);
    assert_int_equal(learned_judge(dir, 4, now, &e, why, sizeof(why)), LEARNED_JUDGED_NOT_STENCIL);
    assert_non_null(strstr(e.reason, "not an MPI program"));
    /* ... but one of them failed, or one more task said nothing */
    learned_entry_init(&e);
    assert_int_equal(learned_judge(dir, 5, now, &e, why, sizeof(why)), LEARNED_JUDGED_FAILED);
    char path[2 * PATH_MAX];
    snprintf(path, sizeof(path), "%s/exit.3.103", dir);
    unlink(path);
    write_text(path, "stencilmap-profile 1\nexit 1 0\n");
    learned_entry_init(&e);
    assert_int_equal(learned_judge(dir, 4, now, &e, why, sizeof(why)), LEARNED_JUDGED_FAILED);
    assert_non_null(strstr(why, "0 of 4 said nothing and 1 process ended with an error"));
    /* nothing at all */
    path_of(dir, sizeof(dir), "prof-empty");
    assert_int_equal(mkdir(dir, 0700), 0);
    learned_entry_init(&e);
    assert_int_equal(learned_judge(dir, 4, now, &e, why, sizeof(why)), LEARNED_JUDGED_FAILED);
    assert_non_null(strstr(why, "no task of 4 wrote a profile"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_key_build_id),    cmocka_unit_test(test_key_hash),
        cmocka_unit_test(test_key_hostile_elf), cmocka_unit_test(test_resolve),
        cmocka_unit_test(test_store_dirs),      cmocka_unit_test(test_entry_names),
        cmocka_unit_test(test_entry_round_trip), cmocka_unit_test(test_entry_corrupt),
        cmocka_unit_test(test_lookup),          cmocka_unit_test(test_concurrent_writers),
        cmocka_unit_test(test_judge),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
