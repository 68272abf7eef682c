#!/bin/sh
# SPDX-License-Identifier: MIT
# tier.sh - the system-emulation tier: cpucycles on Debian's own kernels,
# booted under qemu-system (TCG), with their PMU drivers, perf_user_access,
# context switches and migrations (doc/testing.md, "Real kernels").
#
#   ci/sysemu/tier.sh [--install] [--images-only] [ROW...]
#
# Rows (all by default):
#   arm64-user0-smp1   arm64 kernel, -cpu max (PMUv3), perf_user_access 0:
#                      configure's probes run in the guest, then make
#                      check and cpucycles-info there; 1 CPU
#   arm64-user0-smp2   the same build, 2 CPUs
#   arm64-open-smp1    cpucycles-open first (perf_user_access 1), then the
#                      same steps with a build configured in that guest
#   arm64-open-smp2    the same build, 2 CPUs
#   arm64-runtime-smp2 a build configured without a runner (nothing
#                      inlined: every first call chooses at run time),
#                      after cpucycles-open, 2 CPUs
#   amd64-qemu64       x86-64 kernel on a CPU without RDTSCP or PMU and
#                      another fingerprint (a build configured here)
#   amd64-max          the same build, -cpu max
#   amd64-hpet         -cpu max, clocksource=hpet tsc=unstable: the vDSO
#                      cannot read the TSC, CLOCK_MONOTONIC is a system call
#   riscv64-smp2       Debian sid's riscv64 kernel (7.2), -cpu rv64 (SBI
#                      PMU, perf_user_access 1): a build configured in
#                      the guest; the subset of tests, cpucycles-info;
#                      riscv64-rdtime or riscv64-perfrdcycle; 2 CPUs
#   riscv64-open-smp2  cpucycles-open first, then the same steps with a
#                      build configured in that guest: riscv64-perfrdcycle
#   ppc64el-smp2       bookworm's ppc64el kernel, pseries -cpu power9, a
#                      build configured in the guest: ppc64-mftb; 2 CPUs
#   s390x-smp2         bookworm's s390x kernel, s390-ccw-virtio's own CPU
#                      (z15), a build configured in the guest:
#                      s390x-stckf; 2 CPUs
#   armhf-smp2         bookworm's armmp-lpae kernel, virt -cpu cortex-a15
#                      (no PMU there), a build configured in the guest:
#                      arm32-cortex or default-monotonic; 2 CPUs
#   i386-smp2          bookworm's 686 kernel, pc -cpu max, a build
#                      configured in the guest: x86-tsc; 2 CPUs
#   mips64el-smp1      bookworm's 5kc-malta kernel, malta with one
#                      MIPS64R2-generic CPU (with 2 it hangs during boot),
#                      its shares over 9P2000.u (vm.sh says why), a build
#                      configured in the guest: mips64-cc
# A row passes when make check fails nothing, cpucycles-info exits 0 three
# times out of three with a median delta above 0, and the counter in use
# is the row's (an on-core one once user access is on).
# --install apt-get installs what it needs (qemu-system, cpio, xz, the
# cross compilers); image.sh fetches Debian's package lists into
# $SYSEMU_DIR, apart from the machine's own.  --images-only makes the
# rows' kernels and initramfs images and stops (CI runs it in the
# background while its other stages run; the rows then find them made).  Work goes to $SYSEMU_DIR
# (default: _sysemu in the current directory); the kernels are downloaded
# there once.  $SYSEMU_TESTS is the TESTS list of every arm64 and amd64
# make check: by default the tests that need a kernel (the counters, the
# grant, the choice, the verify, the first call, perf events, signals and
# the fault guard, seccomp, PR_SET_TSC, AT_SECURE, fork, and the installed
# library's programs); the rest of the suite (configure, the tools, the
# harness, the docs) runs once on the host and under qemu-user
# (ci/cross-matrix.sh), and is no truer under TCG, only 10 to 50 times
# slower.  SYSEMU_TESTS=all runs the whole suite.  $SYSEMU_SUBSET is the
# list of the riscv64, ppc64el, s390x, armhf, i386 and mips64el rows
# (default: the counter and first-call tests; their TCG is slower still).
# Each row prints its wall time.  Exit status 0 when every row passed.
set -u
srcdir=$(cd "$(dirname "$0")/../.." && pwd)
here=$srcdir/ci/sysemu
work=${SYSEMU_DIR:-$(pwd)/_sysemu}
install=no images_only=no
while :; do
  case ${1:-} in
    --install) install=yes; shift ;;
    --images-only) images_only=yes; shift ;;
    *) break ;;
  esac
