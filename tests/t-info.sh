#!/bin/sh
# SPDX-License-Identifier: MIT
# t-info - cpucycles-info as scripts use it: exit 0 with its report, a bad
# frequency variable reported and ignored, and a non-zero exit with a
# message when its output cannot be written (a full disk, a closed stdout);
# --help (naming the installed man pages), --version and a bad command
# line; libcpucycles' line forms, exactly; the three figures in cycles
# labelled apart (score, a read's cost, step); the unit line, the counter
# kind's, and --json's unit the same; --json well-formed (checked with
# python3 when there is one) with its fields; --check 0 on the build host, 1 or 2 on a CPU that differs
# (qemu-x86_64 -cpu qemu64, on x86-64 native builds); --compare: saved
# results, one or suites of them, bad input refused, a 16 MiB suite within
# a generous bound (what takes minutes when matching is quadratic); no
# verdict its data cannot support: one execution a side, a result flagged
# as disturbed or measured apart, an interval across the tolerance are
# exit 4 with the file and the reason (judged, warning, with
# --judge-anyway); several executions a side, Welch's interval between
# them, checked against one computed by hand; the wording follows the
# interval.
# Needs top_builddir (from AM_TESTS_ENVIRONMENT); runs through the probe
# runner when there is one.
set -u
. "$top_srcdir/tests/tap.sh"
# cpucycles-info links libcpucycles: uninstalled, in a shared build, it is
# a libtool wrapper script, which a runner's guest cannot execute (no
# /bin/bash there, or an emulator that runs only binaries).  libtool's
# execute mode runs the real program with the library path, through the
# runner.
info="$top_builddir/libtool --mode=execute ${CPUCYCLES_PROBE_RUNNER:-} $top_builddir/cpucycles-info"
out=$(mktemp "${TMPDIR:-/tmp}/cpucycles-info.XXXXXX") || exit 1
err=$out.err
trap 'rm -f "$out" "$err" "$out.text"' EXIT

echo "1..118"
if $info >"$out" 2>"$err" && grep -q '^cpucycles version ' "$out" && grep -q '^cpucycles implementation' "$out"; then
  ok "cpucycles-info prints its report and exits 0"
else
  notok "cpucycles-info prints its report and exits 0"; sed 's/^/# /' "$out" "$err"
fi
# The variable is libcpucycles' last resort, after every OS mechanism: a
# bad one is never used, and is reported when it is reached (when nothing
# before it answered, and the default is used).
if cpucyclespersecond=abc $info >"$out" 2>"$err" && grep -q '^cpucycles persecond source: ' "$out" &&
   ! grep -q '^cpucycles persecond source: environment' "$out" &&
   { ! grep -q '^cpucycles persecond source: default' "$out" || grep -q "'abc': not a number" "$out"; }; then
  ok "a bad cpucyclespersecond is never used: the frequency's source is $(sed -n 's/^cpucycles persecond source: //p' "$out")"
else
  notok "a bad cpucyclespersecond is never used"; sed 's/^/# /' "$out" "$err"
fi
# A good variable that an earlier source makes unneeded is not used, and
# the report says so (a line, and --json's persecond_unused).
if cpucyclespersecond=1234567890 $info >"$out" 2>"$err" &&
   ! grep -qx 'cpucycles persecond 1234567890' "$out" &&
   grep -q '^cpucycles persecond unused: environment variable cpucyclespersecond: not needed: ' "$out" &&
   cpucyclespersecond=1234567890 $info --json 2>"$err" | grep -q '^  "persecond_unused": "environment variable cpucyclespersecond: not needed: '; then
  ok "cpucyclespersecond=1234567890 where $(sed -n 's/^cpucycles persecond source: //p' "$out") answers: not used, and said: $(sed -n 's/^cpucycles persecond unused: //p' "$out" | cut -c1-80)..."
else
  notok "cpucyclespersecond=1234567890 where another source answers: not used, and said"; sed 's/^/# /' "$out" "$err"
fi
# Where nothing else answers, it is used: another x86 CPU (qemu-x86_64
# -cpu qemu64: no build figure, no CPUID rate) with an empty /proc/cpuinfo
# and no cpufreq or tsc_freq_khz (a mount namespace of its own).
nothing_answers() {
  unshare -rm sh -c ': >"$0" && mount --bind "$0" /proc/cpuinfo && mount -t tmpfs none /sys/devices/system/cpu && exec "$@"' \
    "$out.empty" "$top_builddir/libtool" --mode=execute qemu-x86_64 -cpu qemu64 "$top_builddir/cpucycles-info" "$@"
}
if [ -n "${CPUCYCLES_PROBE_RUNNER:-}" ]; then
  ok "cpucyclespersecond where nothing else answers # SKIP runs through a probe runner"
elif ! command -v qemu-x86_64 >/dev/null 2>&1 || ! $info 2>/dev/null | grep -q '^  amd64-tsc '; then
  ok "cpucyclespersecond where nothing else answers # SKIP needs qemu-x86_64 and an x86-64 build"
elif case " ${CFLAGS:-} " in *-fsanitize*|*" -march="*) true ;; *) false ;; esac; then
  ok "cpucyclespersecond where nothing else answers # SKIP a sanitizer or -march= build (it does not run under qemu-user)"
elif ! command -v unshare >/dev/null 2>&1 || ! unshare -rm sh -c 'mount -t tmpfs none /sys/devices/system/cpu' >/dev/null 2>&1; then
  ok "cpucyclespersecond where nothing else answers # SKIP no right to unshare a mount namespace"
elif cpucyclespersecond=1234567890 nothing_answers >"$out" 2>"$err" &&
     grep -qx 'cpucycles persecond 1234567890' "$out" &&
     grep -qx 'cpucycles persecond source: environment variable cpucyclespersecond' "$out" &&
     ! grep -q '^cpucycles persecond unused' "$out"; then
  ok "cpucyclespersecond=1234567890 on another CPU with an empty /proc/cpuinfo: used ($(grep -x 'cpucycles persecond [0-9]*' "$out"), from the environment variable)"
else
  notok "cpucyclespersecond=1234567890 where nothing else answers: used"; sed 's/^/# /' "$out" "$err"
fi
rm -f "$out.empty"
if [ -w /dev/full ]; then
  $info >/dev/full 2>"$err"; status=$?
  if [ "$status" -ne 0 ] && grep -q 'cpucycles-info: cannot write' "$err"; then
    ok "output to a full device: exit $status, $(head -n 1 "$err")"
  else
    notok "output to a full device: exit $status"; sed 's/^/# /' "$err"
  fi
else
  ok "output to a full device # SKIP no /dev/full"
fi
$info >&- 2>"$err"; status=$?
if [ "$status" -ne 0 ] && grep -q 'cpucycles-info: cannot write' "$err"; then
  ok "output to a closed stdout: exit $status"
else
  notok "output to a closed stdout: exit $status"; sed 's/^/# /' "$err"
fi

# ---- the command line ----
$info --help >"$out" 2>"$err"; status=$?
if [ "$status" -eq 0 ] && head -n 1 "$out" | grep -q '^usage: cpucycles-info ' && [ ! -s "$err" ]; then
  ok "--help: usage on stdout, exit 0"
else
  notok "--help: exit $status"; sed 's/^/# /' "$out" "$err"
fi
# --help sends the reader to what is installed: the man pages, not
# README.md or doc/ (which make install does not install)
if grep -q 'cpucycles-info(1)' "$out" && grep -q 'cpucycles(3)' "$out" && grep -q 'cpucycles_bench(3)' "$out" &&
   ! grep -qi 'readme\|\.md\b' "$out"; then
  ok "--help names the installed pages: $(grep -o 'cpucycles[a-z_-]*([13])' "$out" | sort -u | tr '\n' ' ')"
