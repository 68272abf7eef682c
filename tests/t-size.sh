#!/bin/sh
# SPDX-License-Identifier: MIT
# t-size - the counter library stays a lean drop-in: stripped, the default
# build's libcpucycles.so.1 is at most 40 KiB (40960 bytes), 1.8 times
# libcpucycles 20260105's 22.7 KB on amd64, room that the robust
# interfaces (TLS a late dlopen() can always get, pthread_atfork()) may
# spend.  HACKING.md, "The counter library's size", says where the bytes
# are and what each page's margin is.  What it exports, t-installed checks (what include/cpucycles.h
# declares, at most 14 names).
# The byte budget holds for the build it was set for, x86-64 GNU/Linux with
# gcc and configure's default CFLAGS (-g -O2); other builds SKIP it, saying
# which they are.  bench/size.sh prints the figures in `make bench`.
# Needs top_builddir, CC, CFLAGS, LDFLAGS (from AM_TESTS_ENVIRONMENT).
set -u
. "$top_srcdir/tests/tap.sh"
echo "1..1"
BUDGET=40960
so=$(ls "$top_builddir"/.libs/libcpucycles.so.1.* 2>/dev/null | head -n 1)
if [ -z "$so" ]; then
  skip "libcpucycles.so.1's stripped size" "no shared library in this build"
  exit 0
fi

machine=$(${CC:-cc} -dumpmachine 2>/dev/null)
compiler=$(${CC:-cc} --version 2>/dev/null | head -n 1)
case "$machine|$compiler|${CFLAGS:-}|${LDFLAGS:-}" in
  x86_64-*linux-gnu\|gcc*\|-g\ -O2\|)
    scratch=$(mktemp -d "${TMPDIR:-/tmp}/t-size.XXXXXX") || exit 1
    trap 'rm -rf "$scratch"' EXIT
    if ! strip -o "$scratch/s.so" "$so" 2>"$scratch/err"; then
      notok "libcpucycles.so.1's stripped size: strip failed: $(cat "$scratch/err")"
    else
      size=$(wc -c <"$scratch/s.so" | tr -d ' ')
      if [ "$size" -le $BUDGET ]; then
        ok "libcpucycles.so.1 stripped: $size bytes, within the budget of $BUDGET"
      else
        notok "libcpucycles.so.1 stripped: $size bytes, over the budget of $BUDGET (HACKING.md: the counter library's size)"
        readelf -lW "$scratch/s.so" 2>/dev/null | grep LOAD | sed 's/^/# /'
      fi
    fi ;;
  *)
    skip "libcpucycles.so.1's stripped size" \
      "the budget is for x86-64 GNU/Linux, gcc, CFLAGS='-g -O2'; this build: $machine, ${compiler%% *}, CFLAGS='${CFLAGS:-}' LDFLAGS='${LDFLAGS:-}'" ;;
esac