done
all="arm64-user0-smp1 arm64-user0-smp2 arm64-open-smp1 arm64-open-smp2 arm64-runtime-smp2 amd64-qemu64 amd64-max amd64-hpet riscv64-smp2 riscv64-open-smp2 ppc64el-smp2 s390x-smp2 armhf-smp2 i386-smp2 mips64el-smp1"
subset=${SYSEMU_SUBSET:-tests/t-counters tests/t-grant tests/t-choice tests/t-verify tests/t-firstcall tests/t-fallback}
kernel_tests="tests/t-counters tests/t-grant tests/t-choice tests/t-verify tests/t-firstcall
  tests/t-fallback tests/t-perf tests/t-chosen tests/t-atfork tests/t-seccomp tests/t-tscoff
  tests/t-signals tests/t-guard tests/t-hostile tests/t-privileged tests/t-installed.sh"
case ${SYSEMU_TESTS:-} in
  '') kernel_tests=$(echo $kernel_tests) ;;
  all) kernel_tests= ;;
  *) kernel_tests=$SYSEMU_TESTS ;;
esac
rows=${*:-$all}
for row in $rows; do
  case " $all " in *" $row "*) ;; *) echo "tier.sh: unknown row '$row' (rows: $all)" >&2; exit 2 ;; esac
done

if [ $install = yes ]; then
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq qemu-system-arm qemu-system-x86 \
    qemu-system-misc qemu-system-ppc qemu-system-mips cpio xz-utils \
    gcc-aarch64-linux-gnu g++-aarch64-linux-gnu gcc-riscv64-linux-gnu g++-riscv64-linux-gnu \
    gcc-powerpc64le-linux-gnu g++-powerpc64le-linux-gnu gcc-s390x-linux-gnu g++-s390x-linux-gnu \
    gcc-arm-linux-gnueabihf g++-arm-linux-gnueabihf gcc-i686-linux-gnu g++-i686-linux-gnu \
    gcc-mips64el-linux-gnuabi64 g++-mips64el-linux-gnuabi64 >/dev/null ||
    { echo "tier.sh: apt-get install failed" >&2; exit 2; }
fi
mkdir -p "$work" && work=$(cd "$work" && pwd) || exit 2
# --images-only: each row's kernel and initramfs, made now (a row reuses
# them), one architecture after another (they share the package lists)
if [ $images_only = yes ]; then
  for arch in $(for row in $rows; do echo "${row%%-*}"; done | uniq); do
    sh "$here/image.sh" "$arch" "$work/images" >"$work/image-$arch.log" 2>&1 ||
      { cat "$work/image-$arch.log" >&2; exit 1; }
  done
  exit 0
fi
[ -x "$srcdir/configure" ] || { echo "tier.sh: run ./bootstrap first" >&2; exit 2; }
runner="$here/run $work/vm"
# Temporary files the tests make here (t-installed's install root) must be
# where the guest sees them.
mkdir -p "$work/tmp" && export TMPDIR="$work/tmp"
jobs=$(nproc 2>/dev/null || echo 2)
: >"$work/rows"
tier_started=$(date +%s)

# boot ARCH SMP CPU "KERNEL ARGS" [open]: one guest at a time, sharing the
# work and source directories; with open, cpucycles-open runs in it first
# (log in $work/open-ARCH.log).  The arguments are kept: check_row boots
# the same guest again when one dies.
boot() {
  boot_args_arch=$1 boot_args_smp=$2 boot_args_cpu=$3 boot_args_append=$4 boot_args_open=${5:-}
  sh "$here/image.sh" "$1" "$work/images" >"$work/image-$1.log" 2>&1 ||
    { cat "$work/image-$1.log" >&2; return 1; }
  sh "$here/vm.sh" start "$work/vm" "$work/images" "$1" "$2" "$3" "$4" "$work" "$srcdir" || return 1
  [ -z "$boot_args_open" ] ||
    $runner sh "$srcdir/src/tools/cpucycles-open.sh.in" >"$work/open-$1.log" 2>&1
}
boot_again() {
  boot "$boot_args_arch" "$boot_args_smp" "$boot_args_cpu" "$boot_args_append" "$boot_args_open"
}
guest_alive() { kill -0 "$(cat "$work/vm/pid" 2>/dev/null)" 2>/dev/null; }

# configure_build DIR [CONFIGURE ARGS]: configure and make, log in DIR/tier.log.
configure_build() {
  dir=$1
  shift
  rm -rf "$dir" && mkdir -p "$dir" &&
    (cd "$dir" && "$srcdir/configure" "$@" && make -j"$jobs") >"$dir/tier.log" 2>&1
}

