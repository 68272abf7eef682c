#!/bin/sh
# SPDX-License-Identifier: MIT
# t-examples - the programs in examples/ build (make check builds them,
# linked as a user's are) and do what their comments say: each runs, exits
# 0 and prints the line that shows it worked.  No figure is judged (a busy
# machine must not fail it): a verdict is one of the three names, the
# gate's status one of those it documents.  save-json's file is a
# cpucycles_bench() result cpucycles-info --compare reads, and gate.sh
# passes on --compare's exit status: 0 for a file against itself, 1 for
# one made twice as slow (errors set to 0, so that the interval is the
# ratio), 2 for a missing file.  The C++ example is SKIPped, saying why,
# where configure found no C++ compiler whose programs run here.
# Needs top_srcdir, top_builddir (from AM_TESTS_ENVIRONMENT), and
# CPUCYCLES_CXX_EXAMPLE_WHY (empty when the C++ example is built).
set -u
. "$top_srcdir/tests/tap.sh"
# The examples link the libraries: uninstalled, in a shared build, each
# is a libtool wrapper script, run through libtool (and the probe runner).
run() { # program args...
  p=$1; shift
  "$top_builddir/libtool" --mode=execute ${CPUCYCLES_PROBE_RUNNER:-} "$top_builddir/examples/$p" "$@"
}
out=$(mktemp "${TMPDIR:-/tmp}/cpucycles-examples.XXXXXX") || exit 1
err=$out.err
# save-json's files, in the build tree (which a probe runner's guest shares)
saved=$top_builddir/t-examples-saved
trap 'rm -f "$out" "$err" "$saved"-*.json' EXIT

echo "1..10"
example() { # what pattern program args...: runs it, exit 0 and pattern in its output
  what=$1 pattern=$2; shift 2
  run "$@" >"$out" 2>"$err"; status=$?
  if [ "$status" -eq 0 ] && grep -Eq -- "$pattern" "$out"; then
    ok "$what: $(grep -E -- "$pattern" "$out" | head -n 1)"
  else
    notok "$what: exit $status, want 0 and /$pattern/"; sed 's/^/# /' "$out" "$err"
  fi
}

example "time-cpucycles: the median of many cpucycles() deltas" \
  '^sum_bytes: median -?[0-9]+ cycles of 1001 runs' time-cpucycles
example "bench-one: cpucycles_bench()" \
  '^sum_bytes: median -?[0-9.]+ cycles a call, interquartile mean' bench-one
example "bench-compare: cpucycles_bench_compare()'s verdict" \
  '^verdict: (B faster|B slower|indistinguishable)$' bench-compare
if [ -z "${CPUCYCLES_CXX_EXAMPLE_WHY+set}" ]; then
  notok "cpp-lambda: CPUCYCLES_CXX_EXAMPLE_WHY is not set (run it through make check)"
elif [ -n "$CPUCYCLES_CXX_EXAMPLE_WHY" ]; then
  skip "cpp-lambda: a lambda through a trampoline" "not built: $CPUCYCLES_CXX_EXAMPLE_WHY"
else
  example "cpp-lambda: a lambda through a trampoline" \
    '^lambda: median -?[0-9.]+ cycles a call .*; sum 500500$' cpp-lambda
fi

# ---- save-json, then gate.sh on what it saved ----
example "save-json writes a result" '^saved .*-base.json: sum of 4096 bytes' save-json "$saved-base.json"
if grep -q '^  "type": "bench",$' "$saved-base.json" 2>/dev/null &&
   grep -q '^  "interquartile_mean": ' "$saved-base.json" &&
   { ! command -v python3 >/dev/null 2>&1 || python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$saved-base.json"; }; then
  ok "its file is a cpucycles_bench() result in JSON"
else
  notok "its file is a cpucycles_bench() result in JSON"; sed 's/^/# /' "$saved-base.json"
fi
# gate.sh with the in-tree cpucycles-info
CPUCYCLES_INFO="$top_builddir/libtool --mode=execute ${CPUCYCLES_PROBE_RUNNER:-} $top_builddir/cpucycles-info"
export CPUCYCLES_INFO
gate() { # want-statuses pattern what old new
  want=$1 pattern=$2 what=$3; shift 3
  sh "$top_srcdir/examples/gate.sh" "$@" >"$out" 2>"$err"; status=$?
  case " $want " in *" $status "*) good=yes ;; *) good=no ;; esac
  if [ $good = yes ] && grep -q -- "$pattern" "$out"; then
    ok "gate.sh $what: exit $status, $(grep -- "$pattern" "$out" | head -n 1)"
  else
    notok "gate.sh $what: exit $status, want $want and '$pattern'"; sed 's/^/# /' "$out" "$err"
  fi
}
run save-json "$saved-new.json" >"$out" 2>"$err" || { sed 's/^/# /' "$out" "$err"; }
# another process: slower or not by the tolerance is the machine's to say
gate "0 1" '^gate: \(passed\|FAILED\)' "on two runs of save-json (0 or 1: not judged)" \
  "$saved-base.json" "$saved-new.json"
gate 0 '^gate: passed' "on a result against itself" "$saved-base.json" "$saved-base.json"
# twice as slow, errors 0: the interval is [2, 2], always beyond 5%
awk '/^  "interquartile_mean_error": / { print "  \"interquartile_mean_error\": 0,"; next } { print }' \
  "$saved-base.json" >"$saved-exact.json"
awk '/^  "interquartile_mean": / { sub(/,$/, ""); printf "  \"interquartile_mean\": %.17g,\n", 2 * $2; next }
     /^  "interquartile_mean_error": / { print "  \"interquartile_mean_error\": 0,"; next } { print }' \
  "$saved-base.json" >"$saved-slow.json"
gate 1 '^gate: FAILED: .*-slow.json is slower' "on a result twice as slow" "$saved-exact.json" "$saved-slow.json"
gate 2 '^gate: cannot compare' "on a missing file" "$saved-base.json" "$saved-missing.json"
