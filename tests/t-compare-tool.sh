#!/bin/sh
# SPDX-License-Identifier: MIT
# t-compare-tool - cpucycles-compare as scripts use it: --help, --version;
# exit 2 with a message, in bounded time, for each bad input (a missing
# file, one that is not ELF, an ELF object that is not a shared object, a
# missing symbol, each bad option value, a benchmark that segfaults, one
# that never returns under a short --timeout); NEW doing 3 times OLD's
# work called slower with exit 1, a third of it faster with exit 0, and
# two builds with one soname both loaded (each says so on stderr, and NEW's
# threefold work shows); --tolerance (exit 1 only beyond it); OLD against
# itself never an error, and exit 0 under a tolerance no noise reaches;
# --symbol twice gives two rows; --json strict JSON with its fields;
# --progress; --plot (an SVG picture, escaped, checked before measuring,
# replacing its file only when whole); on x86-64, each execution's copies moved to offsets within
# their pages that vary, are multiples of the step, and keep every address
# right (tests/compare-moved.c aborts if one is wrong), an object with a
# page-aligned section loaded unmoved with the reason in the output, and
# --no-copy said there too (elsewhere: nothing moved, and said).  Hostile
# conditions: a benchmark that leaves a process behind (system("... &"),
# fork) holds nothing up; stderr closed, or stdin and stdout, the run works
# and its report stays inside; SIGTERM ends the execution with the tool; a
# FIFO refused without blocking; a 20 ms call with --seconds 0.05 refused
# with the --seconds it needs, a 0.4 ms one measured in fewer pairs, said;
# without /proc, started through PATH: works, with copies and without;
# started as ld.so cpucycles-compare; --symbol twice and over
# 1024 bytes refused, of 1024 bytes measured; a path with a newline and an
# escape sequence relayed as one clean line; another machine's object
# named as such.
# Loading:
# a file named without a slash is that file (--no-copy, and when no copy
# can be made), not one of that name on the library path; a symbol only
# a library the build loads defines (libc's getpid) is missing; where no
# copy can be made (no directory for it: mkdir refused by a seccomp
# filter; a file over 256 MiB) each build is loaded as it is, and the text
# and --json say so and why; builds that find their own libwork.so.1
# through $ORIGIN (RUNPATH, RPATH), that dlopen("$ORIGIN/plug.so"), or
# that read a file beside their own path (dladdr()) are copied, each
# finding its own (3 times the work slower, identical ones not), and a
# build's own function still comes before its libwork's of that name; the
# copies' directories are gone at the end.  Only what noise cannot change is asserted (tests/README.md):
# 3 times the work, interleaved in every execution, and tolerances of 50%.
# The shared objects are tests/compare-fixture.c, compiled here with $CC.
set -u
. "$top_srcdir/tests/tap.sh"
tool="$top_builddir/libtool --mode=execute ${CPUCYCLES_PROBE_RUNNER:-} $top_builddir/cpucycles-compare"
dir=$(mktemp -d "${TMPDIR:-/tmp}/t-compare-tool.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
# the tool's own directories (its copies) in one of this test's, to be
# seen gone at the end, whatever else runs beside it
mkdir "$dir/tmp" && TMPDIR=$dir/tmp && export TMPDIR
out=$dir/out err=$dir/err
# short runs: 10 executions of 0.05 s per symbol.  10, whose 99%
# interval (Student's t at 9 degrees of freedom, 3.25) is about the
# executions' own spread: with 3 it is 5.7 times that (t at 2 degrees is
# 9.9), and beside a sanitizer or lto's build on CI's busy machine the
# interval of 3 times the work reached below 1.99, and below 1.5 (one
# execution at 4.1 times)
quick="--executions 10 --seconds 0.05"
# each run bounded, whatever the tool does: a hang is a failure, not a stuck suite
if command -v timeout >/dev/null 2>&1; then bounded="timeout 120"; else bounded=; fi
total=81

echo "1..$total"
if [ -n "${CPUCYCLES_PROBE_RUNNER:-}" ]; then
  # the tool execs itself, which a user-mode emulator's guest may not do
  i=0; while [ $i -lt $total ]; do skip "cpucycles-compare" "run through a probe runner"; i=$((i + 1)); done
  exit 0
fi

# a symbol's name of 1024 bytes, the longest --symbol takes
long=$(printf '%01024d' 0 | tr 0 L)
fixture() { # name soname flags...
  name=$1 soname=$2; shift 2
  ${CC:-cc} -O2 -shared -fPIC -Wl,-soname,$soname "$@" -o "$dir/$name" "$top_srcdir/tests/compare-fixture.c" \
    >"$dir/cc.log" 2>&1
}
if ! { fixture one.so libsame.so.1 -DWORK=1000 -DMARKER=v1 &&
       fixture three.so libsame.so.1 -DWORK=3000 -DMARKER=v2 &&
       fixture third.so libthird.so.1 -DWORK=333 &&
       fixture half.so libhalf.so.1 -DWORK=1500 &&
       fixture wobble2.so libwobble2.so.1 -DWORK=2500 -DALTERNATE=3 &&
       fixture wobble1.so libwobble1.so.1 -DWORK=1000 -DALTERNATE=4 &&
       fixture spike.so libspike.so.1 -DWORK=1300 -DSPIKE=10 &&
       fixture sleepy.so libsleepy.so.1 -DSLEEP_US=200 &&
       fixture crash.so libcrash.so.1 -DCRASH &&
       fixture hang.so libhang.so.1 -DHANG &&
       fixture helper.so libhelper.so.1 -DHELPER &&
       fixture forker.so libforker.so.1 -DFORKER &&
       fixture slow.so libslow.so.1 -DSLOW_US=20000 &&
       fixture slowish.so libslowish.so.1 -DSLOW_US=400 &&
       fixture long1.so liblong.so.1 -DWORK=1000 -Dother=$long &&
       fixture long3.so liblong.so.1 -DWORK=3000 -Dother=$long &&
       ${CC:-cc} -O2 -shared -fPIC -o "$dir/moved.so" "$top_srcdir/tests/compare-moved.c" >"$dir/cc.log" 2>&1 &&
       ${CC:-cc} -O2 -shared -fPIC -DPAGE_ALIGNED -o "$dir/paged.so" "$top_srcdir/tests/compare-moved.c" \
         >"$dir/cc.log" 2>&1 &&
       ${CC:-cc} -c -fPIC -o "$dir/object.o" "$top_srcdir/tests/compare-fixture.c"; }; then
  sed 's/^/# /' "$dir/cc.log"
  i=0; while [ $i -lt $total ]; do skip "cpucycles-compare" "$CC builds no shared object here"; i=$((i + 1)); done
  exit 0
fi
echo 'not a shared object' >"$dir/text.so"
# the tool, started from another directory, and under a seccomp filter
# that refuses to make directories, so that no copy can be placed
# (tests/compare-nomkdir.c; exit 77: no filter)
abs_top_builddir=$(cd "$top_builddir" && pwd) || exit 1
abs_tool="$abs_top_builddir/libtool --mode=execute $abs_top_builddir/cpucycles-compare"
if ${CC:-cc} -I"$top_srcdir/tests" -o "$dir/nomkdir" "$top_srcdir/tests/compare-nomkdir.c" >"$dir/cc.log" 2>&1 &&
   "$dir/nomkdir" true 2>"$dir/cc.log"; then
  nomkdir="$abs_top_builddir/libtool --mode=execute $dir/nomkdir $abs_top_builddir/cpucycles-compare"
else
  nomkdir=; nomkdir_why=$(head -n 1 "$dir/cc.log")
fi
# a build tree whose bench.so finds its libwork.so.1 through $ORIGIN:
# origin_tree dir work-factor dtags
origin_tree() {
  mkdir -p "$dir/$1" &&
  ${CC:-cc} -O2 -shared -fPIC -Wl,-soname,libwork.so.1 -DWORK_LIBRARY=$2 -DMARKER=work-$1 \
    -o "$dir/$1/libwork.so.1" "$top_srcdir/tests/compare-fixture.c" >"$dir/cc.log" 2>&1 &&
  ${CC:-cc} -O2 -shared -fPIC -DWORK_ELSEWHERE -o "$dir/$1/bench.so" "$top_srcdir/tests/compare-fixture.c" \
    -L"$dir/$1" -l:libwork.so.1 -Wl,-rpath,'$ORIGIN' -Wl,$3 >"$dir/cc.log" 2>&1
}
# (without dlmopen, as with musl, both builds' libwork.so.1 cannot be
# loaded: cpucycles-compare(1)); and own.so beside new's libwork.so.1 (3
# times the work), which it needs but does not call: its
# compare_fixture_work() is its own
if ! printf '#define _GNU_SOURCE\n#include <dlfcn.h>\n#ifndef LM_ID_NEWLM\n#error\n#endif\n' |
     ${CC:-cc} -E - >/dev/null 2>&1; then
  origin=0; origin_why="no dlmopen() in this C library"
elif origin_tree old 1 --enable-new-dtags && origin_tree new 3 --enable-new-dtags &&
   origin_tree same 1 --disable-new-dtags &&
   ${CC:-cc} -O2 -shared -fPIC -o "$dir/new/own.so" "$top_srcdir/tests/compare-fixture.c" \
     -L"$dir/new" -Wl,--no-as-needed -l:libwork.so.1 -Wl,-rpath,'$ORIGIN' >"$dir/cc.log" 2>&1; then
  origin=1
else
  origin=0; origin_why="$CC cannot link them: $(head -n 1 "$dir/cc.log")"
fi

if printf '#ifndef __x86_64__\n#error\n#endif\n' | ${CC:-cc} -E - >/dev/null 2>&1; then x86_64=1; else x86_64=0; fi
run() { # runs the tool: status in $status, seconds in $took
  start=$(date +%s)
  $bounded $tool "$@" >"$out" 2>"$err"; status=$?
  took=$(($(date +%s) - start))
}
show() { sed 's/^/# /' "$out" "$err"; }
run_as() { # as run, the tool started by the command $1 (words), in directory $2
  how=$1 where=$2; shift 2
  start=$(date +%s)
  (cd "$where" && $bounded $how "$@") >"$out" 2>"$err"; status=$?
  took=$(($(date +%s) - start))
}

# ---- the command line ----
run --help
if [ $status -eq 0 ] && head -n 1 "$out" | grep -q '^usage: cpucycles-compare ' && grep -q 'cpucycles-compare(1)' "$out"; then
  ok "--help: usage on stdout, exit 0"
else
  notok "--help: exit $status"; show
fi
run --version
if [ $status -eq 0 ] && grep -Eqx 'cpucycles-compare [0-9][0-9.]*' "$out"; then
  ok "--version: $(cat "$out")"
else
  notok "--version: exit $status"; show
fi

# ---- bad input: exit 2 and a message that says what ----
refused() { # description pattern args...: exit 2, nothing on stdout, pattern on stderr
  what=$1 pattern=$2; shift 2
  run "$@"
  if [ $status -eq 2 ] && [ ! -s "$out" ] && grep -q "^cpucycles-compare: .*$pattern" "$err"; then
    ok "$what: exit 2, $(grep '^cpucycles-compare: ' "$err" | head -n 1)"
  else
    notok "$what: exit $status, want 2 and '$pattern'"; show
  fi
}
refused "a missing file" "NEW .*/nothing.so: No such file" $quick "$dir/one.so" "$dir/nothing.so"
refused "a file that is not ELF" "OLD .*/text.so: not an ELF file" $quick "$dir/text.so" "$dir/one.so"
refused "an ELF object that is not a shared object" "OLD .*/object.o: an ELF file but neither a shared object nor a program (a relocatable object" \
  $quick "$dir/object.o" "$dir/one.so"
refused "a missing symbol" "no symbol nosuch" $quick --symbol nosuch "$dir/one.so" "$dir/three.so"
# (the fixture writes with libc's write(): libc is a library it loads)
refused "a symbol only a library the build loads defines (libc's getpid)" \
  "OLD .*/one.so: no symbol getpid of its own (that one is /.*'s, a library it loads)" \
  $quick --symbol getpid "$dir/one.so" "$dir/three.so"
refused "--executions 1" "--executions '1'" --executions 1 "$dir/one.so" "$dir/one.so"
refused "--executions 2.5" "--executions '2.5'" --executions 2.5 "$dir/one.so" "$dir/one.so"
refused "--executions x" "--executions 'x'" --executions x "$dir/one.so" "$dir/one.so"
refused "--tolerance -1" "--tolerance '-1'" --tolerance -1 "$dir/one.so" "$dir/one.so"
refused "--tolerance 100" "--tolerance '100'" --tolerance 100 "$dir/one.so" "$dir/one.so"
refused "--tolerance 5%" "--tolerance '5%'" --tolerance 5% "$dir/one.so" "$dir/one.so"
refused "--timeout 0" "--timeout '0'" --timeout 0 "$dir/one.so" "$dir/one.so"
refused "--timeout x" "--timeout 'x'" --timeout x "$dir/one.so" "$dir/one.so"
refused "--seconds 0" "--seconds '0'" --seconds 0 "$dir/one.so" "$dir/one.so"
refused "an unknown option" "unknown option '--bogus'" --bogus "$dir/one.so" "$dir/one.so"
refused "--symbol without a name" "--symbol: needs a value" "$dir/one.so" "$dir/one.so" --symbol
refused "one file" "missing: NEW.so" "$dir/one.so"

run $quick "$dir/one.so" "$dir/crash.so"
# (under a sanitizer its own handler ends the process on SIGSEGV with an
# exit status, 1 for ASan and 66 for TSan, before the signal can)
died="signal 11"
case " ${CFLAGS:-} " in *-fsanitize=*) died="signal 11\|exit status [0-9]*)" ;; esac
if [ $status -eq 2 ] && grep -q "\($died\) .* NEW's benchmark (.*/crash.so)" "$err" && [ $took -lt 60 ]; then
  ok "a benchmark that segfaults: exit 2 in ${took}s, $(grep '^cpucycles-compare: ' "$err")"
