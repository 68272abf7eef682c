#!/bin/sh
# SPDX-License-Identifier: MIT
# gbench-git.sh - "is my branch slower than main?" asked as users ask it:
# `cpucycles-compare --git` on revisions of a Google Benchmark program in
# a throwaway git repository, run by `make bench` (measured, never
# asserted), side by side with Google Benchmark's compare.py on the same
# executables.  The program has three benchmarks:
#   BM_Fnv/1000   FNV-1a over 1000 bytes (a dependent chain: its time is
#                 linear in the bytes)
#   BM_Sum/4096   a sum of 4096 bytes (vectorized)
#   BM_Crc/512    a bitwise CRC-32 of 512 bytes (branches)
# and each revision is compared against the first, `main`:
#   identical  a comment changed
#   plus3      BM_Fnv hashes 3% more bytes (1030), nothing else changed
#   padded     code and data moved (a function and an array that nothing
#              uses, before the benchmarks), nothing else changed
# The goals (issue 43), on this two-speed VM, nothing else running:
#   BM_Fnv in plus3 called slower in >= 19 of 20 comparisons;
#   every unchanged row, in every pair, called slower or faster in <= 1
#   of 20, and "cannot judge" in <= 1 of 20;
#   <= 30 s a comparison of three benchmarks, once built (the line after
#   the table says how it grows: one benchmark alone);
#   each revision built once across all of it (the build command logs
#   each build; the cache is this run's own).
# compare.py (libbenchmark-tools, with a python3 that has scipy) runs
# each pair's two executables, those cpucycles-compare ran, 10
# repetitions of 0.05 s each, and a row is "slower" or "faster" where its
# U test's p < 0.05 (its default alpha), by the sign of the mean's change.
# Usage: gbench-git.sh "CPUCYCLES-COMPARE COMMAND"; GBENCH_GIT_PAIRS
# comparisons a row (default 20), CXX the C++ compiler, GBENCH_COMPARE
# compare.py.  Needs git, python3 and libbenchmark-dev; says so and stops
# (status 0) where one is missing.
set -u
tool=${1:?usage: gbench-git.sh 'cpucycles-compare command'}
pairs=${GBENCH_GIT_PAIRS:-20}
cxx=${CXX:-c++}
dir=$(mktemp -d "${TMPDIR:-/tmp}/gbench-git.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
trap 'exit 130' INT TERM
for need in git python3; do
  command -v $need >/dev/null 2>&1 || { echo "gbench-git: not run (no $need)"; exit 0; }
done

# The program, its variants made by sed from one text: @BYTES@ the bytes
# BM_Fnv hashes of its argument's 1000, @PAD@ what padded adds.
cat >"$dir/bench.cc.in" <<'EOF'
// A Google Benchmark program: three benchmarks of a user's library.
#include <benchmark/benchmark.h>
#include <cstdint>
#include <cstring>
@PAD@
static unsigned char bytes[4096];

static uint64_t fnv(const unsigned char *p, size_t n)
{
  uint64_t h = 14695981039346656037ull;
  for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

static uint32_t crc(const unsigned char *p, size_t n)
{
  uint32_t c = 0xffffffff;
  for (size_t i = 0; i < n; i++) {
    c ^= p[i];
    for (int k = 0; k < 8; k++) c = (c >> 1) ^ (0xedb88320 & (0 - (c & 1)));
  }
  return ~c;
}

static void BM_Fnv(benchmark::State &state)
{
  size_t n = @BYTES@;
  for (auto _ : state) {
    benchmark::DoNotOptimize(bytes);
    benchmark::DoNotOptimize(fnv(bytes, n));
  }
}
BENCHMARK(BM_Fnv)->Arg(1000);

static void BM_Sum(benchmark::State &state)
{
  for (auto _ : state) {
    benchmark::DoNotOptimize(bytes);
    unsigned sum = 0;
    for (size_t i = 0; i < (size_t)state.range(0); i++) sum += bytes[i];
    benchmark::DoNotOptimize(sum);
  }
}
BENCHMARK(BM_Sum)->Arg(4096);

static void BM_Crc(benchmark::State &state)
{
  for (auto _ : state) {
    benchmark::DoNotOptimize(bytes);
    benchmark::DoNotOptimize(crc(bytes, (size_t)state.range(0)));
  }
}
BENCHMARK(BM_Crc)->Arg(512);

int main(int argc, char **argv)
{
  for (size_t i = 0; i < sizeof bytes; i++) bytes[i] = (unsigned char)(i * 131 + 7);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  return 0;
}
EOF
variant() { # BYTES PAD
  sed -e "s#@BYTES@#$1#" -e "s|@PAD@|$2|" "$dir/bench.cc.in" >"$dir/repo/bench.cc"
}
pad='__attribute__((used, noinline)) void pad_code(unsigned char *p) { for (int i = 0; i < 61; i++) p[i] ^= (unsigned char)(i * 7 + p[i + 1]); }\
__attribute__((used)) unsigned char pad_data[200];'

mkdir "$dir/repo" && cd "$dir/repo" || exit 1
git init -q -b main . && git config user.email bench@localhost && git config user.name bench || exit 1
variant 'state.range(0)' '' && git add bench.cc && git commit -q -m main || exit 1
if ! $cxx -O2 -o "$dir/probe" bench.cc -lbenchmark -lpthread >"$dir/cc.log" 2>&1; then
  echo "gbench-git: not run ($cxx builds no Google Benchmark program; Debian: libbenchmark-dev)"
  sed 's/^/  /' "$dir/cc.log" | head -n 3
  exit 0
fi
git checkout -q -b identical main && sed -i 's|^// A Google Benchmark program|// The Google Benchmark program|' bench.cc &&
  git commit -q -am "a comment changed" || exit 1
git checkout -q -b plus3 main && variant 'state.range(0) * 103 / 100' '' && git commit -q -am "BM_Fnv: 3% more bytes" || exit 1
git checkout -q -b padded main && variant 'state.range(0)' "$pad" && git commit -q -am "padded" || exit 1
git checkout -q main

XDG_CACHE_HOME=$dir/cache && export XDG_CACHE_HOME
build="$cxx -O2 -o bench bench.cc -lbenchmark -lpthread && echo \"\$CPUCYCLES_REVISION\" >>'$dir/builds'"

# compare.py, where it can run
gbench_compare=${GBENCH_COMPARE:-/usr/share/benchmark/compare.py}
gbench_python=
for p in python3 /usr/bin/python3; do
  if "$p" -c 'import scipy' >/dev/null 2>&1; then gbench_python=$p; break; fi
done
if [ ! -f "$gbench_compare" ]; then
  why_not="$gbench_compare: no such file; Debian: libbenchmark-tools"
elif [ -z "$gbench_python" ]; then
  why_not="no python3 with scipy; Debian: python3-scipy"
else
  why_not=
fi

# comparisons ASKED: cpucycles-compare --git main REV, then compare.py on
# the two programs it ran; each row's verdicts and ratios in $dir/ours
# and $dir/theirs, a line per comparison and row: REV NAME VERDICT RATIO
compare() { # REV
  start=$(date +%s.%N)
  $tool --git --build "$build" --artifact bench --format json main "$1" >"$dir/out.json" 2>"$dir/err"
  status=$?
  rm -f "$dir/out.json.programs"
  echo "$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')" >>"$dir/seconds-$1"
  python3 - "$dir/out.json" "$1" "$status" >>"$dir/ours" <<'EOF' || { echo "cpucycles-compare, $1: exit $status"; sed 's/^/  /' "$dir/err" | tail -n 5; }
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["rows"]:
    print(sys.argv[2], r["name"], r["verdict"].replace(" ", "-"), "-" if r["ratio"] is None else r["ratio"])
with open(sys.argv[1] + ".programs", "w") as f:
    f.write(d["old_program"] + "\n" + d["new_program"] + "\n")
EOF
  [ -z "$why_not" ] && [ -f "$dir/out.json.programs" ] || return
  { read -r old; read -r new; } <"$dir/out.json.programs"
  rm -f "$dir/gb.json"
  "$gbench_python" "$gbench_compare" --no-color -d "$dir/gb.json" benchmarks "$old" "$new" \
    --benchmark_repetitions=10 --benchmark_min_time=0.05 >/dev/null 2>&1
  "$gbench_python" - "$dir/gb.json" "$1" >>"$dir/theirs" <<'EOF'
import json, sys
rows = json.load(open(sys.argv[1]))
for r in rows:
    if not r.get("utest") or r.get("run_type") == "aggregate":
        continue
    name = r["name"]
    p = r["utest"]["time_pvalue"]
    mean = [m for m in rows if m.get("run_type") == "aggregate" and m.get("aggregate_name") == "mean"
            and m["name"] == name + "_mean"][0]["measurements"][0]["time"]
    verdict = "indistinguishable" if p >= 0.05 else "slower" if mean > 0 else "faster"
    print(sys.argv[2], name, verdict, 1 + mean)
EOF
}

# each revision built, and everything warmed, before anything is timed
for rev in identical plus3 padded; do
  $tool --git --build "$build" --artifact bench --executions 2 --seconds 0.01 main $rev >/dev/null 2>"$dir/err"
  case $? in
    0|1|3|4) ;;
    *) echo "gbench-git: cpucycles-compare --git main $rev failed:"; sed 's/^/  /' "$dir/err" | tail -n 5; exit 1 ;;
  esac
