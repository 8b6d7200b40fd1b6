/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Splitting topology text into lines of KEY=VALUE pairs.  topology.conf
 * follows Slurm's configuration syntax ('#' comments, '\' continuation,
 * keys in any case, values optionally in double quotes); scontrol's
 * output is plain lines.  Limits keep a hostile text from costing more
 * than its own size. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lines.h"

void smt_line_free(struct smt_line *l)
{
    free(l->buf);
    l->buf = NULL;
    l->npairs = 0;
}

/* Copies the next logical line into a fresh buffer; NULL at the end. */
static char *read_logical(struct smt_reader *r, int *first, smp_error *err, bool *failed)
{
    *failed = false;
    if (r->text >= r->end)
        return NULL;
    size_t cap = 256, n = 0;
    char *buf = malloc(cap);
    if (!buf) {
        smp_error_set(err, SMP_ERR_SYSTEM, "%s: out of memory", r->source);
        *failed = true;
        return NULL;
    }
    r->line++;
    *first = r->line;
    bool comment = false;
    while (r->text < r->end) {
        char c = *r->text++;
        if (c == '\0') {
            smp_error_set(err, SMP_ERR_INPUT, "%s:%d: a NUL byte", r->source, r->line);
            goto fail;
        }
        if (c == '\n') {
            if (r->conf && !comment && n > 0 && buf[n - 1] == '\\') {
                n--; /* continued on the next line */
                r->line++;
                continue;
            }
            break;
        }
        if (comment)
            continue;
        if (r->conf && c == '#') {
            if (n > 0 && buf[n - 1] == '\\') {
                buf[n - 1] = '#';
                continue;
            }
            comment = true;
            continue;
        }
        if (n + 2 > cap) {
            if (cap >= SMT_MAX_LINE) {
                smp_error_set(err, SMP_ERR_INPUT, "%s:%d: a line longer than %d bytes", r->source,
                              *first, SMT_MAX_LINE);
                goto fail;
            }
            cap *= 2;
            char *nb = realloc(buf, cap);
            if (!nb) {
                smp_error_set(err, SMP_ERR_SYSTEM, "%s: out of memory", r->source);
                goto fail;
            }
            buf = nb;
        }
        buf[n++] = c == '\t' || c == '\r' ? ' ' : c;
    }
    buf[n] = '\0';
    return buf;
fail:
    free(buf);
    *failed = true;
    return NULL;
}

int smt_next_line(struct smt_reader *r, struct smt_line *out, const char *skip, smp_error *err)
{
    memset(out, 0, sizeof(*out));
    for (;;) {
        bool failed;
        int first;
        char *buf = read_logical(r, &first, err, &failed);
        if (!buf)
            return failed ? -1 : 0;
        char *s = buf;
        while (*s == ' ')
            s++;
        if (*s == '\0' || (skip && !strncmp(s, skip, strlen(skip)))) {
            free(buf);
            continue;
        }
        out->buf = buf;
        out->number = first;
        while (*s) {
            char *key = s;
            while (*s && *s != '=' && *s != ' ')
                s++;
            if (*s != '=' || s == key) {
                if (!strncasecmp(key, "include", 7) && (key[7] == ' ' || key[7] == '\0'))
                    smp_error_set(err, SMP_ERR_INPUT,
                                  "%s:%d: Include is not supported: give the included file itself",
                                  r->source, first);
                else
                    smp_error_set(err, SMP_ERR_INPUT, "%s:%d: expected KEY=VALUE, found '%.40s'",
                                  r->source, first, key);
                smt_line_free(out);
                return -1;
            }
            *s++ = '\0';
            char *value = s;
            if (*s == '"') {
                value = ++s;
                while (*s && *s != '"')
                    s++;
                if (*s != '"') {
                    smp_error_set(err, SMP_ERR_INPUT, "%s:%d: %s: an unclosed '\"'", r->source,
                                  first, key);
                    smt_line_free(out);
                    return -1;
                }
                *s++ = '\0';
                if (*s && *s != ' ') {
                    smp_error_set(err, SMP_ERR_INPUT, "%s:%d: %s: text after the closing '\"'",
                                  r->source, first, key);
                    smt_line_free(out);
                    return -1;
                }
            } else {
                while (*s && *s != ' ')
                    s++;
                if (*s)
                    *s++ = '\0';
            }
            if (out->npairs == SMT_MAX_PAIRS) {
                smp_error_set(err, SMP_ERR_INPUT, "%s:%d: more than %d KEY=VALUE pairs", r->source,
                              first, SMT_MAX_PAIRS);
                smt_line_free(out);
                return -1;
            }
            out->p[out->npairs++] = (struct smt_pair){key, value};
            while (*s == ' ')
                s++;
        }
        return 1;
    }
}

const char *smt_value(const struct smt_line *l, int from, const char *key)
{
    for (int i = from; i < l->npairs; i++)
        if (!strcasecmp(l->p[i].key, key))
            return l->p[i].value;
    return NULL;
}

smp_status smt_keys_check(const struct smt_line *l, int from, const char *const *allowed,
                          const char *source, smp_error *err)
{
    for (int i = from; i < l->npairs; i++) {
        bool ok = false;
        for (int k = 0; allowed[k] && !ok; k++)
            ok = !strcasecmp(l->p[i].key, allowed[k]);
        if (!ok)
            return smp_error_set(err, SMP_ERR_INPUT, "%s:%d: %s=%s: unknown key '%.40s'", source,
                                 l->number, l->p[0].key, l->p[0].value, l->p[i].key);
        for (int j = from; j < i; j++)
            if (!strcasecmp(l->p[i].key, l->p[j].key))
                return smp_error_set(err, SMP_ERR_INPUT, "%s:%d: %s=%s: %s given twice", source,
                                     l->number, l->p[0].key, l->p[0].value, l->p[i].key);
    }
    return SMP_OK;
}

bool smt_parse_u32(const char *s, uint32_t *v)
{
    if (!*s || strlen(s) > 10)
        return false;
    uint64_t x = 0;
    for (; *s; s++) {
        if (!isdigit((unsigned char)*s))
            return false;
        x = x * 10 + (uint64_t)(*s - '0');
    }
    if (x > UINT32_MAX)
        return false;
    *v = (uint32_t)x;
    return true;
}