else
  notok "a benchmark that segfaults: exit $status in ${took}s"; show
fi
run $quick --timeout 1 "$dir/one.so" "$dir/hang.so"
if [ $status -eq 2 ] && grep -q "in NEW's benchmark (.*/hang.so).*killed (--timeout 1)" "$err" && [ $took -lt 30 ]; then
  ok "a benchmark that never returns: exit 2 in ${took}s, $(grep '^cpucycles-compare: ' "$err")"
else
  notok "a benchmark that never returns, --timeout 1: exit $status in ${took}s"; show
fi

# ---- verdicts no noise can change: 3 times the work, interleaved ----
row() { grep "^$1 " "$out"; }
moved_json() { # python3 assertions on the JSON in $out, with d the document (more arguments: sys.argv[3]...)
  python3 -c '
import json, sys
d = json.loads(open(sys.argv[1]).read(), parse_constant=lambda c: 1 / 0)
exec(sys.argv[2])
' "$out" "$@" 2>"$dir/py"
}

run $quick "$dir/one.so" "$dir/three.so"
if [ $status -eq 1 ] && row benchmark | grep -q ' slower$' && grep -q 'cover the noise within each execution and placement' "$out"; then
  ok "NEW at 3 times the work: slower, exit 1: $(row benchmark | tr -s ' ')"
