/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Encoding of the per-rank socket indices (see socket_map.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "socket_map.h"

static const char digits[] = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";

int sm_socket_map_fits(int64_t ranks, char *msg, size_t n)
{
    if (ranks <= SM_SOCKET_MAP_MAX_RANKS)
        return 0;
    snprintf(msg, n, "bind=socket: %lld ranks, but the socket map handed to the tasks holds "
             "at most %d (%s); launch without socket binding", (long long)ranks,
             SM_SOCKET_MAP_MAX_RANKS, SM_SOCKET_MAP_ENV);
    return -1;
}

char *sm_socket_map_encode(const int32_t *socket_of_rank, int64_t ranks, char *msg, size_t n)
{
    if (sm_socket_map_fits(ranks, msg, n))
        return NULL;
    char *s = malloc((size_t)ranks + 3);
    if (!s) {
        snprintf(msg, n, "bind=socket: out of memory");
        return NULL;
    }
    memcpy(s, "1:", 2);
    for (int64_t r = 0; r < ranks; r++) {
        if (socket_of_rank[r] < 0 || socket_of_rank[r] > SM_SOCKET_MAP_MAX_SOCKET) {
            snprintf(msg, n, "bind=socket: rank %lld is on socket %d, above the %d the socket "
                     "map can say", (long long)r, (int)socket_of_rank[r], SM_SOCKET_MAP_MAX_SOCKET);
            free(s);
            return NULL;
        }
        s[2 + r] = digits[socket_of_rank[r]];
    }
    s[2 + ranks] = '\0';
    return s;
}

int sm_socket_map_lookup(const char *map, uint32_t rank, char *msg, size_t n)
{
    if (strncmp(map, "1:", 2)) {
        snprintf(msg, n, "%s: unknown format", SM_SOCKET_MAP_ENV);
        return -1;
    }
    size_t len = strlen(map + 2);
    if (rank >= len) {
        snprintf(msg, n, "%s: holds %zu ranks, not rank %u", SM_SOCKET_MAP_ENV, len, rank);
        return -1;
    }
    const char *d = strchr(digits, map[2 + rank]);
    if (!d || !*d) {
        snprintf(msg, n, "%s: bad character for rank %u", SM_SOCKET_MAP_ENV, rank);
        return -1;
    }
    return (int)(d - digits);
}
