#!/bin/sh
# t-info - cpucycles-info as scripts use it: exit 0 with its report, a bad
# frequency variable reported and ignored, and a non-zero exit with a
# message when its output cannot be written (a full disk, a closed stdout).
# Needs top_builddir (from AM_TESTS_ENVIRONMENT); runs through the probe
# runner when there is one.
set -u
n=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
notok() { n=$((n + 1)); echo "not ok $n - $*"; }
info="${CPUCYCLES_RUNNER:-} $top_builddir/cpucycles-info"
out=$(mktemp "${TMPDIR:-/tmp}/cpucycles-info.XXXXXX") || exit 1
err=$out.err
trap 'rm -f "$out" "$err"' EXIT

echo "1..4"
if $info >"$out" 2>"$err" && grep -q '^cpucycles version ' "$out" && grep -q '^cpucycles implementation' "$out"; then
  ok "cpucycles-info prints its report and exits 0"
else
  notok "cpucycles-info prints its report and exits 0"; sed 's/^/# /' "$out" "$err"
fi
if cpucyclespersecond=abc $info >"$out" 2>"$err" && grep -q "persecond ignored:.*'abc': not a number" "$out"; then
  ok "a bad cpucyclespersecond is reported and ignored: $(grep 'persecond ignored' "$out")"
else
  notok "a bad cpucyclespersecond is reported and ignored"; sed 's/^/# /' "$out" "$err"
fi
if [ -w /dev/full ]; then
  $info >/dev/full 2>"$err"; status=$?
  if [ "$status" -ne 0 ] && grep -q 'cpucycles-info: cannot write' "$err"; then
    ok "output to a full device: exit $status, $(head -n 1 "$err")"
  else
    notok "output to a full device: exit $status"; sed 's/^/# /' "$err"
  fi
else
  ok "output to a full device # SKIP no /dev/full"
fi
$info >&- 2>"$err"; status=$?
if [ "$status" -ne 0 ] && grep -q 'cpucycles-info: cannot write' "$err"; then
  ok "output to a closed stdout: exit $status"
else
  notok "output to a closed stdout: exit $status"; sed 's/^/# /' "$err"
fi
