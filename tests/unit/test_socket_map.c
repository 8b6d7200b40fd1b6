/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The socket map srun hands to the tasks (spank_plugin/socket_map.c):
 * round trip, the size and socket limits, and malformed maps. */
#include "unit_util.h"

#include "socket_map.h"

static void test_round_trip(void **state)
{
    (void)state;
    tu_rng rng = {61};
    char msg[300];
    int32_t socks[5000];
    for (int i = 0; i < 5000; i++)
        socks[i] = (int32_t)tu_range(&rng, 0, SM_SOCKET_MAP_MAX_SOCKET);
    char *map = sm_socket_map_encode(socks, 5000, msg, sizeof(msg));
    assert_non_null(map);
    assert_int_equal(strlen(map), 5002);
    for (uint32_t r = 0; r < 5000; r++)
        assert_int_equal(sm_socket_map_lookup(map, r, msg, sizeof(msg)), socks[r]);
    assert_int_equal(sm_socket_map_lookup(map, 5000, msg, sizeof(msg)), -1);
    assert_non_null(strstr(msg, "not rank 5000"));
    free(map);
}

static void test_limits(void **state)
{
    (void)state;
    char msg[300];
    int32_t *socks = calloc(SM_SOCKET_MAP_MAX_RANKS + 1, sizeof(int32_t));
    assert_non_null(socks);
    char *map = sm_socket_map_encode(socks, SM_SOCKET_MAP_MAX_RANKS, msg, sizeof(msg));
    assert_non_null(map);
    free(map);
    assert_int_equal(sm_socket_map_fits(SM_SOCKET_MAP_MAX_RANKS, msg, sizeof(msg)), 0);
    assert_int_equal(sm_socket_map_fits(SM_SOCKET_MAP_MAX_RANKS + 1, msg, sizeof(msg)), -1);
    assert_non_null(strstr(msg, "65537 ranks"));
    assert_null(sm_socket_map_encode(socks, SM_SOCKET_MAP_MAX_RANKS + 1, msg, sizeof(msg)));
    assert_non_null(strstr(msg, "65537 ranks"));
    assert_non_null(strstr(msg, SM_SOCKET_MAP_ENV));
    socks[7] = SM_SOCKET_MAP_MAX_SOCKET + 1;
    assert_null(sm_socket_map_encode(socks, 10, msg, sizeof(msg)));
    assert_non_null(strstr(msg, "rank 7 is on socket 62"));
    socks[7] = -1;
    assert_null(sm_socket_map_encode(socks, 10, msg, sizeof(msg)));
    free(socks);
}

static void test_malformed(void **state)
{
    (void)state;
    char msg[300];
    assert_int_equal(sm_socket_map_lookup("2:0101", 0, msg, sizeof(msg)), -1);
    assert_non_null(strstr(msg, "unknown format"));
    assert_int_equal(sm_socket_map_lookup("", 0, msg, sizeof(msg)), -1);
    assert_int_equal(sm_socket_map_lookup("1:01#1", 2, msg, sizeof(msg)), -1);
    assert_non_null(strstr(msg, "bad character for rank 2"));
    assert_int_equal(sm_socket_map_lookup("1:01Z1", 2, msg, sizeof(msg)), 61);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_malformed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
