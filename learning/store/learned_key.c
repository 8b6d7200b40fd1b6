/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The executable of a step and its key (see learned_key.h). */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "learned_key.h"

/* ---- resolving the command ------------------------------------------------ */

/* base/name into out; false when too long */
static bool join(char *out, size_t n, const char *base, const char *name)
{
    size_t bl = strlen(base);
    int w = snprintf(out, n, "%s%s%s", base, bl && base[bl - 1] == '/' ? "" : "/", name);
    return w >= 0 && (size_t)w < n;
}

static bool runnable(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* the absolute directory relative names are taken against */
static int base_dir(const char *dir, char *out, size_t n, char *msg, size_t mn)
{
    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof(cwd))) {
        snprintf(msg, mn, "cannot read the current directory: %s", strerror(errno));
        return -1;
    }
    if (!dir || !*dir)
        return snprintf(out, n, "%s", cwd) < (int)n ? 0 : -1;
    if (dir[0] == '/')
        return snprintf(out, n, "%s", dir) < (int)n ? 0 : -1;
    /* srun's --chdir is relative to srun's own directory */
    if (!join(out, n, cwd, dir)) {
        snprintf(msg, mn, "--chdir %.200s: path too long", dir);
        return -1;
    }
    return 0;
}

int learned_app_resolve(const char *command, const char *dir, const char *path_env, char *out,
                        size_t n, char *msg, size_t mn)
{
    char base[PATH_MAX], cand[PATH_MAX];
    if (!command || !*command) {
        snprintf(msg, mn, "no command to run");
        return -1;
    }
    if (base_dir(dir, base, sizeof(base), msg, mn))
        return -1;
    bool found = false;
    if (strchr(command, '/')) {
        found = command[0] == '/' ? snprintf(cand, sizeof(cand), "%s", command) < (int)sizeof(cand)
                                  : join(cand, sizeof(cand), base, command);
        found = found && runnable(cand);
    } else {
        const char *p = path_env ? path_env : "";
        while (!found) {
            const char *colon = strchr(p, ':');
            size_t len = colon ? (size_t)(colon - p) : strlen(p);
            char entry[PATH_MAX];
            if (len < sizeof(entry)) {
                memcpy(entry, p, len);
                entry[len] = '\0';
                char abs[PATH_MAX];
                /* an empty or relative entry is taken against the directory */
                bool ok = entry[0] == '/' ? snprintf(abs, sizeof(abs), "%s", entry) < (int)sizeof(abs)
                                          : join(abs, sizeof(abs), base, entry[0] ? entry : ".");
                found = ok && join(cand, sizeof(cand), abs, command) && runnable(cand);
            }
            if (!colon)
                break;
            p = colon + 1;
        }
    }
    if (!found) {
        snprintf(msg, mn, "'%.200s' is no executable file %s", command,
                 strchr(command, '/') ? "here" : "in PATH");
        return -1;
    }
    char real[PATH_MAX];
    if (!realpath(cand, real) || strlen(real) >= n) {
        snprintf(msg, mn, "%.200s: cannot resolve its real path: %s", cand, strerror(errno));
        return -1;
    }
    strcpy(out, real);
    return 0;
}

/* ---- the key --------------------------------------------------------------- */

static void hex(const unsigned char *b, size_t len, char *out)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < len; i++) {
        out[2 * i] = digits[b[i] >> 4];
        out[2 * i + 1] = digits[b[i] & 15];
    }
    out[2 * len] = '\0';
}

static bool read_at(int fd, void *buf, size_t len, off_t off)
{
    size_t done = 0;
    while (done < len) {
        ssize_t r = pread(fd, (char *)buf + done, len - done, off + (off_t)done);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return false;
        done += (size_t)r;
    }
    return true;
}

/* The GNU build ID among the notes of one PT_NOTE segment. */
static int note_build_id(const unsigned char *buf, size_t len, size_t align, unsigned char *id)
{
    size_t at = 0;
    while (at + sizeof(ElfW(Nhdr)) <= len) {
        ElfW(Nhdr) nh;
        memcpy(&nh, buf + at, sizeof(nh));
        size_t name_at = at + sizeof(nh);
        size_t name_len = (nh.n_namesz + align - 1) / align * align;
        size_t desc_at = name_at + name_len;
        size_t desc_len = (nh.n_descsz + align - 1) / align * align;
        if (nh.n_namesz > len || nh.n_descsz > len || desc_at > len || desc_len > len - desc_at)
            return 0; /* a malformed note: no build ID from it */
        if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 && !memcmp(buf + name_at, "GNU", 4) &&
            nh.n_descsz >= 1 && nh.n_descsz <= LEARNED_BUILD_ID_MAX) {
            memcpy(id, buf + desc_at, nh.n_descsz);
            return (int)nh.n_descsz;
        }
        at = desc_at + desc_len;
    }
    return 0;
}

/* The build ID of an ELF file of this machine's class and byte order, from
 * its program headers; its length, or 0 when there is none. */
