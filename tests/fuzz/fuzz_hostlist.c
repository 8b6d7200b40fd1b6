/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer harness: a node list and a slot list, split at the first NUL. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <stencilmap/placement.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 4096)
        return 0;
    char *buf = malloc(size + 2);
    memcpy(buf, data, size);
    buf[size] = buf[size + 1] = '\0';
    const char *hosts = buf, *slots = buf + strlen(buf) + 1;
    if (slots > buf + size)
        slots = "";
    smp_nodes nodes;
    smp_error err;
    if (smp_nodes_parse(&nodes, hosts, slots, &err) == SMP_OK) {
        int64_t total = 0;
        for (int i = 0; i < nodes.count; i++) {
            if (nodes.slots[i] < 1 || !nodes.names[i][0])
                abort();
            total += nodes.slots[i];
        }
        if (total != nodes.total_slots)
            abort();
        smp_nodes_free(&nodes);
    } else if (err.msg[0] == '\0') {
        abort();
    }
    free(buf);
    return 0;
}