else
  notok "--help names cpucycles-info(1), cpucycles(3) and cpucycles_bench(3), and no README"; sed 's/^/# /' "$out"
fi
version=$($info | sed -n 's/^cpucycles version //p')
$info --version >"$out" 2>"$err"; status=$?
if [ "$status" -eq 0 ] && [ "$(head -n 1 "$out")" = "cpucycles-info $version" ]; then
  ok "--version: $(head -n 1 "$out"), exit 0"
else
  notok "--version: exit $status, want 'cpucycles-info $version'"; sed 's/^/# /' "$out" "$err"
fi
for args in --bogus -x extra "--json --check"; do
  $info $args >"$out" 2>"$err"; status=$?
  if [ "$status" -eq 2 ] && grep -q '^usage: cpucycles-info ' "$err" && [ ! -s "$out" ]; then
    ok "'$args' is refused: exit 2, $(head -n 1 "$err")"
  else
    notok "'$args' is refused: exit $status"; sed 's/^/# /' "$out" "$err"
  fi
done

# ---- libcpucycles' lines, in its exact form ----
$info >"$out" 2>"$err"
if grep -Eqx 'cpucycles version [^ ]+' "$out" && grep -Eqx 'cpucycles implementation [^ ]+' "$out" &&
   grep -Eqx 'cpucycles persecond [0-9]+' "$out" && grep -q '^cpucycles persecond source: ' "$out"; then
  ok "libcpucycles' lines: $(grep -Ex 'cpucycles (implementation|persecond) [^ ]+' "$out" | tr '\n' ' ')"
else
  notok "libcpucycles' lines"; sed 's/^/# /' "$out" "$err"
fi
implementation=$(sed -n 's/^cpucycles implementation \([^ ]*\)$/\1/p' "$out")

# ---- three figures in cycles, each labelled: the tables' score (step plus
# penalty), a read's cost (the deltas' median), the step (the smallest
# nonzero delta, of the same reads: at most their median) ----
median=$(sed -n "s/^cpucycles deltas: .* median \([0-9-]*\) of 1000: a read's cost (the iqm line below: their interquartile mean, then each one's offset from it)$/\1/p" "$out")
step=$(sed -n "s/^cpucycles step: \([0-9]*\): the smallest nonzero delta, the counter's resolution\$/\1/p" "$out")
if grep -Eq "^cpucycles build counters \(.*score = step \+ the kind's penalty(, seeds/000's numbers \(libcpucycles' to 20260105\)| \+ [0-9]+ for each working counter listed before it, libcpucycles 20260901's numbers); the smallest chosen\):\$" "$out" &&
   ! grep -q '^  .* yes  precision ' "$out" && grep -Eq '^  [^ ]+ +yes  score [0-9]+, ' "$out" &&
   [ -n "$median" ] &&
   { { [ -n "$step" ] && [ "$step" -gt 0 ] && { [ "$median" -le 0 ] || [ "$step" -le "$median" ]; }; } ||
     grep -qx 'cpucycles step: none: the counter did not move in 1000 reads' "$out"; }; then
  ok "the tables' score, a read's cost ($median) and the step (${step:-none}) are labelled apart"
else
  notok "the tables' score, a read's cost and the step, labelled apart"; sed 's/^/# /' "$out" "$err"
fi

# ---- the deltas' interquartile mean and each delta's offset from it
# (libcpucycles' line form: "cpucycles iqm N" then 64 signed offsets, no
# space): the deltas the deltas line shows are the IQM plus their offsets
# (the same reads), so a shown delta equal to the median has the offset
# median - IQM ----
iqm_line=$(grep '^cpucycles iqm ' "$out")
if printf '%s\n' "$iqm_line" | grep -Eqx 'cpucycles iqm -?[0-9]+ ([+-][0-9]+){64}' &&
   printf '%s\n%s\n' "$iqm_line" "$(grep '^cpucycles deltas: ' "$out")" | awk -v median="$median" '
     NR == 1 { iqm = $3; s = $4; k = 0
               while (match(s, /[+-][0-9]+/)) { off[++k] = substr(s, RSTART, RLENGTH) + 0; s = substr(s, RSTART + RLENGTH) } }
     NR == 2 { for (i = 3; i <= 18; i++) { d = $i + 0
                 if (d != iqm + off[i - 2]) bad = 1
                 if (d == median + 0 && off[i - 2] != median - iqm) bad = 1 } }
     END { exit bad || k != 64 }'; then
  ok "the iqm line: $(printf '%s' "$iqm_line" | cut -c1-40)...: each shown delta is the IQM plus its offset"
else
  notok "the iqm line: 'cpucycles iqm N' and 64 offsets, the deltas line's deltas the IQM plus them"; sed 's/^/# /' "$out" "$err"
fi
# ---- the frequency observed against CLOCK_MONOTONIC: one line a loop
# (libcpucycles' form), numbers that parse, LOW <= HIGH, the loops 1024
# times a power of 8, growing (a loop that gave no range has no line), at
# most 6; or the line that says no loop gave one.
# No relation between them or to persecond is asserted (a busy machine) ----
if awk '/^cpucycles observed persecond/ {
       if ($0 ~ /^cpucycles observed persecond: none: /) { none++; next }
       if ($0 !~ /^cpucycles observed persecond [0-9]+\.\.\.[0-9]+ with [0-9]+ loops [0-9]+ microseconds$/) bad = 1
       split($4, r, /\.\.\./); if (r[1] + 0 > r[2] + 0) bad = 1
       loops = $6 + 0; if (loops < want) bad = 1; want = loops * 8
       while (loops > 1024 && loops % 8 == 0) loops /= 8
       if (loops != 1024) bad = 1
       n++ }
     END { exit bad || !((n >= 1 && n <= 6 && !none) || (n == 0 && none == 1)) }' "$out"; then
  ok "the observed persecond lines are well-formed, LOW <= HIGH: $(grep '^cpucycles observed persecond' "$out" | tail -n 1)"
else
  notok "the observed persecond lines"; sed 's/^/# /' "$out" "$err"
fi

# ---- what the counts are: the unit line, the kind's (measure.c's rule),
# at the frequency the persecond line gives ----
kind=$(sed -n 's/^cpucycles implementation kind: //p' "$out")
unit_line=$(sed -n 's/^cpucycles unit: //p' "$out")
ghz=$(sed -n 's/^cpucycles persecond \([0-9]*\)$/\1/p' "$out" | awk '{ printf "%.3f", $1 / 1e9 }')
case $kind in
  on-core|"system call") want_unit="core cycles: the core's own cycles: work" ;;
  off-core|"off-core scaled") want_unit="constant-rate cycles at $ghz GHz: time, not work" ;;
  "OS clock") want_unit="OS clock cycles: an OS clock scaled to cycles: coarse" ;;
  *) want_unit="none: no clock: every count is 0" ;;
esac
if [ "$(grep -c '^cpucycles unit: ' "$out")" -eq 1 ] && [ "$unit_line" = "$want_unit" ]; then
  ok "the unit line, the $kind kind's: cpucycles unit: $unit_line"
else
  notok "the unit line for the $kind kind: want 'cpucycles unit: $want_unit'"; sed 's/^/# /' "$out" "$err"
fi

# ---- --json ----
if command -v python3 >/dev/null 2>&1; then
  if $info --json >"$out" 2>"$err" &&
     python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
