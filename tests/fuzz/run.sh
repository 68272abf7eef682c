#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/fuzz/run.sh [SECONDS] - build every libFuzzer harness tests/fuzz/fuzz-NAME.c
# with clang (ASan + UBSan, any UB fatal) and run it for SECONDS (default
# 60) on a scratch copy of its seed corpus, tests/fuzz/corpus/NAME/.
# Prints one line per harness,
#   fuzz NAME: N executions, no findings
#   fuzz NAME: N executions, FOUND ... (the log's tail follows)
# and exits non-zero when any harness fails to build or finds anything
# (a crash, a sanitizer report, a failed check, a leak, a timeout).
# Needs clang with libFuzzer (Debian: clang and libclang-rt-N-dev).
# Environment: CLANG (default clang); FUZZ_OUT, a directory for the builds,
# logs and failing inputs (default: a temporary one, kept only when
# something was found).
set -u
seconds=${1:-60}
case $seconds in '' | *[!0-9]*) echo "usage: $0 [SECONDS]" >&2; exit 2 ;; esac
here=$(cd "$(dirname "$0")" && pwd) || exit 2
top=$(cd "$here/../.." && pwd) || exit 2
clang=${CLANG:-clang}
if [ -n "${FUZZ_OUT:-}" ]; then
  out=$FUZZ_OUT
  mkdir -p "$out" || exit 2
else
  out=$(mktemp -d "${TMPDIR:-/tmp}/cpucycles-fuzz.XXXXXX") || exit 2
fi
status=0

# The number after "stat::number_of_executed_units:" in a libFuzzer log.
executions() {
  n=$(sed -n 's/^stat::number_of_executed_units: *//p' "$1" | tail -n 1)
  echo "${n:-0}"
}

for src in "$here"/fuzz-*.c; do
  name=$(basename "$src" .c)
  name=${name#fuzz-}
  bin=$out/fuzz-$name
  log=$out/$name.log
  if ! "$clang" -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
      -Wall -Wextra -Werror -I "$top/include" -I "$top/src/util" -I "$top/src/core" -I "$top/src/core/setup" -I "$top/src/tools" -I "$top/src" -I "$top" "$src" -o "$bin" >"$out/$name.build.log" 2>&1; then
    echo "fuzz $name: 0 executions, FOUND a build failure"
    sed 's/^/  /' "$out/$name.build.log"
    status=1
    continue
  fi
  # libFuzzer adds what it finds to the first corpus directory: a copy,
  # so that the seeds in the source tree stay as they are.
  corpus=$out/corpus-$name
  mkdir -p "$corpus" "$out/artifacts-$name"
  if [ -d "$here/corpus/$name" ]; then cp "$here/corpus/$name"/* "$corpus"/ 2>/dev/null; fi
  # fuzz-elf's seed is a shared object, linked here rather than stored
  if [ "$name" = elf ]; then
    "$clang" -O2 -shared -fPIC -o "$corpus/fixture.so" "$top/tests/compare-fixture.c" 2>/dev/null
    # and one that needs libraries and finds them through $ORIGIN
    "$clang" -O2 -shared -fPIC -DWORK_ELSEWHERE -DMARKER=seed -Wl,-rpath,'$ORIGIN' -Wl,--no-as-needed -lm \
      -o "$corpus/origin.so" "$top/tests/compare-fixture.c" 2>/dev/null
  fi
  "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$out/artifacts-$name/" "$corpus" >"$log" 2>&1
  rc=$?
  found=$(ls "$out/artifacts-$name" | head -n 1)
  if [ "$rc" -eq 0 ] && [ -z "$found" ]; then
    echo "fuzz $name: $(executions "$log") executions, no findings"
  else
    echo "fuzz $name: $(executions "$log") executions, FOUND (exit $rc) ${found:+$out/artifacts-$name/$found}"
    tail -n 40 "$log" | sed 's/^/  /'
    status=1
  fi
done

if [ "$status" -eq 0 ] && [ -z "${FUZZ_OUT:-}" ]; then
  rm -rf "$out"
elif [ "$status" -ne 0 ]; then
  echo "fuzz: builds, logs and failing inputs are in $out"
fi
exit "$status"
