/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What a hand-written spec gets wrong about the application's measured
 * traffic: the share of the bytes its stencil covers, a grid whose
 * dimensions are the profile's in another order (every order has the same
 * product, so nothing else complains), other periods, and weights that
 * differ from the measured bytes per message.  Shared by score --profile,
 * plan --profile and the plugin (STENCIL_MAP_CHECK_PROFILE). */
#ifndef STENCILMAP_LEARN_SPEC_CHECK_H
#define STENCILMAP_LEARN_SPEC_CHECK_H

#include <stdio.h>

#include "learn.h"

/* below this share of the bytes a spec is said to explain the profile badly */
#define LEARN_WARN_SHARE 0.9
/* spec weights off from the measured ones by more than this factor */
#define SPEC_CHECK_WEIGHT_RATIO 1.5

/* The share of the measured bytes on the spec's own offsets; false on an
 * error (in err). */
bool spec_check_covered(const learn_profile *p, const smp_spec *spec, double *share, smp_error *err);

/* Prints one "WHO: warning: ..." line to out for each thing the spec gets
 * wrong; returns how many (0: the spec fits the profile), -1 on an error
 * (in err). */
int spec_check_report(FILE *out, const char *who, const learn_profile *p, const smp_spec *spec,
                      smp_error *err);

/* Takes "--profile DIR" or "--profile=DIR" out of argv (up to "--") for a
 * command whose other options are parsed elsewhere; NULL when absent, and
 * *bad when --profile has no DIR. */
const char *spec_check_take_profile(int *argc, char **argv, bool *bad);

/* Reads the profile in dir and reports on spec as spec_check_report does,
 * to stderr; -1 on an error (a profile of another rank count too). */
int spec_check_dir(const char *who, const char *dir, const smp_spec *spec, smp_error *err);

#endif
