#!/bin/sh
# SPDX-License-Identifier: MIT
# t-configure - configure refuses presets it cannot trust.  Runs configure
# in scratch copies of the source tree with bad preset results, a bad
# --with-counter and a bad preset fingerprint, and checks that each run
# fails and names what was wrong; then one run with valid presets (and a
# 'no' reason full of C-string hazards) must succeed and give a header that
# compiles.  Every probe result is preset from the build's config.log, so
# no probe runs and each configure takes a few seconds.
# Needs: top_srcdir, top_builddir (from AM_TESTS_ENVIRONMENT), CC.
set -u
. "$top_srcdir/tests/tap.sh"

echo "1..15"
scratch=$(mktemp -d "${TMPDIR:-/tmp}/cpucycles-configure.XXXXXX") || exit 1
trap 'chmod -R u+w "$scratch" 2>/dev/null; rm -rf "$scratch"' EXIT

# The build's own presets: every cpucycles_cv_ line of its config.log, as
# a site script that configure sources (CONFIG_SITE).
grep '^cpucycles_cv_' "$top_builddir/config.log" >"$scratch/presets"
if ! grep -q '^cpucycles_cv_fingerprint=' "$scratch/presets"; then
  echo "# no cpucycles_cv_ results in $top_builddir/config.log"
fi

# The build's configure arguments (tests/configure-args.sh), less
# --disable-inline, which would refuse --with-counter before its name is
# looked at.
configure_args_drop='--disable-inline'
. "$top_srcdir/tests/configure-args.sh"

