#!/bin/sh
# SPDX-License-Identifier: MIT
# t-readme - every ```c block of README.md compiles as written (C99, with
# the build's headers, linked with both libraries through libtool, as a
# user's program is), and a block with a main() runs and exits 0.  The
# README is the newcomer's path: a snippet that does not compile is the
# first thing they meet.  Also: the README stays the short path (at most
# 300 lines), and the pages it sends the reader to exist.
# Needs: top_srcdir, top_builddir (from AM_TESTS_ENVIRONMENT), CC.
set -u
. "$top_srcdir/tests/tap.sh"
readme=$top_srcdir/README.md
scratch=$(mktemp -d "${TMPDIR:-/tmp}/cpucycles-readme.XXXXXX") || exit 1
trap 'rm -rf "$scratch"' EXIT
log=$scratch/log

# The blocks, one file each: block1.c, block2.c, ...
awk -v dir="$scratch" '/^```c$/ { n++; f = dir "/block" n ".c"; p = 1; next }
  p && /^```$/ { p = 0; close(f); next } p { print > f }' "$readme"
blocks=$(ls "$scratch"/block*.c 2>/dev/null | wc -l)
echo "1..$((blocks + 3))"
if [ "$blocks" -ge 3 ]; then
  ok "README.md has $blocks C blocks"
else
  notok "README.md has at least 3 C blocks (the first program, one function, two compared): $blocks"
fi

run=
[ -n "${CPUCYCLES_PROBE_RUNNER:-}" ] && run=$CPUCYCLES_PROBE_RUNNER
i=0
while [ $i -lt "$blocks" ]; do
  i=$((i + 1))
  src=$scratch/block$i.c
  first=$(grep -m1 -v '^#include' "$src" | cut -c1-40)
  what="README's C block $i ($(grep -m1 -o '#include <[^>]*>' "$src"))"
  : >"$log"
  if ! "$top_builddir/libtool" --mode=link ${CC:-cc} -std=c99 -Wall -Wextra -Werror -O2 ${CFLAGS:-} \
         -I"$top_builddir/include" -I"$top_srcdir/include" "$src" -o "$scratch/block$i" ${LDFLAGS:-} \
         "$top_builddir/libcpucycles-bench.la" "$top_builddir/libcpucycles.la" >"$log" 2>&1; then
    notok "$what compiles as written"; sed 's/^/# /' "$log"
  elif ! grep -q '^int main(' "$src"; then
    ok "$what compiles as written (no main(): not run)"
  elif "$top_builddir/libtool" --mode=execute $run "$scratch/block$i" >"$log" 2>&1; then
    ok "$what compiles as written and runs: $(head -n 1 "$log")"
  else
    notok "$what compiles as written, but its program fails"; sed 's/^/# /' "$log"
  fi
done

lines=$(wc -l <"$readme")
if [ "$lines" -le 300 ]; then
  ok "README.md is $lines lines (at most 300: the reference is in doc/ and the man pages)"
else
  notok "README.md is $lines lines, more than 300: move the reference to doc/ or the man pages"
fi

# Every doc/*.md and example the README names is there.
missing=
for f in $(grep -o '\(doc\|examples\)/[A-Za-z0-9._-]*[A-Za-z0-9]' "$readme" | sort -u) \
         $(grep -o '[A-Z][A-Z]*[.]md' "$readme" | grep -v '^README' | sort -u); do
  [ -e "$top_srcdir/$f" ] || missing="$missing $f"
done
if [ -z "$missing" ]; then
  ok "every file the README names is in the tree"
else
  notok "the README names files that are not in the tree:$missing"
fi
