#!/bin/sh
# SPDX-License-Identifier: MIT
# t-compare-programs - cpucycles-compare on two Google Benchmark programs
# as they are: one row per benchmark under GB's own names (with '/' and
# ':'), OLD's order; NEW's BM_Work at 3 times the work called slower
# (exit 1); --filter; --format json (one comparison document, schema 2,
# its rows one per benchmark and nothing else, names exact, verdict
# words) and markdown (a header line with the command, a table worst
# first, names in backticks) with --plot's SVG of the rows; a program
# that re-executes itself without address-space randomization, as GB
# >= 1.9.3 does, is kept from it (said in the JSON) and its stack moves
# between runs; on a host whose speed changes during a run (a shim) the
# pair is measured again, to a bound; a shared object against
# a program, and a program that is no GB program, refused (exit 2).  Only
# what noise cannot change is asserted (tests/README.md): 3 times the
# work, and no status but 0, 3 and 4 for one program against itself.
# The programs are tests/gbench-fixture.cc (make check builds it where
# configure found libbenchmark), OLD and NEW built from it here with $CXX.
set -u
. "$top_srcdir/tests/tap.sh"
tool="$top_builddir/libtool --mode=execute ${CPUCYCLES_PROBE_RUNNER:-} $top_builddir/cpucycles-compare"
total=18
echo "1..$total"
skip_all() { i=0; while [ $i -lt $total ]; do skip "cpucycles-compare on GB programs" "$1"; i=$((i + 1)); done; exit 0; }
[ -z "${CPUCYCLES_PROBE_RUNNER:-}" ] || skip_all "run through a probe runner (the tool starts programs)"
[ -z "${CPUCYCLES_GBENCH_WHY:-}" ] || skip_all "$CPUCYCLES_GBENCH_WHY"
[ -x "$top_builddir/tests/gbench-fixture" ] || skip_all "no tests/gbench-fixture"
case " ${CFLAGS:-} " in *-fsanitize*) skip_all "a sanitizer build (the programs run under the tool's seccomp filter)" ;; esac
dir=$(mktemp -d "${TMPDIR:-/tmp}/t-compare-programs.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
mkdir "$dir/tmp" && TMPDIR=$dir/tmp && export TMPDIR
out=$dir/out err=$dir/err
# OLD and NEW built here alike (-O2 whatever the build's flags: at -O0
# BM_Work's chain goes through the stack, and how fast depends on where
# the stack lies, run by run)
old=$dir/gbench-fixture
if ! ${CXX:-c++} -O2 -I/usr/include -o "$old" "$top_srcdir/tests/gbench-fixture.cc" -lbenchmark -lpthread >"$dir/cc.log" 2>&1 ||
   ! ${CXX:-c++} -O2 -DSLOWER=3 -I/usr/include -o "$dir/new" "$top_srcdir/tests/gbench-fixture.cc" -lbenchmark -lpthread >"$dir/cc.log" 2>&1; then
  skip_all "$CXX cannot build OLD and NEW: $(head -n 1 "$dir/cc.log")"
fi
if command -v timeout >/dev/null 2>&1; then bounded="timeout 300"; else bounded=; fi
quick="--executions 6 --seconds 0.02"
run() { $bounded $tool "$@" >"$out" 2>"$err"; status=$?; }
show() { sed 's/^/# /' "$out" "$err"; }
row() { grep "^$1 " "$out"; }

run $quick "$old" "$dir/new"
if [ $status -eq 1 ] && row BM_Work | grep -q ' slower$' &&
   [ "$(sed -n 's/^\(BM_[A-Za-z]*\/*[^ ]*\) .*/\1/p' "$out" | tr '\n' ' ')" = "BM_Sum/64 BM_Sum/4096 BM_Shared/threads:2 BM_Work " ]; then
  ok "NEW's BM_Work at 3 times the work: slower, exit 1; the rows GB's names in its order: $(row BM_Work | tr -s ' ')"
else
  notok "NEW's BM_Work at 3 times the work: exit $status, want 1, BM_Work slower and the four names"; show
fi
run $quick --filter 'BM_Sum' "$old" "$dir/new"
if [ $status -ne 2 ] && [ "$(sed -n 's/^\(BM_[^ ]*\) .*/\1/p' "$out" | tr '\n' ' ')" = "BM_Sum/64 BM_Sum/4096 " ]; then
  ok "--filter BM_Sum: its two rows only (exit $status)"
else
  notok "--filter BM_Sum: exit $status, want the two BM_Sum rows"; show
fi
run $quick --format json "$old" "$dir/new"
if [ $status -eq 1 ] && { ! command -v python3 >/dev/null 2>&1 || python3 -c '
import json, sys
d = json.loads(open(sys.argv[1]).read(), parse_constant=lambda c: 1 / 0)
assert d["schema"] == 2 and d["type"] == "comparison" and d["status"] == 1, d
assert [r["name"] for r in d["rows"]] == ["BM_Sum/64", "BM_Sum/4096", "BM_Shared/threads:2", "BM_Work"], d["rows"]
assert all(set(r) >= {"name", "verdict", "ratio", "ratio_low", "ratio_high", "old", "new"} for r in d["rows"]), d
assert all(r["verdict"] in ("slower", "faster", "indistinguishable", "cannot judge") for r in d["rows"]), d
work = d["rows"][3]
assert work["verdict"] == "slower" and work["ratio_low"] > 2 and len(work["ratio_samples"]) == 6, work
assert d["aslr_kept"] is True and d["pairs"] == 6, d
if sys.argv[2] == "x86_64":
    # each run copy moved: offsets in the step, not all one
    for side in ("old", "new"):
        step, offsets = d[side + "_code_step"], d[side + "_code_offsets"]
        assert step >= 16 and len(offsets) == 6 and all(o % step == 0 and 0 <= o < 4096 for o in offsets), d
        assert len(set(offsets)) > 1 and d[side + "_not_moved_why"] is None, d
' "$out" "$(uname -m)" 2>"$dir/py"; }; then
  ok "--format json: one comparison, its rows GB's four benchmarks and nothing else, names exact, exit 1; each copy's code moved within its pages"
else
  notok "--format json: exit $status"; sed 's/^/# /' "$dir/py" 2>/dev/null; show
fi
# the header counts BM_Work and any row noise calls slower at tolerance 0
run $quick --format markdown --plot "$dir/plot.svg" "$old" "$dir/new"
if [ $status -eq 1 ] && head -n 1 "$out" | grep -q '^\*\*cpucycles-compare\*\*: `.*new` against `.*gbench-fixture`: [1-4] slower' &&
   grep -q '^Command: `cpucycles-compare --executions 6 --seconds 0.02 --format markdown ' "$out" &&
   grep -q '^| benchmark | new/old | 99% interval | old | new | verdict |$' "$out" &&
   [ "$(grep '^| `' "$out" | head -n 1 | cut -d'|' -f2)" = ' `BM_Work` ' ] &&
   grep -q '^| `BM_Shared/threads:2` |' "$out"; then
  ok "--format markdown: the header, the command, a table worst first (BM_Work), names in backticks"
else
  notok "--format markdown: exit $status, want 1, the header, the command and BM_Work first"; show
fi
if [ -f "$dir/plot.svg" ] && { ! command -v python3 >/dev/null 2>&1 || python3 -c '
import sys, xml.etree.ElementTree as ET
svg = "{http://www.w3.org/2000/svg}"
rows = ET.parse(sys.argv[1]).getroot().findall(svg + "g")
names = [r.find(svg + "text").text for r in rows]
assert sorted(names) == ["BM_Shared/threads:2", "BM_Sum/4096", "BM_Sum/64", "BM_Work"], names
assert names[0] == "BM_Work" and rows[0].findall(svg + "text")[1].text.startswith("slower "), names
' "$dir/plot.svg" 2>"$dir/py"; }; then
  ok "--plot beside --format markdown: an SVG of the four rows in the table's order, BM_Work first, slower"
else
  notok "--plot beside --format markdown: no picture of the rows"; sed 's/^/# /' "$dir/py" 2>/dev/null
fi
# one program against itself: never slower beyond 50% (no error either)
run $quick --tolerance 50 "$old" "$old"
if [ $status -eq 0 ] || [ $status -eq 4 ]; then
  ok "OLD against itself, --tolerance 50: exit $status (not slower)"
else
  notok "OLD against itself, --tolerance 50: exit $status"; show
fi
# GB >= 1.9.3 re-executes itself without ASLR: the tool keeps it from that
reexec=$top_builddir/tests/gbench-reexec
if [ -x "$reexec" ]; then
  run --executions 4 --seconds 0.01 --format json "$reexec" "$reexec"
  if [ $status -ne 2 ] && grep -q '^  "aslr_kept": true,$' "$out"; then
    ok "a program that re-executes itself without ASLR (as GB >= 1.9.3): kept from it, said (exit $status)"
  else
    notok "a program that re-executes itself without ASLR: exit $status, want aslr_kept"; show
  fi
else
  skip "a program that re-executes itself without ASLR" "no tests/gbench-reexec"
fi
# A host whose speed changes while a program runs (tests/speedflip.so:
# each of the tool's first N forks switches it between its speed and 1.6
# times slower): a pair with a switch in it is measured again, in its
# place, up to twice the pairs; 9 switches disturb 4 of the 6 pairs (on
# code that left them out, 2 were left and the rows could not be judged,
# exit 4), a thousand every one of them, and then the rows cannot be
# judged, with the reason, after 12 pairs measured again.  OLD is the
# stand-in program, NEW the same at 3 times its time.
flip=$top_builddir/tests/.libs/speedflip.so
if [ ! -x "$reexec" ]; then
  why="no tests/gbench-reexec"
elif [ ! -f "$flip" ]; then
  why="no tests/speedflip.so (a static build)"
elif ! ${CC:-cc} -O2 -DTIMES=3 -o "$dir/reexec3" "$top_srcdir/tests/gbench-reexec.c" >"$dir/cc.log" 2>&1; then
  why="$CC cannot build the stand-in at 3 times: $(head -n 1 "$dir/cc.log")"
else
  why=
fi
member() { sed -n "s/^  \"$1\": \([0-9]*\),\$/\1/p" "$out"; }
if [ -n "$why" ]; then
  skip "the host's speed changed during 4 pairs" "$why"
  skip "the host's speed changed during every pair" "$why"
else
  CPUCYCLES_SPEEDFLIP=9 LD_PRELOAD=$flip run --executions 6 --seconds 0.01 --format json "$reexec" "$dir/reexec3"
  again=$(member remeasured_pairs)
  if [ $status -eq 1 ] && [ "${again:-0}" -ge 3 ] && [ "$again" -le 12 ] &&
     [ "$(grep -c '"pairs": 6, "left_out": 0,' "$out")" = 2 ] && [ "$(grep -c '"verdict": "slower"' "$out")" = 2 ]; then
    ok "the host's speed changed during 4 pairs: $again measured again, none left out, 3 times the time slower (exit 1)"
  else
    notok "the host's speed changed during 4 pairs: exit $status, want 1, pairs measured again and none left out"; show
  fi
  CPUCYCLES_SPEEDFLIP=1000 LD_PRELOAD=$flip run --executions 6 --seconds 0.01 --format json "$reexec" "$dir/reexec3"
  if [ $status -eq 4 ] && [ "$(member remeasured_pairs)" = 12 ] &&
     [ "$(grep -c '"verdict": "cannot judge", .*"reasons": \[.*"speed"' "$out")" = 2 ] &&
     [ "$(grep -c '"pairs": 0, "left_out": 6,' "$out")" = 2 ]; then
    ok "the host's speed changed during every pair: 12 measured again (twice the 6), then cannot judge, reason speed (exit 4)"
  else
    notok "the host's speed changed during every pair: exit $status, want 4 after 12 measured again"; show
  fi
fi
# refused: a shared object against a program, a program that is no GB one
${CC:-cc} -O2 -shared -fPIC -o "$dir/one.so" "$top_srcdir/tests/compare-fixture.c" >"$dir/cc.log" 2>&1
run "$dir/one.so" "$old"
if [ $status -eq 2 ] && grep -q "^cpucycles-compare: OLD .*one.so is a shared object, NEW .* a program: compare two shared objects, or two programs" "$err"; then
  ok "a shared object against a program: exit 2, $(cat "$err")"
else
  notok "a shared object against a program: exit $status, want 2 and why"; show
fi
# a program that is not position-independent: run as it is, and said
if ${CXX:-c++} -O2 -no-pie -I/usr/include -o "$dir/nopie" "$top_srcdir/tests/gbench-fixture.cc" -lbenchmark -lpthread >"$dir/cc.log" 2>&1; then
  run $quick "$dir/nopie" "$dir/new"
  if [ $status -eq 1 ] && grep -q "^not the code's offset within its pages for OLD (\(not position-independent\|not on x86-64\)" "$out"; then
    ok "a program that is not position-independent: compared, its code not moved, said: $(grep "^not the code's offset" "$out")"
  else
    notok "a program that is not position-independent: exit $status, want 1 and why its code is not moved"; show
  fi
else
  skip "a program that is not position-independent" "$CXX -no-pie cannot build it: $(head -n 1 "$dir/cc.log")"
fi
cp /bin/true "$dir/true"
run "$dir/true" "$dir/true"
if [ $status -eq 2 ] && grep -q '^cpucycles-compare: OLD .*true: ' "$err"; then
  ok "a program that is no GB program: exit 2, $(head -n 1 "$err")"
else
  notok "a program that is no GB program: exit $status, want 2 and why"; show
fi
run --symbol other "$old" "$dir/new"
if [ $status -eq 2 ] && grep -q -- '--symbol' "$err"; then
  ok "--symbol on programs: refused, exit 2 (--filter chooses their benchmarks)"
else
  notok "--symbol on programs: exit $status, want 2"; show
fi

# GB's own JSON (--benchmark_out_format=json) where the saved-baseline gate
# reads results: a file of one run is one execution a benchmark (cannot
# judge, exit 4, saying so); three runs concatenated (cat) are three,
# judged: BM_Work slower, exit 1, rows under GB's names (no _mean), and
# what GB's JSON lacks said; GB's JSON against cpucycles' results: measured
# apart (another unit), exit 4.
info="$top_builddir/libtool --mode=execute $top_builddir/cpucycles-info"
gb_runs() { # program file runs
  : >"$2"; i=0
  while [ $i -lt "$3" ]; do
    "$1" --benchmark_out="$2.one" --benchmark_out_format=json --benchmark_min_time=0.02 --benchmark_repetitions=2 >/dev/null 2>&1 &&
      cat "$2.one" >>"$2" || return 1
    i=$((i + 1))
  done
}
if gb_runs "$old" "$dir/gb-old1.json" 1 && gb_runs "$dir/new" "$dir/gb-new1.json" 1 &&
   gb_runs "$old" "$dir/gb-old.json" 3 && gb_runs "$dir/new" "$dir/gb-new.json" 3; then
  $info --compare "$dir/gb-old1.json" "$dir/gb-new1.json" >"$out" 2>"$err"; status=$?
  if [ $status -eq 4 ] && grep -q 'BM_Work: .* holds one execution of it' "$err"; then
    ok "GB's JSON, one run a side: one execution, cannot judge, exit 4"
  else
    notok "GB's JSON, one run a side: exit $status, want 4 and one execution said"; show
  fi
  $info --compare "$dir/gb-old.json" "$dir/gb-new.json" >"$out" 2>"$err"; status=$?
  if [ $status -eq 1 ] && grep -q '^BM_Work: old [0-9.]* ns per iteration (3 executions, .*: slower, beyond the tolerance of 5%$' "$out" &&
     grep -q '^BM_Shared/threads:2: ' "$out" && ! grep -q '_mean' "$out" &&
     grep -q "^(Google Benchmark's JSON: .*no counter, no host fingerprint" "$out"; then
    ok "GB's JSON, three runs concatenated a side: three executions, BM_Work slower, exit 1, what GB lacks said"
  else
    notok "GB's JSON, three runs a side: exit $status, want 1 and BM_Work slower"; show
  fi
  printf '{"type": "bench", "name": "BM_Work", "interquartile_mean": 500, "interquartile_mean_error": 1, "unit": "core cycles"}\n' >"$dir/ours.json"
  cat "$dir/ours.json" "$dir/ours.json" >"$dir/ours2.json"
  $info --compare "$dir/ours2.json" "$dir/gb-new.json" >"$out" 2>"$err"; status=$?
  if [ $status -eq 4 ] && grep -q 'was measured with unit seconds per iteration (Google Benchmark' "$err"; then
    ok "GB's JSON against cpucycles' results: measured apart (another unit), exit 4"
  else
    notok "GB's JSON against cpucycles' results: exit $status, want 4 and measured apart"; show
  fi
else
  skip "GB's JSON, one run a side" "the GB programs did not write their JSON"
  skip "GB's JSON, three runs a side" "the GB programs did not write their JSON"
  skip "GB's JSON against cpucycles' results" "the GB programs did not write their JSON"
fi

# The README's "Is my branch slower than main?" line, as written, is the
# one examples/compare-pr.yml runs; in a fixture repository whose HEAD
# makes BM_Work 3 times the work of its base's: exit 1, the Markdown table
# with BM_Work first and slower, the checkout left as it was.
line=$(sed -n 's/^    \(cpucycles-compare --git .*\)$/\1/p' "$top_srcdir/README.md")
if [ -n "$line" ] && grep -qF -- "$line" "$top_srcdir/examples/compare-pr.yml"; then
  ok "the README's line is the one examples/compare-pr.yml runs: $line"
else
  notok "the README's --git line ('$line') is not in examples/compare-pr.yml"
fi
if ! command -v git >/dev/null 2>&1; then
  skip "the README's line on a fixture repository" "no git"
else
  repo=$dir/repo
  mkdir "$repo" && cp "$top_srcdir/tests/gbench-fixture.cc" "$repo/bench.cc" &&
  (cd "$repo" && git init -q -b main && git config user.name t && git config user.email t@t &&
   printf '#define SLOWER 1\n' >slower.h && git add . && git commit -qm base &&
   git checkout -qb branch && printf '#define SLOWER 3\n' >slower.h && git commit -qam slower) >"$dir/git.log" 2>&1
  BUILD="${CXX:-c++} -O2 -include slower.h -o bench bench.cc -lbenchmark -lpthread" ARTIFACT=bench BASE=main
  export BUILD ARTIFACT BASE
  before=$(cd "$repo" && git status --porcelain && git rev-parse HEAD)
  abs_tool="$(cd "$top_builddir" && pwd)/libtool --mode=execute $(cd "$top_builddir" && pwd)/cpucycles-compare"
  (cd "$repo" && XDG_CACHE_HOME=$dir/cache eval "$(echo "$line" | sed "s|^cpucycles-compare |$bounded $abs_tool --executions 6 --seconds 0.02 |")") >"$out" 2>"$err"
  status=$?
  if [ $status -eq 1 ] && [ "$(grep '^| `' "$out" | head -n 1 | cut -d'|' -f2)" = ' `BM_Work` ' ] &&
     grep -q '^| `BM_Work` | .* | \*\*slower\*\*' "$out" &&
     [ "$(cd "$repo" && git status --porcelain && git rev-parse HEAD)" = "$before" ]; then
    ok "the README's line on a fixture repository (HEAD 3 times the work): exit 1, BM_Work first and slower, the checkout untouched"
  else
    notok "the README's line on a fixture repository: exit $status, want 1 and BM_Work slower first"; sed 's/^/# /' "$dir/git.log"; show
  fi
fi
