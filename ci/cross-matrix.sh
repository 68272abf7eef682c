#!/bin/sh
# SPDX-License-Identifier: MIT
# cross-matrix.sh - build and test cpucycles for every target this machine
# can emulate, and print one row per target.
#
#   ci/cross-matrix.sh [--install] [TARGET...]
#
# For each target: configure with the target's qemu-user as the probe
# runner (so the probes run on the emulated CPU and the choice is the
# target's), build, run `make check` through the same runner, and run
# cpucycles-info there.  Two rows are about deployment rather than the
# target:
#   x86-64-qemu64    built here with amd64-tscp forced, tested under
#                    `qemu-x86_64 -cpu qemu64`: a host without RDTSCP and
#                    with another CPUID, where the first call must notice
#                    and fall back.
#   aarch64-norunner cross-compiled with no runner: configure cannot run
#                    the probes, so nothing is inlined; the tests then run
#                    under qemu and the library chooses at run time.
#   riscv32-bare     Debian has no riscv32 C library: only riscv32-rdcycle's
#                    read runs, in the freestanding ci/bare/riscv32-bare.c
#                    (built by clang, linked by the riscv64 binutils).
#   loong64-bare     nor a loongarch64 one: loong64-rdtime's read and its
#                    CPUCFG rate run in the freestanding ci/bare/loong64-bare.c
#                    (clang-19 and lld-19).
# --install apt-get installs missing cross compilers (C and C++), qemu-user,
# and clang (riscv32-bare) or clang-19 and lld-19 (loong64-bare).
# Build trees go to $MATRIX_DIR (default: _matrix in the current directory).
# Exit status: 0 when every row built and passed its tests with the
# expected choice, 1 otherwise.
set -u

srcdir=$(cd "$(dirname "$0")/.." && pwd)
matrix_dir=${MATRIX_DIR:-$(pwd)/_matrix}
install=no
if [ "${1:-}" = --install ]; then install=yes; shift; fi
all="x86-64 x86-64-qemu64 i686 aarch64 aarch64-norunner armhf riscv64 riscv32-bare loong64-bare ppc64le ppc64 ppc s390x sparc64 mips64el"
targets=${*:-$all}

# target -> "triplet qemu expected-choice" ("-" = native, no emulator).
# The expected choices are what libcpucycles itself chooses under qemu-user
# 7.2 on each target (its rule on the same emulated counters).
target_info() {
  case $1 in
    x86-64) echo "- - amd64-tsc" ;;
    x86-64-qemu64) echo "- qemu-x86_64 amd64-tscp" ;;
    i686) echo "i686-linux-gnu qemu-i386 x86-tsc" ;;
    aarch64) echo "aarch64-linux-gnu qemu-aarch64 default-monotonic" ;;
    aarch64-norunner) echo "aarch64-linux-gnu qemu-aarch64 -" ;;
    armhf) echo "arm-linux-gnueabihf qemu-arm default-monotonic" ;;
    riscv64) echo "riscv64-linux-gnu qemu-riscv64 riscv64-rdcycle" ;;
    riscv32-bare) echo "riscv64-linux-gnu qemu-riscv32 riscv32-rdcycle" ;;
    loong64-bare) echo "- qemu-loongarch64 loong64-rdtime" ;;
    ppc64le) echo "powerpc64le-linux-gnu qemu-ppc64le ppc64-mftb" ;;
    ppc64) echo "powerpc64-linux-gnu qemu-ppc64 ppc64-mftb" ;;
    ppc) echo "powerpc-linux-gnu qemu-ppc ppc32-mftb" ;;
    s390x) echo "s390x-linux-gnu qemu-s390x s390x-stckf" ;;
    sparc64) echo "sparc64-linux-gnu qemu-sparc64 sparc64-rdtick" ;;
    mips64el) echo "mips64el-linux-gnuabi64 qemu-mips64el default-monotonic" ;;
    *) return 1 ;;
  esac
}

