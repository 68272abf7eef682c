#!/bin/sh
# SPDX-License-Identifier: MIT
# compare-builds.sh - how often cpucycles-compare (its defaults: 10
# executions of 0.5 s) gets builds right, run by `make bench` (measured,
# never asserted).  Pairs of shared objects from one loop of ITER
# iterations (dec/jnz on x86, subs/b.ne on arm64, a plain loop elsewhere):
#   +1%        NEW does 1% more iterations       goal: slower >= 95%
#   +0.5%      NEW does 0.5% more                goal: slower >= 95%
#   identical  the same source built again       goal: different <= 5%
#   padded     rebuilt with 300 bytes of code    goal: different <= 5%
#              before the function
# and at most 10 s a comparison.  Usage: compare-builds.sh "TOOL COMMAND";
# COMPARE_BUILDS_RUNS comparisons per pair (default 20), CC the compiler.
set -u
tool=${1:?usage: compare-builds.sh 'cpucycles-compare command'}
runs=${COMPARE_BUILDS_RUNS:-20}
iter=2900
dir=$(mktemp -d "${TMPDIR:-/tmp}/compare-builds.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT

cat >"$dir/loop.c" <<'SRC'
#ifdef PAD
/* a function before the benchmark grew by 300 bytes */
void padding(void);
void padding(void) { __asm__ __volatile__(".skip 300, 0x90"); }
#endif
void benchmark(void *arg);
void benchmark(void *arg)
{
  unsigned long n = ITER;
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
build() { # name flags...
  name=$1; shift
  # (definition order kept: the padding lies before the benchmark)
  ${CC:-cc} -O2 -shared -fPIC -fno-toplevel-reorder -Wl,-soname,libloop.so.1 "$@" \
    -o "$dir/$name.so" "$dir/loop.c" || exit 1
}
build old -DITER=$iter
build again -DITER=$iter
build plus1 -DITER=$((iter * 101 / 100))
build plus05 -DITER=$((iter * 1005 / 1000))
build padded -DITER=$iter -DPAD

echo "cpucycles-compare on builds of a $iter-iteration loop, $runs comparisons each (defaults:"
echo "10 executions of 0.5 s); $(uptime | sed 's/^ *//')"
printf '%-10s %7s %7s %18s %7s  %s\n' pair slower faster indistinguishable "s each" goal
for pair in "+1% plus1 slower" "+0.5% plus05 slower" "identical again same" "padded padded same"; do
  set -- $pair
  label=$1 new=$2 want=$3
  slower=0 faster=0 same=0 errors=0 i=0
  start=$(date +%s.%N 2>/dev/null || date +%s)
  while [ $i -lt "$runs" ]; do
    verdict=$($tool "$dir/old.so" "$dir/$new.so" 2>/dev/null | awk '$1 == "benchmark" { print $NF }')
    case $verdict in
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
    goal=$(awk -v k=$slower -v n=$runs 'BEGIN { printf "slower %d%% (goal >= 95%%)", 100 * k / n }')
  else
    goal=$(awk -v k=$((slower + faster)) -v n=$runs 'BEGIN { printf "different %d%% (goal <= 5%%)", 100 * k / n }')
  fi
  [ $errors -gt 0 ] && goal="$goal, $errors errors"
  printf '%-10s %7d %7d %18d %7s  %s\n' "$label" $slower $faster $same "$each" "$goal"
done
echo "$(uptime | sed 's/^ *//')"
