# SPDX-License-Identifier: GPL-2.0-or-later
# The flags of every sanitized build, in one place: run-all's distcheck,
# tests/sanitize and the suites' SMC_SANITIZE=1 (suite.sh's san_setup).
# They must agree: tests/integration/build.sh configures a tree again when
# its flags change, so tests/sanitize's build serves its integration run
# only when both use these.  Sourced, not run.
SAN_CFLAGS="-O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined"
SAN_LDFLAGS="-fsanitize=address,undefined"
# how sanitized unit tests run: a leak or any report fails the test
SAN_TEST_ENV=(ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1)
