/* SPDX-License-Identifier: MIT */
/* bench-stats.c - the statistics of cpucycles_bench() (see cpucycles.h):
 * a sort and a few sums on the caller's array, nothing allocated. */
#include "bench.h"
#include <errno.h>
#include "stats.h"

#define DRIFT_SHARE 0.05  /* the halves' medians may differ by 5% */
#define SPREAD_SHARE 0.10 /* the middle half may span 10% of the median */

static void swap(long long *a, long long i, long long j)
{
  long long t = a[i];
  a[i] = a[j];
  a[j] = t;
}

/* Quicksort, not qsort(): glibc's qsort() may malloc a copy of the array.
 * Three-way partition, as timings repeat the same few values a lot; a
 * pseudo-random pivot, so no order of the runs makes it quadratic; the
 * smaller side recursed into, so the stack stays log2(n) frames deep. */
static void sort(long long *a, long long n, unsigned long long *seed)
{
  long long lt, i, gt, pivot;
  while (n > 1) {
    *seed = *seed * 6364136223846793005ULL + 1442695040888963407ULL;
    pivot = a[(*seed >> 11) % (unsigned long long)n];
    lt = 0, i = 0, gt = n;
    while (i < gt) { /* a[0,lt) < pivot, a[lt,i) == pivot, a[gt,n) > pivot */
      if (a[i] < pivot) swap(a, lt++, i++);
      else if (a[i] > pivot) swap(a, i, --gt);
      else i++;
    }
    if (lt < n - gt) {
      sort(a, lt, seed);
      a += gt, n -= gt;
    } else {
      sort(a + gt, n - gt, seed);
      n = lt;
    }
  }
}

/* Of n >= 1 sorted values. */
static double median(const long long *a, long long n)
{
  if (n % 2) return (double)a[n / 2];
  return ((double)a[n / 2 - 1] + (double)a[n / 2]) / 2;
}

static double absolute(double x) { return x < 0 ? -x : x; }

/* The standard error of the mean of sorted a[cut, n - cut) (Tukey and
 * McLaughlin): the variance of a winsorized at those cuts, over
 * (1 - 2 cut/n)^2 n.  0 for n < 2. */
double cpucycles_trimmed_mean_error(const long long *a, long long n, long long cut)
{
  double low, high, v, ss = 0, wmean = 0, kept;
  long long i;
  if (n < 2) return 0;
  low = (double)a[cut], high = (double)a[n - 1 - cut];
  for (i = 0; i < n; i++) {
    v = (double)a[i];
    wmean += v < low ? low : v > high ? high : v;
  }
  wmean /= (double)n;
  for (i = 0; i < n; i++) {
    v = (double)a[i];
    v = (v < low ? low : v > high ? high : v) - wmean;
    ss += v * v;
  }
  kept = (double)(n - 2 * cut) / (double)n;
  return cpucycles_sqrt(ss / (double)(n - 1)) / (kept * cpucycles_sqrt((double)n));
}

int cpucycles_bench_statistics(long long *samples, long long n, long long precision,
                               struct cpucycles_bench_result *r)
{
  unsigned long long seed = 1;
  long long i, cut = n / 4;
  double sum = 0, middle = 0, first, second, tolerance;

  if (n < 1 || !samples || !r) {
    errno = EINVAL;
    return -1;
  }
  r->flags &= ~(CPUCYCLES_BENCH_DRIFT | CPUCYCLES_BENCH_SPREAD);
  /* Drift: each half sorted on its own first, for its median. */
  sort(samples, n / 2, &seed);
  sort(samples + n / 2, n - n / 2, &seed);
  first = median(samples, n / 2 > 0 ? n / 2 : 1);
  second = median(samples + n / 2, n - n / 2);
  sort(samples, n, &seed);

  for (i = 0; i < n; i++) sum += (double)samples[i];
  for (i = cut; i < n - cut; i++) middle += (double)samples[i];
  r->count = n;
  r->min = samples[0];
  r->max = samples[n - 1];
  r->mean = sum / (double)n;
  r->median = median(samples, n);
  r->interquartile_mean = middle / (double)(n - 2 * cut);
  r->interquartile_mean_error = cpucycles_trimmed_mean_error(samples, n, cut);

  if (n >= 8) {
    tolerance = DRIFT_SHARE * absolute(r->median);
    if (tolerance < (double)precision) tolerance = (double)precision;
    if (absolute(first - second) > tolerance) r->flags |= CPUCYCLES_BENCH_DRIFT;
    tolerance = SPREAD_SHARE * absolute(r->median);
    if (tolerance < 2.0 * (double)precision) tolerance = 2.0 * (double)precision;
    if ((double)samples[n - 1 - cut] - (double)samples[cut] > tolerance)
      r->flags |= CPUCYCLES_BENCH_SPREAD;
  }
  return 0;
}

const char *cpucycles_bench_flag_name(unsigned int flag)
{
  switch (flag) {
  case CPUCYCLES_BENCH_SUBTRACTED: return "subtracted";
  case CPUCYCLES_BENCH_UNFENCED: return "unfenced";
  case CPUCYCLES_BENCH_PINNED: return "pinned";
  case CPUCYCLES_BENCH_SAMPLED: return "sampled";
  case CPUCYCLES_BENCH_MIGRATED: return "migrated";
  case CPUCYCLES_BENCH_SWITCHED: return "switched";
  case CPUCYCLES_BENCH_DRIFT: return "drift";
  case CPUCYCLES_BENCH_SPREAD: return "spread";
  case CPUCYCLES_BENCH_FREQ_SCALING: return "freq-scaling";
  case CPUCYCLES_BENCH_FREQ_UNKNOWN: return "freq-unknown";
  case CPUCYCLES_BENCH_TSC_NOT_INVARIANT: return "tsc-not-invariant";
  case CPUCYCLES_BENCH_BELOW_RESOLUTION: return "below-resolution";
  case CPUCYCLES_BENCH_OTHER_LIBRARY: return "other-library";
  case CPUCYCLES_BENCH_NULL_PLACEMENT: return "null-placement";
  case CPUCYCLES_BENCH_PLACEMENT_NOT_COVERED: return "placement-not-covered";
  default: return 0;
  }
}