# build_in_guest DIR [CONFIGURE ARGS]: configure_build with configure's
# probes run in the running guest; when that guest died under it (see
# check_row), once more in a new one.  (Whether configure failed or not:
# a probe the runner could not run is a counter configure records as
# unavailable, and the build would choose none.)
build_in_guest() {
  configure_build "$@"
  built=$?
  guest_alive && return $built
  build_death="the guest died under configure: $(keep_console "$1.console.log"), configured again in a new guest"
  echo "tier.sh: $build_death" >&2
  boot_again && configure_build "$@"
}
build_death=

# one_of WORD PATTERNS: WORD matches one of the space-separated case
# PATTERNS (not globbed against file names here).
one_of() {
  set -f
  found=1
  for p in $2; do case $1 in $p) found=0 ;; esac; done
  set +f
  return $found
}

# rule_kept INFO USED EXPECTED: an EXPECTED counter works here, and USED
# has the smallest score of the table that chose it (INFO is
# cpucycles-info's report: its "run-time counters" table when the counter
# was chosen again at run time, else configure's "build counters"): the
# rule chose another counter than expected because one measurement under
# TCG made the expected one look coarser, not because it failed.  At run
# time: arm64-perfpmc at a score of 830 against 88 at build time, beside
# arm64-vct's 128.  In configure: its probe process of s390x-stckf at 940
# and 1420, where every process after it measured 200 to 320, beside
# default-monotonic's 606 (CI, 2026-11-28: a process's layout, as
# t-choice says).  The row still proves what it is for: the counter
# works in this kernel, and the selection follows the rule.
rule_kept() {
  if grep -q '^cpucycles run-time counters' "$1"; then
    table='/^cpucycles run-time counters/,/^cpucycles implementation/'
  else
    table='/^cpucycles build counters/,/^cpucycles build chose/'
  fi
  sed -n "${table}p" "$1" |
    awk -v used="$2" -v expected="$3" '
      $2 == "yes" && $3 == "score" {
        n = split(expected, e, " ")
        for (i = 1; i <= n; i++) {
          p = e[i]; gsub(/\*/, ".*", p)
          if ($1 ~ ("^" p "$")) works = 1
        }
        s = $4 + 0; sub(/,$/, "", s)
        if (best == "" || s < low) { best = $1; low = s }
      }
      END { exit !(works && best == used) }'
}

# check_row ROW DIR EXPECTED [TESTS]: make check (of TESTS when given,
# else of $kernel_tests, or the whole suite when that is empty) and three cpucycles-info runs
# in the running guest; appends the row.  EXPECTED: case patterns, space
# separated, of the counters that may be in use.  The time is the row's from its boot
# ($row_started), else from here.
#
# A guest that dies under a row (qemu ends: a kernel panic reboots it and
# -no-reboot ends qemu, or qemu itself failed) leaves its console and
# qemu's messages to say why, kept in DIR/failed-ROW-console.log with the
# failed tests' logs, and its last line goes into the row's status.  The
# row then runs once more, whole, in a new guest; a second death fails
# it.  (Two guests of qemu 7.2's TCG died in CI runs of 2026-11, under
# different tests, and none in the same rows run again and again here:
# doc/testing.md.)
check_row() {
  row=$1 dir=$2 expected=$3 tests=${4:-$kernel_tests} started=${row_started:-$(date +%s)}
  row_started= death=$build_death build_death=
  rm -f "$dir/failed-$row-console.log" "$dir/failed-$row-console-2.log" "$dir/failed-$row-before-death.log"
  check_row_once
  if ! guest_alive; then
    death="${death:+$death; }the guest died: $(keep_console "$dir/failed-$row-console.log")"
    [ ! -f "$dir/failed-$row.log" ] || mv "$dir/failed-$row.log" "$dir/failed-$row-before-death.log"
    if boot_again; then
      check_row_once
      guest_alive ||
        status="the new guest died too: $(keep_console "$dir/failed-$row-console-2.log"); $status"
      death="$death, then the row again in a new guest"
    else
      status="the new guest did not boot"
    fi
  fi
  chosen=$(sed -n 's/^#define CPUCYCLES_CHOSEN "\(.*\)"$/\1/p' "$dir/include/cpucycles-config.h")
  # (not at a line's start: ppc64el's hvc0 puts it after the kernel's words)
  kernel=$(tr -d '\r' <"$work/vm/console.log" | sed -n 's/^.*sysemu: \([^ ]*\) .*, \([0-9]*\) CPUs, ready$/\1, \2 CPUs/p')
  printf '| %s | %s | %s | %s (expected %s) | %s | %s/%s (%s skipped) | %s; %ss |\n' \
    "$row" "$kernel" "${chosen:-none (run time)}" "${used:-?}" "$(printf '%s' "$expected" | sed 's/ / or /g')" "$medians" \
    "$passed" "$failed" "$skipped" "$status${death:+ ($death)}" "$(($(date +%s) - started))" >>"$work/rows"
  tail -n 1 "$work/rows" >&2
  [ "$status" = ok ]
}