else
  notok "NEW at 3 times the work: exit $status, want slower and 1"; show
fi
# one soname, two builds: each constructor ran, and NEW's own work was
# measured (bound to OLD's, it would measure as OLD)
ratio=$(row benchmark | awk '{ print $2 }')
if grep -q 'compare-fixture: v1 loaded' "$err" && grep -q 'compare-fixture: v2 loaded' "$err" &&
   awk -v r="$ratio" 'BEGIN { exit !(r > 2) }'; then
  ok "two builds with one soname both loaded: v1 and v2 said so, NEW/OLD $ratio"
else
  notok "two builds with one soname: want both markers and NEW/OLD over 2 (got '$ratio')"; show
fi
run $quick "$dir/one.so" "$dir/third.so"
if [ $status -eq 0 ] && row benchmark | grep -q ' faster$'; then
  ok "NEW at a third of the work: faster, exit 0: $(row benchmark | tr -s ' ')"
else
  notok "NEW at a third of the work: exit $status, want faster and 0"; show
fi
run $quick --exit-faster "$dir/one.so" "$dir/third.so"
if [ $status -eq 3 ] && row benchmark | grep -q ' faster$'; then
  ok "NEW at a third of the work, --exit-faster: faster, exit 3"
else
  notok "NEW at a third of the work, --exit-faster: exit $status, want faster and 3"; show
fi
run $quick --tolerance 50 "$dir/one.so" "$dir/three.so"
if [ $status -eq 1 ] && row benchmark | grep -q ' slower, beyond the tolerance of 50%$'; then
  ok "3 times the work, --tolerance 50: beyond it, exit 1"
else
  notok "3 times the work, --tolerance 50: exit $status, want 1"; show
fi
run $quick --tolerance 99 "$dir/one.so" "$dir/three.so"
if [ $status -eq 1 ]; then
  ok "3 times the work, --tolerance 99: beyond it, exit 1"
else
  notok "3 times the work, --tolerance 99: exit $status, want 1"; show
fi
# 1.5 times the work is slower, always, and within 99% always
run $quick --tolerance 99 "$dir/one.so" "$dir/half.so"
if [ $status -eq 0 ] && row benchmark | grep -q ' slower, within the tolerance of 99%$'; then
  ok "1.5 times the work, --tolerance 99: slower but within it, exit 0"
else
  notok "1.5 times the work, --tolerance 99: exit $status, want slower within it and 0"; show
