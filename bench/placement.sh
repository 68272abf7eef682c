#!/bin/sh
# SPDX-License-Identifier: MIT
# placement.sh - what the harness says about code whose place in memory
# is all that differs, each case in PLACEMENT_RUNS fresh processes (default
# 20), run by `make bench` (measured, never asserted):
#
# cpucycles_bench() of an empty function (defaults: calls automatic)
#   exe            in the executable (another 4 GiB region than the
#                  harness's library)
#   exe +32        in the executable, 32 bytes past a 64-byte boundary
#   exe page       in the executable, first in a page of its own
#   so             in another shared object
#   so +32         in it, 32 bytes past a 64-byte boundary
#                                      goal: 0 +- 0.5 a call, or flagged
#                                      (below-resolution, null-placement),
#                                      in >= 19 of 20
#   3 dependent multiply-adds through memory, in the executable and in
#   the shared object: the same code, so the same figure (within 0.5),
#   or flagged                         goal: >= 19 of 20
# cpucycles_bench_compare() (defaults: 0.25 s) of a loop of ITER
# iterations in one shared object against
#   identical      the same code in another (the same source built twice)
#                                      goal: called different <= 1 of 20,
#                                      or flagged placement-not-covered
#   +0.5%          the same in the other, 0.5% more iterations
#                                      goal: slower >= 19 of 20
#
# Usage: placement.sh SRCDIR BUILDDIR (the harness built there); CC the
# compiler.
set -u
srcdir=${1:?usage: placement.sh SRCDIR BUILDDIR}
builddir=${2:?usage: placement.sh SRCDIR BUILDDIR}
runs=${PLACEMENT_RUNS:-20}
iter=2900
dir=$(mktemp -d "${TMPDIR:-/tmp}/placement.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT

# The empty functions and the loop, in the executable and the shared
# objects alike; "+32" in assembly, so that the compiler cannot move it.
cat >"$dir/code.c" <<'SRC'
void empty(void *arg);
void empty(void *arg) { (void)arg; }
void empty_page(void *arg);
__attribute__((aligned(4096))) void empty_page(void *arg) { (void)arg; }
void empty_at32(void *arg);
#if defined(__x86_64__) || defined(__i386__) || defined(__aarch64__)
__asm__(".text\n\t.p2align 6\n\t.skip 32\n\t.globl empty_at32\n"
        "empty_at32:\n\tret\n\t.skip 64");
#else
void empty_at32(void *arg) { (void)arg; }
#endif
/* a few cycles of dependent work: three multiply-adds through memory */
void tiny(void *arg);
void tiny(void *arg)
{
  volatile long *x = arg;
  long v = *x;
  v = v * 3 + 1;
  v = v * 5 + 1;
  v = v * 7 + 1;
  *x = v;
}
void loop(void *arg);
void loop(void *arg)
{
  unsigned long n = *(unsigned long *)arg;
#if defined(__x86_64__) || defined(__i386__)
  __asm__ __volatile__("1: dec %0\n\tjnz 1b" : "+r"(n) : : "cc");
#elif defined(__aarch64__)
  __asm__ __volatile__("1: subs %0, %0, #1\n\tb.ne 1b" : "+r"(n) : : "cc");
#else
  for (; n; n--) __asm__ __volatile__("" : "+r"(n));
#endif
}
SRC

cat >"$dir/main.c" <<'SRC'
#include <cpucycles-bench.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "code.c"

typedef void fn_t(void *);
static fn_t *in(const char *so, const char *name)
{
  void *h = dlopen(so, RTLD_NOW | RTLD_LOCAL), *f;
  if (!h || !(f = dlsym(h, name))) {
    fprintf(stderr, "%s: %s\n", so, dlerror());
    exit(2);
  }
  return (fn_t *)(size_t)f;
}

/* one line: the figure a call (or the ratio), the verdict, the flags */
int main(int argc, char **argv)
{
  const char *mode = argc > 2 ? argv[1] : "", *dir = argc > 2 ? argv[2] : ".";
  char a_so[4096], b_so[4096];
  struct cpucycles_bench_result r;
  struct cpucycles_compare_result c;
  unsigned long n = ITER, more = ITER * 1005 / 1000;
  long x = 1;
  int tries = 0, rc;
  fn_t *f = 0;
  snprintf(a_so, sizeof a_so, "%s/a.so", dir);
  snprintf(b_so, sizeof b_so, "%s/b.so", dir);
  if (!strcmp(mode, "exe")) f = empty;
  if (!strcmp(mode, "exe+32")) f = empty_at32;
  if (!strcmp(mode, "exe-page")) f = empty_page;
  if (!strcmp(mode, "so")) f = in(a_so, "empty");
  if (!strcmp(mode, "so+32")) f = in(a_so, "empty_at32");
  if (f) {
    if (cpucycles_bench(f, 0, 0, &r) != 0) return 2;
    printf("%.4f %u\n", r.median, r.flags);
    return 0;
  }
  if (!strcmp(mode, "tiny")) {
    double e, s;
    unsigned int flags;
    if (cpucycles_bench(tiny, &x, 0, &r) != 0) return 2;
    e = r.median, flags = r.flags;
    if (cpucycles_bench(in(a_so, "tiny"), &x, 0, &r) != 0) return 2;
    s = r.median, flags |= r.flags;
    printf("%.4f %.4f %u\n", e, s, flags);
    return 0;
  }
  do rc = cpucycles_bench_compare(in(a_so, "loop"), &n, in(b_so, "loop"),
                                  !strcmp(mode, "identical") ? &n : &more, 0, &c);
  while (rc != 0 && errno == EAGAIN && ++tries < 3);
  if (rc != 0) return 2;
  printf("%.6f %d %u\n", c.ratio, c.verdict, c.flags);
  return 0;
}
SRC

${CC:-cc} -O2 -shared -fPIC -o "$dir/a.so" "$dir/code.c" || exit 1
${CC:-cc} -O2 -shared -fPIC -o "$dir/b.so" "$dir/code.c" || exit 1
${CC:-cc} -O2 -DITER=$iter -I"$dir" -I"$builddir/include" -I"$srcdir/include" -o "$dir/main" \
  "$dir/main.c" -L"$builddir/.libs" -Wl,-rpath,"$builddir/.libs" -lcpucycles-bench -lcpucycles \
  -ldl || exit 1
cmp -s "$dir/a.so" "$dir/b.so" || echo "(a.so and b.so differ: this compiler's builds are not reproducible)"

flag_bit() { # the bit of a flag's name, from the header
  awk -v name="$1" '$1 == "#define" && $2 == name { sub(/u$/, "", $3); print $3 }' \
    "$srcdir/include/cpucycles-bench.h"
}
below=$(($(flag_bit CPUCYCLES_BENCH_BELOW_RESOLUTION)))
null_placement=$(($(flag_bit CPUCYCLES_BENCH_NULL_PLACEMENT) + 0))
not_covered=$(($(flag_bit CPUCYCLES_BENCH_PLACEMENT_NOT_COVERED) + 0))

# processes MODE: $dir/main MODE in $runs fresh processes, each one's line
# (or "error") into $dir/out.
processes() {
  i=0
  : >"$dir/out"
  while [ $i -lt "$runs" ]; do
    "$dir/main" "$1" "$dir" >>"$dir/out" || echo "error" >>"$dir/out"
    i=$((i + 1))
  done
}

echo "placement: $runs processes a case; $(uptime | sed 's/^ *//')"
printf '%-28s %6s %8s %8s %7s  %s\n' "cpucycles_bench()" "0+-0.5" flagged neither "range" "goal: 0+-0.5 or flagged"
for mode in exe exe+32 exe-page so so+32; do
  processes $mode
  awk -v mode="empty, $mode" -v flags="$below $null_placement" -v runs="$runs" '
    function abs(x) { return x < 0 ? -x : x }
    function has(f, bits) { return int(f / bits[1]) % 2 || int(f / bits[2]) % 2 }
    BEGIN { split(flags, bit, " ") }
    $1 == "error" { errors++; next }
    { m = $1 + 0; f = $2 + 0 }
    { lo = NR == 1 || m < lo ? m : lo; hi = NR == 1 || m > hi ? m : hi }
    abs(m) <= 0.5 { good++; next }
    has(f, bit) { flagged++; next }
    { bad++ }
    END { printf "%-28s %6d %8d %8d %7s  %d of %d (goal >= %d)%s\n", mode, good, flagged, bad,
          sprintf("%.2f..%.2f", lo, hi), good + flagged, runs, runs - runs / 20,
          errors ? ", " errors " errors" : "" }' "$dir/out"
done
processes tiny
awk -v flags="$below $null_placement" -v runs="$runs" '
  function abs(x) { return x < 0 ? -x : x }
  function has(f, bits) { return int(f / bits[1]) % 2 || int(f / bits[2]) % 2 }
  BEGIN { split(flags, bit, " ") }
  $1 == "error" { errors++; next }
  { d = $1 - $2; se += $1; ss += $2; n++ }
  abs(d) <= 0.5 { good++; next }
  has($3 + 0, bit) { flagged++; next }
  { bad++ }
  END { printf "%-28s %6d %8d %8d %7s  %d of %d agree or flagged (goal >= %d)%s\n",
        "multiply-adds exe vs so", good, flagged, bad, sprintf("%.2f/%.2f", n ? se / n : 0, n ? ss / n : 0),
        good + flagged, runs, runs - runs / 20, errors ? ", " errors " errors" : "" }' "$dir/out"

printf '%-28s %6s %8s %8s %7s  %s\n' "cpucycles_bench_compare()" slower faster "indist." "|r-1|max" goal
for mode in identical plus05; do
  processes $mode
  awk -v mode=$mode -v covered=$not_covered -v runs="$runs" '
    function abs(x) { return x < 0 ? -x : x }
    $1 == "error" { errors++; next }
    { v[$2 + 0]++; if (abs($1 - 1) > worst) worst = abs($1 - 1) }
    covered == 0 || int($3 / covered) % 2 == 0 { unflagged++ }
    END {
      different = v[1] + v[2]
      if (mode == "identical")
        goal = sprintf("different %d of %d, %d of them unflagged (goal: <= %d unflagged)", different, runs,
                       unflagged > different ? different : unflagged, runs / 20)
      else
        goal = sprintf("slower %d of %d (goal >= %d)", v[2], runs, runs - runs / 20)
      printf "%-28s %6d %8d %8d %7s  %s%s\n", mode == "identical" ? "identical copy" : "+0.5% (longer loop)",
             v[2], v[1], v[0], sprintf("%.4f", worst), goal, errors ? ", " errors " errors" : "" }' "$dir/out"
done
echo "$(uptime | sed 's/^ *//')"