for t in $targets; do
  target_info "$t" >/dev/null || { echo "cross-matrix: unknown target '$t' (targets: $all)" >&2; exit 2; }
done

if [ $install = yes ]; then
  packages=
  for t in $targets; do
    set -- $(target_info "$t")
    if [ "$1" != - ] && ! command -v "$1-gcc" >/dev/null 2>&1; then packages="$packages gcc-$1"; fi
    # C++ too: t-installed compiles the installed headers as C++ for the target
    if [ "$1" != - ] && ! command -v "$1-g++" >/dev/null 2>&1; then packages="$packages g++-$1"; fi
    if [ "$2" != - ] && ! command -v "$2" >/dev/null 2>&1; then packages="$packages qemu-user"; fi
    if [ "$t" = riscv32-bare ] && ! command -v clang >/dev/null 2>&1; then packages="$packages clang"; fi
    if [ "$t" = loong64-bare ] && ! command -v clang-19 >/dev/null 2>&1; then packages="$packages clang-19"; fi
    if [ "$t" = loong64-bare ] && ! command -v ld.lld-19 >/dev/null 2>&1; then packages="$packages lld-19"; fi
  done
  if [ -n "$packages" ]; then
    echo "cross-matrix: installing$packages"
    DEBIAN_FRONTEND=noninteractive apt-get install -y $packages >/dev/null ||
      { echo "cross-matrix: apt-get install failed" >&2; exit 2; }
  fi
fi

[ -x "$srcdir/configure" ] || { echo "cross-matrix: run ./bootstrap first" >&2; exit 2; }
mkdir -p "$matrix_dir" || exit 2
jobs=$(nproc 2>/dev/null || echo 2)
# seconds one test may take under an emulator before it counts as hung
TEST_TIMEOUT=${MATRIX_TEST_TIMEOUT:-300}

# A value from the build's cpucycles-config.h: config_value FILE NAME
config_value() { sed -n "s/^#define $2 \"*\([^\"]*\)\"*\$/\1/p" "$1" | sed 's/LL$//'; }

# The counters configure measured: the available ones with their precision,
# then the rejected ones with the reason (default-zero left out).
build_figures() {
  available=$(sed -n 's/^ *X("\([^"]*\)", 1, \([0-9]*\),.*/\1 \2/p' "$1" | tr '\n' ',' | sed 's/,$//; s/,/, /g')
  rejected=$(sed -n '/"default-zero"/d; s/^ *X("\([^"]*\)", 0, .*, "\([^"]*\)").*/\1 (\2)/p' "$1" |
    tr '\n' ',' | sed 's/,$//; s/,/, /g')
  if grep -q '^ *X("[^"]*", -1,' "$1"; then
    echo "none probed: cross-compiling without a runner"
  else
    echo "${available:-none}${rejected:+; rejected: $rejected}"
  fi
}

