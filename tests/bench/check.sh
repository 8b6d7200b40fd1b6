#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The benches' deterministic quality bars (no timing): bench_paper --check,
# then bench_levels --check (the network levels, on a subset of the set),
# then bench_topology --check (a 10,000-node fabric read and planned on,
# and the network model's plan at 16,384 and 1,000,000 ranks, each
# within a generous CPU budget).
./bench/bench_paper --check || exit 1
./bench/bench_levels --check || exit 1
exec ./bench/bench_topology --check