done

echo "cpucycles-compare --git on a Google Benchmark program (3 benchmarks), each revision"
echo "against main, $pairs comparisons each (defaults: 20 pairs, 0.05 s a benchmark); $(uptime | sed 's/^ *//')"
i=0
while [ $i -lt "$pairs" ]; do
  for rev in identical plus3 padded; do compare $rev; done
  i=$((i + 1))
done

# one row's verdicts: slower faster indistinguishable cannot, ratios' range
table() { # FILE WHO
  printf '%-10s %-12s %6s %6s %6s %6s  %-24s  %s\n' pair row slower faster same "can't" "new/old: min median max" goal
  for rev in identical plus3 padded; do
    for name in BM_Fnv/1000 BM_Sum/4096 BM_Crc/512; do
      awk -v rev=$rev -v name=$name -v pairs="$pairs" -v who="$2" '
        $1 == rev && $2 == name { n[$3]++; seen++; if ($4 != "-") r[++k] = $4 }
        END {
          few = int((pairs + 19) / 20)
          for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (r[j] < r[i]) { t = r[i]; r[i] = r[j]; r[j] = t }
          range = k ? sprintf("%.4f %.4f %.4f", r[1], r[int((k + 1) / 2)], r[k]) : "-"
          if (rev == "plus3" && name == "BM_Fnv/1000") {
            goal = sprintf("slower >= %d", pairs - few); ok = n["slower"] >= pairs - few
          } else {
            goal = sprintf("slower+faster <= %d, can'"'"'t <= %d", few, few)
            ok = n["slower"] + n["faster"] <= few && n["cannot-judge"] <= few
          }
          # a comparison that failed gave no row: not met
          if (seen < pairs) { goal = goal sprintf(", %d of %d comparisons missing", pairs - seen, pairs); ok = 0 }
          printf "%-10s %-12s %6d %6d %6d %6d  %-24s  %s%s\n", rev, name, n["slower"], n["faster"],
            n["indistinguishable"], n["cannot-judge"], range, who == "ours" ? goal ": " : "", who == "ours" ? (ok ? "met" : "NOT met") : ""
        }' "$1"
    done
  done
}
table "$dir/ours" ours
for rev in identical plus3 padded; do
  sort -n "$dir/seconds-$rev" | awk -v rev=$rev '{ s[NR] = $1 } END { printf "%s: a comparison took %.1f s (median), %.1f s at most; ", rev, s[int((NR + 1) / 2)], s[NR] }'
done
echo "goal: <= 30 s"
start=$(date +%s.%N)
$tool --git --build "$build" --artifact bench --filter 'BM_Fnv' main identical >/dev/null 2>&1
echo "one benchmark alone (--filter BM_Fnv): $(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s (the time grows with the benchmarks, linearly)"
echo "builds: $(sort "$dir/builds" | uniq -c | awk '{ printf "%s%s %d", n++ ? ", " : "", $2, $1 }') (goal: each revision once: $(sort "$dir/builds" | uniq -d | grep -q . && echo "NOT met" || echo met))"
echo "$(uptime | sed 's/^ *//')"
if [ -n "$why_not" ]; then
  echo "Google Benchmark's compare.py: not run ($why_not)"
else
  echo
  echo "Google Benchmark's compare.py on the same programs (10 repetitions of 0.05 s, U test at"
  echo "alpha 0.05), in the same run, after each of ours"
  table "$dir/theirs" theirs
fi