want = ["version", "implementation", "implementation_kind", "persecond", "persecond_source",
        "persecond_ignored", "persecond_unused", "selection_rule", "build_counters", "build_chose", "build_fingerprint",
        "host_fingerprint", "host_matches", "build_counter_verified", "verdict", "inline",
        "runtime_counters", "deltas_median", "deltas_count", "unit", "unit_note", "step",
        "deltas_iqm", "deltas_offsets", "observed_persecond_low", "observed_persecond_high",
        "observed_loops", "observed_microseconds", "observed"]
missing = [k for k in want if k not in d]
assert not missing, "missing %s" % missing
# Its own choice, consistent with its own verdict: the build counter when
# it was verified, else the best of its run-time table.  (Not compared with
# the text run: another process may have had its check refused on a
# noisy machine (an emulator) and chosen at run time.)
if d["build_counter_verified"]:
    assert d["implementation"] == d["build_chose"], "verified, yet not the build counter"
else:
    best = min((c["score"], i) for i, c in enumerate(d["runtime_counters"]) if c["available"])
    assert d["implementation"] == d["runtime_counters"][best[1]]["name"], "not the best of its table"
assert d["version"] == sys.argv[3], "version %r" % d["version"]
assert isinstance(d["persecond"], int) and d["persecond"] > 0
assert d["build_counters"], "empty build table"
# the score is what the rule compares: the precision, and under the
# numbers of 20260901 10 more for each working counter listed before it
assert d["selection_rule"] in (20260105, 20260901), d["selection_rule"]
for table in [d["build_counters"]] + ([d["runtime_counters"]] if d["runtime_counters"] else []):
    before = 0
    for c in table:
        if c["available"]:
            place = 10 * before if d["selection_rule"] == 20260901 else 0
            assert c["score"] == c["precision"] + place, c
            before += 1
        else:
            assert c["score"] is None, c
for c in d["build_counters"]:
    assert set(c) == {"name", "available", "precision", "score", "hz", "kind", "reason"}, c
    assert c["available"] in (True, False, None), c
# an observation of every loop, the longest one also as the single members
if d["observed"]:
    o = d["observed"][-1]
    assert set(o) == {"loops", "microseconds", "persecond_low", "persecond_high"}, o
    assert (o["loops"], o["microseconds"], o["persecond_low"], o["persecond_high"]) == \
        (d["observed_loops"], d["observed_microseconds"], d["observed_persecond_low"],
         d["observed_persecond_high"]), o
else:
    assert d["observed_loops"] is None
assert isinstance(d["host_matches"], bool) and isinstance(d["inline"], bool)
# the verdict calls the counter inline exactly when it is
assert d["verdict"].startswith("inline ") == d["inline"], (d["verdict"], d["inline"])
' "$out" "$implementation" "$version" 2>"$err"; then
    ok "--json parses, has every field, the implementation its verdict says, 'inline' as \"inline\" says"
  else
    notok "--json"; sed 's/^/# /' "$out" "$err"
  fi
else
  ok "--json parses # SKIP no python3"
fi
# the step in --json: the smallest nonzero delta, at most their median
if command -v python3 >/dev/null 2>&1; then
  if $info --json >"$out" 2>"$err" &&
     python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
step, median = d["step"], d["deltas_median"]
assert step is None or (isinstance(step, int) and step > 0), step
assert step is None or median <= 0 or step <= median, (step, median)
' "$out" 2>"$err"; then
    ok "--json's step ($(sed -n 's/^  "step": //p' "$out")) is a step: at most deltas_median"
  else
    notok "--json's step"; sed 's/^/# /' "$out" "$err"
  fi
else
  ok "--json's step # SKIP no python3"
fi
# the deltas in --json: all of them as offsets from their IQM, which is
# their middle half's mean, rounded to the nearest (half away from
# zero), between the smallest and the largest; the median and step the same deltas'.  The observed
# frequency: the longest loop's range, integers with LOW <= HIGH, or all
# four null.
if command -v python3 >/dev/null 2>&1; then
  if $info --json >"$out" 2>"$err" &&
     python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
iqm, offsets, n = d["deltas_iqm"], d["deltas_offsets"], d["deltas_count"]
assert isinstance(iqm, int) and not isinstance(iqm, bool), iqm
assert isinstance(offsets, list) and len(offsets) == n, (len(offsets), n)
assert all(isinstance(o, int) and not isinstance(o, bool) for o in offsets)
deltas = sorted(iqm + o for o in offsets)
assert deltas[0] <= iqm <= deltas[-1], (deltas[0], iqm, deltas[-1])
middle = deltas[n // 4 : n - n // 4]
total, k = sum(middle), len(middle)
want = (abs(total) + k // 2) // k * (1 if total >= 0 else -1)
assert iqm == want, (iqm, want)
assert d["deltas_median"] == deltas[n // 2], (d["deltas_median"], deltas[n // 2])
moved = [x for x in deltas if x > 0]
assert d["step"] == (moved[0] if moved else None), (d["step"], moved[:1])
keys = ["observed_persecond_low", "observed_persecond_high", "observed_loops", "observed_microseconds"]
values = [d[k] for k in keys]
if values[0] is None:
    assert values == [None] * 4, values
else:
    assert all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in values), values
    low, high, loops, us = values
    assert low <= high, (low, high)
    assert loops >= 1024 and loops & (loops - 1) == 0, loops
' "$out" 2>"$err"; then
    ok "--json's deltas_iqm ($(sed -n 's/^  "deltas_iqm": \(.*\),$/\1/p' "$out")) is its deltas_offsets' IQM, between the smallest and largest; observed_* $(sed -n 's/^  "observed_persecond_low": \(.*\),$/\1/p' "$out")...$(sed -n 's/^  "observed_persecond_high": \(.*\),$/\1/p' "$out")"
  else
    notok "--json's deltas_iqm, deltas_offsets and observed_*"; sed 's/^/# /' "$err"
  fi
else
  ok "--json's deltas_iqm and observed_* # SKIP no python3"
fi
# the unit in --json: the kind's, and the text's (both runs chose the same
# counter, or the text's is not comparable)
if command -v python3 >/dev/null 2>&1; then
  if $info --json >"$out" 2>"$err" &&
     python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
units = {"on-core": "core cycles", "system call": "core cycles", "off-core": "constant-rate cycles",
         "off-core scaled": "constant-rate cycles", "OS clock": "OS clock cycles", "none": "none"}
assert d["unit"] == units[d["implementation_kind"]], (d["unit"], d["implementation_kind"])
assert isinstance(d["unit_note"], str) and d["unit_note"], d["unit_note"]
if d["implementation"] == sys.argv[2]:
    text = sys.argv[3]
    assert text.startswith(d["unit"] + (" at " if d["unit"] == "constant-rate cycles" else ": ")), (text, d["unit"])
    assert text.endswith(": " + d["unit_note"]), (text, d["unit_note"])
' "$out" "$implementation" "$unit_line" 2>"$err"; then
    ok "--json's unit and unit_note: the kind's, and the text's ($(sed -n 's/^  "unit": \(.*\),$/\1/p' "$out"))"
  else
    notok "--json's unit and unit_note"; sed 's/^/# /' "$out" "$err"
  fi
else
  ok "--json's unit # SKIP no python3"
fi

# ---- --check ----
$info >"$out" 2>"$err"
if grep -q '^cpucycles build chose nothing' "$out"; then
  # a portable build: 0 when the best counter here is in use (the run-time
  # choice), 2 when only an OS clock is left
  $info --check >"$out" 2>"$err"; status=$?
  if { [ "$status" -eq 0 ] && grep -q '^cpucycles check: ok: no build counter (a portable build); .* is the best counter this host has' "$out"; } ||
     { [ "$status" -eq 2 ] && grep -q '^cpucycles check: no cycle counter: ' "$out"; }; then
    ok "--check with no build counter: exit $status, $(cat "$out")"
  else
    notok "--check with no build counter: exit $status"; sed 's/^/# /' "$out" "$err"
  fi
elif grep -q 'differs from the build host' "$out"; then
  ok "--check on the build host # SKIP this is not the build host (a runner emulating another CPU)"
elif ! grep -q '^cpucycles build chose .*, inlined in cpucycles()' "$out"; then
  ok "--check on the build host # SKIP nothing is inlined in this build (--disable-inline or a library-read counter)"
else
  # configure's measurement of its counter and this process's check of it
  # are made at different moments, which a busy or emulated machine can set
  # apart: a refusal for the precision alone is tried again, in 5 processes
  # at most (a check that is wrong refuses in every one).
  attempt=1
  while $info --check >"$out" 2>"$err"; status=$?; [ "$status" -eq 1 ] && [ "$attempt" -lt 5 ] &&
        grep -q ': precision [0-9]* here, [0-9]* at build time' "$out"; do
    attempt=$((attempt + 1))
  done
  if [ "$status" -eq 0 ] && grep -q '^cpucycles check: ok: ' "$out"; then
    ok "--check on the build host: exit 0 (process $attempt of at most 5), $(cat "$out")"
  else
    notok "--check on the build host: exit $status"; sed 's/^/# /' "$out" "$err"
  fi
fi
$info >"$out.text" 2>/dev/null
if [ -n "${CPUCYCLES_PROBE_RUNNER:-}" ]; then
  ok "--check on another CPU # SKIP runs through a probe runner"
elif ! command -v qemu-x86_64 >/dev/null 2>&1; then
  ok "--check on another CPU # SKIP no qemu-x86_64"
elif ! grep -q '^  amd64-tsc ' "$out.text"; then
  ok "--check on another CPU # SKIP not an x86-64 build"
elif case " ${CFLAGS:-} " in *-fsanitize*) true ;; *) false ;; esac; then
  ok "--check on another CPU # SKIP a sanitizer build (its runtime does not run under qemu-user)"