fi
# --plot: the report as without it, and an SVG picture (XML whose title
# holds NEW's path with '&' and '<' escaped), one row, its dot right of
# the tolerance's line; a directory, or a directory that is not there,
# refused before anything is measured; a run that fails leaves the file
# it names as it was
cp "$dir/three.so" "$dir/a&b<c.so"
run $quick --tolerance 50 --plot "$dir/plot.svg" "$dir/one.so" "$dir/a&b<c.so"
if [ $status -eq 1 ] && row benchmark | grep -q ' slower, beyond the tolerance of 50%$' && [ -f "$dir/plot.svg" ] &&
   { ! command -v python3 >/dev/null 2>&1 || python3 -c '
import sys, xml.etree.ElementTree as ET
svg = "{http://www.w3.org/2000/svg}"
root = ET.parse(sys.argv[1]).getroot()
assert sys.argv[2] in root.find(svg + "text").text, root.find(svg + "text").text
rows = root.findall(svg + "g")
assert len(rows) == 1 and rows[0].get("class") == "row", rows
texts = [t.text for t in rows[0].findall(svg + "text")]
assert texts[0] == "benchmark" and texts[1].startswith("slower "), texts
dot = float(rows[0].find(svg + "circle").get("cx"))
tolerance = [l for l in root.findall(svg + "line") if l.get("stroke-dasharray")]
assert len(tolerance) == 1 and dot > float(tolerance[0].get("x1")), (dot, tolerance)
' "$dir/plot.svg" "$dir/a&b<c.so" 2>"$dir/py"; }; then
  ok "--plot: the report, and an SVG of its row (slower, right of +50%), NEW's path escaped"
else
  notok "--plot: exit $status, want 1 and the picture"; sed 's/^/# /' "$dir/py" 2>/dev/null; show
fi
refused "--plot in a directory that is not there" "--plot '.*/nodir/p.svg': cannot write in .*/nodir: No such file" \
  --plot "$dir/nodir/p.svg" "$dir/one.so" "$dir/three.so"
refused "--plot naming a directory" "--plot '.*': a directory, not a file" --plot "$dir" "$dir/one.so" "$dir/three.so"
echo kept >"$dir/kept.svg"
run $quick --plot "$dir/kept.svg" "$dir/one.so" "$dir/crash.so"
if [ $status -eq 2 ] && [ "$(cat "$dir/kept.svg")" = kept ] && [ -z "$(ls "$dir" | grep 'kept.svg.')" ]; then
  ok "--plot and a run that fails: exit 2, the file as it was, no file beside it"
else
  notok "--plot and a run that fails: exit $status, the file: $(head -c 80 "$dir/kept.svg")"; show
fi
# executions that disagree by a factor of 3 or 4 (2.5 or 7.5 times the work, in
# turn; 1 or 4 times): the first stage's interval reaches across the
# tolerance, which then is neither shown exceeded nor shown kept: a second
# stage is measured (--max-executions, 3 times --executions by default),
# which decides it (always 2.5 times or more: beyond +99%, exit 1); with
# --max-executions as --executions there is no second stage: cannot
# judge, exit 4
COMPARE_FIXTURE_COUNTER=$dir/loads; export COMPARE_FIXTURE_COUNTER
echo 0 >"$dir/loads"
run $quick --tolerance 99 "$dir/one.so" "$dir/wobble2.so"
if [ $status -eq 1 ] && row benchmark | grep -q ' slower, beyond the tolerance of 99%$' &&
   grep -q '^NEW .*: 30 executions of 0.05 s per symbol (10, then 20 more: ' "$out"; then
  ok "2.5 or 7.5 times the work, --tolerance 99: across it after 10, a second stage of 20 decides it, exit 1: $(row benchmark | tr -s ' ')"
else
  notok "2.5 or 7.5 times the work, --tolerance 99: exit $status, want 1, slower beyond it after 30 executions"; show
fi
echo 0 >"$dir/loads"
run $quick --tolerance 50 --max-executions 10 "$dir/one.so" "$dir/wobble1.so"
if [ $status -eq 4 ] && grep -q '^NEW .*: 10 executions of 0.05 s per symbol$' "$out" &&
   row benchmark | grep -q ' cannot judge: the interval reaches across the tolerance of 50%$'; then
  ok "1 or 4 times the work, --tolerance 50, --max-executions 10: across it, no second stage, cannot judge, exit 4"
else
  notok "1 or 4 times the work, --tolerance 50, --max-executions 10: exit $status, want 4 and no second stage"; show
fi
# one execution of ten at ten times its work (a busy neighbour, unflagged):
# the executions' trimmed mean is the estimate, so that one does not
# decide it (their mean's interval was [0.74, 3.1], indistinguishable)
echo 0 >"$dir/loads"
run $quick "$dir/one.so" "$dir/spike.so"
if [ $status -eq 1 ] && row benchmark | grep -q ' slower$' &&
   row benchmark | awk '{ exit !($2 > 1.15 && $2 < 1.5) }'; then
  ok "1.3 times the work, one execution of ten at 13 times: slower, near 1.3: $(row benchmark | tr -s ' ')"
else
  notok "1.3 times the work, one execution of ten at 13 times: exit $status, want slower near 1.3"; show
fi
unset COMPARE_FIXTURE_COUNTER
# Two builds of the same code on a host whose speed changes every 5 ms
# (1.6 times the work by turns, both builds alike): the pairs of each
# execution are measured at one speed each, so NEW/OLD stays near 1;
# within 20% always (the speeds' ratio, 1.6, would not be)
if ${CC:-cc} -O2 -shared -fPIC -DTWO_SPEED_MS=5 -DMARKER=speed-a -o "$dir/speed-a.so" "$top_srcdir/tests/compare-fixture.c" >"$dir/cc.log" 2>&1 &&
   ${CC:-cc} -O2 -shared -fPIC -DTWO_SPEED_MS=5 -DMARKER=speed-b -o "$dir/speed-b.so" "$top_srcdir/tests/compare-fixture.c" >"$dir/cc.log" 2>&1; then
  run $quick --tolerance 20 "$dir/speed-a.so" "$dir/speed-b.so"
  if [ $status -eq 0 ] && row benchmark | awk '{ exit !($2 > 0.9 && $2 < 1.1) }'; then
    ok "the same code, the host's speed changing by 1.6 every 5 ms: NEW/OLD near 1, within 20%, exit 0: $(row benchmark | tr -s ' ')"
  else
    notok "the same code, the host's speed changing every 5 ms: exit $status, want 0 and NEW/OLD near 1"; show
  fi
else
  skip "the same code, the host's speed changing every 5 ms" "$CC cannot build it: $(head -n 1 "$dir/cc.log")"
fi
# A build whose data is aligned to 64 bytes (alignas(64) in .bss), or to
# a page: its code moves in 64-byte steps, or not at all, and keeps its
# offsets within its cache lines, which the JSON says; such a row is not
# called different within 5% on that ground alone (identical builds:
# indistinguishable or cannot judge, never slower or faster), while 3
# times the work still is slower; without such data, no flag.
aligned_pair() { # tag N: aligned-N-a.so and aligned-N-three.so
  ${CC:-cc} -O2 -shared -fPIC -DALIGNED_DATA=$2 -o "$dir/aligned-$1-a.so" "$top_srcdir/tests/compare-fixture.c" >"$dir/cc.log" 2>&1 &&
  ${CC:-cc} -O2 -shared -fPIC -DALIGNED_DATA=$2 -DWORK=3000 -o "$dir/aligned-$1-three.so" "$top_srcdir/tests/compare-fixture.c" >"$dir/cc.log" 2>&1
}
if [ $x86_64 = 0 ]; then
  for what in 64 page; do
    skip "data aligned to $what: its code kept its offsets within cache lines, said" "not x86-64 (nothing is moved there)"
    skip "data aligned to $what, 3 times the work" "not x86-64"
  done
elif ! command -v python3 >/dev/null 2>&1; then
  for what in 64 page; do skip "data aligned to $what" "no python3"; skip "data aligned to $what, 3 times the work" "no python3"; done
else
  for what in 64 page; do
    bytes=$what; [ $what = page ] && bytes=4096
    if ! aligned_pair $what $bytes; then
      skip "data aligned to $what" "$CC cannot build it: $(head -n 1 "$dir/cc.log")"
      skip "data aligned to $what, 3 times the work" "$CC cannot build it"
      continue
    fi
    run --json $quick "$dir/aligned-$what-a.so" "$dir/aligned-$what-a.so"
    if [ $status -le 4 ] && [ $status -ne 1 ] && [ $status -ne 2 ] && moved_json '
n = int(sys.argv[3])
for who in ("old", "new"):
    assert d[who + "_alignments"] == {"code": 16, "data": n}, d[who + "_alignments"]
    assert d[who + "_code_step"] == (64 if n == 64 else 0), d[who + "_code_step"]
r = d["rows"][0]
assert r["placement_coarse"] is True, r
assert r["verdict"] in ("indistinguishable", "cannot judge"), r
assert r["verdict"] == "indistinguishable" or r["reasons"] == ["placement"], r
' "$bytes"; then
      ok "data aligned to $what: placement_coarse, not called different: $(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); r=d["rows"][0]; print("code step", d["old_code_step"], r["verdict"], r["ratio"])' "$out")"
    else
      notok "data aligned to $what: exit $status, want placement_coarse and no slower or faster"; sed 's/^/# /' "$dir/py"; show
    fi
    run $quick "$dir/aligned-$what-a.so" "$dir/aligned-$what-three.so"
    if [ $status -eq 1 ] && row benchmark | grep -q ' slower$' && grep -q "^(placement: OLD's data is aligned to $bytes bytes" "$out"; then
      ok "data aligned to $what, 3 times the work: still slower (beyond 5%), exit 1, the placement said"
    else
      notok "data aligned to $what, 3 times the work: exit $status, want 1, slower and the placement said"; show
    fi
  done
fi
# OLD against itself: called different by chance now and then (the
# interval is 99%, not certain), so only what chance cannot do is checked
run $quick "$dir/one.so" "$dir/one.so"
if { [ $status -eq 0 ] || { [ $status -eq 1 ] && row benchmark | grep -q ' slower$'; }; } &&
   row benchmark | awk '{ exit !($2 > 0.8 && $2 < 1.25) }'; then
  ok "OLD against itself: no error, NEW/OLD near 1: $(row benchmark | tr -s ' ')"
else
  notok "OLD against itself: exit $status"; show
fi
run $quick --tolerance 50 "$dir/one.so" "$dir/one.so"
if [ $status -eq 0 ]; then
  ok "OLD against itself, --tolerance 50: exit 0"
else
  notok "OLD against itself, --tolerance 50: exit $status"; show
fi

# ---- loading: the file named, copies or not, $ORIGIN ----
# A file named without a slash, in the working directory: that file, not
# the one of that name on the library path (the decoys there do OLD's
# work, both: measured, they would be indistinguishable).
mkdir "$dir/here" "$dir/decoys"
cp "$dir/one.so" "$dir/here/one.so" && cp "$dir/three.so" "$dir/here/three.so"
cp "$dir/one.so" "$dir/decoys/one.so" && cp "$dir/one.so" "$dir/decoys/three.so"
LD_LIBRARY_PATH="$dir/decoys${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" run_as "$abs_tool" "$dir/here" \
  $quick --no-copy one.so three.so
if [ $status -eq 1 ] && row benchmark | grep -q ' slower$'; then
  ok "--no-copy one.so three.so in their directory, decoys on LD_LIBRARY_PATH: those files, slower, exit 1"
else
  notok "--no-copy one.so three.so in their directory: exit $status, want 1 and slower"; show
fi
if [ -n "$nomkdir" ]; then
  LD_LIBRARY_PATH="$dir/decoys${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" run_as "$nomkdir" "$dir/here" \
    $quick one.so three.so
  if [ $status -eq 1 ] && row benchmark | grep -q ' slower$' && grep -q 'OLD loaded as it is' "$out"; then
    ok "one.so three.so in their directory, no copy possible, decoys on LD_LIBRARY_PATH: those files, slower, exit 1"
  else
    notok "one.so three.so in their directory, no copy possible: exit $status, want 1 and slower"; show
  fi
else
  skip "bare names with no copy possible" "no seccomp filter here: $nomkdir_why"
fi

# No copy possible: each build loaded as it is, said so and why, in the
# text (no "own copy of each file", no "not on x86-64") and in --json.
nocopy_why="no directory for its copy that can be written and runs code"
if [ -n "$nomkdir" ]; then
  run_as "$nomkdir" "$dir" $quick "$dir/one.so" "$dir/three.so"
  covered=$(grep '^the 99% intervals cover' "$out")
  if [ $status -eq 1 ] && row benchmark | grep -q ' slower$' &&
     echo "$covered" | grep -qF "; not a fresh copy of each file or the code's offset within its pages (OLD loaded as it is: $nocopy_why" &&
     echo "$covered" | grep -qF "; NEW loaded as it is: $nocopy_why" &&
     ! echo "$covered" | grep -q 'own copy\|x86-64'; then
    ok "no directory can be made for the copies: both loaded as they are, and the text says so and why"
  else
    notok "no directory for the copies: exit $status, want 1 and the text saying each was loaded as it is"; show
  fi
  if command -v python3 >/dev/null 2>&1; then
    run_as "$nomkdir" "$dir" $quick --json "$dir/one.so" "$dir/three.so"
    if [ $status -eq 1 ] && python3 -c '
import json, sys
d = json.loads(open(sys.argv[1]).read(), parse_constant=lambda c: 1 / 0)
for who in ("old", "new"):
    assert d[who + "_loaded"] == ["file"] * d["executions"], d
    assert all(w.startswith(sys.argv[2]) for w in d[who + "_loaded_why"]), d
    assert d[who + "_code_offsets"] == [None] * d["executions"], d
assert "own copy" not in d["interval_covers"] and "loaded as it is" in d["interval_covers"], d
' "$out" "$nocopy_why" 2>"$dir/py"; then
      ok "no directory for the copies, --json: old_loaded and new_loaded \"file\" in each execution, with why"
    else
      notok "no directory for the copies, --json: exit $status"; sed 's/^/# /' "$dir/py"; show
    fi
  else
    skip "no directory for the copies, --json" "no python3"
  fi
else
  skip "no directory for the copies" "no seccomp filter here: $nomkdir_why"
  skip "no directory for the copies, --json" "no seccomp filter here: $nomkdir_why"
fi
# a file over 256 MiB (one.so and a sparse tail the loader never reads)
cp "$dir/one.so" "$dir/big.so"
if truncate -s 300M "$dir/big.so" 2>/dev/null ||
   dd if=/dev/null of="$dir/big.so" bs=1048576 seek=300 count=0 2>/dev/null; then
  run $quick "$dir/big.so" "$dir/three.so"
  covered=$(grep '^the 99% intervals cover' "$out")
  if [ $status -eq 1 ] && row benchmark | grep -q ' slower$' &&
     echo "$covered" | grep -q "; not a fresh copy of each file or the code's offset within its pages (OLD loaded as it is: larger than 256 MiB, the most it copies" &&
     ! echo "$covered" | grep -q 'own copy\|x86-64'; then
    ok "a file over 256 MiB: loaded as it is, and the text says so and why"
  else
    notok "a file over 256 MiB: exit $status, want 1 and the text saying OLD was loaded as it is"; show
  fi
  rm -f "$dir/big.so"
else
  skip "a file over 256 MiB" "no truncate or dd to make one"
fi

# Builds that find their own libwork.so.1 through $ORIGIN: copied (on
# x86-64 moved) into a directory that mirrors the build's, where each
# finds its own libwork.
if [ $x86_64 = 1 ]; then
  copies="with its own copy of each file, .*, and the code's offset within its pages\$"
  copies_new=$copies
else copies="with its own copy of each file.*" copies_new=$copies; fi
if [ $origin = 1 ]; then
  run $quick "$dir/old/bench.so" "$dir/new/bench.so"
  if [ $status -eq 1 ] && row benchmark | grep -q ' slower$' && grep -q "cover .*$copies" "$out" &&
     grep -q 'compare-fixture: work-old loaded' "$err" && grep -q 'compare-fixture: work-new loaded' "$err"; then
    ok "\$ORIGIN builds, NEW's libwork at 3 times the work: copies, each its own libwork, slower, exit 1"
  else
    notok "\$ORIGIN builds, NEW's libwork at 3 times the work: exit $status, want 1, slower and copies"; show
  fi
  # identical builds, one by RUNPATH, one by RPATH: near 1, not beyond 50%
  run $quick --tolerance 50 "$dir/old/bench.so" "$dir/same/bench.so"
  if [ $status -eq 0 ] && row benchmark | awk '{ exit !($2 > 0.8 && $2 < 1.25) }' && grep -q "cover .*$copies" "$out" &&
     grep -q 'compare-fixture: work-same loaded' "$err"; then
    ok "\$ORIGIN builds, identical (RUNPATH, RPATH): copies, NEW/OLD near 1, exit 0: $(row benchmark | tr -s ' ')"
  else
    notok "\$ORIGIN builds, identical: exit $status, want 0, NEW/OLD near 1 and copies"; show
  fi
  # a copy loaded after its libwork must still bind to its own function
  # of libwork's name first, as a build loaded first does
  run $quick --tolerance 50 "$dir/one.so" "$dir/new/own.so"
  if [ $status -eq 0 ] && row benchmark | awk '{ exit !($2 > 0.8 && $2 < 1.25) }' && grep -q "cover .*$copies_new" "$out" &&
     grep -q 'compare-fixture: work-new loaded' "$err"; then
    ok "\$ORIGIN build defining a function its libwork defines too: its own measured, NEW/OLD near 1: $(row benchmark | tr -s ' ')"
  else
    notok "\$ORIGIN build defining its libwork's function: exit $status, want 0 and NEW/OLD near 1 (its own, not libwork's 3 times the work)"; show
  fi
else
  skip "\$ORIGIN builds, 3 times the work" "$origin_why"
  skip "\$ORIGIN builds, identical" "$origin_why"
  skip "\$ORIGIN build defining its libwork's function" "$origin_why"
fi

# Builds that open their siblings at run time, as plugin loaders do:
# dlopen("$ORIGIN/plug.so"), and a file beside the build found through
# its own path (dladdr()).  Their copies find the same files (NEW's at 3
# times the work): slower, exit 1.
sibling_tree() { # dir plug-work-factor
  mkdir -p "$dir/$1" &&
  ${CC:-cc} -O2 -shared -fPIC -DWORK_LIBRARY=$2 -o "$dir/$1/plug.so" "$top_srcdir/tests/compare-fixture.c" >"$dir/cc.log" 2>&1 &&
  ${CC:-cc} -O2 -shared -fPIC -DSIBLING_DLOPEN -o "$dir/$1/opens.so" "$top_srcdir/tests/compare-fixture.c" -ldl >"$dir/cc.log" 2>&1 &&
  ${CC:-cc} -O2 -shared -fPIC -DSIBLING_FILE -o "$dir/$1/reads.so" "$top_srcdir/tests/compare-fixture.c" -ldl >"$dir/cc.log" 2>&1 &&
  echo "$2" >"$dir/$1/factor.txt"
}
if sibling_tree siblings-old 1 && sibling_tree siblings-new 3; then
  # (musl's dlopen() takes "$ORIGIN" literally: such a build fails however
  # it is loaded, in place too; with glibc it must work)
  if printf '#include <stdio.h>\n' | ${CC:-cc} -dM -E - 2>/dev/null | grep -q '__GLIBC__'; then
    status=0
  else
    run $quick --no-copy --executions 2 "$dir/siblings-old/opens.so" "$dir/siblings-new/opens.so"
  fi
  if [ $status -eq 2 ]; then
    skip "builds that dlopen(\"\$ORIGIN/plug.so\")" "they fail loaded in place too: this C library does not expand \$ORIGIN in a dlopen() name ($(head -n 1 "$err"))"
  else
  run $quick "$dir/siblings-old/opens.so" "$dir/siblings-new/opens.so"
  if [ $status -eq 1 ] && row benchmark | grep -q ' slower$' && grep -q "cover .*$copies" "$out"; then
    ok "builds that dlopen(\"\$ORIGIN/plug.so\"), NEW's plug at 3 times the work: copies, each its own plug, slower, exit 1"
  else
    notok "builds that dlopen(\"\$ORIGIN/plug.so\"): exit $status, want 1, slower and copies"; show
  fi
  fi
  run $quick "$dir/siblings-old/reads.so" "$dir/siblings-new/reads.so"
  if [ $status -eq 1 ] && row benchmark | grep -q ' slower$' && grep -q "cover .*$copies" "$out"; then
    ok "builds that read factor.txt beside their own path (dladdr()), NEW's 3: copies, slower, exit 1"
  else
    notok "builds that read a file beside their own path (dladdr()): exit $status, want 1, slower and copies"; show
  fi
else
  skip "builds that dlopen(\"\$ORIGIN/plug.so\")" "$CC cannot build them: $(head -n 1 "$dir/cc.log")"
  skip "builds that read a file beside their own path" "$CC cannot build them: $(head -n 1 "$dir/cc.log")"
fi
# The copies' directories are the run's own, and gone at its end.
if [ -z "$(ls -A "$TMPDIR")" ]; then
  ok "no directory of the copies is left behind in \$TMPDIR"
else
  notok "directories of the copies left behind: $(ls -A "$TMPDIR")"
fi

# ---- a suite, JSON, progress ----
run $quick --symbol benchmark --symbol other "$dir/one.so" "$dir/three.so"
if [ $status -eq 1 ] && row benchmark | grep -q ' slower$' && row other | grep -q ' slower$'; then
  ok "--symbol twice: a row each"
else
  notok "--symbol twice: exit $status, want a slower row for benchmark and for other"; show
fi
# (10 executions, as the verdicts above: with 3, one execution of other
# at 4.1 times put ratio_low at 1.01 beside lto's build on CI's machine)
run $quick --json --symbol benchmark --symbol other "$dir/one.so" "$dir/three.so"
json_status=$status
if command -v python3 >/dev/null 2>&1; then
  if [ $json_status -eq 1 ] && python3 -c '
import json, sys
def no(c): raise ValueError("not JSON: " + c)
d = json.loads(open(sys.argv[1]).read(), parse_constant=no)
assert d["schema"] == 2 and d["type"] == "comparison" and d["tool"] == "cpucycles-compare", d
assert d["executions"] == 10 and d["status"] == 1 and d["confidence"] == 0.99 and d["looks"] == 1, d
assert "placement" in d["interval_covers"], d
assert [r["name"] for r in d["rows"]] == ["benchmark", "other"], d
for r in d["rows"]:
    assert r["verdict"] == "slower" and r["beyond_tolerance"] is True and r["reasons"] == [], r
    assert r["says"] == "slower", r
    assert r["ratio_low"] <= r["ratio"] <= r["ratio_high"] and r["ratio_low"] > 1.5, r
    assert r["new"] > r["old"] > 0, r
    assert 0 <= r["placement_share"] <= 1 and r["placement_sd"] >= 0 and r["within_sd"] >= 0, r
    assert len(r["ratio_samples"]) == 10 and r["executions"] == 10, r
    assert r["pairs"] >= 200, r
' "$out" 2>"$dir/py"; then
    ok "--json: strict JSON (python3's json.loads, no NaN) with its fields"
  else
    notok "--json: exit $json_status"; sed 's/^/# /' "$dir/py"; show
  fi
else
  skip "--json parsed by python3" "no python3"
fi
# what it writes, cpucycles-info --compare reads: the comparison judged
# again from its executions' ratios (3 times the work: beyond 50%)
info="$top_builddir/libtool --mode=execute ${CPUCYCLES_PROBE_RUNNER:-} $top_builddir/cpucycles-info"
cp "$out" "$dir/compare.json"
$info --compare "$dir/compare.json" --tolerance 50 >"$out" 2>"$err"; status=$?
if [ $json_status -eq 1 ] && [ $status -eq 1 ] && grep -q '^benchmark: new/old 2\.[0-9]*, 99% interval \[.*\]: slower, beyond the tolerance of 50%$' "$out" &&
   grep -q '^2 judged again (tolerance 50%): 2 slower' "$out"; then
  ok "cpucycles-info --compare reads its --json and judges it again: $(head -n 1 "$out")"
else
  notok "cpucycles-info --compare on its --json: exit $status, want 1 and both rows slower beyond 50%"; show
fi
run --progress --executions 2 --seconds 0.05 "$dir/one.so" "$dir/one.so"
if grep -q '^cpucycles-compare: execution 1 of 2 done' "$err" && grep -q 'execution 2 of 2 done' "$err"; then
  ok "--progress: a line per execution on stderr"
else
  notok "--progress: no progress lines"; show
fi
run --executions 2 --seconds 0.05 "$dir/one.so" "$dir/one.so"
if ! grep -q 'execution .* done' "$err" && ! grep -q 'execution .* done' "$out"; then
  ok "no --progress, stderr not a terminal: no progress"
else
  notok "progress without --progress on a file"; show
fi

# ---- code moved within its pages (x86-64) ----
# (exit 0, 1 or 4: which one, for two builds of one code, is noise's, and
# a build with a page-aligned section may be "cannot judge" by placement,
# as CI's -Os row saw at 1.033; 2, an error, is what a wrong address
# gives: the execution dies of SIGABRT)
judged() { [ $status -le 1 ] || [ $status -eq 4 ]; }
if ! command -v python3 >/dev/null 2>&1; then
  skip "moved copies" "no python3"; skip "a page-aligned section" "no python3"; skip "--no-copy" "no python3"
elif [ $x86_64 = 1 ]; then
  run --json --executions 6 --seconds 0.02 "$dir/moved.so" "$dir/moved.so"
  if judged && moved_json '
for who in ("old", "new"):
    step, offsets = d[who + "_code_step"], d[who + "_code_offsets"]
    assert step == 32, (who, step)  # the 32-byte-aligned table sets it
    assert len(offsets) == 6 and all(isinstance(o, int) and 0 <= o < 4096 and o % step == 0 for o in offsets), offsets
    assert len(set(offsets)) > 1, offsets  # 6 draws of 128 offsets
    assert d[who + "_loaded"] == ["moved copy"] * 6 and d[who + "_loaded_why"] == [None] * 6, d
assert d["interval_covers"].endswith(", and the code\x27s offset within its pages"), d["interval_covers"]
'; then
    ok "moved copies: every address still right in 6 executions, OLD at $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["old_code_offsets"])' "$out")"
  else
    notok "moved copies: exit $status"; sed 's/^/# /' "$dir/py"; show
  fi
  run --json --executions 2 --seconds 0.02 "$dir/paged.so" "$dir/moved.so"
  if judged && moved_json '
assert d["old_code_offsets"] == [None, None] and d["old_code_step"] == 0, d
assert d["old_loaded"] == ["copy", "copy"] and d["old_loaded_why"] == ["a section is aligned to a page or more"] * 2, d
assert all(isinstance(o, int) for o in d["new_code_offsets"]) and d["new_loaded"] == ["moved copy"] * 2, d
assert d["interval_covers"].endswith("; not the code\x27s offset within its pages (OLD: a section is aligned to a page or more)"), d["interval_covers"]
'; then
    ok "a page-aligned section: OLD loaded unmoved, and the interval says so"
  else
    notok "a page-aligned section: exit $status"; sed 's/^/# /' "$dir/py"; show
  fi
  run --json --no-copy --executions 2 --seconds 0.02 "$dir/moved.so" "$dir/moved.so"
  if judged && moved_json '
assert d["old_code_offsets"] == [None, None] and d["new_code_offsets"] == [None, None], d
assert d["old_loaded"] == d["new_loaded"] == ["file"] * 2 and d["old_loaded_why"] == ["--no-copy"] * 2, d
assert d["interval_covers"].endswith("; not the code\x27s offset within its pages (--no-copy)"), d["interval_covers"]
'; then
    ok "--no-copy: nothing moved, and the interval says so"
  else
    notok "--no-copy: exit $status"; sed 's/^/# /' "$dir/py"; show
  fi
else
  run --json --executions 2 --seconds 0.02 "$dir/moved.so" "$dir/moved.so"
  if judged && moved_json '
assert d["old_code_offsets"] == [None, None] and d["old_code_step"] == 0, d
assert d["old_loaded"] == ["copy", "copy"] and d["old_loaded_why"][0].startswith("not on x86-64"), d
assert "; not the code\x27s offset within its pages (OLD: not on x86-64" in d["interval_covers"], d
'; then
    ok "not x86-64: nothing moved, and the interval says so"
  else
    notok "not x86-64: exit $status"; sed 's/^/# /' "$dir/py"; show
  fi
  skip "a page-aligned section" "code is moved on x86-64 only"
  skip "--no-copy and moved code" "code is moved on x86-64 only"
fi
run --executions 2 --seconds 0.02 "$dir/moved.so" "$dir/moved.so"
if [ $x86_64 = 1 ]; then want="and the code's offset within its pages"; else want="; not the code's offset within its pages"; fi
if judged && grep -q "^the 99% intervals cover the noise within each execution and placement: .*$want" "$out"; then
  ok "the text says what the intervals cover: ...$want"
else
  notok "the text's coverage line: exit $status, want '$want'"; show
fi

# ---- hostile conditions ----
# the tool as a program of its own, its libraries found: "$@" runs in sh
# with $0 the tool's real file (libtool's wrapper would not be run so)
direct() { # script args...: the script runs with $0 the tool
  script=$1; shift
  start=$(date +%s)
  $bounded $top_builddir/libtool --mode=execute ${CPUCYCLES_PROBE_RUNNER:-} sh -c "$script" \
    "$top_builddir/cpucycles-compare" "$@" >"$out" 2>"$err"; status=$?
  took=$(($(date +%s) - start))
}
protocol='^\(step\|result\|placement\|done\|error\) '

# a helper process started by the benchmark holds no pipe of the tool's:
# the run ends with its execution, not with the helper, nor --timeout
for kind in helper forker; do
  run $quick --timeout 5 "$dir/one.so" "$dir/$kind.so"
  if judged && row benchmark >/dev/null && ! grep -q 'killed' "$err"; then
    ok "a benchmark that leaves a process behind ($kind): exit $status, results"
  else
    notok "a benchmark that leaves a process behind ($kind): exit $status, want 0 or 1 and a row"; show
  fi
done

# closed standard descriptors: the run works, and the report stays inside
direct 'exec "$0" "$@" 2>&-' $quick "$dir/one.so" "$dir/three.so"
if [ $status -eq 1 ] && row benchmark | grep -q ' slower$'; then
  ok "stderr closed: the run works, exit 1, slower"
else
  notok "stderr closed: exit $status, want 1 and a slower row"; show
fi
direct 'exec "$0" "$@" <&- >&-' $quick "$dir/third.so" "$dir/one.so"
if [ $status -eq 1 ] && ! grep -q "$protocol" "$err"; then
  ok "stdin and stdout closed: exit 1, no report line on stderr"
else
  notok "stdin and stdout closed: exit $status, want 1 and nothing of the report on stderr"; show
fi

# SIGTERM ends the execution with the tool (the benchmark never returns)
alive() { # pid: running (a zombie is not)
  if [ -r "/proc/$1/stat" ]; then
    case $(sed 's/^.*) //' "/proc/$1/stat" 2>/dev/null) in '' | Z* | X*) return 1 ;; esac
    return 0
  fi
  kill -0 "$1" 2>/dev/null
}
rm -f "$dir/pid"
COMPARE_FIXTURE_PIDFILE=$dir/pid $tool $quick --timeout 100 "$dir/one.so" "$dir/hang.so" >"$out" 2>"$err" &
toolpid=$!
i=0; while [ ! -s "$dir/pid" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
execpid=$(cat "$dir/pid" 2>/dev/null)
kill -TERM $toolpid 2>/dev/null
wait $toolpid; status=$?
i=0; while [ -n "$execpid" ] && alive "$execpid" && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
if [ -n "$execpid" ] && [ $status -eq 143 ] && ! alive "$execpid"; then
  ok "SIGTERM: the tool ends by it (status $status), and its execution with it"
else
  notok "SIGTERM: status $status (want 143), execution '${execpid:-none}' $(alive "${execpid:-0}" && echo still running)"; show
  [ -n "$execpid" ] && kill -KILL "$execpid" 2>/dev/null
fi

# a FIFO is refused, not opened (its open would wait for a writer)
mkfifo "$dir/fifo" 2>/dev/null || : >"$dir/fifo"
keep_bounded=$bounded
if [ -n "$bounded" ]; then bounded="timeout 20"; fi
refused "a FIFO" "NEW .*/fifo: not a regular file" $quick "$dir/one.so" "$dir/fifo"
bounded=$keep_bounded

# slow calls: the pairs that fit in --seconds, or the time needed said,
# for twice the fewest pairs (a busy machine disturbs calls that long:
# time for the fewest alone failed every try)
run $quick --timeout 3 "$dir/one.so" "$dir/slow.so"
if [ $status -eq 2 ] && grep -q '^cpucycles-compare: benchmark: a call takes .*give --seconds [0-9.]* or more' "$err" &&
   ! grep -q killed "$err" &&
   sed -n 's/.* takes \([0-9.e-]*\) s (OLD) and \([0-9.e-]*\) s (NEW).*--seconds \([0-9.e+]*\) or more.*/\1 \2 \3/p' "$err" |
     awk '{ exit !($3 >= ($1 + $2) * 216) }'; then
  ok "a 20 ms call, --seconds 0.05: exit 2, $(grep '^cpucycles-compare: ' "$err")"
else
  notok "a 20 ms call, --seconds 0.05: exit $status, want 2 and the --seconds 216 pairs need"; show
fi
# a call that sleeps: every pair disturbed, and said so (200 us: the
# pairs fit in 0.5 s, by time or counted, even at 8 times as long)
run --executions 2 --seconds 0.5 --timeout 20 "$dir/sleepy.so" "$dir/sleepy.so"
if [ $status -eq 2 ] && grep -q 'pairs were undisturbed (.* switched out or moved in the last' "$err"; then
  ok "a call that sleeps: exit 2, $(grep '^cpucycles-compare: ' "$err" | head -n 1)"
else
  notok "a call that sleeps: exit $status, want 2 and the disturbed pairs said"; show
fi
refused "data, not a function" "OLD .*one.so: data is data, not a function" $quick --symbol data "$dir/one.so" "$dir/one.so"
# (up to 3 attempts: on a busy machine a third of the pairs disturbed, or
# both timings of a call preempted, may leave too few pairs; a tool that
# never counts its pairs fails every attempt)
attempt=0
while [ $attempt -lt 3 ]; do
  attempt=$((attempt + 1))
  run --executions 2 --seconds 0.14 "$dir/slowish.so" "$dir/slowish.so"
  [ $status -le 1 ] && break
done
if [ $status -le 1 ] && row benchmark >/dev/null &&
   grep -q '^(benchmark: [0-9]* pairs in an execution, fewer than the 200 kept when --seconds allows' "$out"; then
  ok "a 0.4 ms call, --seconds 0.14 (attempt $attempt): a result from fewer pairs, said: $(grep '^(benchmark: ' "$out")"
else
  notok "a 0.4 ms call, --seconds 0.14: exit $status, want a row and the fewer pairs said"; show
fi

# without /proc (a tmpfs over it, in a mount namespace of its own),
# started by name through PATH
if case " ${CFLAGS:-} " in *-fsanitize=*) true ;; *) false ;; esac; then
  skip "no /proc, --no-copy" "a sanitizer needs /proc"; skip "no /proc, copies" "a sanitizer needs /proc"