static int elf_build_id(int fd, int64_t size, unsigned char *id)
{
    ElfW(Ehdr) eh;
    if (size < (int64_t)sizeof(eh) || !read_at(fd, &eh, sizeof(eh), 0))
        return 0;
    static const unsigned char native_data =
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        ELFDATA2LSB;
#else
        ELFDATA2MSB;
#endif
    static const unsigned char native_class = sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32;
    if (memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != native_class ||
        eh.e_ident[EI_DATA] != native_data || eh.e_phentsize != sizeof(ElfW(Phdr)) || eh.e_phnum == 0 ||
        eh.e_phnum >= PN_XNUM || eh.e_phoff > (uint64_t)size ||
        (uint64_t)eh.e_phnum * sizeof(ElfW(Phdr)) > (uint64_t)size - eh.e_phoff)
        return 0;
    ElfW(Phdr) ph[64];
    for (unsigned first = 0; first < eh.e_phnum; first += 64) {
        unsigned count = eh.e_phnum - first < 64 ? eh.e_phnum - first : 64;
        if (!read_at(fd, ph, count * sizeof(ph[0]), (off_t)(eh.e_phoff + first * sizeof(ph[0]))))
            return 0;
        for (unsigned i = 0; i < count; i++) {
            if (ph[i].p_type != PT_NOTE || ph[i].p_filesz == 0 || ph[i].p_filesz > 65536 ||
                ph[i].p_offset > (uint64_t)size || ph[i].p_filesz > (uint64_t)size - ph[i].p_offset)
                continue;
            unsigned char buf[65536];
            if (!read_at(fd, buf, ph[i].p_filesz, (off_t)ph[i].p_offset))
                return 0;
            int len = note_build_id(buf, ph[i].p_filesz, ph[i].p_align == 8 ? 8 : 4, id);
            if (len)
                return len;
        }
    }
    return 0;
}

/* Two 64-bit lanes of multiply and xor-shift over the file's 8-byte words:
 * fast (about a byte per cycle), not cryptographic: a key only tells one
 * build from another, in the user's own store. */
typedef struct {
    uint64_t a, b;
} hash128;

static uint64_t mix(uint64_t h, uint64_t w, uint64_t mul)
{
    h ^= w;
    h *= mul;
    return h ^ (h >> 29);
}

static int file_hash(int fd, hash128 *h, char *msg, size_t n, const char *path)
{
    enum { CHUNK = 1 << 20 };
    unsigned char *buf = malloc(CHUNK);
    if (!buf) {
        snprintf(msg, n, "out of memory");
        return -1;
    }
    h->a = 0x9e3779b97f4a7c15ull;
    h->b = 0xc2b2ae3d27d4eb4full;
    for (;;) {
        ssize_t r = read(fd, buf, CHUNK);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            if (r < 0)
                snprintf(msg, n, "%.300s: cannot read: %s", path, strerror(errno));
            free(buf);
            return r < 0 ? -1 : 0;
        }
        size_t len = (size_t)r, i = 0;
        for (; i + 8 <= len; i += 8) {
            uint64_t w;
            memcpy(&w, buf + i, 8);
            h->a = mix(h->a, w, 0x100000001b3ull);
            h->b = mix(h->b, w, 0xff51afd7ed558ccdull);
        }
        for (; i < len; i++) {
            h->a = mix(h->a, buf[i] | 0x100u, 0x100000001b3ull);
            h->b = mix(h->b, buf[i] | 0x100u, 0xff51afd7ed558ccdull);
        }
    }
}

int learned_app_key(const char *path, learned_app *app, char *msg, size_t n)
{
    memset(app, 0, sizeof(*app));
    if (snprintf(app->path, sizeof(app->path), "%s", path) >= (int)sizeof(app->path)) {
        snprintf(msg, n, "path too long");
        return -1;
    }
    /* O_NONBLOCK: a FIFO swapped in after the caller's check is not waited on */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        snprintf(msg, n, "%.300s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
        snprintf(msg, n, "%.300s: not a regular file", path);
        close(fd);
        return -1;
    }
    app->size = (int64_t)st.st_size;
    unsigned char id[LEARNED_BUILD_ID_MAX];
    int len = elf_build_id(fd, app->size, id);
    if (len) {
        app->key[0] = 'b';
        hex(id, (size_t)len, app->key + 1);
        app->build_id = true;
        close(fd);
        return 0;
    }
    hash128 h;
    int rc = file_hash(fd, &h, msg, n, path);
    close(fd);
    if (rc)
        return -1;
    snprintf(app->key, sizeof(app->key), "h%016llx%016llx-%lld", (unsigned long long)h.a,
             (unsigned long long)h.b, (long long)app->size);
    return 0;
}

bool learned_key_valid(const char *text)
{
    size_t len = strlen(text);
    if (len < 2 || len >= LEARNED_KEY_MAX || (text[0] != 'b' && text[0] != 'h'))
        return false;
    for (size_t i = 1; i < len; i++)
        if (!((text[i] >= '0' && text[i] <= '9') || (text[i] >= 'a' && text[i] <= 'f') ||
              (text[0] == 'h' && text[i] == '-')))
            return false;
    return true;
}
