# SPDX-License-Identifier: MIT
# tap.sh - the shell tests' TAP lines, sourced by tests/t-*.sh (as tap.h is
# by the C tests): ok, notok and skip number the results in order; the
# test prints its own "1..N" plan first.
n=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
notok() { n=$((n + 1)); echo "not ok $n - $*"; }
skip() { ok "$1 # SKIP $2"; }