elif ! command -v unshare >/dev/null 2>&1 || ! unshare -rm sh -c 'mount -t tmpfs none /proc' >/dev/null 2>&1; then
  skip "no /proc, --no-copy" "no mount namespace here"; skip "no /proc, copies" "no mount namespace here"
else
  # (from / : a name not found through PATH must not be found in the
  # current directory, the build's, where libtool's wrapper has that name)
  noproc='bin=$(cd "${0%/*}" && pwd) && cd / &&
    PATH=$bin:$PATH exec unshare -rm sh -c '\''mount -t tmpfs none /proc && exec "$@"'\'' sh "${0##*/}" "$@"'
  direct "$noproc" --no-copy $quick "$dir/one.so" "$dir/three.so"
  if [ $status -eq 1 ] && row benchmark | grep -q ' slower$'; then
    ok "no /proc, started through PATH, --no-copy: works, exit 1, slower"
  else
    notok "no /proc, started through PATH, --no-copy: exit $status, want 1 and a slower row"; show
  fi
  direct "$noproc" $quick "$dir/one.so" "$dir/three.so"
  if [ $status -eq 1 ] && row benchmark | grep -q ' slower$' && grep -q "cover .*$copies" "$out"; then
    ok "no /proc, fresh copies: works (they are files, not /proc/self/fd), exit 1, slower"
  else
    notok "no /proc, fresh copies: exit $status, want 1, slower and copies"; show
  fi
