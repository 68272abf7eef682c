#!/bin/sh
# SPDX-License-Identifier: MIT
# compare-builds.sh - how often cpucycles-compare (its defaults: 20
# executions of 0.25 s) gets builds right, run by `make bench` (measured,
# never asserted).  Each build is a tree as meson and relocatable layouts
# make them: bench.so, a loop (dec/jnz on x86, subs/b.ne on arm64, a plain
# loop elsewhere) of as many iterations as its own libwork.so.1 says,
# found through RUNPATH $ORIGIN (two versions of one soname, one a build).
# Pairs of builds:
#   +1%        NEW does 1% more iterations       goal: slower >= 95%
#   +0.5%      NEW does 0.5% more                goal: slower >= 95%
#   identical  the same source built again       goal: different <= 5%
#   padded     rebuilt with 300 bytes of code    goal: different <= 5%
#              before the function
# and at most 10 s a comparison; then the same builds under Google
# Benchmark's compare.py, where it is installed (below).  Usage:
# compare-builds.sh "TOOL COMMAND"; COMPARE_BUILDS_RUNS comparisons per
# pair (default 20), CC and CXX the compilers, GBENCH_COMPARE compare.py.
set -u
tool=${1:?usage: compare-builds.sh 'cpucycles-compare command'}
runs=${COMPARE_BUILDS_RUNS:-20}
iter=2900
dir=$(mktemp -d "${TMPDIR:-/tmp}/compare-builds.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT

cat >"$dir/work.c" <<'SRC'
unsigned long work_iterations(void);
unsigned long work_iterations(void) { return ITER; }
SRC
cat >"$dir/loop.c" <<'SRC'
#ifdef PAD
/* a function before the benchmark grew by 300 bytes */
void padding(void);
void padding(void) { __asm__ __volatile__(".skip 300, 0x90"); }
#endif
unsigned long work_iterations(void);
void benchmark(void *arg);
void benchmark(void *arg)
{
  unsigned long n = work_iterations();
  (void)arg;
#if defined(__x86_64__) || defined(__i386__)
  __asm__ __volatile__("1: dec %0\n\tjnz 1b" : "+r"(n) : : "cc");
#elif defined(__aarch64__)
  __asm__ __volatile__("1: subs %0, %0, #1\n\tb.ne 1b" : "+r"(n) : : "cc");
#else
  for (; n; n--) __asm__ __volatile__("" : "+r"(n));
#endif
}
SRC
build() { # name iterations [flags...]: $dir/name/bench.so and its libwork.so.1
  name=$1 n=$2; shift 2
  mkdir -p "$dir/$name" &&
    ${CC:-cc} -O2 -shared -fPIC -Wl,-soname,libwork.so.1 -DITER="$n" -o "$dir/$name/libwork.so.1" \
      "$dir/work.c" || exit 1
  # (definition order kept: the padding lies before the benchmark)
  ${CC:-cc} -O2 -shared -fPIC -fno-toplevel-reorder -Wl,-soname,libloop.so.1 "$@" \
    -o "$dir/$name/bench.so" "$dir/loop.c" "$dir/$name/libwork.so.1" -Wl,-rpath,'$ORIGIN' || exit 1
}
build old $iter
build again $iter
build plus1 $((iter * 101 / 100))
build plus05 $((iter * 1005 / 1000))
build padded $iter -DPAD

# table: the pairs' table, each pair compared $runs times: $verdict_of NEW
# prints slower, faster or indistinguishable for old.so against NEW's
# build; goals=1 prints the goals beside the figures.
table() {
  printf '%-10s %7s %7s %18s %7s  %s\n' pair slower faster indistinguishable "s each" goal
  for pair in "+1% plus1 slower" "+0.5% plus05 slower" "identical again same" "padded padded same"; do
    set -- $pair
    label=$1 new=$2 want=$3
    slower=0 faster=0 same=0 errors=0 i=0
    start=$(date +%s.%N 2>/dev/null || date +%s)
    while [ $i -lt "$runs" ]; do
      case $($verdict_of "$new") in
        slower) slower=$((slower + 1)) ;;
        faster) faster=$((faster + 1)) ;;
        indistinguishable) same=$((same + 1)) ;;
        *) errors=$((errors + 1)) ;;
      esac
      i=$((i + 1))
    done
    end=$(date +%s.%N 2>/dev/null || date +%s)
    each=$(awk -v a="$start" -v b="$end" -v n="$runs" 'BEGIN { printf "%.1f", (b - a) / n }')
    if [ "$want" = slower ]; then
      goal=$(awk -v k=$slower -v n=$runs 'BEGIN { printf "slower %d%%", 100 * k / n }')
      [ "$goals" = 1 ] && goal="$goal (goal >= 95%)"
    else
      goal=$(awk -v k=$((slower + faster)) -v n=$runs 'BEGIN { printf "different %d%%", 100 * k / n }')
      [ "$goals" = 1 ] && goal="$goal (goal <= 5%)"
    fi
    [ $errors -gt 0 ] && goal="$goal, $errors errors"
    printf '%-10s %7d %7d %18d %7s  %s\n' "$label" $slower $faster $same "$each" "$goal"
  done
}
tool_verdict() {
  $tool "$dir/old/bench.so" "$dir/$1/bench.so" 2>/dev/null | awk '$1 == "benchmark" { print $NF }'
}