# keep_console FILE: the dead guest's console and qemu's messages into
# FILE; prints their last line, quoted, and FILE.
keep_console() {
  { cat "$work/vm/console.log"; echo "==== qemu's messages"; cat "$work/vm/qemu.log"; } >"$1" 2>&1
  printf "'%s' (%s)" "$(tr -d '\r' <"$1" | grep -v '^==== \|^ *$' | tail -n 1 | cut -c1-160)" "$1"
}

# check_row_once: check_row's make check and cpucycles-info runs, once;
# sets status, passed, failed, skipped, medians and used.
check_row_once() {
  status=ok
  rm -f "$dir/failed-$row.log"
  (cd "$dir" && rm -f tests/*.trs tests/*.log &&
    make -j"$jobs" check CPUCYCLES_PROBE_RUNNER="$runner" ${tests:+TESTS="$tests"}) \
    >>"$dir/tier.log" 2>&1
  set -- $(cat "$dir"/tests/*.trs 2>/dev/null | awk '
    /^:test-result: PASS/ { p++ } /^:test-result: SKIP/ { s++ }
    /^:test-result: (FAIL|XPASS|ERROR)/ { f++ }
    END { printf "%d %d %d\n", p, f, s }')
  passed=$1 failed=$2 skipped=$3
  if [ "$failed" != 0 ] || [ "$passed" = 0 ]; then
    status="tests failed: $(grep -l '^:test-result: \(FAIL\|XPASS\|ERROR\)' "$dir"/tests/*.trs 2>/dev/null |
      sed 's|.*/||; s|\.trs$||' | tr '\n' ' ')($dir/failed-$row.log)"
    # the failing tests' whole logs, kept: the next row in this build
    # directory removes tests/*.log, and tier.log has only their results
    for trs in $(grep -l '^:test-result: \(FAIL\|XPASS\|ERROR\)' "$dir"/tests/*.trs 2>/dev/null); do
      echo "==== ${trs%.trs}.log"
      cat "${trs%.trs}.log"
    done >"$dir/failed-$row.log" 2>&1
  fi
  medians= used= runs_ok=0
  for run in 1 2 3; do
    # (through libtool: in a shared build ./cpucycles-info is a wrapper script)
    if (cd "$dir" && ./libtool --mode=execute $runner ./cpucycles-info) >"$dir/info-$row-$run.txt" 2>&1; then
      median=$(sed -n 's/^cpucycles deltas: .* median \([0-9-]*\) of .*/\1/p' "$dir/info-$row-$run.txt")
      used=$(sed -n 's/^cpucycles implementation \([^ ]*\)$/\1/p' "$dir/info-$row-$run.txt")
      [ "${median:-0}" -gt 0 ] &&
        { one_of "$used" "$expected" || rule_kept "$dir/info-$row-$run.txt" "$used" "$expected"; } &&
        runs_ok=$((runs_ok + 1))
    else
      median="exit $?"
    fi
    medians="$medians${medians:+ }${median:-?}"
  done
  [ $runs_ok = 3 ] || [ "$status" != ok ] ||
    status="cpucycles-info: $runs_ok of 3 runs good ($dir/info-$row-*.txt)"
}

# not_run ROW WHY
not_run() {
  printf '| %s | - | - | - | - | - | not run: %s |\n' "$1" "$2" >>"$work/rows"
  tail -n 1 "$work/rows" >&2
}

wanted() { case " $rows " in *" $1 "*) true ;; *) false ;; esac; }
build=$(sh "$srcdir/build-aux/config.guess")
cross="--build=$build --host=aarch64-linux-gnu"
failures=0
fail() { failures=$((failures + 1)); }

