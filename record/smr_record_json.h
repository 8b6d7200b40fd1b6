/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Pieces of the record as JSON that another report repeats (not
 * installed; needs Jansson, which smr_record.h does not). */
#ifndef SMR_RECORD_JSON_H
#define SMR_RECORD_JSON_H

#include <jansson.h>

#include "smr_record.h"

/* The head of "topology": {"source", "kind", "levels": levels, and
 * "mode" when the record has one}.  Steals levels (freed on failure);
 * NULL when out of memory.  The record writes its levels into it, the
 * audit its re-scored ones, so both name the levels alike. */
json_t *smr_topology_head_json(const smr_record *rec, json_t *levels);
/* "topology_warnings"' list from warning lines (each ending in '\n'),
 * and a level's "links" (NULL when its groups are no switches): the
 * record writes them, the audit repeats them. */
json_t *smr_warnings_json(const char *warnings);
json_t *smr_links_json(const smr_links *k);
/* "busiest_link" of "topology" (NULL when the record has none), and its
 * reader (absent: link_l_max stays -1); smr_record_busiest.c */
json_t *smr_busiest_json(const smr_record *rec);
int smr_parse_busiest(json_t *t, smr_record *rec, char *err, size_t n);

/* "origin" of a record the reorder library wrote (NULL: the plugin's),
 * and its reader (absent: origin.source stays ""); smr_record_origin.c */
json_t *smr_origin_json(const smr_record *rec);
int smr_parse_origin(json_t *j, smr_record *rec, char *err, size_t n);

#endif