# TAP totals of a finished make check: "passed failed skipped".
tap_totals() {
  cat "$1"/tests/*.trs 2>/dev/null | awk '
    /^:test-result: PASS/ { p++ } /^:test-result: SKIP/ { s++ }
    /^:test-result: (FAIL|XPASS|ERROR)/ { f++ }
    END { printf "%d %d %d\n", p, f, s }'
}

# The riscv32-bare row: riscv32-rdcycle's read across two carries of its
# low half (see ci/bare/riscv32-bare.c).
run_riscv32_bare() {
  dir=$matrix_dir/riscv32-bare
  rm -rf "$dir" && mkdir -p "$dir" || return 1
  started=$(date +%s)
  if ! command -v clang >/dev/null 2>&1; then
    status="not run: no clang" result=0/0
  elif clang --target=riscv32-unknown-elf -march=rv32imac -mabi=ilp32 -ffreestanding -nostdlib \
         -O2 -std=c99 -Wall -Wextra -Wpedantic -Werror -I"$srcdir/include" \
         -c "$srcdir/ci/bare/riscv32-bare.c" -o "$dir/bare.o" >"$dir/matrix.log" 2>&1 &&
       riscv64-linux-gnu-ld -m elf32lriscv -o "$dir/bare" "$dir/bare.o" >>"$dir/matrix.log" 2>&1; then
    timeout 120 qemu-riscv32 "$dir/bare"
    case $? in
      0) status=ok result=1/0 ;;
      1) status="went backwards" result=0/1 ;;
      2) status="never increased" result=0/1 ;;
      3) status="no carry of the low half seen" result=0/1 ;;
      *) status="crashed or timed out" result=0/1 ;;
    esac
  else
    status="build failed" result=0/1
  fi
  printf '| riscv32-bare | - (no riscv32 libc) | - | - | riscv32-rdcycle read only | %s (0 skipped) | %s; %ss; never backwards, increases, correct across two carries of the low half |\n' \
    "$result" "$status" "$(($(date +%s) - started))" >>"$matrix_dir/rows"
  [ "$status" = ok ]
}

# The loong64-bare row: loong64-rdtime's read (never backwards, increases)
# and its CPUCFG rate, against the timer timed by CLOCK_MONOTONIC (see
# ci/bare/loong64-bare.c).  -mno-lsx: clang-19 emits LSX vector code by
# default, which qemu-user 7.2 does not have (SIGILL).  qemu-user 7.2's
# RDTIME.D ticks at the host's rate, not CPUCFG's 100 MHz: that is exit 4,
# reported in the row, as the emulator's behaviour rather than a failure.
run_loong64_bare() {
  dir=$matrix_dir/loong64-bare
  rm -rf "$dir" && mkdir -p "$dir" || return 1
  started=$(date +%s) out=
  if ! command -v clang-19 >/dev/null 2>&1 || ! command -v ld.lld-19 >/dev/null 2>&1; then
    status="not run: no clang-19 and lld-19 (ci/cross-matrix.sh --install)" result=0/0
  elif ! command -v qemu-loongarch64 >/dev/null 2>&1; then
    status="not run: no qemu-loongarch64 (ci/cross-matrix.sh --install)" result=0/0
  elif clang-19 --target=loongarch64-linux-gnu -mno-lsx -ffreestanding -nostdlib -static \
         -fuse-ld=lld -O2 -std=c99 -Wall -Wextra -Wpedantic -Werror -I"$srcdir/include" \
         "$srcdir/ci/bare/loong64-bare.c" -o "$dir/bare" >"$dir/matrix.log" 2>&1; then
    timeout 120 qemu-loongarch64 "$dir/bare" >"$dir/out.txt" 2>>"$dir/matrix.log"
    code=$?
    out=$(sed -n 's/^loong64-bare: //p' "$dir/out.txt" | sed 's/; ok$//; s/; FAILED$//; s/; read and CPUCFG ok, rates differ$//')
    case $code in
      0) status=ok result=1/0 ;;
      4) status="ok (read and CPUCFG; the rates differ under qemu-user)" result=1/0 ;;
      1) status="went backwards" result=0/1 ;;
      2) status="never increased" result=0/1 ;;
      3) status="no rate from CPUCFG" result=0/1 ;;
      5) status="clock_gettime failed" result=0/1 ;;
      *) status="crashed or timed out" result=0/1 ;;
    esac
  else
    status="build failed" result=0/1
  fi
  printf '| loong64-bare | - (no loongarch64 libc) | - | - | loong64-rdtime read and CPUCFG rate only | %s (0 skipped) | %s; %ss; %s |\n' \
    "$result" "$status" "$(($(date +%s) - started))" "${out:-no output}" >>"$matrix_dir/rows"
  case $status in ok*) true ;; *) false ;; esac
}

# Runs one target; prints its row to the file rows and its log to $dir/matrix.log.
run_target() {
  t=$1
  if [ "$t" = riscv32-bare ]; then run_riscv32_bare; return; fi
  if [ "$t" = loong64-bare ]; then run_loong64_bare; return; fi
  set -- $(target_info "$t")
  triplet=$1 qemu=$2 expected=$3
  dir=$matrix_dir/$t
  rm -rf "$dir" && mkdir -p "$dir" || return 1
  log=$dir/matrix.log
  host_args= runner= check_runner= status=ok cc=
  # Emulated targets link everything statically: CC gets --static, which
  # libtool passes on (it takes -static as its own, milder, flag).  Static
  # binaries need no target sysroot at run time, and qemu-i386 7.2 with -L
  # hangs at startup in threaded programs.
  static="--disable-shared"
  case $t in
    x86-64) ;;
    x86-64-qemu64)
      host_args=--with-counter=amd64-tscp
      check_runner="qemu-x86_64 -cpu qemu64" ;;
    aarch64-norunner)
      # --build as well, so that configure knows it is cross-compiling
      host_args="--build=$(sh "$srcdir/build-aux/config.guess") --host=$triplet $static"
      cc="$triplet-gcc --static"
      check_runner=$qemu ;;
    *)
      host_args="--host=$triplet $static"
      cc="$triplet-gcc --static"
      runner=$qemu
      check_runner=$runner ;;
  esac
  if [ "$qemu" != - ] && ! command -v "$qemu" >/dev/null 2>&1; then
    printf '%s\n' "| $t | - | - | - | - | - | not run: no $qemu (ci/cross-matrix.sh --install) |" >>"$matrix_dir/rows"
    return 1
  fi
  if [ "$triplet" != - ] && ! command -v "$triplet-gcc" >/dev/null 2>&1; then
    printf '%s\n' "| $t | - | - | - | - | - | not run: no $triplet-gcc (ci/cross-matrix.sh --install) |" >>"$matrix_dir/rows"
    return 1
  fi
  started=$(date +%s) rerun=
  (
    cd "$dir" &&
    if [ "$t" = ppc64le ]; then
      # this row names its runner in the environment, the others with the
      # option, so that both ways are exercised
      CPUCYCLES_PROBE_RUNNER=$runner "$srcdir/configure" $host_args ${cc:+CC="$cc"}
    elif [ -n "$runner" ]; then
      "$srcdir/configure" $host_args ${cc:+CC="$cc"} --with-probe-runner="$runner"
    else
      "$srcdir/configure" $host_args ${cc:+CC="$cc"}
    fi &&
    make -j"$jobs"
  ) >"$log" 2>&1 || status="build failed"
  if [ "$status" = ok ]; then
    # Rows whose runner configure knows run `make check` as it is: the
    # tests go through that runner by themselves.  The deployment and the
    # no-runner rows name the runner for the tests only.
    # Under an emulator each test runs under `timeout`: qemu-user itself
    # was seen to hang for good in fork() (qemu-ppc64le, t-firstcall's
    # parent: its one guest thread and qemu's RCU thread both waiting on a
    # futex, no child left; 5 runs of it by hand passed).  A test killed so
    # (status 124) is run once more, and the row says which.
    # configure's own tests (CONFIGURE_TESTS in Makefile.am: presets,
    # options, a portable build) run in one emulated row, aarch64; the
    # others leave them out (half of a row's time, and nothing of the
    # target in them).
    subset=CONFIGURE_TESTS=
    [ "$t" != aarch64 ] || subset=
    test_runner=$check_runner
    [ -z "$check_runner" ] || test_runner="timeout $TEST_TIMEOUT $check_runner"
    # shellcheck disable=SC2086
    if [ -n "$check_runner" ]; then
      (cd "$dir" && timeout 900 make -j"$jobs" check $subset CPUCYCLES_PROBE_RUNNER="$test_runner") >>"$log" 2>&1
    else
      (cd "$dir" && timeout 900 make -j"$jobs" check $subset) >>"$log" 2>&1
    fi
    [ $? -ne 124 ] || status="make check timed out"
    hung=$(cd "$dir" && grep -l 'exited with status 124' tests/*.log 2>/dev/null | sed 's/\.log$//' | tr '\n' ' ')
    if [ "$status" = ok ] && [ -n "$hung" ] && [ -n "$check_runner" ]; then
      (cd "$dir" && timeout 900 make check TESTS="$hung" CPUCYCLES_PROBE_RUNNER="$test_runner") >>"$log" 2>&1
      rerun=" (re-ran after a hang under the emulator: $hung)"
    fi
    # shellcheck disable=SC2086
    (cd "$dir" && timeout 60 ./libtool --mode=execute $check_runner ./cpucycles-info) >"$dir/info.txt" 2>&1 ||
      status="cpucycles-info failed"
  fi
  config=$dir/include/cpucycles-config.h
  chosen=$(config_value "$config" CPUCYCLES_CHOSEN)
  precision=$(config_value "$config" CPUCYCLES_BUILD_PRECISION)
  persecond=$(config_value "$config" CPUCYCLES_BUILD_PERSECOND)
  runs=$(sed -n 's/^cpucycles implementation \([^ ]*\)$/\1/p' "$dir/info.txt" 2>/dev/null)
  set -- $(tap_totals "$dir")
  passed=$1 failed=$2 skipped=$3
  [ "$failed" = 0 ] && [ "$passed" -gt 0 ] || [ "$status" != ok ] || status="tests failed"
  choice_ok=yes
  case $t in
    x86-64-qemu64)
      # forced at build time; at run time rdtscp faults, so anything else
      [ "$chosen" = amd64-tscp ] && [ -n "$runs" ] && [ "$runs" != amd64-tscp ] &&
        [ "$runs" != default-zero ] || choice_ok=no ;;
    aarch64-norunner)
      [ -z "$chosen" ] && case $runs in default-monotonic*) true ;; *) false ;; esac || choice_ok=no ;;
    *)
      # Under qemu-user both CLOCK_MONOTONIC counters are emulated system
      # calls whose precisions lie within each other's noise: either one.
      case $expected:$chosen in
        default-monotonic:default-monotonic-syscall) expected=$chosen ;;
      esac
      [ "$chosen" = "$expected" ] && [ "$runs" = "$chosen" ] || choice_ok=no ;;
  esac
  [ $choice_ok = yes ] || [ "$status" != ok ] || status="choice differs from $expected"
  elapsed=$(($(date +%s) - started))
  printf '| %s | %s | %s | %s | %s | %s/%s (%s skipped) | %s; %ss; %s |\n' \
    "$t" "${chosen:-none (run time)}" "${precision:-0}" "${persecond:-0}" "${runs:-?}" \
    "$passed" "$failed" "$skipped" "$status$rerun" "$elapsed" "$(build_figures "$config")" \
    >>"$matrix_dir/rows"
  [ "$status" = ok ]
}

: >"$matrix_dir/rows"
failures=0
for t in $targets; do
  echo "cross-matrix: $t ..." >&2
  run_target "$t" || failures=$((failures + 1))
  tail -n 1 "$matrix_dir/rows" >&2
done

echo
echo "| target | chosen by configure | precision | persecond | used at run time | tests passed/failed | status; time; counters configure measured (precision) |"
echo "|---|---|---|---|---|---|---|"
cat "$matrix_dir/rows"
awk -F'|' '{ split($7, a, "[/ ]"); p += a[2]; f += a[3] } END { printf "matrix tests: %d passed, %d failed\n", p, f }' "$matrix_dir/rows"
echo "matrix rows: $(($(wc -l <"$matrix_dir/rows") - failures)) ok, $failures not ok"
[ $failures = 0 ]
