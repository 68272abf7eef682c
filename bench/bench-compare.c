/* SPDX-License-Identifier: MIT */
/* bench-compare - "is B faster than A?" answered by cpucycles_bench_compare()
 * and by its peers, on the same machine code in the same run: a loop of
 * about 2000 cycles against the same loop with 1% more iterations (B
 * slower: the right answer), and against itself (0%: "different" is a
 * false alarm).  Peers, each measuring A then B as a program would:
 *
 *   naive median        1000 cpucycles() deltas around each, the medians
 *   libcpucycles median the same through libcpucycles' interface (the
 *                       cpucycles function pointer)
 *   cpucycles_bench()   this library's single-function harness, medians
 *
 * A peer is right on +1% when B's median is above A's, and calls 0%
 * different when the medians differ.  Not a test: `make bench`; the
 * statistics' own checks are in tests/t-compare.c, without a clock. */
#include "cpucycles.h"
#include "cpucycles-bench.h"
#include "cpucycles/default-monotonic.h"
#include "bench-deltas.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TRIALS 40
#define DELTAS 1000
#define TARGET_CYCLES 2000

void bench_libcpucycles_deltas(void (*fn)(void *), void *arg, long long *d, int n);

/* The loop benchmark: l iterations of a decrement and a branch. */
static void loop(void *arg)
{
  long l = *(long *)arg;
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
  __asm__ __volatile__("1: dec %0\n\tjnz 1b" : "+r"(l) : : "cc");
#elif defined(__GNUC__) && defined(__aarch64__)
  __asm__ __volatile__("1: subs %0, %0, #1\n\tb.ne 1b" : "+r"(l) : : "cc");
#else
  volatile long i;
  for (i = 0; i < l; i++) {
  }
#endif
}

/* A few cycles: three dependent multiply-adds on *arg.  (One alone, even
 * with each call depending on the last through memory, hides entirely
 * behind the call itself on a recent x86 core, which forwards the store
 * to the next load at no cost.) */
static void tiny(void *arg)
{
  volatile long *x = arg;
  long v = *x;
  v = v * 3 + 1;
  v = v * 5 + 1;
  v = v * 7 + 1;
  *x = v;
}

static int compare_ll(const void *a, const void *b)
{
  long long x = *(const long long *)a, y = *(const long long *)b;
  return (x > y) - (x < y);
}

static long long median(long long *d, int n)
{
  qsort(d, (size_t)n, sizeof d[0], compare_ll);
  return d[n / 2];
}

static BENCH_DEFINE_DELTAS(naive_deltas)

enum { COMPARE, NAIVE, LIBCPUCYCLES, HARNESS, METHODS };
static const char *names[METHODS] = {"cpucycles_bench_compare()", "naive median",
                                     "libcpucycles median", "cpucycles_bench() median"};

/* One trial of method m on A = la, B = lb: -1 (B measured faster, or
 * called faster), 0 (tie, indistinguishable), 1 (B slower). */
static int trial(int m, long *la, long *lb, double *seconds)
{
  static long long da[DELTAS], db[DELTAS];
  struct cpucycles_compare_result c;
  struct cpucycles_bench_result ra, rb;
  long long t0 = cpucycles_default_monotonic_now_ns(), ma = 0, mb = 0;
  int answer = 0;
  switch (m) {
  case COMPARE:
    if (cpucycles_bench_compare(loop, la, loop, lb, 0, &c) == 0)
      answer = c.verdict == CPUCYCLES_COMPARE_B_SLOWER ? 1 : c.verdict == CPUCYCLES_COMPARE_B_FASTER ? -1 : 0;
    break;
  case NAIVE:
  case LIBCPUCYCLES:
    if (m == NAIVE) naive_deltas(loop, la, da, DELTAS), naive_deltas(loop, lb, db, DELTAS);
    else bench_libcpucycles_deltas(loop, la, da, DELTAS), bench_libcpucycles_deltas(loop, lb, db, DELTAS);
    ma = median(da, DELTAS), mb = median(db, DELTAS);
    answer = (mb > ma) - (mb < ma);
    break;
  default:
    if (cpucycles_bench(loop, la, 0, &ra) == 0 && cpucycles_bench(loop, lb, 0, &rb) == 0)
      answer = (rb.median > ra.median) - (rb.median < ra.median);
  }
  *seconds += (double)(cpucycles_default_monotonic_now_ns() - t0) / 1e9;
  return answer;
}

int main(void)
{
  struct cpucycles_bench_result r;
  struct cpucycles_compare_result c;
  struct cpucycles_bench_options o;
  long la = 1000, la2, lb;
  int m, t, plus[METHODS][3], same[METHODS][3];
  double seconds[METHODS];
  char json[4096];

  /* A: the loop length that takes about TARGET_CYCLES */
  memset(&o, 0, sizeof o);
  o.calls = 1;
  if (cpucycles_bench(loop, &la, &o, &r) == 0 && r.median > 0)
    la = (long)(la * TARGET_CYCLES / r.median);
  la2 = la;
  lb = la + la / 100;
  printf("%s, %lld cycles/s; A: loop of %ld iterations, B: %ld (+1%%); %d trials each\n",
         cpucycles_implementation(), cpucycles_persecond(), la, lb, TRIALS);

  memset(plus, 0, sizeof plus), memset(same, 0, sizeof same), memset(seconds, 0, sizeof seconds);
  for (t = 0; t < TRIALS; t++)
    for (m = 0; m < METHODS; m++) { /* interleaved, so that noisy phases hit every method */
      plus[m][1 + trial(m, &la, &lb, &seconds[m])]++;
      same[m][1 + trial(m, &la, &la2, &seconds[m])]++;
    }
  printf("%-26s %21s %26s %12s\n", "method", "+1%: right/tie/wrong", "0%: called different",
         "s per pair");
  for (m = 0; m < METHODS; m++)
    printf("%-26s %9d%% %3d %3d %3d %19d%% %3d/%d %12.3f\n", names[m], 100 * plus[m][2] / TRIALS,
           plus[m][2], plus[m][1], plus[m][0], 100 * (same[m][0] + same[m][2]) / TRIALS,
           same[m][0] + same[m][2], TRIALS, seconds[m] / (2 * TRIALS));

  /* one comparison in full, as a program would print it */
  if (cpucycles_bench_compare(loop, &la, loop, &lb, 0, &c) == 0 &&
      cpucycles_compare_format(json, sizeof json, CPUCYCLES_FORMAT_JSON, "loop", "loop +1%", &c) < (long)sizeof json)
    printf("one comparison as JSON:\n%s", json);
  /* a function of a few cycles, batched, five times over */
  printf("a few-cycle function, cycles a call beyond an empty call's, 5 times:");
  for (t = 0; t < 5; t++)
    if (cpucycles_bench(tiny, &la2, 0, &r) == 0)
      printf(" %.2f (%lld calls a run%s)", r.median, r.calls,
             r.flags & CPUCYCLES_BENCH_BELOW_RESOLUTION ? ", below-resolution" : "");
  printf("\n");
  o.calls = 1;
  if (cpucycles_bench(tiny, &la2, &o, &r) == 0)
    printf("the same, one call a run: median %.2f, min %.2f, below-resolution flag %s\n",
           r.median, r.min, r.flags & CPUCYCLES_BENCH_BELOW_RESOLUTION ? "set" : "clear");
  return 0;
}
