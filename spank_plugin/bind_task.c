/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Task side of bind=socket: in the task (slurm_spank_task_init, after the
 * fork, before exec), read this rank's socket from the map srun handed
 * over, set STENCIL_MAP_SOCKET, and bind the task with hwloc to the cpuset
 * of the node's k-th package.  Never fights the user: an explicit
 * --cpu-bind (SLURM_CPU_BIND or SLURM_CPU_BIND_TYPE in the task's
 * environment) means no binding.  A binding that cannot be done is a
 * warning, never a failed task: the placement across nodes stands. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hwloc.h>
#include <slurm/spank.h>

#include "bind_task.h"
#include "socket_map.h"

/* hwloc reads these from the process environment; the task's own
 * environment (job->env) is only installed at exec, so copy them over
 * (and drop slurmstepd's own, which are not the task's business). */
static void import_hwloc_env(spank_t sp)
{
    static const char *const names[] = {"HWLOC_SYNTHETIC", "HWLOC_XMLFILE",
                                        "HWLOC_THISSYSTEM", NULL};
    char val[4096];
    for (int i = 0; names[i]; i++) {
        if (spank_getenv(sp, names[i], val, sizeof(val)) == ESPANK_SUCCESS)
            setenv(names[i], val, 1);
        else
            unsetenv(names[i]);
    }
}

/* Binds the calling process to package k; 0, or -1 with a message. */
static int bind_package(int k, char *msg, size_t n)
{
    hwloc_topology_t topo;
    if (hwloc_topology_init(&topo) != 0) {
        snprintf(msg, n, "hwloc: cannot initialise a topology");
        return -1;
    }
    int rc = -1;
    if (hwloc_topology_load(topo) != 0) {
        snprintf(msg, n, "hwloc: cannot load this node's topology");
        goto done;
    }
    int npkg = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE);
    if (npkg < 1 || k >= npkg) {
        snprintf(msg, n, "hwloc sees %d package(s) on this node, not package %d", npkg, k);
        goto done;
    }
    hwloc_obj_t pkg = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PACKAGE, (unsigned)k);
    if (!pkg || !pkg->cpuset || hwloc_bitmap_iszero(pkg->cpuset)) {
        snprintf(msg, n, "hwloc: package %d has no CPUs", k);
        goto done;
    }
    if (hwloc_set_cpubind(topo, pkg->cpuset, HWLOC_CPUBIND_PROCESS) != 0) {
        char *s = NULL;
        hwloc_bitmap_list_asprintf(&s, pkg->cpuset);
        snprintf(msg, n, "hwloc: cannot bind to package %d (CPUs %s): %m", k, s ? s : "?");
        free(s);
        goto done;
    }
    rc = 0;
done:
    hwloc_topology_destroy(topo);
    return rc;
}

int sm_task_bind(spank_t sp, uint32_t rank, uint32_t local_id)
{
    size_t cap = SM_SOCKET_MAP_MAX_RANKS + 8;
    char *map = malloc(cap);
    if (!map) {
        slurm_error("stencil-map: bind=socket: out of memory");
        return 0;
    }
    spank_err_t e = spank_getenv(sp, SM_SOCKET_MAP_ENV, map, (int)cap);
    if (e == ESPANK_ENV_NOEXIST) {
        free(map);
        return 0; /* no socket binding asked for */
    }
    char msg[300];
    int k = -1;
    if (e != ESPANK_SUCCESS)
        snprintf(msg, sizeof(msg), "%s: unreadable or longer than %d characters",
                 SM_SOCKET_MAP_ENV, SM_SOCKET_MAP_MAX_RANKS + 2);
    else
        k = sm_socket_map_lookup(map, rank, msg, sizeof(msg));
    free(map);
    /* the map has served; keep the task's environment lean */
    spank_unsetenv(sp, SM_SOCKET_MAP_ENV);
    if (k < 0) {
        slurm_error("stencil-map: task %u: %s; not bound", rank, msg);
        return 0;
    }
    char ks[16];
    snprintf(ks, sizeof(ks), "%d", k);
    if (spank_setenv(sp, SMP_ENV_SOCKET, ks, 1) != ESPANK_SUCCESS)
        slurm_error("stencil-map: task %u: cannot set STENCIL_MAP_SOCKET", rank);
    char cb[256];
    const char *explicit_var = NULL;
    if (spank_getenv(sp, "SLURM_CPU_BIND_TYPE", cb, sizeof(cb)) != ESPANK_ENV_NOEXIST)
        explicit_var = "SLURM_CPU_BIND_TYPE";
    else if (spank_getenv(sp, "SLURM_CPU_BIND", cb, sizeof(cb)) != ESPANK_ENV_NOEXIST)
        explicit_var = "SLURM_CPU_BIND";
    if (explicit_var) {
        if (rank == 0) /* once per step */
            fprintf(stderr, "stencil-map: bind=socket: not binding, the step has an explicit "
                            "--cpu-bind (%s is set); STENCIL_MAP_SOCKET is still set\n",
                    explicit_var);
        return 0;
    }
    import_hwloc_env(sp);
    if (bind_package(k, msg, sizeof(msg)) != 0)
        fprintf(stderr, "stencil-map: WARNING: task %u (local %u): bind=socket: %s; "
                        "running unbound\n", rank, local_id, msg);
    return 0;
}
