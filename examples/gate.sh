#!/bin/sh
# SPDX-License-Identifier: MIT
# gate.sh - fail a build when new code is slower than a saved baseline.
#
#   sh gate.sh baseline.json new.json [PERCENT]
#
# Both files are cpucycles_bench() results saved as JSON by save-json.c,
# which measures in several processes (until its own interval is within
# +-0.5%) and saves each one's result with the harness's reference beside
# it: the same code measures a few percent apart from one process to the
# next, and only the spread between processes tells how far apart two
# builds must be to differ; the reference tells how fast the host ran
# (a slower host is not slower code: each figure is divided by it).  A
# file with one result of a name cannot be judged.
# `cpucycles-info --compare OLD NEW` says, in its exit status (the one
# every comparison of cpucycles uses: VERDICTS in cpucycles_bench(3)):
#   0  NEW is not slower by more than the tolerance (5% unless
#      --tolerance): its whole 99% interval lies below it
#   1  NEW is slower by more than the tolerance: its whole interval
#      lies beyond it
#   2  a file it cannot read, or that is not such a result
#   4  cannot judge: more than half of a file's executions flagged as
#      disturbed (drift, spread, below-resolution, too few runs kept;
#      fewer are left out, and said), the two measured apart (another
#      counter, unit, host or library), one execution in a file, or an
#      interval that reaches across the tolerance (too noisy: save again
#      with more executions, or on a quieter machine); it says which file
#      and why.  --judge-anyway judges it regardless (exit 0 or 1),
#      printing the same reasons as warnings.
# This script passes the same status on, saying which.  As a make rule,
# where any status but 0 stops the build:
#
#   perf-gate: new.json
#   	cpucycles-info --compare baseline.json new.json
#
# CPUCYCLES_INFO names another cpucycles-info (a command, split into words).
set -u
if [ $# -lt 2 ] || [ $# -gt 3 ]; then
  echo "usage: sh gate.sh baseline.json new.json [PERCENT]" >&2
  exit 2
fi
info=${CPUCYCLES_INFO:-cpucycles-info}
$info --compare "$1" "$2" --tolerance "${3:-5}"
status=$?
case $status in
  0) echo "gate: passed" ;;
  1) echo "gate: FAILED: $2 is slower than $1" ;;
  4) echo "gate: CANNOT JUDGE $2 against $1 (the reasons are above): measure again" ;;
  *) echo "gate: cannot compare (cpucycles-info --compare exited $status)"; status=2 ;;
esac
exit $status
