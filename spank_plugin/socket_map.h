/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The socket of every rank, handed from srun to the tasks in one
 * environment variable (the remote side reads no user file): "1:" and one
 * character per rank, 0-9 a-z A-Z for sockets 0 to 61. */
#ifndef SM_SOCKET_MAP_H
#define SM_SOCKET_MAP_H

#include <stddef.h>
#include <stdint.h>

#include "formats/stencil_env.h"

#define SM_SOCKET_MAP_ENV SMP_ENV_SOCKET_MAP
#define SM_SOCKET_MAP_MAX_RANKS 65536 /* keeps the variable far below Linux's
                                       * 128 KiB limit on one string */
#define SM_SOCKET_MAP_MAX_SOCKET 61

/* 0 when a map of `ranks` ranks can be handed over, else -1 with the
 * message encode would give (checked before the split is computed). */
int sm_socket_map_fits(int64_t ranks, char *msg, size_t n);
/* Encodes socket_of_rank[0, ranks) into a malloc'd string; NULL with a
 * message when there are too many ranks or a socket index too high. */
char *sm_socket_map_encode(const int32_t *socket_of_rank, int64_t ranks, char *msg, size_t n);
/* Rank's socket from an encoded map; -1 with a message when the map is
 * malformed or does not hold the rank. */
int sm_socket_map_lookup(const char *map, uint32_t rank, char *msg, size_t n);

#endif
