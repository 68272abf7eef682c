/* SPDX-License-Identifier: MIT */
/* combine.c - cpucycles-compare's executions combined, one symbol at a
 * time.  Placement is treated as a random effect (Kalibera and Jones,
 * "Rigorous benchmarking in reasonable time", ISMM 2013): each execution
 * gives a log-ratio; their mean is the estimate, their spread (which
 * holds the noise within an execution too) its standard error, and
 * Student's t at E - 1 degrees of freedom the 99% interval. */
#include "compare-tool.h"
#include "cpucycles-bench.h"
#include "stats.h"
#include <math.h>

/* mean and sample variance of x[0..n-1] */
static void moments(const double *x, long n, double *mean, double *variance)
{
  double m = 0, v = 0;
  long i;
  for (i = 0; i < n; i++) m += x[i];
  m /= (double)n;
  for (i = 0; i < n; i++) v += (x[i] - m) * (x[i] - m);
  *mean = m, *variance = v / (double)(n - 1);
}

/* Each execution is one draw of the layout: the executions' log-ratios
 * are the sample, and their variance already holds the noise within
 * each (a random-effects model with executions as its level). */
void combine(const struct options *o, struct outcome *runs, int s, struct row *r, double *x)
{
  long e, n = o->executions;
  double mean, variance, half, within = 0, t = cpucycles_t99(n - 1), tol = o->tolerance / 100;
  int ratios = 1;
  r->symbol = o->symbols[s];
  r->old_cycles = r->new_cycles = 0;
  r->pairs = -1, r->pair_seconds = 0;
  for (e = 0; e < n; e++) {
    const struct measured *m = &runs[e].m[s];
    r->old_cycles += m->a / (double)n, r->new_cycles += m->b / (double)n;
    if (r->pairs < 0 || m->pairs < r->pairs) r->pairs = m->pairs;
    if (m->pair_seconds > r->pair_seconds) r->pair_seconds = m->pair_seconds;
    if (!(m->ratio > 0) || !(m->b > 0) || !isfinite(m->ratio)) ratios = 0;
  }
  /* the differences' interval, the same way: the verdict's when OLD
   * measures nothing (an empty function: no ratio) */
  for (e = 0; e < n; e++) x[e] = runs[e].m[s].difference;
  moments(x, n, &mean, &variance);
  half = t * cpucycles_sqrt(variance / (double)n);
  r->difference = mean, r->difference_low = mean - half, r->difference_high = mean + half;
  r->ratio = r->low = r->high = NAN;
  r->placement_sd = r->placement_share = r->within_sd = NAN;
  r->verdict = CPUCYCLES_COMPARE_INDISTINGUISHABLE;
  if (ratios) {
    for (e = 0; e < n; e++) {
      const struct measured *m = &runs[e].m[s];
      double w = m->difference_error / m->b; /* the log-ratio's error within */
      x[e] = log(m->ratio);
      within += w * w / (double)n;
    }
    moments(x, n, &mean, &variance);
    half = t * cpucycles_sqrt(variance / (double)n);
    r->ratio = exp(mean), r->low = exp(mean - half), r->high = exp(mean + half);
    r->within_sd = cpucycles_sqrt(within);
    r->placement_sd = variance > within ? cpucycles_sqrt(variance - within) : 0;
    r->placement_share = variance > 0 ? (variance > within ? variance - within : 0) / variance : 0;
    if (r->low > 1) r->verdict = CPUCYCLES_COMPARE_B_SLOWER;
    if (r->high < 1) r->verdict = CPUCYCLES_COMPARE_B_FASTER;
    r->beyond = r->low > 1 + tol;
  } else {
    if (r->difference_low > 0) r->verdict = CPUCYCLES_COMPARE_B_SLOWER;
    if (r->difference_high < 0) r->verdict = CPUCYCLES_COMPARE_B_FASTER;
    /* no ratio, no percentage: only a tolerance of 0 can be exceeded */
    r->beyond = r->verdict == CPUCYCLES_COMPARE_B_SLOWER && tol == 0;
  }
}
