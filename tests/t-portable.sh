#!/bin/sh
# SPDX-License-Identifier: MIT
# t-portable - a distribution's build (--enable-portable) records nothing
# of the machine it was built on: configured twice, in two directories, its
# installed headers and pkg-config file are byte-identical, inline no
# counter, and carry no measured figure and no fingerprint; and configure
# compiles no probe program, since it runs none.
# Needs: top_srcdir, top_builddir (from AM_TESTS_ENVIRONMENT), MAKE.
set -u
. "$top_srcdir/tests/tap.sh"

echo "1..5"
scratch=$(mktemp -d "${TMPDIR:-/tmp}/cpucycles-portable.XXXXXX") || exit 1
trap 'chmod -R u+w "$scratch" 2>/dev/null; [ -n "${KEEP:-}" ] || rm -rf "$scratch"' EXIT

# The build's configure arguments (tests/configure-args.sh), less the
# choices --enable-portable replaces.
configure_args_drop='--disable-inline --with-counter=*'
. "$top_srcdir/tests/configure-args.sh"

# build NAME: configure a fresh copy of the source tree with
# --enable-portable and install its data files into $scratch/NAME.root.
build() {
  name=$1
  shift
  tree=$scratch/$name
  mkdir "$tree" &&
    (cd "$top_srcdir" && tar cf - configure configure.ac aclocal.m4 m4 Makefile.am Makefile.in cpucycles.pc.in cpucycles-bench.pc.in cmake build-aux probes include src \
       doc 2>/dev/null) | (cd "$tree" && tar xf -) &&
    chmod -R u+w "$tree" &&
    (cd "$tree" && ./configure "$@" --enable-portable --prefix=/usr &&
       ${MAKE:-make} install-data DESTDIR="$scratch/$name.root") >"$tree.out" 2>&1
}

if build one "$@" && build two "$@"; then
  ok "configured twice with --enable-portable and installed the headers"
else
  notok "configured twice with --enable-portable and installed the headers"
  tail -n 20 "$scratch"/*.out | sed 's/^/# /'
fi
if diff -r "$scratch/one.root" "$scratch/two.root" >"$scratch/diff" 2>&1 &&
   [ -f "$scratch/one.root/usr/include/cpucycles-config.h" ]; then
  ok "the installed files are byte-identical ($(find "$scratch/one.root" -type f | wc -l) files)"
else
  notok "the installed files are byte-identical"; sed 's/^/# /' "$scratch/diff" | head -n 20
fi
config=$scratch/one.root/usr/include/cpucycles-config.h
if grep -q '^#define CPUCYCLES_BUILD_CHOICE 0$' "$config" &&
   ! grep '#include "cpucycles/' "$config" | grep -qv 'cpucycles/counter.h'; then
  ok "no counter is inlined"
else
  notok "no counter is inlined"; grep -n 'FIXED\|include' "$config" | sed 's/^/# /'
fi
if grep -q '^#define CPUCYCLES_BUILD_FINGERPRINT "unknown"$' "$config" &&
   grep -q '^#define CPUCYCLES_BUILD_PERSECOND 0LL$' "$config" &&
   ! grep -q 'X("[a-z0-9-]*", 1,' "$config"; then
  ok "no fingerprint, frequency or measured counter is recorded"
else
  notok "no fingerprint, frequency or measured counter is recorded"
  grep -n 'FINGERPRINT\|PERSECOND\|X(' "$config" | sed 's/^/# /'
fi
# Every counter for this target is "not compiled, not run": configure built
# no probe program (a compiled one would say "compiles").
if grep -q 'X("[a-z0-9-]*", -1, 0, 0, 0, "portable build (--enable-portable): not compiled, not run")' "$config" &&
   ! grep -q 'X("[a-z0-9-]*", -1,.*compiles' "$config" &&
   ! grep -q 'probes/probe.c\|conftest-probes' "$scratch/one/config.log"; then
  ok "configure compiled no probe program"
else
  notok "configure compiled no probe program"
  grep -n 'X(' "$config" | sed 's/^/# /'
fi
