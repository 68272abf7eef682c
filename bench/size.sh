#!/bin/sh
# SPDX-License-Identifier: MIT
# bench/size.sh - what each library costs a program that loads it: the
# stripped shared object's size in bytes and the names it exports, beside
# libcpucycles' own library when one is here.  Not a test: `make bench`.
#
#   bench/size.sh BUILDDIR
#
# libcpucycles is looked for as $LIBCPUCYCLES_SO, then in the system's
# library folders; a libcpucycles.so.1 that exports cpucycles_private is
# this project's, not libcpucycles, and is passed over.  Without one, the
# line says so and gives the budget's reference instead (libcpucycles
# 20260105's amd64 build, 22.7 KB; the budget is t-size's, HACKING.md,
# "The counter library's size").
set -u
builddir=${1:-.}
STRIP=${STRIP:-strip}
NM=${NM:-nm}
scratch=$(mktemp -d "${TMPDIR:-/tmp}/cpucycles-size.XXXXXX") || exit 1
trap 'rm -rf "$scratch"' EXIT

stripped() { # library: its stripped size in bytes, or nothing
  $STRIP -o "$scratch/s.so" "$1" 2>/dev/null && wc -c <"$scratch/s.so" | tr -d ' '
}
exported() { # library: how many names it defines for programs
  $NM -D --defined-only "$1" 2>/dev/null |
    awk '$2 ~ /^[A-Z]$/ && $3 != "_init" && $3 != "_fini"' | wc -l | tr -d ' '
}
real() { # library: the file a symlink names
  readlink -f "$1" 2>/dev/null || echo "$1"
}

reference=
for f in ${LIBCPUCYCLES_SO:-} /usr/lib/*/libcpucycles.so.1 /usr/lib/libcpucycles.so.1 \
         /usr/local/lib/libcpucycles.so.1; do
  [ -f "$f" ] || continue
  $NM -D --defined-only "$f" 2>/dev/null | grep -q ' cpucycles_private$' && continue
  reference=$(real "$f")
  break
done
ref_size=
[ -n "$reference" ] && ref_size=$(stripped "$reference")

echo "size: stripped shared objects, in bytes (the file a program maps)"
for lib in libcpucycles.so.1 libcpucycles-bench.so.0; do
  f=$(ls "$builddir"/.libs/$lib.* 2>/dev/null | grep -v '\.la$' | head -n 1)
  if [ -z "$f" ]; then
    echo "  $lib: not built (a static-only build?)"
    continue
  fi
  size=$(stripped "$f")
  line="  $lib: $size bytes, $(exported "$f") exports"
  if [ $lib = libcpucycles.so.1 ] && [ -n "$ref_size" ]; then
    line="$line; libcpucycles' own ($reference): $ref_size bytes, $(exported "$reference") exports: $(awk "BEGIN { printf \"%.2f\", $size / $ref_size }")x"
  elif [ $lib = libcpucycles.so.1 ]; then
    line="$line; $(awk "BEGIN { printf \"%.2f\", $size / 23245 }")x libcpucycles 20260105 on amd64 (about 22.7 KiB, 23245 bytes; not installed here, LIBCPUCYCLES_SO=FILE names one)"
  fi
  echo "$line"
done
