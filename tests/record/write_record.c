/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Writes one audit record exactly as the plugin's srun side does (plan,
 * then spank_plugin/record.c and record/), without Slurm, so that make check can read
 * it back with stencil-map audit (tests/version/test_version.sh).
 *
 * usage: write_record RECORD_DIR SPEC NODELIST CPUS_PER_NODE RANKS
 * prints the record's path; exit 0, or 1 with the plugin's message. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy.h"
#include "record.h"
#include "step.h"

int main(int argc, char **argv)
{
    if (argc != 6) {
        fprintf(stderr, "usage: %s RECORD_DIR SPEC NODELIST CPUS_PER_NODE RANKS\n", argv[0]);
        return 2;
    }
    char arg[1200], msg[1024];
    snprintf(arg, sizeof(arg), "record_dir=%s", argv[1]);
    char *av[2] = {arg, NULL};
    sm_policy pol;
    if (sm_policy_parse(&pol, 1, av, msg, sizeof(msg))) {
        fprintf(stderr, "write_record: %s\n", msg);
        return 1;
    }
    setenv("SLURM_JOB_NODELIST", argv[3], 1);
    setenv("SLURM_JOB_CPUS_PER_NODE", argv[4], 1);
    sm_srun_args a;
    memset(&a, 0, sizeof(a));
    a.ntasks = atol(argv[5]);
    const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    sm_step st;
    if (sm_step_plan(&st, &pol, &a, argv[2], SM_SRC_OPTION, tmp, NULL, NULL, NULL)) {
        fprintf(stderr, "write_record: %s\n", st.error);
        return 1;
    }
    sm_step_drop_hostfile(&st);
    int rc = sm_record_write(&st, &pol, 42, 0, true, NULL, msg, sizeof(msg));
    if (rc)
        fprintf(stderr, "write_record: %s\n", msg);
    else
        printf("%s\n", st.record);
    sm_step_release(&st);
    return rc ? 1 : 0;
}
