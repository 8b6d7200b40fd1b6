/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The printers of stencil-map audit (the audit itself is in audit/). */
#ifndef STENCILMAP_CLI_AUDIT_OUTPUT_H
#define STENCILMAP_CLI_AUDIT_OUTPUT_H

#include <stdbool.h>
#include <stdio.h>

#include "audit.h"

/* One audited step in text (audit_print.c). */
void audit_print_step(FILE *out, const audit_result *step);
/* --summary over the records found; returns the exit status
 * (audit_summary.c). */
int audit_summary(const audit_found *found, const char *dir, bool json);

#endif