fi

# started through the dynamic loader by name: the executions are too
interp=$(readelf -lW "$top_builddir/.libs/cpucycles-compare" 2>/dev/null | sed -n 's/.*interpreter: \(.*\)]$/\1/p')
if [ -z "$interp" ] || [ ! -x "$interp" ]; then
  skip "started as ld.so cpucycles-compare" "no dynamic loader found (readelf)"
else
  direct '"$1" "$0" '"$quick"' "$2" "$3"' "$interp" "$dir/one.so" "$dir/three.so"
  if [ $status -eq 1 ] && row benchmark | grep -q ' slower$'; then
    ok "started as $interp cpucycles-compare: works, exit 1, slower"
  else
    notok "started as $interp cpucycles-compare: exit $status, want 1 and a slower row"; show
  fi
fi

# symbols: each named once, at most 1024 bytes (a report line holds one)
refused "--symbol named twice" "--symbol 'benchmark': named twice" \
  $quick --symbol benchmark --symbol benchmark "$dir/one.so" "$dir/three.so"
refused "--symbol over 1024 bytes" "--symbol: a name over 1024 bytes" \
  $quick --symbol "${long}L" "$dir/one.so" "$dir/three.so"
run $quick --symbol "$long" "$dir/long1.so" "$dir/long3.so"
if [ $status -eq 1 ] && row "$long" | grep -q ' slower$'; then
  ok "--symbol of 1024 bytes: measured, exit 1, slower"
