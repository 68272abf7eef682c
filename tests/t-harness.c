/* t-harness - cpucycles_bench_statistics() on fixed data, and the flags'
 * names. */
#include "cpucycles.h"
#include "tap.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int near(double a, double b) { return a - b < 1e-9 && b - a < 1e-9; }

static int ascending(const long long *a, long long n)
{
  long long i;
  for (i = 1; i < n; i++)
    if (a[i - 1] > a[i]) return 0;
  return 1;
}

/* The k-th smallest (from 0) of values 0..49 occurring counts[v] times. */
static double value_at(const long long *counts, long long k)
{
  int v = 0;
  while (k >= counts[v]) k -= counts[v++];
  return v;
}

/* ---- statistics on fixed data ---- */
static void fixed_statistics(void)
{
  long long odd[] = {10, 1, 7, 3, 100}, even[] = {1000, 4, 2, 30, 1, 20, 3, 10}, one[] = {42};
  long long negative[] = {-5, 3, -1}, halves[16], modes[16], steady[16], *big;
  long long i, n = 100000, counts[50] = {0};
  struct cpucycles_bench_result r;
  unsigned long long x = 12345;
  double expected_median;
  int rc;

  memset(&r, 0, sizeof r);
  rc = cpucycles_bench_statistics(odd, 5, 0, &r);
  tap_ok(rc == 0 && r.count == 5 && r.min == 1 &&
             r.max == 100 && near(r.mean, 24.2) && near(r.median, 7) &&
             near(r.interquartile_mean, 20.0 / 3) && ascending(odd, 5),
         "odd count {10,1,7,3,100}: min 1 max 100 mean 24.2 median 7 IQM 6.667, sorted "
         "(got %lld %lld %g %g %g)", r.min, r.max, r.mean, r.median, r.interquartile_mean);
  rc = cpucycles_bench_statistics(even, 8, 0, &r);
  tap_ok(rc == 0 && r.count == 8 && r.min == 1 &&
             r.max == 1000 && near(r.mean, 133.75) && near(r.median, 7) &&
             near(r.interquartile_mean, 9.25) && ascending(even, 8),
         "even count {1000,4,2,30,1,20,3,10}: median 7 (mean of 4 and 10), mean 133.75, IQM 9.25 "
         "(got %g %g %g)", r.median, r.mean, r.interquartile_mean);
  tap_ok(cpucycles_bench_statistics(one, 1, 0, &r) == 0 && r.count == 1 && r.min == 42 &&
             r.max == 42 && near(r.median, 42) && near(r.interquartile_mean, 42),
         "one sample: every statistic is it");
  tap_ok(cpucycles_bench_statistics(negative, 3, 0, &r) == 0 && r.min == -5 && r.max == 3 &&
             near(r.median, -1) && near(r.mean, -1),
         "negative samples (faster than the null overhead) are kept as they are");

  for (i = 0; i < 16; i++) {
    halves[i] = i < 8 ? 100 : 200;
    modes[i] = i % 2 ? 200 : 100;
    steady[i] = 1000 + i % 2;
  }
  r.flags = CPUCYCLES_BENCH_PINNED;
  cpucycles_bench_statistics(halves, 16, 1, &r);
  tap_ok(r.flags & CPUCYCLES_BENCH_DRIFT, "first half at 100, second at 200: drift");
  r.flags = CPUCYCLES_BENCH_PINNED | CPUCYCLES_BENCH_DRIFT;
  cpucycles_bench_statistics(modes, 16, 1, &r);
  tap_ok(r.flags == (CPUCYCLES_BENCH_PINNED | CPUCYCLES_BENCH_SPREAD),
         "100 and 200 alternating: spread, no drift (the old drift flag cleared, others kept) (%#x)",
         r.flags);
  cpucycles_bench_statistics(steady, 16, 1, &r);
  tap_ok(r.flags == CPUCYCLES_BENCH_PINNED, "1000 and 1001: neither (%#x)", r.flags);

  big = malloc((size_t)n * sizeof *big);
  if (!big) abort();
  for (i = 0; i < n; i++) {
    x = x * 6364136223846793005ULL + 1;
    big[i] = (long long)(x >> 33) % 50;
    counts[big[i]]++;
  }
  expected_median = (value_at(counts, n / 2 - 1) + value_at(counts, n / 2)) / 2.0;
  cpucycles_bench_statistics(big, n, 0, &r);
  tap_ok(ascending(big, n) && near(r.median, expected_median) && r.min == 0 && r.max == 49,
         "100000 samples of 50 values: sorted, median %g (expected %g)", r.median,
         expected_median);
  for (i = 0; i < n; i++) big[i] = n - i; /* descending, then all equal */
  cpucycles_bench_statistics(big, n, 0, &r);
  for (i = 0; i < n; i++) big[i] = 7;
  cpucycles_bench_statistics(big, n, 0, &r);
  tap_ok(near(r.median, 7) && r.min == 7 && r.max == 7, "descending and all-equal input sort");
  free(big);
  errno = 0;
  tap_ok(cpucycles_bench_statistics(odd, 0, 0, &r) == -1 && errno == EINVAL, "n = 0: EINVAL");
}

static void flag_names(void)
{
  unsigned int bit, known = 0, distinct = 1;
  for (bit = 1; bit; bit <<= 1) {
    unsigned int other;
    if (!cpucycles_bench_flag_name(bit)) continue;
    known++;
    for (other = 1; other < bit; other <<= 1)
      if (cpucycles_bench_flag_name(other) &&
          !strcmp(cpucycles_bench_flag_name(other), cpucycles_bench_flag_name(bit)))
        distinct = 0;
  }
  tap_ok(known == 11 && distinct && !cpucycles_bench_flag_name(0) &&
             !cpucycles_bench_flag_name(CPUCYCLES_BENCH_MIGRATED | CPUCYCLES_BENCH_SWITCHED) &&
             !strcmp(cpucycles_bench_flag_name(CPUCYCLES_BENCH_MIGRATED), "migrated"),
         "11 flags with distinct names; 0 and combinations have none");
}

int main(void)
{
  tap_plan(11);
  fixed_statistics();
  flag_names();
  return tap_done();
}
