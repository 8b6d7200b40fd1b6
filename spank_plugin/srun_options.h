/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The option names srun knows, and how "--name" on its command line is
 * matched against them (getopt_long's rules). */
#ifndef SM_SRUN_OPTIONS_H
#define SM_SRUN_OPTIONS_H

#include <stddef.h>

extern const char *const sm_srun_long_with_arg[];
extern const char *const sm_srun_long_without_arg[];
extern const char sm_srun_short_with_arg[];

typedef enum {
    SM_OPT_UNKNOWN = 0, /* no srun option, e.g. another SPANK plugin's */
    SM_OPT_WITH_ARG,    /* takes a required argument */
    SM_OPT_WITHOUT_ARG, /* takes none, or only as "--name=value" */
} sm_opt_kind;

/* Looks up the long option name[0..len) as getopt_long does: an exact
 * name, else an abbreviation that fits exactly one name.  *full gets the
 * option's full name (NULL when unknown).  extra (may be NULL) names
 * more options with a required argument, e.g. this plugin's own. */
sm_opt_kind sm_srun_option_lookup(const char *name, size_t len, const char *const *extra,
                                  const char **full);

#endif