else
  notok "--symbol of 1024 bytes: exit $status, want 1 and a slower row"; show
fi

# a path with a newline and an escape sequence, in a relayed error
odd="$dir/odd
$(printf '\033')[31m.so"
cp "$dir/third.so" "$odd"
run $quick --symbol nosuch "$odd" "$dir/third.so"
if [ $status -eq 2 ] && [ "$(grep -c '' "$err")" -eq 1 ] && grep -q "^cpucycles-compare: OLD .*/odd??\[31m\.so: no symbol nosuch$" "$err"; then
  ok "a path with a newline and an escape, relayed: one line, cleaned: $(cat "$err")"
else
  notok "a path with a newline and an escape, relayed: exit $status, want 2 and one clean line"; show | cat -v
fi

# another machine's object: named, before any execution
cp "$dir/one.so" "$dir/foreign.so"
if [ $x86_64 = 1 ]; then machine='\267\000' want="built for aarch64 (64-bit, little-endian); this tool runs x86-64 (64-bit, little-endian) objects"
else machine='\076\000' want="built for .*; this tool runs .* objects"; fi
printf "$machine" | dd of="$dir/foreign.so" bs=1 seek=18 conv=notrunc 2>/dev/null
refused "another machine's object" "NEW .*/foreign.so: $want" $quick "$dir/one.so" "$dir/foreign.so"

# ---- the page documents every option of the usage text ----
usage=$(sed -n '/^static const char usage/,/;$/p' "$top_srcdir/src/tools/cpucycles-compare.c" |
  grep -o -- '--[a-z-]*' | sort -u | tr '\n' ' ')
documented=$(sed -n '/^\.SH OPTIONS/,/^\.SH/p' "$top_builddir/doc/cpucycles-compare.1" | grep '^\.B' |
  grep -o -- '\\-\\-[a-z\\-]*' | sed 's/\\//g' | sort -u | tr '\n' ' ')
if [ -n "$usage" ] && [ "$usage" = "$documented" ]; then
  ok "cpucycles-compare(1) documents exactly its options: $usage"
else
  notok "cpucycles-compare(1)'s OPTIONS and its usage differ"
  echo "# usage:      $usage"; echo "# documented: $documented"
fi