# run NAME VARIABLE-NOT-PRESET [ARG...]: configure in a fresh copy of the
# source tree ($scratch/NAME), with every preset but VARIABLE-NOT-PRESET and
# the build's arguments, then ARG...  Output in $scratch/NAME.out; $status.
run() {
  name=$1 skipvar=$2
  shift 2
  tree=$scratch/$name
  mkdir "$tree" &&
    (cd "$top_srcdir" &&
     tar cf - configure configure.ac aclocal.m4 m4 Makefile.am Makefile.in cpucycles.pc.in cpucycles-bench.pc.in cmake doc/*.in \
       build-aux probes include src) |
     (cd "$tree" && tar xf -) &&
    chmod -R u+w "$tree" || { status=99; return; }
  grep -v "^$skipvar=" "$scratch/presets" >"$tree.site"
  (cd "$tree" && CONFIG_SITE=$tree.site ./configure "$@") >"$tree.out" 2>&1
  status=$?
}

# refuses DESCRIPTION PATTERN: the last run failed and its output matches
# PATTERN (grep -e).
refuses() {
  if [ "$status" -ne 0 ] && grep -q -e "$2" "$tree.out"; then
    ok "$1"
    grep 'error:' "$tree.out" | sed 's/^/# /'
  else
    notok "$1 (exit status $status)"
    tail -n 15 "$tree.out" | sed 's/^/# /'
  fi
}

var=cpucycles_cv_counter_amd64_tsc
good="precision=120 hz=2600000000 kind=2 scale=1 persecond=2600000000 scaled=0 inline=1 kindname=off-core"
run hz5 $var "$@" "$var=yes precision=120 hz=5 kind=2 scale=1 persecond=5 scaled=0 inline=1 kindname=off-core"
refuses "configure refuses a preset result with hz=5 and persecond=5" "error: .*$var.*hz=5 is not"

run scaled2 $var "$@" "$var=yes $(echo "$good" | sed 's/scaled=0/scaled=2/')"
refuses "configure refuses a preset result with scaled=2" "error: .*$var.*scaled=2 is not"

run kindname $var "$@" "$var=yes $good\"; echo"
refuses "configure refuses a preset kindname with a quote and a semicolon" "error: .*$var.*kindname=.* is not"

run missing $var "$@" "$var=yes precision=5"
refuses "configure refuses a preset result with fields missing" "error: .*$var"

run noequals $var "$@" "$var=yes precision abc"
refuses "configure refuses a preset result 'yes precision abc'" "error: .*$var"

# Two consecutive counter names: today this goes into an eval and its
# second word runs as a command, which this PATH would notice.
mkdir "$scratch/bin"
printf '#!/bin/sh\n: >"%s"\n' "$scratch/ran" >"$scratch/bin/amd64_tsc"
chmod +x "$scratch/bin/amd64_tsc"
save_PATH=$PATH
PATH=$scratch/bin:$PATH
run twocounters '' "$@" --with-counter='amd64-tscp amd64-tsc'
PATH=$save_PATH
refuses "configure refuses --with-counter='amd64-tscp amd64-tsc', listing the counters" \
  "error: .*--with-counter.* amd64-perfpmcff amd64-perfpmc amd64-pmcff "
if [ ! -e "$scratch/ran" ]; then
  ok "no word of --with-counter runs as a command"
else
  notok "no word of --with-counter runs as a command (amd64_tsc ran)"
fi

# libcpucycles 20260105's name amd64-pmc is accepted for 20260901's
# amd64-pmcff: with amd64-pmcff preset available (as on an Intel host
# with a PMU; here it faults), --with-counter=amd64-pmc chooses it.
var=cpucycles_cv_counter_amd64_pmcff
portable=no
for arg; do [ "$arg" = --enable-portable ] && portable=yes; done
if [ $portable = yes ]; then
  skip "--with-counter=amd64-pmc chooses amd64-pmcff" \
    "a portable build inlines no counter, so it refuses any --with-counter"
else
  run alias $var "$@" --with-counter=amd64-pmc \
    "$var=yes precision=8 hz=2600000000 kind=1 scale=1 persecond=2600000000 scaled=0 inline=1 kindname=on-core"
  if [ "$status" -eq 0 ] && grep -q "is libcpucycles' name for amd64-pmcff" "$tree.out" &&
     grep -q '^#define CPUCYCLES_CHOSEN "amd64-pmcff"' "$tree/include/cpucycles-config.h"; then
    ok "--with-counter=amd64-pmc (libcpucycles 20260105's name) chooses amd64-pmcff"
  else
    notok "--with-counter=amd64-pmc chooses amd64-pmcff (exit status $status)"; tail -n 15 "$tree.out" | sed 's/^/# /'
  fi
fi

# --with-selection-rule takes the rules' names, and nothing else.
run badrule '' "$@" --with-selection-rule=2026
refuses "configure refuses --with-selection-rule=2026, naming the rules" \
  "error: --with-selection-rule='2026' is not a rule: the rules are seed (or 20260105, the same numbers) and 20260901"
# Probe results measured under one rule's numbers are not chosen among
# under the other's: the presets here are this build's (its rule, seeds/000's
# by default).
other=20260901
grep -q '^cpucycles_cv_selection_rule=.*20260901' "$scratch/presets" && other=seed
run otherrule '' "$@" --with-selection-rule=$other
refuses "configure refuses probe results preset under another selection rule" \
  "error: the cached or preset probe results were measured under selection rule"
run rule20260901 cpucycles_cv_selection_rule "$@" --with-selection-rule=20260901
if [ "$status" -eq 0 ] &&
   grep -q '^#define CPUCYCLES_SELECTION_RULE 20260901$' "$tree/include/cpucycles-config.h"; then
  ok "--with-selection-rule=20260901 is in cpucycles-config.h"
else
  notok "--with-selection-rule=20260901 is in cpucycles-config.h (exit status $status)"
  tail -n 15 "$tree.out" | sed 's/^/# /'
fi

run fingerprint cpucycles_cv_fingerprint "$@" 'cpucycles_cv_fingerprint=x"y\z'
refuses "configure refuses a preset fingerprint with \" and \\" "error: .*cpucycles_cv_fingerprint"

# Valid presets, and a 'no' reason with a quote, a backslash, a trigraph
# and a newline, which must all stay inside one line's C string.
reasonvar=cpucycles_cv_counter_default_zero
run valid $reasonvar "$@" "$reasonvar=no a \"quoted\" back\\slash ??/ and
a second line"
header=$tree/include/cpucycles-config.h
what="configure succeeds with valid presets and its cpucycles-config.h compiles (-std=c99 -Wpedantic -Werror)"
if [ "$status" -ne 0 ]; then
  notok "$what (configure's exit status $status)"
  tail -n 15 "$tree.out" | sed 's/^/# /'
elif ${CC:-cc} -std=c99 -Wall -Wextra -Wpedantic -Werror -fsyntax-only -I"$tree/include" \
       -x c "$header" >"$scratch/cc.out" 2>&1; then
  ok "$what"
  grep '"default-zero"' "$header" | sed 's/^/# /'
else
  notok "$what"
  sed 's/^/# /' "$scratch/cc.out"
fi

# A counter file whose CPUCYCLES_HAVE_ macro is misspelt is named in a
# warning (the counter would vanish from every target without a word).
run misspelt '' "$@"
sed 's/CPUCYCLES_HAVE_AMD64_TSC 1/CPUCYCLES_HAVE_AMD64TSC 1/' "$tree/include/cpucycles/amd64-tsc.h" \
  >"$tree/tsc.h" && mv "$tree/tsc.h" "$tree/include/cpucycles/amd64-tsc.h"
(cd "$tree" && CONFIG_SITE=$tree.site ./configure "$@") >"$tree.out" 2>&1
if grep -q 'WARNING: include/cpucycles/amd64-tsc.h never defines CPUCYCLES_HAVE_AMD64_TSC' "$tree.out" &&
   [ "$(grep -c 'never defines CPUCYCLES_HAVE_' "$tree.out")" -eq 1 ]; then
  ok "a counter file that never defines its CPUCYCLES_HAVE_ macro is warned about, and only it"
else
  notok "a misspelt CPUCYCLES_HAVE_ macro is warned about"; grep -i 'warn' "$tree.out" | sed 's/^/# /'
fi

# configure's results depend on what they measured: a newer probe, measure.c
# or counter header makes `make` re-run configure (config.status --recheck)
# in the tree just configured, and nothing does while they are unchanged.
# (GNU make's -W: "as if this file had just changed", without touching it.)
if [ "$status" -ne 0 ]; then
  notok "a changed probe, measure.c or counter header re-runs configure (no configured tree)"
elif ! (cd "$tree" && ${MAKE:-make} --version 2>/dev/null | grep -q 'GNU Make'); then
  ok "a changed probe, measure.c or counter header re-runs configure # SKIP not GNU make (no -W)"
else
  stale=
  # (without the flags of the make running this test: under `make -s
  # check`, -n prints nothing)
  (cd "$tree" && MAKEFLAGS= MFLAGS= ${MAKE:-make} -n config.status 2>&1) | grep -q -- '--recheck' &&
    stale="unchanged tree"
  for f in probes/probe.c src/core/measure.c include/cpucycles/amd64-tsc.h include/cpucycles/counter.h; do
    (cd "$tree" && MAKEFLAGS= MFLAGS= ${MAKE:-make} -n -W "$f" config.status 2>&1) | grep -q -- '--recheck' ||
      stale="$stale $f"
  done
  if [ -z "$stale" ]; then
    ok "a changed probe, measure.c or counter header re-runs configure; nothing else does"
  else
    notok "configure's re-run: wrong for$stale"
  fi
fi
