#!/bin/sh
# The bench's deterministic quality bars (no timing): bench_paper --check.
exec ./bench/bench_paper --check