echo "cpucycles-compare on builds of a $iter-iteration loop, each finding its libwork.so.1 by"
echo "\$ORIGIN, $runs comparisons each (defaults: 20 executions of 0.25 s); $(uptime | sed 's/^ *//')"
verdict_of=tool_verdict goals=1
table
echo "$(uptime | sed 's/^ *//')"

# The same builds under Google Benchmark's own cross-build comparison
# (compare.py benchmarks OLD NEW: each build's program run alone, 10
# repetitions, a Mann-Whitney U test at its default alpha 0.05, the sign
# of the mean's change), where Debian's libbenchmark-dev and
# libbenchmark-tools serve (and a python3 with scipy, which compare.py
# imports).  Each build's program is bench/gbench-loop.cc linked to that
# build's shared object.
gbench_compare=${GBENCH_COMPARE:-/usr/share/benchmark/compare.py}
gbench_verdict() {
  rm -f "$dir/gb.json"
  "$gbench_python" "$gbench_compare" --no-color -d "$dir/gb.json" benchmarks \
    "$dir/gb-old/bench" "$dir/gb-$1/bench" --benchmark_repetitions=10 --benchmark_min_time=0.05 \
    >/dev/null 2>&1
  "$gbench_python" -c '
import json, sys
rows = json.load(open(sys.argv[1]))
p = [r["utest"]["time_pvalue"] for r in rows if r.get("utest")][0]
mean = [r["measurements"][0]["time"] for r in rows if r.get("aggregate_name") == "mean"][0]
print("indistinguishable" if p >= 0.05 else "slower" if mean > 0 else "faster")
' "$dir/gb.json" 2>/dev/null
}
gbench_python=
for p in python3 /usr/bin/python3; do
  if "$p" -c 'import scipy' >/dev/null 2>&1; then gbench_python=$p; break; fi
done
here=$(cd "$(dirname "$0")" && pwd)
gbench_ready=
for name in old again plus1 plus05 padded; do
  mkdir -p "$dir/gb-$name" && cp "$dir/$name/bench.so" "$dir/gb-$name/libloop.so.1" &&
    cp "$dir/$name/libwork.so.1" "$dir/gb-$name/" &&
    ${CXX:-c++} -O2 -o "$dir/gb-$name/bench" "$here/gbench-loop.cc" "$dir/gb-$name/libloop.so.1" \
      -Wl,-rpath,'$ORIGIN' -lbenchmark -lpthread >"$dir/gb.log" 2>&1 || { gbench_ready=no; break; }
done
if [ ! -f "$gbench_compare" ]; then
  echo "Google Benchmark's compare.py: not run ($gbench_compare: no such file; Debian: libbenchmark-tools)"
elif [ -z "$gbench_python" ]; then
  echo "Google Benchmark's compare.py: not run (no python3 with scipy; Debian: python3-scipy)"
elif [ "$gbench_ready" = no ]; then
  echo "Google Benchmark's compare.py: not run (${CXX:-c++} builds no Google Benchmark program; Debian: libbenchmark-dev)"
  sed 's/^/  /' "$dir/gb.log" | head -n 5
else
  echo
  echo "Google Benchmark's compare.py on the same builds, $runs comparisons each"
  echo "(10 repetitions of 0.05 s per build, U test at alpha 0.05); $(uptime | sed 's/^ *//')"
  verdict_of=gbench_verdict goals=0
  table
  echo "$(uptime | sed 's/^ *//')"
fi
