/* SPDX-License-Identifier: MIT */
/* combine.c - cpucycles-compare's executions combined, one symbol at a
 * time.  Placement is treated as a random effect (Kalibera and Jones,
 * "Rigorous benchmarking in reasonable time", ISMM 2013): each execution
 * gives a log-ratio; their 20% trimmed mean is the estimate, their spread
 * (which holds the noise within an execution too) its standard error, and
 * Student's t the 99% interval (Tukey and McLaughlin's: stats.h's
 * cpucycles_trim, as the saved-baseline gate's).  Trimmed, so that an
 * execution or two that a busy neighbour slowed do not decide it: with
 * the mean, one disturbed execution in 20 widened the interval enough to
 * miss +1% in 3 comparisons of 20 on this VM's busy host. */
#include "compare-tool.h"
#include "cpucycles-bench.h"
#include "stats.h"
#include <math.h>

/* x[0..n-1] (left sorted and winsorized) summarized; *variance
 * its plain sample variance (placement's share of it is told from that).
 * A figure that is not a number makes every result NaN (an order of
 * doubles has no place for NaN): the verdict is then indistinguishable. */
static void summarize(double *x, long n, struct cpucycles_trimmed *t, double *variance)
{
  double m = 0, v = 0;
  long i;
  for (i = 0; i < n; i++)
    if (!isfinite(x[i])) {
      t->mean = t->se2 = t->variance = *variance = NAN, t->df = n - 1;
      return;
    }
  for (i = 0; i < n; i++) m += x[i] / (double)n;
  for (i = 0; i < n; i++) v += (x[i] - m) * (x[i] - m);
  *variance = v / (double)(n - 1);
  cpucycles_trim(x, n, t);
}

/* Each execution is one draw of the layout: the executions' log-ratios
 * are the sample, and their variance already holds the noise within
 * each (a random-effects model with executions as its level). */
void combine(const struct options *o, struct outcome *runs, int s, struct row *r, double *x)
{
  long e, n = o->executions;
  double half, variance, within = 0, tol = o->tolerance / 100;
  struct cpucycles_trimmed t;
  int ratios = 1;
  r->symbol = o->symbols[s];
  r->pairs = -1, r->pair_seconds = 0;
  /* each build's cycles the same way as the ratio: trimmed means */
  for (e = 0; e < n; e++) x[e] = runs[e].m[s].a;
  summarize(x, n, &t, &variance);
  r->old_cycles = t.mean;
  for (e = 0; e < n; e++) x[e] = runs[e].m[s].b;
  summarize(x, n, &t, &variance);
  r->new_cycles = t.mean;
  for (e = 0; e < n; e++) {
    const struct measured *m = &runs[e].m[s];
    if (r->pairs < 0 || m->pairs < r->pairs) r->pairs = m->pairs;
    if (m->pair_seconds > r->pair_seconds) r->pair_seconds = m->pair_seconds;
    if (!(m->ratio > 0) || !(m->b > 0) || !isfinite(m->ratio)) ratios = 0;
  }
  /* the differences' interval, the same way: the verdict's when OLD
   * measures nothing (an empty function: no ratio) */
  for (e = 0; e < n; e++) x[e] = runs[e].m[s].difference;
  summarize(x, n, &t, &variance);
  half = cpucycles_t99(t.df) * cpucycles_sqrt(t.se2);
  r->difference = t.mean, r->difference_low = t.mean - half, r->difference_high = t.mean + half;
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
    summarize(x, n, &t, &variance);
    half = cpucycles_t99(t.df) * cpucycles_sqrt(t.se2);
    r->ratio = exp(t.mean), r->low = exp(t.mean - half), r->high = exp(t.mean + half);
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
