/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The reorder library's audit record (reorder_record.c): one file per
 * reordering call when a record directory is set.  Not installed. */
#ifndef STENCILMAP_REORDER_RECORD_H
#define STENCILMAP_REORDER_RECORD_H

#include "../mpix/mpix_internal.h"

/* On rank 0 of a call that went through smx_cart_reordered with
 * rep->keep_nodes set (elsewhere: nothing): writes the record, or says on
 * stderr why it could not.  Never fails the call. */
void smx_reorder_record(const smx_request *rq, const smx_report *rep);

#endif
