# SPDX-License-Identifier: GPL-2.0-or-later
"""The seeds' own figures, transcribed once so the bench can set ours beside
them (contrib/bench/seeds/report.py).  Every figure names where it was read.
Nothing here is computed: a typo here shows as a failed row, not a silent
change of what we claim.

Seeds: /work/shared/seeds/000_* (thesis 000), 001_* (paper 001), 003_*
(HLRS slides, seed 003).  The thesis text carries no page numbers; tables
are cited by number and section.
"""

# Thesis 000, Table 6.1 (J_sum) and Table 6.2 (J_max), section 6.4: 33 nodes
# x 32 processes, 3 dimensions (MPI_Dims_create: 12x11x8), non-periodic.
# Columns in the thesis's order; our stencil name for each.
THESIS_STENCILS = [
    ("five point", "7pt"),
    ("nine point", "27pt"),
    ("component", "component"),
    ("five point hops last", "hops-last"),
    ("diagonal", "diagonal"),
    ("five point hops first", "hops"),
    ("crank nicolson", "crank-nicolson"),
]
THESIS_SUM = {  # Table 6.1
    "cart": [2416, 16324, 2416, 2416, 6160, 5760, 4530],
    "cart reorder": [2416, 16324, 2416, 2416, 6160, 5760, 4530],
    "nodecart": [2272, 15928, 2272, 2272, 6160, 4032, 4260],
    "central greedy": [2402, 16166, 688, 3998, 2872, 4228, 4502],
    "dist greedy": [2660, 13572, 888, 3626, 3012, 3946, 4863],
    "hyperplane": [1552, 12544, 944, 1888, 4000, 2592, 2880],
}
THESIS_MAX = {  # Table 6.2
    "cart": [80, 572, 80, 80, 224, 208, 150],
    "cart reorder": [80, 572, 80, 80, 224, 208, 150],
    "nodecart": [80, 572, 80, 80, 224, 160, 150],
    "central greedy": [127, 638, 48, 162, 140, 220, 197],
    "dist greedy": [118, 558, 55, 155, 136, 159, 193],
    "hyperplane": [80, 539, 72, 80, 224, 112, 150],
}
# the thesis's row -> ours that computes the same thing (MPI's order is
# blocked; cart reorder is MPI_Cart_create's reorder flag, which OpenMPI
# ignores, so it is blocked too)
THESIS_SAME = {"cart": "blocked", "cart reorder": "blocked", "nodecart": "nodecart"}

# Thesis 000, section 6.3.1: instances of the set (section 6.1.2) on which the
# component stencil had zero inter-node edges, out of 331.
THESIS_COMPONENT_ZERO = {"nodecart": 4, "dist greedy": 16, "central greedy": 19, "hyperplane": 19,
                         "VieM": 19}
THESIS_INSTANCES = 331

# Paper 001, section VI-C (Figure 8's text): qualitative only; the medians
# are drawn, not printed.  Claims the bench checks on our constructions:
PAPER_FIG8_CLAIMS = [
    ("hyperplane", "nodecart", "nearest"), ("hyperplane", "nodecart", "component"),
    ("hyperplane", "nodecart", "hops"), ("strips", "nodecart", "nearest"),
    ("strips", "nodecart", "component"), ("strips", "nodecart", "hops"),
]

# Paper 001, section VI-D (Figures 6 and 7's text): the speedups over blocked
# it measured, "up to", per machine (VSC4, SuperMUC-NG, JUWELS).
PAPER_SPEEDUPS = {
    (50, "nearest"): "hyperplane/strips up to 3-4x VSC4, 2-3x SuperMUC-NG, >5x JUWELS",
    (100, "nearest"): "hyperplane/strips up to 3x VSC4, 2.5x SuperMUC-NG, 2x JUWELS",
    (50, "hops"): "hyperplane/strips up to 4x VSC4, 3.5x SuperMUC-NG, 3x JUWELS",
    (100, "hops"): "up to 4.5x VSC4, 3.5x SuperMUC-NG, 16x JUWELS",
    (50, "component"): "kdtree/strips up to 8x VSC4, 4x SuperMUC-NG, 12x JUWELS",
    (100, "component"): "kdtree/strips up to 14x VSC4, 5x SuperMUC-NG, 16x JUWELS",
}
# Paper 001, section VI-D: on the component stencil, N = 50 and N = 100, "only
# k-d tree and Stencil Strips managed to find an optimal mapping, where each
# compute node has two outgoing communication edges".
PAPER_COMPONENT_OPT_JMAX = 2

# Seed 003, slide 26 ("halo_irecv_send_toggle_3dim_grid_solution.c", Cray
# XC40 Hazel Hen, HLRS, Jan 2019): nodes x 2 CPUs x 12 cores, 3-D halo of
# about 26 MB per process, communication time [ms] of three methods:
# MPI_Dims_create + MPI_Cart_create (baseline), MPIX_Cart_weighted_create
# with equal weights, and with the face-area weights.  Per base ratio and
# node count: times, then the weighted method's process dims and its
# per-dimension node split (dims_ml's first column); equal weights split the
# MPI dims by the node grid EQUAL_SPLIT.
SEED003 = [
    # ratio, nodes, t_base, t_equal, t_weighted, weighted dims, weighted node split
    ((2, 2, 2), 8, 84.545, 52.666, 48.556, (8, 6, 4), (2, 2, 2)),
    ((2, 2, 2), 64, 194.856, 73.756, 72.051, (16, 12, 8), (4, 4, 4)),
    ((2, 2, 2), 512, 247.631, 85.530, 85.491, (32, 24, 16), (8, 8, 8)),
    ((1, 2, 4), 8, 172.850, 63.796, 37.953, (4, 6, 8), (1, 2, 4)),
    ((1, 2, 4), 64, 360.364, 91.524, 74.199, (8, 12, 16), (2, 4, 8)),
    ((1, 2, 4), 512, 457.858, 125.468, 93.615, (16, 24, 32), (4, 8, 16)),
    ((4, 2, 1), 8, 40.050, 59.421, 36.778, (16, 6, 2), (4, 2, 1)),
    ((4, 2, 1), 64, 78.503, 100.203, 69.802, (32, 12, 4), (8, 4, 2)),
    ((4, 2, 1), 512, 103.002, 93.189, 85.044, (64, 24, 8), (16, 8, 4)),
]
SEED003_EQUAL_SPLIT = {8: (2, 2, 2), 64: (4, 4, 4), 512: (8, 8, 8)}
SEED003_CORES = 24  # 2 CPUs x 12 cores per node
# the baseline's process dims (MPI_Dims_create of nodes x 24, slide 26's
# first dims_ml column)
SEED003_MPI_DIMS = {8: (8, 6, 4), 64: (16, 12, 8), 512: (32, 24, 16)}