elif case " ${CFLAGS:-} " in *" -march="*) true ;; *) false ;; esac; then
  ok "--check on another CPU # SKIP built for this CPU only (-march= in CFLAGS): SIGILL elsewhere"
else
  "$top_builddir/libtool" --mode=execute qemu-x86_64 -cpu qemu64 "$top_builddir/cpucycles-info" --check >"$out" 2>"$err"
  status=$?
  if { [ "$status" -eq 1 ] && grep -q '^cpucycles check: fallback: ' "$out"; } ||
     { [ "$status" -eq 2 ] && grep -q '^cpucycles check: no cycle counter: ' "$out"; } ||
     { [ "$status" -eq 0 ] && grep -q '^cpucycles build chose nothing' "$out.text" &&
       grep -q '^cpucycles check: ok: no build counter' "$out"; }; then
    ok "--check under qemu-x86_64 -cpu qemu64: exit $status, $(cat "$out")"
  else
    notok "--check under qemu-x86_64 -cpu qemu64: exit $status"; sed 's/^/# /' "$out" "$err"
  fi
fi
rm -f "$out.text"

# ---- --compare: two saved cpucycles_bench() results ----
# (in the build tree, which a probe runner's guest shares; the library's
# own JSON is read back in t-compare)
saved=$top_builddir/t-info-saved
saved_json() { # file name cycles error [counter [host]]
  printf '{\n  "type": "bench",\n  "name": "%s",\n  "interquartile_mean": %s,\n  "interquartile_mean_error": %s,\n  "counter": "%s",\n  "host": "%s"\n}\n' \
    "$2" "$3" "$4" "${5:-amd64-tsc}" "${6:-h}" >"$1"
}
saved_json "$saved-old.json" old 1000 2
saved_json "$saved-new.json" new 1100 2
saved_json "$saved-near.json" near 1010 2
saved_json "$saved-fast.json" fast 800 2 arm64-vct
printf '{"type": "compare", "ratio": 1}\n' >"$saved-other.json"
compare_case() { # want-status grep-pattern what args...
  want=$1 pattern=$2 what=$3; shift 3
  $info --compare "$@" >"$out" 2>"$err"; status=$?
  if [ "$status" -eq "$want" ] && cat "$out" "$err" | grep -q -- "$pattern"; then
    ok "--compare $what: exit $status, $(cat "$out" "$err" | grep -- "$pattern" | head -n 1)"
  else
    notok "--compare $what: exit $status, want $want and '$pattern'"; sed 's/^/# /' "$out" "$err"
  fi
}
compare_clean() { # what: the last --compare printed no control byte but its line ends
  if cat "$out" "$err" | tr -d '\n' | LC_ALL=C grep -q '[[:cntrl:]]'; then
    notok "--compare $1: a control byte reached the terminal"; cat "$out" "$err" | od -c | sed 's/^/# /'
  else
    ok "--compare $1: no control byte reaches the terminal"
  fi
}
# One result a file is one execution a side: how two processes differ is
# not known, so it is not judged (exit 4) unless --judge-anyway, which
# judges it by the interval within the processes, warning still.
compare_case 4 'cannot judge old: OLD .*-old.json holds one execution of it, and so does NEW' "one execution a side: cannot judge" "$saved-old.json" "$saved-new.json"
compare_case 1 'new/old 1.1000, .*within each process: slower, beyond the tolerance of 5% (judged anyway)' "10% slower, one execution a side, --judge-anyway" "$saved-old.json" "$saved-new.json" --judge-anyway
compare_case 1 'warning: old: OLD .*-old.json holds one execution of it' "and warned" "$saved-old.json" "$saved-new.json" --judge-anyway
compare_case 0 'within each process: slower, within the tolerance of 5% (judged anyway)' "1% slower, its interval above 1: slower, within the 5% tolerance" "$saved-old.json" "$saved-near.json" --judge-anyway
compare_case 1 ': slower (judged anyway)' "1% slower with --tolerance 0" "$saved-old.json" "$saved-near.json" --tolerance 0 --judge-anyway
compare_case 0 'warning: old: NEW .*-fast.json, result 1 was measured with counter arm64-vct, OLD .*-old.json, result 1 with amd64-tsc' "20% faster, on another counter (warned)" "$saved-old.json" "$saved-fast.json" --judge-anyway
compare_case 2 'not a cpucycles_bench() result' "a comparison's JSON is refused" "$saved-old.json" "$saved-other.json"
compare_case 2 "not a percentage" "a bad --tolerance is refused" "$saved-old.json" "$saved-new.json" --tolerance abc
# The whole file is read (up to 16 MiB): a name as long as the library
# writes one (70000 bytes), valid JSON after 100 KB of blanks; /dev/zero
# ends with a message; a read error is the system's.
saved_json "$saved-long.json" "$(head -c 70000 /dev/zero | tr '\0' x)" 1100 2
compare_case 1 'new/old 1.1000, .*: slower' "a 70000-byte name is read" "$saved-old.json" "$saved-long.json" --judge-anyway
{ head -c 100000 /dev/zero | tr '\0' ' '; cat "$saved-new.json"; } >"$saved-blanks.json"
compare_case 1 'new/old 1.1000, .*: slower' "JSON after 100 KB of blanks is read" "$saved-old.json" "$saved-blanks.json" --judge-anyway
compare_case 2 'NEW /dev/zero: too large (over 16 MiB)' "/dev/zero is refused, too large" "$saved-old.json" /dev/zero
mkdir "$saved-dir.json"
compare_case 2 'NEW .*-dir.json: Is a directory' "a directory: the system's error" "$saved-old.json" "$saved-dir.json"
compare_case 2 'OLD .*-missing.json: No such file' "a missing file: the system's error" "$saved-missing.json" "$saved-new.json"
rmdir "$saved-dir.json"
# Read as JSON: only the top-level object's own members count, a key
# repeated there is refused, anything after the object too; any valid
# layout is read.
printf '{"meta": {"interquartile_mean": 1, "type": "bench"}, "type": "bench", "name": "m", "interquartile_mean": 3000, "interquartile_mean_error": 2, "counter": "amd64-tsc", "host": "h"}' >"$saved-meta.json"
compare_case 1 'new/old 3.0000, .*: slower' "a nested interquartile_mean does not count" "$saved-old.json" "$saved-meta.json" --judge-anyway
printf '{"x": {"type": "bench"}, "type": "compare", "interquartile_mean": 1000, "interquartile_mean_error": 2}' >"$saved-nested-type.json"
compare_case 2 'NEW .*: not a cpucycles_bench() result' "a nested \"type\": \"bench\" does not count" "$saved-old.json" "$saved-nested-type.json"
sed 's/"interquartile_mean": 1100,/"interquartile_mean": 1000, "interquartile_mean": 1100,/' "$saved-new.json" >"$saved-twice.json"
compare_case 2 'NEW .*: not JSON: the key "interquartile_mean" appears more than once' "a key twice at the top level is refused" "$saved-old.json" "$saved-twice.json"
{ cat "$saved-new.json"; echo '{}'; } >"$saved-trailing.json"
compare_case 2 'NEW .*: value 2 (line 9): not a cpucycles_bench() result' "an object after the result that is not one is refused" "$saved-old.json" "$saved-trailing.json"
{ cat "$saved-new.json"; echo 'x'; } >"$saved-trailing.json"
compare_case 2 'NEW .*: not JSON: line 9, column 1: not a JSON value' "text after the result is refused" "$saved-old.json" "$saved-trailing.json"
# Several results per file, matched by name: an array of them, or one
# after another (cat); the exit status says whether any is slower, and
# with --exit-faster whether any is faster.  (One execution of each,
# judged anyway; executions below.)
suite() { # file [name cycles]...: the results one after another
  f=$1; shift; : >"$f"
  while [ $# -ge 2 ]; do saved_json "$f.one" "$1" "$2" 2; cat "$f.one" >>"$f"; shift 2; done
  rm -f "$f.one"
}
suite "$saved-suite-old.json" hash 1000 sort 2000 gone 500
suite "$saved-suite-new.json" sort 2000 hash 1100 added 700
{ echo '['; sed '$!b; s/}$/},/' "$saved-old.json" | sed '$s/^}$/},/'; saved_json "$saved-one.json" sort 2000 2; cat "$saved-one.json"; echo ']'; } >"$saved-suite-array.json"
rm -f "$saved-one.json"
compare_case 1 '^hash: old 1000.00 .*new 1100.00 .*new/old 1.1000, .*: slower' "two files of three results: matched by name, the slower one called" "$saved-suite-old.json" "$saved-suite-new.json" --judge-anyway
compare_case 1 '^2 compared (tolerance 5%): 1 slower (1 beyond the tolerance), 0 faster (0 beyond it), 1 indistinguishable, 0 cannot judge' "and summed up" "$saved-suite-old.json" "$saved-suite-new.json" --judge-anyway
compare_case 1 '^gone: only in OLD' "a result only in OLD is named" "$saved-suite-old.json" "$saved-suite-new.json" --judge-anyway
compare_case 1 '^added: only in NEW' "a result only in NEW is named" "$saved-suite-old.json" "$saved-suite-new.json" --judge-anyway
compare_case 0 '^sort: .*new/old 1.0000, .*: indistinguishable' "a JSON array of results is read" "$saved-suite-array.json" "$saved-suite-new.json" --judge-anyway
echo '[]' >"$saved-suite-empty.json"
compare_case 2 'NEW .*: no cpucycles_bench() result in it' "an empty array is refused" "$saved-suite-old.json" "$saved-suite-empty.json"
suite "$saved-suite-twice.json" hash 1000 hash 1100
compare_case 4 '^hash: .*new 1048.81 cycles per call (2 executions, .*: cannot judge' "two results of one name are two executions of it" "$saved-suite-old.json" "$saved-suite-twice.json"
suite "$saved-suite-none.json" other 1000 another 1000
compare_case 2 'nothing to compare' "no name in both files: exit 2" "$saved-suite-old.json" "$saved-suite-none.json"
# A suite as large as a file may be (16 MiB: 114000 results): matched in
# about a second, where a search of NEW for each of OLD's names, or a
# file's count of lines from its start for each value, takes 20 minutes.
# The bound is 60 times that (600 through an emulator), never a
# comparison of two runs.  NEW's results in the reverse order, b0 only in
# OLD, "added" only in NEW, b7 10% slower: the rows keep OLD's order.
big_suite() { # file first last step slow: b<first>..b<last>, b7 at slow cycles
  awk -v i="$2" -v last="$3" -v step="$4" -v slow="$5" 'BEGIN {
    for (; step > 0 ? i <= last : i >= last; i += step)
      printf "{\n  \"type\": \"bench\",\n  \"name\": \"b%d\",\n  \"interquartile_mean\": %d,\n  \"interquartile_mean_error\": 2,\n  \"counter\": \"amd64-tsc\",\n  \"host\": \"h\"\n}\n", i, i == 7 ? slow : 1000
  }' >"$1"
}
# Through an emulator, a tenth of it: the same matching in 10 times fewer
# rows (the bound is the native run's point; the whole suite took 16 s of
# each row of the cross matrix, under qemu-user).
big_last=113999
[ -z "${CPUCYCLES_PROBE_RUNNER:-}" ] || big_last=11399
big_suite "$saved-big-old.json" 0 $big_last 1 1000
big_suite "$saved-big-new.json" $big_last 1 -1 1100
saved_json "$saved-one.json" added 1000 2
cat "$saved-one.json" >>"$saved-big-new.json"
bound=60
[ -z "${CPUCYCLES_PROBE_RUNNER:-}" ] || bound=600
command -v timeout >/dev/null 2>&1 && bounded="timeout $bound" || bounded=
size=$(wc -c <"$saved-big-new.json")
$bounded $info --compare "$saved-big-old.json" "$saved-big-new.json" --judge-anyway >"$out" 2>"$err"; status=$?
if [ $status -eq 1 ] && [ "$size" -le 16777216 ] && [ "$(wc -l <"$out")" -eq $((big_last + 3)) ] &&
   sed -n 1p "$out" | grep -q '^b1: old 1000.00 ' &&
   grep -q '^b7: old 1000.00 .*new 1100.00 .*: slower' "$out" &&
   [ "$(tail -n 3 "$out")" = "b0: only in OLD
added: only in NEW
$big_last compared (tolerance 5%): 1 slower (1 beyond the tolerance), 0 faster (0 beyond it), $((big_last - 1)) indistinguishable, 0 cannot judge" ] &&
   [ "$(wc -l <"$err")" -le 21 ]; then
  ok "--compare two suites of $((big_last + 1)) results ($size bytes) within ${bound}s: $(tail -n 1 "$out")"
else
  notok "--compare two suites of $((big_last + 1)) results ($size bytes) within ${bound}s: exit $status (124: timed out), $(wc -l <"$out") lines"
  sed 's/^/# /' "$err"; head -n 3 "$out" | sed 's/^/# /'; tail -n 3 "$out" | sed 's/^/# /'
fi
# Two results of one name, far apart in a suite as large: two executions
# of it, grouped.
cat "$saved-big-old.json" "$saved-one.json" >"$saved-big-twice.json"
big_suite "$saved-one.json" 5 5 1 1000
cat "$saved-one.json" >>"$saved-big-twice.json"
$bounded $info --compare "$saved-big-old.json" "$saved-big-twice.json" --judge-anyway >"$out" 2>"$err"; status=$?
if [ $status -eq 0 ] && grep -q '^b5: old 1000.00 .*, new 1000.00 cycles per call (2 executions, ' "$out"; then
  ok "--compare a suite of $((big_last + 1)) results with one name twice, within ${bound}s: $(grep '^b5:' "$out")"
else
  notok "--compare a suite of $((big_last + 1)) results with one name twice, within ${bound}s: exit $status (124: timed out)"; sed 's/^/# /' "$err"; grep '^b5:' "$out" | sed 's/^/# /'
fi
rm -f "$saved-one.json" "$saved"-big-*.json
saved_json "$saved-fast.json" fast 800 2
compare_case 3 ': faster, beyond the tolerance of 5%' "20% faster with --exit-faster: exit 3" "$saved-old.json" "$saved-fast.json" --exit-faster --judge-anyway
compare_case 0 ': slower, within the tolerance of 5%' "1% slower with --exit-faster: exit 0" "$saved-old.json" "$saved-near.json" --exit-faster --judge-anyway
compare_case 1 ': slower' "slower with --exit-faster: exit 1" "$saved-old.json" "$saved-new.json" --exit-faster --judge-anyway
suite "$saved-suite-faster.json" hash 800 sort 2000
compare_case 3 '^2 compared (tolerance 5%): 0 slower (0 beyond the tolerance), 1 faster (1 beyond it)' "a suite with one faster, none slower, --exit-faster: exit 3" "$saved-suite-old.json" "$saved-suite-faster.json" --exit-faster --judge-anyway
saved_json "$saved-wide.json" wide 1060 40
compare_case 0 'new/old 1.0600, .*: indistinguishable, the interval reaching across the tolerance of 5% (judged anyway)' "6% slower whose interval reaches below 1, judged anyway: not called slower" "$saved-old.json" "$saved-wide.json" --judge-anyway
for option in --exit-faster --judge-anyway; do
  $info $option >"$out" 2>"$err"; status=$?
  if [ $status -eq 2 ] && grep -q -- "$option goes with --compare" "$err"; then
    ok "$option without --compare is refused: exit 2, $(cat "$err")"
  else
    notok "$option without --compare: exit $status"; sed 's/^/# /' "$out" "$err"
  fi
done
awk '{ printf "%s\r\n", $0 }' "$saved-new.json" >"$saved-crlf.json"
{ printf '\357\273\277'; cat "$saved-new.json"; } >"$saved-bom.json"
tr -d ' \n' <"$saved-new.json" >"$saved-minified.json"
printf '{"counter":"amd64-tsc","host":"h","interquartile_mean":1100,"interquartile_mean_error":2,"name":"new","type":"bench"}' >"$saved-sorted.json"
for layout in crlf bom minified sorted; do
  compare_case 1 'new/old 1.1000, .*: slower' "$layout layout is read" "$saved-old.json" "$saved-$layout.json" --judge-anyway
done
# Garbage is exit 2 with a message, never a crash.
awk 'BEGIN { for (i = 0; i < 100000; i++) printf "[" }' >"$saved-deep.json"
compare_case 2 'NEW .*: not JSON: .*nested more than 256 deep' "100000 '[' are refused" "$saved-old.json" "$saved-deep.json"
head -c 4096 /dev/urandom >"$saved-random.json" 2>/dev/null
compare_case 2 'NEW .*: not JSON: line ' "random bytes are refused" "$saved-old.json" "$saved-random.json"
for bad in NaN '"abc"' null; do
  sed "s/\"interquartile_mean\": 1100,/\"interquartile_mean\": $bad,/" "$saved-new.json" >"$saved-bad.json"
  compare_case 2 'NEW .*: interquartile_mean: missing, or not a number\|NEW .*: not JSON' "interquartile_mean $bad is refused" "$saved-old.json" "$saved-bad.json"
done
# A regression gate must not pass on garbage: figures beyond a double
# (1e999 reads as inf), or finite ones whose ratio is not, are exit 2; so
# are a negative error and a mean that is not positive.
saved_json "$saved-inf.json" inf 1e999 2
compare_case 2 'NEW .*: interquartile_mean: not a finite number' "NEW interquartile_mean 1e999 is refused" "$saved-old.json" "$saved-inf.json"
compare_case 2 'OLD .*: interquartile_mean: not a finite number' "OLD interquartile_mean 1e999 is refused" "$saved-inf.json" "$saved-new.json"
saved_json "$saved-inf.json" slow 3000 1e999
compare_case 2 'NEW .*: interquartile_mean_error: not a finite number' "NEW 3x slower with error 1e999 is refused" "$saved-old.json" "$saved-inf.json"
saved_json "$saved-tiny.json" tiny 1e-300 0
saved_json "$saved-huge.json" huge 1e300 0
compare_case 2 'too far apart to compare' "1e-300 against 1e300 (a ratio beyond a double) is refused" "$saved-tiny.json" "$saved-huge.json" --judge-anyway
saved_json "$saved-bad.json" bad 1100 -1
compare_case 2 'NEW .*: interquartile_mean_error: negative' "a negative error is refused" "$saved-old.json" "$saved-bad.json"
saved_json "$saved-bad.json" bad 0 2
compare_case 2 'NEW .*: interquartile_mean: not positive' "a mean of 0 is refused" "$saved-old.json" "$saved-bad.json"
# Control characters in a file's strings (escaped, as the library writes
# them) are printed as '?', in every field and the warning: a result must
# not retitle or clear the terminal.  Raw ones are not JSON.
saved_json "$saved-esc.json" 'a\u001b]0;pwned\u0007b\u007f' 1000 2 'x\u001b[2J' 'h\r\n'
compare_case 0 '^new a?]0;pwned?b?: 1000.00' "escaped control characters in the name" "$saved-old.json" "$saved-esc.json" --judge-anyway
compare_case 0 'with host h??, OLD .* with h$' "escaped control characters in the counter and host (warning)" "$saved-old.json" "$saved-esc.json" --judge-anyway
compare_clean "escaped control characters"
printf '{"type": "bench", "name": "a\033]0;pwned\007b", "interquartile_mean": 1000, "interquartile_mean_error": 2, "counter": "x\033[2J", "host": "h"}' >"$saved-esc.json"
compare_case 2 'NEW .*: not JSON: .*a control character in a string' "raw control characters are refused" "$saved-old.json" "$saved-esc.json"
compare_clean "raw control characters"
# ---- --compare on executions: several results of one name a file ----
# Each result one line, as save-json writes N of them (its fields as
# cpucycles_bench_format() writes them); a test changes one line with sed.
runs() { # file name figures...: one execution of name at each figure
  runs_file=$1 runs_name=$2; shift 2; : >"$runs_file"
  for x in "$@"; do
    printf '{"type": "bench", "name": "%s", "interquartile_mean": %s, "interquartile_mean_error": 1, "count": 1000, "disturbed": 0, "flags": ["subtracted", "freq-unknown"], "counter": "amd64-tsc", "unit": "constant-rate cycles", "host": "h", "version": "0.1.0"}\n' "$runs_name" "$x" >>"$runs_file"
  done
}
# Three executions a side, each 1% from the side's middle in log:
# 1000 * exp(-0.01, 0, 0.01), and NEW 1.1 times those.  By hand: each
# side's log variance is (0.01^2 + 0 + 0.01^2) / 2 = 1e-4, of its mean
# 1e-4 / 3; the standard error of the difference sqrt(2e-4 / 3) =
# 0.0081650; Welch's degrees of freedom (2a)^2 / (2 a^2 / 2) = 4, where
# Student's 99% point is 4.604: [1.1 exp(-0.037592), 1.1 exp(0.037592)]
# = [1.0594, 1.1421], whatever is within each execution.
figures() { awk -v m="$1" -v s="$2" 'BEGIN { printf "%.10g %.10g %.10g", m * exp(-s), m, m * exp(s) }'; }
runs "$saved-x-old.json" sum $(figures 1000 0.01)
runs "$saved-x-new.json" sum $(figures 1100 0.01)
compare_case 1 '^new/old 1.1000, 99% interval \[1.0594, 1.1421\] between processes: slower, beyond the tolerance of 5%$' "three executions a side: Welch's interval between them, by hand" "$saved-x-old.json" "$saved-x-new.json"
compare_case 1 '^old sum: 1000.00 cycles per call (3 executions, +- 1.00% between them)$' "and each side's spread between its executions" "$saved-x-old.json" "$saved-x-new.json"
# The wording follows the interval: above 1 but within the tolerance is
# slower within it; across 1, indistinguishable; across the tolerance,
# no verdict (exit 4) but with --judge-anyway.
runs "$saved-x-old.json" sum $(figures 1000 0.001)
runs "$saved-x-near.json" sum $(figures 1010 0.001)
runs "$saved-x-same.json" sum $(figures 1000.5 0.001)
compare_case 0 ': slower, within the tolerance of 5%$' "+1%, interval above 1: slower, within the tolerance" "$saved-x-old.json" "$saved-x-near.json"
compare_case 0 ': indistinguishable, within the tolerance of 5%$' "+0.05%, interval across 1: indistinguishable" "$saved-x-old.json" "$saved-x-same.json"
runs "$saved-x-old.json" sum $(figures 1000 0.01)
runs "$saved-x-across.json" sum $(figures 1060 0.01)
compare_case 4 ': cannot judge: the interval reaches across the tolerance of 5%$' "+6%, interval across +5%: cannot judge" "$saved-x-old.json" "$saved-x-across.json"
compare_case 0 ': slower, the interval reaching across the tolerance of 5% (judged anyway)$' "the same, --judge-anyway: exit 0" "$saved-x-old.json" "$saved-x-across.json" --judge-anyway
# A result flagged as disturbed is not judged: it is left out, and said
# (which file, which result, which flag), where each side keeps two and
# half of its executions; else it is a reason not to judge, and
# --judge-anyway judges every execution, warning.  Six executions a side,
# 0.1% apart.
six() { awk -v m="$1" 'BEGIN { printf "%.10g %.10g %.10g %.10g %.10g %.10g", m * exp(-0.002), m * exp(-0.001), m, m, m * exp(0.001), m * exp(0.002) }'; }
runs "$saved-x6-old.json" sum $(six 1000)
runs "$saved-x6-new.json" sum $(six 1100)
for flag in drift spread below-resolution; do
  sed "2s/\"flags\": \\[/\"flags\": [\"$flag\", /" "$saved-x6-new.json" >"$saved-x-flag.json"
  compare_case 1 "left out: NEW .*-x-flag.json, result 2 is flagged $flag: " "NEW's execution flagged $flag: left out, said, the others judged: exit 1" "$saved-x6-old.json" "$saved-x-flag.json"
done
compare_case 1 '^new sum: 1100.* (5 executions of 6, ' "and the judged executions counted" "$saved-x6-old.json" "$saved-x-flag.json"
sed '1,3s/"flags": \[/"flags": ["drift", /' "$saved-x6-old.json" >"$saved-x-flag.json"
compare_case 1 "left out: OLD .*-x-flag.json, result 3 is flagged drift: " "3 of OLD's 6 flagged: left out, the other half judged: exit 1" "$saved-x-flag.json" "$saved-x6-new.json"
sed '1,4s/"flags": \[/"flags": ["drift", /' "$saved-x6-old.json" >"$saved-x-flag.json"
compare_case 4 "cannot judge sum: OLD .*-x-flag.json, result 4 is flagged drift: " "4 of OLD's 6 flagged: fewer than half left, not judged: exit 4" "$saved-x-flag.json" "$saved-x6-new.json"
compare_case 1 ': slower, beyond the tolerance of 5% (judged anyway)$' "the same, --judge-anyway: every execution judged (exit 1)" "$saved-x-flag.json" "$saved-x6-new.json" --judge-anyway
compare_case 1 'warning: sum: OLD .*-x-flag.json, result 4 is flagged drift: ' "and warned" "$saved-x-flag.json" "$saved-x6-new.json" --judge-anyway
sed '1s/"flags": \[/"flags": ["drift", /' "$saved-x-old.json" >"$saved-x-flag.json"
compare_case 4 "left out: OLD .*-x-flag.json, result 1 is flagged drift: " "1 of OLD's 3 flagged: left out, but the two left give no verdict: exit 4" "$saved-x-flag.json" "$saved-x-new.json"
sed '1s/"count": 1000/"count": 5/' "$saved-x6-new.json" >"$saved-x-flag.json"
compare_case 1 "left out: NEW .*-x-flag.json, result 1 kept 5 runs: too few" "5 runs kept: left out, said" "$saved-x6-old.json" "$saved-x-flag.json"
sed '1,4s/"disturbed": 0/"disturbed": 1001/' "$saved-x6-new.json" >"$saved-x-flag.json"
compare_case 4 "cannot judge sum: NEW .*-x-flag.json, result 1 kept 1000 runs: too few (1001 of its runs were disturbed" "most runs disturbed in 4 of 6: exit 4" "$saved-x6-old.json" "$saved-x-flag.json"
# Yuen's interval: 10 executions a side, at 1000 and 1100 times exp of
# -3 -2 -1 -1 0 0 1 1 2 3 hundredths, NEW's last one 1.9 times (a busy
# neighbour, unflagged).  By hand: 2 trimmed at each end, the trimmed
# means' logs 1.1 apart; the winsorized values -1 -1 -1 -1 0 0 1 1 1 1
# hundredths, variance 8e-4 / 9 (0.94%); each side's squared standard
# error 9 (8e-4 / 9) / (6 * 5) = 2.6667e-5, degrees of freedom (2a)^2 /
# (2 a^2 / 5) = 10, where Student's 99% point is 3.169: [1.1
# exp(-0.023143), 1.1 exp(0.023143)] = [1.0748, 1.1258].  Welch's on the
# same figures would not judge at 2%.
ten() { awk -v m="$1" -v last="$2" 'BEGIN { split("-3 -2 -1 -1 0 0 1 1 2", e, " "); for (i = 1; i <= 9; i++) printf "%.10g ", m * exp(e[i] / 100); printf "%.10g", last }'; }
runs "$saved-x10-old.json" sum $(ten 1000 $(awk 'BEGIN { printf "%.10g", 1000 * exp(0.03) }'))
runs "$saved-x10-new.json" sum $(ten 1100 $(awk 'BEGIN { printf "%.10g", 1900 * 1.1 }'))
compare_case 1 '^new/old 1.1000, 99% interval \[1.0748, 1.1258\] between processes: slower, beyond the tolerance of 2%$' "10 executions a side, one 1.9 times: Yuen's interval on trimmed means, by hand" "$saved-x10-old.json" "$saved-x10-new.json" --tolerance 2
compare_case 1 '^new sum: 1100.00 cycles per call (10 executions, +- 0.94% between them)$' "and the winsorized spread between them" "$saved-x10-old.json" "$saved-x10-new.json" --tolerance 2
# Measured apart from OLD: another counter, unit, host, library version,
# or libcpucycles' own library.
for key in counter unit host version; do
  case $key in
    counter*) key=counter from=amd64-tsc to=arm64-vct ;;
    unit*) key=unit from='constant-rate cycles' to='core cycles' ;;
    host*) key=host from=h to=h2 ;;
    *) key=version from=0.1.0 to=0.2.0 ;;
  esac
  what=$key; [ $key = version ] && what='library version'
  sed "2s/\"$key\": \"$from\"/\"$key\": \"$to\"/" "$saved-x-new.json" >"$saved-x-apart.json"
  compare_case 4 "cannot judge sum: NEW .*-x-apart.json, result 2 was measured with $what $to, OLD .*, result 1 with $from\$" "another $what in NEW: exit 4" "$saved-x-old.json" "$saved-x-apart.json"
