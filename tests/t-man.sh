#!/bin/sh
# SPDX-License-Identifier: MIT
# t-man - every manual page renders with no warning at all: groff -ww -man -z
# (or mandoc -Tlint when there is no groff) must print nothing.  SKIP
# without either (Debian: apt-get install groff-base).
set -u
srcdir=${top_srcdir:-.}
pages="doc/cpucycles.3 doc/cpucycles-info.1 doc/cpucycles-open.1"
set -- $pages
echo "1..$#"
n=0
if command -v groff >/dev/null 2>&1; then
  lint() { groff -ww -man -z "$1" 2>&1; }; tool="groff -ww -man -z"
elif command -v mandoc >/dev/null 2>&1; then
  lint() { mandoc -Tlint -W warning "$1" 2>&1; }; tool="mandoc -Tlint"
else
  for p in $pages; do n=$((n + 1)); echo "ok $n - $p # SKIP neither groff nor mandoc (apt-get install groff-base)"; done
  exit 0
fi
for p in $pages; do
  n=$((n + 1))
  if [ ! -r "$srcdir/$p" ]; then
    echo "not ok $n - $p: missing"; continue
  fi
  out=$(lint "$srcdir/$p"); status=$?
  if [ "$status" -eq 0 ] && [ -z "$out" ] && grep -q '^\.TH ' "$srcdir/$p"; then
    echo "ok $n - $p renders with no warning ($tool)"
  else
    echo "not ok $n - $p ($tool: exit $status)"; printf '%s\n' "$out" | sed 's/^/# /'
  fi
done
