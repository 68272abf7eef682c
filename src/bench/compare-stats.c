/* SPDX-License-Identifier: MIT */
/* compare-stats.c - the statistics of cpucycles_bench_compare() (see
 * cpucycles.h): pairs taken in blocks of COMPARE_BLOCK in run order, each
 * block's 20%-trimmed means, the blocks' mean and standard error, and a
 * 99% interval with Student's t.  Streaming: a block's worth of memory,
 * whatever the number of pairs. */
#include "compare.h"
#include <errno.h>
#include <math.h> /* NAN: a macro, no libm */
#include "stats.h"
#include "verdict.h"

#define TRIM (COMPARE_BLOCK / 5) /* pairs dropped at each end of a block */

void cpucycles_compare_start(struct cpucycles_compare_acc *acc)
{
  acc->n = 0;
  acc->blocks = 0;
  acc->mean_d = acc->m2_d = acc->mean_a = 0;
  acc->min = 0;
  acc->seen = 0;
}

/* Insertion sort: COMPARE_BLOCK values, nearly in order most of the time. */
static void sort_small(double *v, int n)
{
  int i, j;
  double x;
  for (i = 1; i < n; i++) {
    x = v[i];
    for (j = i; j > 0 && v[j - 1] > x; j--) v[j] = v[j - 1];
    v[j] = x;
  }
}

static double trimmed_mean(double *v)
{
  double sum = 0;
  int i;
  sort_small(v, COMPARE_BLOCK);
  for (i = TRIM; i < COMPARE_BLOCK - TRIM; i++) sum += v[i];
  return sum / (COMPARE_BLOCK - 2 * TRIM);
}

/* Welford's update: the blocks' mean and sum of squared deviations. */
static void close_block(struct cpucycles_compare_acc *acc)
{
  double d = trimmed_mean(acc->d), a = trimmed_mean(acc->a), delta;
  acc->blocks++;
  delta = d - acc->mean_d;
  acc->mean_d += delta / (double)acc->blocks;
  acc->m2_d += delta * (d - acc->mean_d);
  acc->mean_a += (a - acc->mean_a) / (double)acc->blocks;
  acc->n = 0;
}

void cpucycles_compare_add(struct cpucycles_compare_acc *acc, long long a, long long b)
{
  long long low = a < b ? a : b;
  if (acc->seen++ == 0 || low < acc->min) acc->min = low;
  acc->a[acc->n] = (double)a;
  acc->d[acc->n] = (double)b - (double)a;
  if (++acc->n == COMPARE_BLOCK) close_block(acc);
}

int cpucycles_compare_finish(const struct cpucycles_compare_acc *acc, long long calls,
                             long long precision, struct cpucycles_compare_result *r)
{
  double a = acc->mean_a, d = acc->mean_d, error, half, k = (double)calls;
  struct cpucycles_judgement j;
  if (acc->blocks < 2 || calls < 1) return -1;
  error = cpucycles_sqrt(acc->m2_d / (double)(acc->blocks - 1) / (double)acc->blocks);
  half = cpucycles_verdict_t((double)(acc->blocks - 1), 1) * error;
  r->pairs = acc->blocks * COMPARE_BLOCK;
  r->blocks = acc->blocks;
  r->a = a / k;
  r->b = (a + d) / k;
  r->difference = d / k;
  r->difference_error = error / k;
  if (cpucycles_bench_below_resolution(a, (double)acc->min, precision))
    r->flags |= CPUCYCLES_BENCH_BELOW_RESOLUTION;
  /* pairs of one process: where its code lies is fixed for all of them */
  r->flags |= CPUCYCLES_BENCH_PLACEMENT_NOT_COVERED;
  /* The verdict, by the rule every comparison shares (verdict.h) at
   * tolerance 0: where A measures a positive time, the ratio's interval
   * against 1, which is the difference's against 0. */
  if (a > 0) {
    r->ratio = (a + d) / a;
    r->ratio_low = (a + d - half) / a;
    r->ratio_high = (a + d + half) / a;
    cpucycles_judge(r->ratio_low, r->ratio_high, 0, 0, 0, &j);
  } else { /* no ratio to a function that measures nothing, or less */
    r->ratio = r->ratio_low = r->ratio_high = NAN;
    cpucycles_judge_difference(d - half, d + half, 0, 0, &j);
  }
  r->verdict = j.verdict;
  return 0;
}

int cpucycles_compare_statistics(const long long *a, const long long *b, long long n,
                                 long long calls, long long precision,
                                 struct cpucycles_compare_result *r)
{
  struct cpucycles_compare_acc acc;
  long long i;
  if (!a || !b || !r || n < 2 * COMPARE_BLOCK || calls < 1) {
    errno = EINVAL;
    return -1;
  }
  cpucycles_compare_start(&acc);
  for (i = 0; i < n; i++) cpucycles_compare_add(&acc, a[i], b[i]);
  r->flags &= ~CPUCYCLES_BENCH_BELOW_RESOLUTION;
  return cpucycles_compare_finish(&acc, calls, precision, r);
}

const char *cpucycles_compare_verdict_name(int verdict)
{
  return cpucycles_verdict_word(verdict);
}
