#!/bin/sh
# SPDX-License-Identifier: MIT
# tier.sh - the system-emulation tier: cpucycles on Debian's own kernels,
# booted under qemu-system (TCG), with their PMU drivers, perf_user_access,
# context switches and migrations (ci/sysemu/README).
#
#   ci/sysemu/tier.sh [--install] [ROW...]
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
# A row passes when make check fails nothing, cpucycles-info exits 0 three
# times out of three with a median delta above 0, and the counter in use
# is the row's (an on-core one once user access is on).
# --install apt-get installs what it needs (qemu-system, cpio, the arm64
# cross compilers, Debian's arm64 package lists).  Work goes to $SYSEMU_DIR
# (default: _sysemu in the current directory); the kernels are downloaded
# there once.  $SYSEMU_TESTS, when set, is the TESTS list of every make
# check (default: the whole suite).  Exit status 0 when every row passed.
set -u
srcdir=$(cd "$(dirname "$0")/../.." && pwd)
here=$srcdir/ci/sysemu
work=${SYSEMU_DIR:-$(pwd)/_sysemu}
install=no
if [ "${1:-}" = --install ]; then install=yes; shift; fi
all="arm64-user0-smp1 arm64-user0-smp2 arm64-open-smp1 arm64-open-smp2 arm64-runtime-smp2 amd64-qemu64 amd64-max amd64-hpet"
rows=${*:-$all}
for row in $rows; do
  case " $all " in *" $row "*) ;; *) echo "tier.sh: unknown row '$row' (rows: $all)" >&2; exit 2 ;; esac
done

if [ $install = yes ]; then
  dpkg --add-architecture arm64
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq qemu-system-arm qemu-system-x86 cpio \
    gcc-aarch64-linux-gnu g++-aarch64-linux-gnu >/dev/null ||
    { echo "tier.sh: apt-get install failed" >&2; exit 2; }
fi
[ -x "$srcdir/configure" ] || { echo "tier.sh: run ./bootstrap first" >&2; exit 2; }
mkdir -p "$work" && work=$(cd "$work" && pwd) || exit 2
runner="$here/run $work/vm"
# Temporary files the tests make here (t-installed's install root) must be
# where the guest sees them.
mkdir -p "$work/tmp" && export TMPDIR="$work/tmp"
jobs=$(nproc 2>/dev/null || echo 2)
: >"$work/rows"

# boot ARCH SMP CPU "KERNEL ARGS": one guest at a time, sharing the work
# and source directories.
boot() {
  sh "$here/image.sh" "$1" "$work/images" >"$work/image-$1.log" 2>&1 ||
    { cat "$work/image-$1.log" >&2; return 1; }
  sh "$here/vm.sh" start "$work/vm" "$work/images" "$@" "$work" "$srcdir"
}

# configure_build DIR [CONFIGURE ARGS]: configure and make, log in DIR/tier.log.
configure_build() {
  dir=$1
  shift
  rm -rf "$dir" && mkdir -p "$dir" &&
    (cd "$dir" && "$srcdir/configure" "$@" && make -j"$jobs") >"$dir/tier.log" 2>&1
}

# check_row ROW DIR EXPECTED: make check and three cpucycles-info runs in
# the running guest; appends the row.  EXPECTED is a case pattern of the
# counter that must be in use.
check_row() {
  row=$1 dir=$2 expected=$3 status=ok started=$(date +%s)
  (cd "$dir" && rm -f tests/*.trs tests/*.log &&
    make -j"$jobs" check CPUCYCLES_PROBE_RUNNER="$runner" ${SYSEMU_TESTS:+TESTS="$SYSEMU_TESTS"}) \
    >>"$dir/tier.log" 2>&1
  set -- $(cat "$dir"/tests/*.trs 2>/dev/null | awk '
    /^:test-result: PASS/ { p++ } /^:test-result: SKIP/ { s++ }
    /^:test-result: (FAIL|XPASS|ERROR)/ { f++ }
    END { printf "%d %d %d\n", p, f, s }')
  passed=$1 failed=$2 skipped=$3
  [ "$failed" = 0 ] && [ "$passed" -gt 0 ] || status="tests failed"
  medians= used= runs_ok=0
  for run in 1 2 3; do
    # (through libtool: in a shared build ./cpucycles-info is a wrapper script)
    if (cd "$dir" && ./libtool --mode=execute $runner ./cpucycles-info) >"$dir/info-$row-$run.txt" 2>&1; then
      median=$(sed -n 's/^cpucycles deltas: .* median \([0-9-]*\) of .*/\1/p' "$dir/info-$row-$run.txt")
      used=$(sed -n 's/^cpucycles implementation \([^ ]*\)$/\1/p' "$dir/info-$row-$run.txt")
      [ "${median:-0}" -gt 0 ] && case $used in $expected) true ;; *) false ;; esac &&
        runs_ok=$((runs_ok + 1))
    else
      median="exit $?"
    fi
    medians="$medians${medians:+ }${median:-?}"
  done
  [ $runs_ok = 3 ] || [ "$status" != ok ] || status="cpucycles-info: $runs_ok of 3 runs good"
  chosen=$(sed -n 's/^#define CPUCYCLES_CHOSEN "\(.*\)"$/\1/p' "$dir/include/cpucycles-config.h")
  kernel=$(tr -d '\r' <"$work/vm/console.log" | sed -n 's/^sysemu: \([^ ]*\) .*, \([0-9]*\) CPUs, ready$/\1, \2 CPUs/p')
  printf '| %s | %s | %s | %s (expected %s) | %s | %s/%s (%s skipped) | %s; %ss |\n' \
    "$row" "$kernel" "${chosen:-none (run time)}" "${used:-?}" "$expected" "$medians" \
    "$passed" "$failed" "$skipped" "$status" "$(($(date +%s) - started))" >>"$work/rows"
  tail -n 1 "$work/rows" >&2
  [ "$status" = ok ]
}

# not_run ROW WHY
not_run() {
  printf '| %s | - | - | - | - | - | not run: %s |\n' "$1" "$2" >>"$work/rows"
  tail -n 1 "$work/rows" >&2
}

wanted() { case " $rows " in *" $1 "*) true ;; *) false ;; esac; }
cross="--build=$(sh "$srcdir/build-aux/config.guess") --host=aarch64-linux-gnu"
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
    boot arm64 "$smp" max,pauth-impdef=on quiet || { not_run "$row" "the guest did not boot"; fail; continue; }
    if [ $access = open ]; then $runner sh "$srcdir/src/tools/cpucycles-open.sh.in" >"$work/open.log" 2>&1; fi
    if [ ! -e "$dir/tier.built" ]; then
      if configure_build "$dir" $cross --with-probe-runner="$runner"; then
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
  elif ! boot arm64 2 max,pauth-impdef=on quiet; then
    not_run arm64-runtime-smp2 "the guest did not boot"; fail
  else
    $runner sh "$srcdir/src/tools/cpucycles-open.sh.in" >"$work/open.log" 2>&1
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
sh "$here/vm.sh" stop "$work/vm"

echo
echo "| row | kernel | chosen by configure | used at run time | cpucycles-info median deltas | tests passed/failed | status; time |"
echo "|---|---|---|---|---|---|---|"
cat "$work/rows"
awk -F'|' '{ split($7, a, "[/ ]"); p += a[2]; f += a[3] } END { printf "sysemu tests: %d passed, %d failed\n", p, f }' "$work/rows"
echo "sysemu rows: $(($(wc -l <"$work/rows") - failures)) ok, $failures not ok"
[ $failures = 0 ]
