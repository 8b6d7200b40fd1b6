/* SPDX-License-Identifier: GPL-2.0-or-later */
/* srun --stencil-map=profile:DIR (see profile_launch.h). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "profile_launch.h"
#include "step.h"

#ifndef SM_PROFILE_LIB
#define SM_PROFILE_LIB "/usr/local/lib/libstencilmap-profile.so"
#endif
#define PREFIX "profile:"

bool sm_profile_requested(const char *spec)
{
    return spec && !strncmp(spec, PREFIX, strlen(PREFIX));
}

/* DIR of "profile:DIR" as an absolute path, the directory checked */
static int profile_dir(const char *spec, char *abs)
{
    const char *dir = spec + strlen(PREFIX);
    if (!*dir) {
        fprintf(stderr, "stencil-map: --stencil-map=profile:DIR needs a directory\n");
        return -1;
    }
    if (mkdir(dir, 0700) && errno != EEXIST) {
        fprintf(stderr, "stencil-map: profile directory %s: cannot create: %s\n", dir, strerror(errno));
        return -1;
    }
    struct stat st;
    if (lstat(dir, &st) || !S_ISDIR(st.st_mode) || st.st_uid != getuid() || (st.st_mode & 022)) {
        fprintf(stderr,
                "stencil-map: profile directory %s: must be a directory of yours (not a symbolic "
                "link) that others cannot write\n", dir);
        return -1;
    }
    if (!realpath(dir, abs)) {
        fprintf(stderr, "stencil-map: profile directory %s: %s\n", dir, strerror(errno));
        return -1;
    }
    return 0;
}

int sm_profile_export(const char *abs)
{
    sm_env_clear(); /* no placement: the tasks get no grid of ours */
    return setenv("STENCIL_MAP_PROFILE", abs, 1) ? -1 : 0;
}

int sm_profile_srun(const char *spec, bool quiet)
{
    char abs[PATH_MAX];
    if (profile_dir(spec, abs))
        return -1;
    const char *cur = getenv("STENCIL_MAP_PROFILE");
    if (cur && !strcmp(cur, abs))
        return 0; /* the same value seen again (slurm_spank_init, then the option) */
    if (sm_profile_export(abs))
        return -1;
    if (!quiet)
        fprintf(stderr,
                "stencil-map: profiling into %s, launched blocked; afterwards: stencil-map learn %s "
                "--output SPEC\n", abs, abs);
    return 0;
}

int sm_profile_allocator(const char *spec)
{
    char abs[PATH_MAX], v[PATH_MAX + 16];
    if (profile_dir(spec, abs))
        return -1;
    snprintf(v, sizeof(v), PREFIX "%s", abs);
    return setenv("STENCIL_MAP_SPEC", v, 1) ? -1 : 0;
}

int sm_profile_task(spank_t sp)
{
    char dir[PATH_MAX], pre[4096], v[4096 + PATH_MAX];
    spank_err_t e = spank_getenv(sp, "STENCIL_MAP_PROFILE", dir, sizeof(dir));
    if (e == ESPANK_ENV_NOEXIST)
        return 0;
    if (e != ESPANK_SUCCESS) {
        slurm_error("stencil-map: STENCIL_MAP_PROFILE: unreadable or too long");
        return -1;
    }
    if (access(SM_PROFILE_LIB, R_OK)) {
        slurm_error("stencil-map: %s: %s: the task runs without the profile", SM_PROFILE_LIB, strerror(errno));
        return 0;
    }
    e = spank_getenv(sp, "LD_PRELOAD", pre, sizeof(pre));
    if (e == ESPANK_SUCCESS && *pre)
        snprintf(v, sizeof(v), "%s %s", SM_PROFILE_LIB, pre);
    else if (e == ESPANK_SUCCESS || e == ESPANK_ENV_NOEXIST)
        snprintf(v, sizeof(v), "%s", SM_PROFILE_LIB);
    else {
        slurm_error("stencil-map: LD_PRELOAD: unreadable or too long");
        return -1;
    }
    if (spank_setenv(sp, "LD_PRELOAD", v, 1) != ESPANK_SUCCESS ||
        spank_setenv(sp, "STENCIL_MAP_PROFILE_DIR", dir, 1) != ESPANK_SUCCESS) {
        slurm_error("stencil-map: cannot set the profile's environment");
        return -1;
    }
    return 0;
}
