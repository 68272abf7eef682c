#!/bin/sh
# SPDX-License-Identifier: MIT
# t-man - every manual page renders with no warning at all: groff -ww -man -z
# (or mandoc -Tlint when there is no groff) must print nothing.  SKIP
# without either (Debian: apt-get install groff-base).  Then the pages
# against what they document: cpucycles(3) names every function
# <cpucycles.h> declares and no other, cpucycles-info(1) every option its
# usage text has and no other, every line of its report, its --json
# members in their order, and its exit codes 0, 1 and 2; and every
# page's header carries the version cpucycles_version() returns; and
# cpucycles_bench(3) names every function <cpucycles-bench.h> declares.  The
# pages are made by configure from doc/*.in (version and date).
set -u
srcdir=${top_srcdir:-.}
builddir=${top_builddir:-.}
pages="doc/cpucycles.3 doc/cpucycles_bench.3 doc/cpucycles-info.1 doc/cpucycles-open.1 doc/cpucycles-compare.1"
all_pages=$pages
set -- $pages
echo "1..$(($# + 7))"
. "$srcdir/tests/tap.sh"
if command -v groff >/dev/null 2>&1; then
  lint() { groff -ww -man -z "$1" 2>&1; }; tool="groff -ww -man -z"
elif command -v mandoc >/dev/null 2>&1; then
  lint() { mandoc -Tlint -W warning "$1" 2>&1; }; tool="mandoc -Tlint"
else
  for p in $pages; do skip "$p" "neither groff nor mandoc (apt-get install groff-base)"; done
  pages=
fi
for p in $pages; do
  if [ ! -r "$builddir/$p" ]; then
    notok "$p: missing"; continue
  fi
  out=$(lint "$builddir/$p"); status=$?
  if [ "$status" -eq 0 ] && [ -z "$out" ] && grep -q '^\.TH ' "$builddir/$p"; then
    ok "$p renders with no warning ($tool)"
  else
    notok "$p ($tool: exit $status)"; printf '%s\n' "$out" | sed 's/^/# /'
  fi
done

# A page's NAME line against the functions its header declares, with the
# exported ones' CPUCYCLES_API (cpucycles() itself is an inline function).
names_match() { # page header extra-names
  declared=$( (for n in $3; do echo "$n"; done
    grep -E '^(CPUCYCLES_API )?(long long|long|int|const char|void|double|unsigned) \*?cpucycles[a-z_]*\(' \
      "$srcdir/include/$2" | sed -E 's/^[^(]*[ *](cpucycles[a-z_]*)\(.*/\1/') | sort -u | tr '\n' ' ')
  named=$(sed -n '/^\.SH NAME/,/^\.SH/p' "$builddir/doc/$1" | sed 's/\\-.*//' | tr ', ' '\n\n' |
    grep '^cpucycles' | sort -u | tr '\n' ' ')
  if [ -n "$declared" ] && [ "$declared" = "$named" ]; then
    ok "$1 names exactly the functions <$2> declares"
  else
    notok "$1's NAME and <$2> differ"
    echo "# declared: $declared"; echo "# named:    $named"
  fi
}
names_match cpucycles.3 cpucycles.h cpucycles
names_match cpucycles_bench.3 cpucycles-bench.h ""

# cpucycles-info(1)'s options against its usage text (src/tools/cpucycles-info.c).
usage=$(sed -n '/^static const char usage/,/;$/p' "$srcdir/src/tools/cpucycles-info.c" | grep -o -- '--[a-z]*' | sort -u | tr '\n' ' ')
documented=$(sed -n '/^\.SH OPTIONS/,/^\.SH/p' "$builddir/doc/cpucycles-info.1" | grep '^\.B' |
  grep -o -- '\\-\\-[a-z]*' | sed 's/\\//g' | sort -u | tr '\n' ' ')
if [ -n "$usage" ] && [ "$usage" = "$documented" ]; then
  ok "cpucycles-info(1) documents exactly its options: $usage"
else
  notok "cpucycles-info(1)'s OPTIONS and its usage differ"
  echo "# usage:      $usage"; echo "# documented: $documented"
fi
# cpucycles-info(1) against the program's output: its DESCRIPTION names
# every line of the report (each line's first words, up to two, before its
# value: "cpucycles unit", "cpucycles persecond source"; a counter's name,
# which always has a '-', is a value: "cpucycles implementation
# default-monotonic" is the line "cpucycles implementation"), and its JSON
# OUTPUT lists --json's members, in their order.
info="$builddir/libtool --mode=execute ${CPUCYCLES_PROBE_RUNNER:-} $builddir/cpucycles-info"
description=$(sed -n '/^\.SH DESCRIPTION/,/^\.SH OPTIONS/p' "$builddir/doc/cpucycles-info.1")
keys=$($info 2>/dev/null | awk '/^cpucycles / {
    key = "cpucycles"; n = 0
    for (i = 2; i <= NF && n < 2; i++) {
      w = $i; ended = sub(/[:(].*$/, "", w)
      if (w !~ /^[a-z]+$/) break
      key = key " " w; n++
      if (ended) break
    }
    print key }' | sort -u)
undocumented=$(printf '%s\n' "$keys" | while read -r key; do
  printf '%s\n' "$description" | grep -qF "$key" || printf '%s; ' "$key"; done)
if [ -n "$keys" ] && [ -z "$undocumented" ]; then
  ok "cpucycles-info(1) names every line of the report: $(printf '%s\n' "$keys" | sed 's/^cpucycles //' | tr '\n' ',' | sed 's/,$//')"
else
  notok "cpucycles-info(1)'s DESCRIPTION does not name: ${undocumented:-(no report)}"
fi
members=$($info --json 2>/dev/null | sed -n 's/^  "\([a-z_]*\)": .*/\1/p' | tr '\n' ' ')
listed=$(sed -n '/^\.SH JSON OUTPUT/,/^\.SH/p' "$builddir/doc/cpucycles-info.1" | sed -n 's/^\.BR \([a-z_]*\) " (.*)"$/\1/p' | tr '\n' ' ')
if [ -n "$members" ] && [ "$members" = "$listed" ]; then
  ok "cpucycles-info(1)'s JSON OUTPUT lists --json's members, in order"
else
  notok "cpucycles-info(1)'s JSON OUTPUT and --json's members differ"
  echo "# --json: $members"; echo "# listed: $listed"
fi
status_text=$(sed -n '/^\.SH EXIT STATUS/,/^\.SH/p' "$builddir/doc/cpucycles-info.1")
if echo "$status_text" | grep -q '0' && echo "$status_text" | grep -q '1' && echo "$status_text" | grep -q '2'; then
  ok "cpucycles-info(1)'s EXIT STATUS gives 0, 1 and 2"
else
  notok "cpucycles-info(1)'s EXIT STATUS misses one of 0, 1, 2"
fi

# Every page's header names the version the library reports.
info="$builddir/libtool --mode=execute ${CPUCYCLES_PROBE_RUNNER:-} $builddir/cpucycles-info"
version=$($info --version 2>/dev/null | sed -n 's/.* \([0-9][0-9.]*\)$/\1/p' | sed 1q)
stale=
for p in $all_pages; do
  grep -q "^\.TH [^ ]* [0-9] \"[0-9-]*\" \"cpucycles $version\"" "$builddir/$p" 2>/dev/null || stale="$stale $p"
done
if [ -n "$version" ] && [ -z "$stale" ]; then
  ok "the pages' headers carry version $version, as cpucycles-info --version says"
else
  notok "version '$version' (cpucycles-info --version) is not in the header of:$stale"
fi
