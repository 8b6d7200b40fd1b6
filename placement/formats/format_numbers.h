/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The version of stencilmap and the format numbers of the JSON it writes,
 * for every writer and reader in the tree (not installed).
 *
 * The version comes from configure.ac's AC_INIT, through config.h, and
 * nowhere else.  A format number changes when a field is removed or its
 * meaning changes, so that an older reader refuses a newer file instead of
 * misreading it; new optional fields keep the number.  Files written
 * before the numbers existed carry none and are format 1. */
#ifndef STENCILMAP_FORMATS_H
#define STENCILMAP_FORMATS_H

#include "config.h"

#define SM_VERSION PACKAGE_VERSION

/* the JSON objects of stencil-map ... --json (cli/) */
#define SM_FORMAT_CLI 1
/* the plugin's audit record <job>.<step>.json (record/smr_record.h) */
#define SM_FORMAT_RECORD 1
/* the in-job result <job>.<step>.verify.json and stencil-map-verify --json
 * (record/smr_verify.h) */
#define SM_FORMAT_VERIFY 1
/* a learned spec or verdict in the user's store (learning/store/learned_entry.h) */
#define SM_FORMAT_LEARNED 1

#endif
