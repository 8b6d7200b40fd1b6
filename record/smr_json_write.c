/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* See smr_json_write.h. */
#include "smr_json_write.h"

void smj_write_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20) /* control characters must be escaped in JSON */
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}