done
sed '2s/"flags": \[/"flags": ["other-library", /' "$saved-x-new.json" >"$saved-x-apart.json"
compare_case 4 "cannot judge sum: NEW .*-x-apart.json, result 2 was measured with libcpucycles' own counter library, OLD .*, result 1 with cpucycles'" "libcpucycles' own library in NEW: exit 4" "$saved-x-old.json" "$saved-x-apart.json"
sed '2s/"counter": "amd64-tsc"/"counter": "amd64-tscp"/' "$saved-x-old.json" >"$saved-x-apart.json"
compare_case 4 "cannot judge sum: OLD .*-x-apart.json, result 2 was measured with counter amd64-tscp, OLD .*, result 1 with amd64-tsc" "two counters within OLD: exit 4" "$saved-x-apart.json" "$saved-x-new.json"
# One execution on one side only
head -n 1 "$saved-x-new.json" >"$saved-x-one.json"
compare_case 4 "cannot judge sum: NEW .*-x-one.json holds one execution of it: how two processes differ is not known" "one execution in NEW, three in OLD: exit 4" "$saved-x-old.json" "$saved-x-one.json"
# A suite of executions: the status is the worst verdict's, slower first.
{ cat "$saved-x-old.json"; runs "$saved-x-one.json" hash $(figures 2000 0.01); cat "$saved-x-one.json"; } >"$saved-x-suite-old.json"
{ cat "$saved-x-across.json"; runs "$saved-x-one.json" hash $(figures 2000 0.01); cat "$saved-x-one.json"; } >"$saved-x-suite-new.json"
compare_case 4 '^2 compared (tolerance 5%): 0 slower (0 beyond the tolerance), 0 faster (0 beyond it), 1 indistinguishable, 1 cannot judge$' "a suite, one across the tolerance: exit 4" "$saved-x-suite-old.json" "$saved-x-suite-new.json"
{ cat "$saved-x-new.json"; runs "$saved-x-one.json" hash $(figures 2000 0.01); cat "$saved-x-one.json"; } >"$saved-x-suite-new.json"
compare_case 1 '^2 compared (tolerance 5%): 1 slower (1 beyond the tolerance), 0 faster (0 beyond it), 1 indistinguishable, 0 cannot judge' "a suite, one slower beyond it: exit 1" "$saved-x-suite-old.json" "$saved-x-suite-new.json"
# --json: the comparison document every tool writes (schema 2); judged
# again from it, alone (--compare FILE), at another tolerance; given as
# OLD or NEW it is refused, with what to do instead; a write failure is
# an error, exit 2, as for every comparison.
$info --compare "$saved-x-suite-old.json" "$saved-x-suite-new.json" --json >"$saved-cmp.json" 2>"$err"; status=$?
if [ $status -eq 1 ] && { ! command -v python3 >/dev/null 2>&1 || python3 -c '
import json, sys
d = json.loads(open(sys.argv[1]).read(), parse_constant=lambda c: 1 / 0)
assert d["schema"] == 2 and d["type"] == "comparison" and d["tool"] == "cpucycles-info --compare", d
assert d["status"] == 1 and d["tolerance"] == 5 and d["confidence"] == 0.99, d
assert [r["name"] for r in d["rows"]] == ["sum", "hash"], d
sum_row = d["rows"][0]
assert sum_row["verdict"] == "slower" and sum_row["beyond_tolerance"] and sum_row["reasons"] == [], sum_row
assert abs(sum_row["ratio"] - 1.1) < 1e-6 and len(sum_row["old_samples"]) == 3, sum_row
' "$saved-cmp.json"; }; then
  ok "--compare --json: one comparison document, schema 2, a row per name with its verdict and samples, exit 1"
else
  notok "--compare --json: exit $status"; sed 's/^/# /' "$saved-cmp.json" "$err"
fi
compare_case 1 '^sum: new/old 1.1000, 99% interval \[1.0594, 1.1421\]: slower, beyond the tolerance of 5%$' "its JSON judged again (--compare FILE): the same interval from its samples" "$saved-cmp.json"
compare_case 0 '^sum: new/old 1.1000, 99% interval \[1.0594, 1.1421\]: slower, within the tolerance of 20%$' "judged again at --tolerance 20: within it, exit 0" "$saved-cmp.json" --tolerance 20
compare_case 2 "OLD .*-cmp.json: a comparison (cpucycles-compare --json, cpucycles-info --compare --json), not results: give it alone, --compare FILE" "a comparison given as OLD: refused, exit 2" "$saved-cmp.json" "$saved-x-new.json"
printf '{"schema": 2, "type": "comparison", "tolerance": 0, "rows": [{"name": "a", "ratio": 1.02, "ratio_low": 1.01, "ratio_high": 1.03}]}\n' >"$saved-one-row.json"
compare_case 1 '^a: new/old 1.0200, 99% interval \[1.0100, 1.0300\]: slower$' "a comparison with only its interval (cpucycles_compare_format's): judged by it" "$saved-one-row.json"
compare_case 2 'not a comparison' "one file that is results, not a comparison: exit 2" "$saved-x-new.json"
if [ -w /dev/full ]; then
  $info --compare "$saved-x-old.json" "$saved-x-new.json" >/dev/full 2>"$err"; status=$?
  if [ "$status" -eq 2 ] && grep -q 'cpucycles-info: cannot write' "$err"; then
    ok "--compare to a full device: exit 2 (an error, as every comparison's)"
  else
    notok "--compare to a full device: exit $status, want 2"; sed 's/^/# /' "$err"
  fi
else
  ok "--compare to a full device # SKIP no /dev/full"
fi
rm -f "$saved"-*.json

# ---- every mode: a write failure is exit 1 ----
for args in --json --check --help --version; do
  if [ -w /dev/full ]; then
    $info $args >/dev/full 2>"$err"; status=$?
    if [ "$status" -eq 1 ] && grep -q 'cpucycles-info: cannot write' "$err"; then
      ok "$args to a full device: exit 1"
    else
      notok "$args to a full device: exit $status"; sed 's/^/# /' "$err"
    fi
  else
    ok "$args to a full device # SKIP no /dev/full"
  fi
done
