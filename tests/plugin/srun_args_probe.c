/* SPDX-License-Identifier: GPL-2.0-or-later */
/* srun_args_probe ARGS...: how the plugin reads "srun ARGS..." (alloc.c),
 * one line "ntasks=N nodes=N cpus_per_task=N ntasks_per_node=N spec=S
 * bad=MSG", for the tests that feed it every option of a real srun's
 * --help.  SM_PROBE_RULES=new reads as srun 23.11 and later does.
 * srun_args_probe --kind NAME: "with", "without" or "unknown", how
 * srun_options.c knows the long option NAME. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "srun_options.h"

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "--kind")) {
        const char *full;
        static const char *const own[] = {"stencil-map", NULL};
        sm_opt_kind k = sm_srun_option_lookup(argv[2], strlen(argv[2]), own, &full);
        puts(k == SM_OPT_WITH_ARG ? "with" : k == SM_OPT_WITHOUT_ARG ? "without" : "unknown");
        return 0;
    }
    const char *r = getenv("SM_PROBE_RULES");
    sm_srun_rules rules = {false, false};
    if (r && !strcmp(r, "new"))
        rules = (sm_srun_rules){true, true};
    sm_srun_args a;
    sm_srun_args_parse(&a, argc, argv, &rules);
    printf("ntasks=%lld nodes=%lld cpus_per_task=%lld ntasks_per_node=%lld spec=%s bad=%s\n",
           (long long)a.ntasks, (long long)a.nnodes, (long long)a.cpus_per_task,
           (long long)a.ntasks_per_node, a.have_spec ? a.spec : "", a.bad);
    return 0;
}
