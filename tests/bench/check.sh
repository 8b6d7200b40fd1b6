#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The bench's deterministic quality bars (no timing): bench_paper --check.
exec ./bench/bench_paper --check
