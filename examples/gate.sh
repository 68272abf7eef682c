#!/bin/sh
# SPDX-License-Identifier: MIT
# gate.sh - fail a build when new code is slower than a saved baseline.
#
#   sh gate.sh baseline.json new.json [PERCENT]
#
# Both files are cpucycles_bench() results saved as JSON (save-json.c).
# `cpucycles-info --compare OLD NEW` says, in its exit status:
#   0  NEW is not slower (or is, by less than the tolerance)
#   1  NEW is slower by more than the tolerance (5% unless --tolerance:
#      two runs in two processes differ by a few percent)
#   2  a file it cannot read, or that is not such a result
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
  *) echo "gate: cannot compare (cpucycles-info --compare exited $status)"; status=2 ;;
esac
exit $status