# arm64, perf_user_access 0, then after cpucycles-open.  Each build is
# configured in a guest of its own kind (its probes run there).
for access in user0 open; do
  for smp in 1 2; do
    row=arm64-$access-smp$smp
    wanted "$row" || continue
    dir=$work/build-arm64-$access
    expected='arm64-vct'
    [ $access = open ] && expected='arm64-p*mc'
    open=
    [ $access = user0 ] || open=open
    boot arm64 "$smp" max,pauth-impdef=on quiet $open || { not_run "$row" "the guest did not boot"; fail; continue; }
    if [ ! -e "$dir/tier.built" ]; then
      if build_in_guest "$dir" $cross --with-probe-runner="$runner"; then
        : >"$dir/tier.built"
      else
        not_run "$row" "build failed ($dir/tier.log)"; fail; continue
      fi
    fi
    check_row "$row" "$dir" "$expected" || fail
  done
done
if wanted arm64-runtime-smp2; then
  dir=$work/build-arm64-runtime
  if ! configure_build "$dir" $cross; then
    not_run arm64-runtime-smp2 "build failed ($dir/tier.log)"; fail
  elif ! boot arm64 2 max,pauth-impdef=on quiet open; then
    not_run arm64-runtime-smp2 "the guest did not boot"; fail
  else
    check_row arm64-runtime-smp2 "$dir" 'arm64-p*mc' || fail
  fi
fi

# x86-64: one build configured here, on guests that are other hosts.
dir=$work/build-amd64
for row in amd64-qemu64 amd64-max amd64-hpet; do
  wanted "$row" || continue
  if [ ! -e "$dir/tier.built" ]; then
    if configure_build "$dir"; then : >"$dir/tier.built"; else not_run "$row" "build failed ($dir/tier.log)"; fail; continue; fi
  fi
  case $row in
    amd64-qemu64) cpu=qemu64 append=quiet ;;
    amd64-max) cpu=max append=quiet ;;
    amd64-hpet) cpu=max append="quiet clocksource=hpet tsc=unstable" ;;
  esac
  boot amd64 2 "$cpu" "$append" || { not_run "$row" "the guest did not boot"; fail; continue; }
  check_row "$row" "$dir" 'amd64-ts*' || fail
done
# riscv64 (sid's kernel), ppc64el, s390x, armhf, i386 and mips64el: the
# CPUs the row's name ends with, a build configured in a guest of its kind
# (its probes run there), the subset of tests.
# guest_row ROW ARCH CPU TRIPLET BUILD EXPECTED [open]
guest_row() {
  row=$1 arch=$2 cpu=$3 triplet=$4 dir=$work/build-$5 expected=$6 open=${7:-}
  wanted "$row" || return 0
  row_started=$(date +%s)
  boot "$arch" "${row##*-smp}" "$cpu" quiet "$open" || { not_run "$row" "the $arch guest did not boot"; fail; return; }
  if [ ! -e "$dir/tier.built" ]; then
    if build_in_guest "$dir" --build="$build" --host="$triplet" --with-probe-runner="$runner"; then
      : >"$dir/tier.built"
    else
      not_run "$row" "configure or make failed ($dir/tier.log)"; fail; return
    fi
  fi
  check_row "$row" "$dir" "$expected" "$subset" || fail
}
guest_row riscv64-smp2 riscv64 rv64 riscv64-linux-gnu riscv64 'riscv64-rdtime riscv64-perfrdcycle'
guest_row riscv64-open-smp2 riscv64 rv64 riscv64-linux-gnu riscv64-open riscv64-perfrdcycle open
guest_row ppc64el-smp2 ppc64el power9 powerpc64le-linux-gnu ppc64el ppc64-mftb
guest_row s390x-smp2 s390x default s390x-linux-gnu s390x s390x-stckf
guest_row armhf-smp2 armhf cortex-a15 arm-linux-gnueabihf armhf 'arm32-cortex default-monotonic'
guest_row i386-smp2 i386 max i686-linux-gnu i386 x86-tsc
guest_row mips64el-smp1 mips64el MIPS64R2-generic mips64el-linux-gnuabi64 mips64el mips64-cc
sh "$here/vm.sh" stop "$work/vm"

echo
echo "| row | kernel | chosen by configure | used at run time | cpucycles-info median deltas | tests passed/failed | status; time |"
echo "|---|---|---|---|---|---|---|"
cat "$work/rows"
awk -F'|' '{ split($7, a, "[/ ]"); p += a[2]; f += a[3] } END { printf "sysemu tests: %d passed, %d failed\n", p, f }' "$work/rows"
echo "sysemu rows: $(($(wc -l <"$work/rows") - failures)) ok, $failures not ok, in $(($(date +%s) - tier_started)) s"
[ $failures = 0 ]
