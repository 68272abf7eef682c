/* SPDX-License-Identifier: MIT */
/* combine.c - cpucycles-compare's executions combined, one symbol at a
 * time.  Placement is treated as a random effect (Kalibera and Jones,
 * "Rigorous benchmarking in reasonable time", ISMM 2013): each execution
 * gives a log-ratio, and the verdict module (src/bench/verdict.h) makes
 * them an estimate (their 20% trimmed mean, its standard error from their
 * spread, which holds the noise within an execution too), the interval
 * and the verdict, as it does for every comparison.  Trimmed, so that an
 * execution or two that a busy neighbour slowed do not decide it: with
 * the mean, one disturbed execution in 20 widened the interval enough to
 * miss +1% in 3 comparisons of 20 on this VM's busy host. */
#include "compare-tool.h"
#include "cpucycles-bench.h"
#include "stats.h"
#include "verdict.h"
#include <math.h>

/* A side's cycles per call: the trimmed mean of x[0..n) (left sorted);
 * NaN when one is not a number. */
static double trimmed(double *x, long n)
{
  double mean, se2, sd;
  return cpucycles_estimate_side(x, n, &mean, &se2, &sd) == 0 ? mean : NAN;
}

/* The plain sample variance of x[0..n): placement's share of it is told
 * from that (NaN when one is not a number). */
static double variance(const double *x, long n)
{
  double m = 0, v = 0;
  long i;
  for (i = 0; i < n; i++) m += x[i] / (double)n;
  for (i = 0; i < n; i++) v += (x[i] - m) * (x[i] - m);
  return v / (double)(n - 1);
}

/* Each execution is one draw of the layout: the first n executions'
 * log-ratios are the sample, and their variance already holds the noise
 * within each (a random-effects model with executions as its level).
 * looks: how many times the tool looks at the executions (2 when a
 * second stage may follow: verdict.h). */
void combine(const struct options *o, struct outcome *runs, long n, int looks, int s, struct row *r,
             double *x)
{
  struct cpucycles_estimate e;
  double within = 0, v;
  long k;
  int ratios = 1;
  r->symbol = o->symbols[s];
  r->executions = n, r->looks = looks, r->coarse = 0;
  r->pairs = -1, r->pair_seconds = 0;
  for (k = 0; k < n; k++) x[k] = runs[k].m[s].a;
  r->old_cycles = trimmed(x, n);
  for (k = 0; k < n; k++) x[k] = runs[k].m[s].b;
  r->new_cycles = trimmed(x, n);
  for (k = 0; k < n; k++) {
    const struct measured *m = &runs[k].m[s];
    if (r->pairs < 0 || m->pairs < r->pairs) r->pairs = m->pairs;
    if (m->pair_seconds > r->pair_seconds) r->pair_seconds = m->pair_seconds;
    if (!(m->ratio > 0) || !(m->b > 0) || !isfinite(m->ratio)) ratios = 0;
  }
  /* the differences' interval, the same way: the verdict's when OLD
   * measures nothing (an empty function: no ratio) */
  for (k = 0; k < n; k++) x[k] = runs[k].m[s].difference;
  r->difference = r->difference_low = r->difference_high = NAN;
  if (cpucycles_estimate_paired(x, n, &e) == 0) {
    r->difference = e.log_ratio;
    cpucycles_interval_difference(&e, looks, &r->difference_low, &r->difference_high);
  }
  r->ratio = r->low = r->high = NAN;
  r->placement_sd = r->placement_share = r->within_sd = NAN;
  if (ratios) {
    for (k = 0; k < n; k++) {
      const struct measured *m = &runs[k].m[s];
      double w = m->difference_error / m->b; /* the log-ratio's error within */
      x[k] = log(m->ratio);
      within += w * w / (double)n;
    }
    v = variance(x, n);
    if (cpucycles_estimate_paired(x, n, &e) == 0 &&
        cpucycles_interval(&e, looks, &r->ratio, &r->low, &r->high) == 0) {
      r->within_sd = cpucycles_sqrt(within);
      r->placement_sd = v > within ? cpucycles_sqrt(v - within) : 0;
      r->placement_share = v > 0 ? (v > within ? v - within : 0) / v : 0;
    }
    /* a build whose code could not move within its cache lines: a
     * difference within the allowance may be that alone */
    r->coarse = 0;
    for (k = 0; k < n; k++) r->coarse |= placement_coarse(&runs[k], 0) || placement_coarse(&runs[k], 1);
    cpucycles_judge(r->low, r->high, o->tolerance / 100,
                    placement_forbids(r->coarse, r->low, r->high) ? CPUCYCLES_REASON_PLACEMENT : 0,
                    o->exit_faster, &r->j);
  } else {
    /* no ratio, no percentage: only a tolerance of 0 can be exceeded */
    cpucycles_judge_difference(r->difference_low, r->difference_high, 0, o->exit_faster, &r->j);
    if (o->tolerance > 0 && r->j.beyond) {
      r->j.beyond = 0;
      r->j.status = CPUCYCLES_EXIT_NOT_SLOWER;
    }
  }
}
