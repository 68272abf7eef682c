#!/bin/sh
# SPDX-License-Identifier: MIT
# t-readme - every ```c block of README.md compiles as written (C99, with
# the build's headers, linked with both libraries through libtool, as a
# user's program is), and a block with a main() runs and exits 0.  The
# README is the newcomer's path: a snippet that does not compile is the
# first thing they meet.  Then the README's own commands that build them
# (its indented "cc FILE.c ..." lines), as written, in a directory holding
# each block under the name the text before it gives (`prog.c`), with
# pkg-config reading the build's cpucycles.pc and cpucycles-bench.pc
# pointed at the build tree, and cc the build's compiler and flags (SKIP
# without pkg-config, a shared library, or where programs run through the
# probe runner).  Also: the README stays the short path (at most 300
# lines), and the pages it sends the reader to exist.
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
# The README's commands that build a program: "cc ... NAME.c ..." lines.
grep '^    cc .*[a-z][a-z-]*[.]c ' "$readme" | sed 's/^    //' >"$scratch/commands"
commands=$(wc -l <"$scratch/commands")
echo "1..$((blocks + commands + 3))"
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

# Each block under its name: the last `NAME.c` the text before it gives.
mkdir -p "$scratch/user" "$scratch/pc"
awk -v dir="$scratch" '/^```c$/ { n++; print n, name; p = 1; next } p && /^```$/ { p = 0; next }
  !p { while (match($0, /`[a-z][a-z-]*[.]c`/)) { name = substr($0, RSTART + 1, RLENGTH - 2); $0 = substr($0, RSTART + RLENGTH) } }' \
  "$readme" | while read -r n name; do [ -n "$name" ] && cp "$scratch/block$n.c" "$scratch/user/$name"; done
abs_src=$(cd "$top_srcdir" && pwd) abs_build=$(cd "$top_builddir" && pwd)
for pc in cpucycles cpucycles-bench; do
  sed -e "s|^libdir=.*|libdir=$abs_build/.libs|" -e "s|^includedir=.*|includedir=$abs_src/include|" \
    -e "s|^archincludedir=.*|archincludedir=$abs_build/include|" "$top_builddir/$pc.pc" >"$scratch/pc/$pc.pc"
done
why=
if [ -n "${CPUCYCLES_PROBE_RUNNER:-}" ]; then
  why="programs run through $CPUCYCLES_PROBE_RUNNER"
elif [ ! -f "$top_builddir/.libs/libcpucycles.so.1" ]; then
  why="no shared library in this build"
elif ! command -v pkg-config >/dev/null 2>&1; then
  why="no pkg-config (apt-get install pkg-config)"
fi
while read -r command; do
  what="README's command: $command"
  if [ -n "$why" ]; then
    skip "$what" "$why"; continue
  fi
  file=$(echo "$command" | grep -o '[a-z][a-z-]*[.]c' | head -n 1)
  if [ ! -f "$scratch/user/$file" ]; then
    notok "$what: no C block named $file before it"; continue
  fi
  if (cd "$scratch/user" && HOME=$scratch/home PKG_CONFIG_PATH=$scratch/pc LD_LIBRARY_PATH=$abs_build/.libs \
        CC="${CC:-cc}" CFLAGS="${CFLAGS:-}" LDFLAGS="${LDFLAGS:-}" \
        sh -c 'cc() { $CC $CFLAGS "$@" $LDFLAGS; }; '"$command") >"$log" 2>&1; then
    ok "$what$(head -n 1 "$log" | sed 's/^./: &/')"
  else
    notok "$what"; sed 's/^/# /' "$log"
  fi
done <"$scratch/commands"

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
