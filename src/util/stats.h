/* SPDX-License-Identifier: MIT */
/* stats.h - the numbers the harness and the tools share.
 *
 * A square root without libm: the libraries need nothing beyond libc (a
 * configure check for -lm can fail under -Werror, and then sqrt() was left
 * undefined).  Newton's method from above: from
 * max(x, 1) each step decreases until it reaches the root, then stops;
 * under 70 steps for any x below 2^64, exact to the last bit or two. */
#ifndef CPUCYCLES_STATS_H
#define CPUCYCLES_STATS_H
#include <stdlib.h> /* qsort */

/* The standard normal distribution's two-sided 99% point: every 99%
 * interval of the harness and of cpucycles-info --compare. */
#define CPUCYCLES_Z99 2.575829

/* Student's t, two-sided 99%, for df >= 1 degrees of freedom: the table
 * to 30, then the Cornish-Fisher expansion (within 0.001 from there on).
 * The comparison's blocks, and cpucycles-compare's executions. */
static inline double cpucycles_t99(long long df)
{
  static const double table[30] = {63.657, 9.925, 5.841, 4.604, 4.032, 3.707, 3.499, 3.355,
                                   3.250,  3.169, 3.106, 3.055, 3.012, 2.977, 2.947, 2.921,
                                   2.898,  2.878, 2.861, 2.845, 2.831, 2.819, 2.807, 2.797,
                                   2.787,  2.779, 2.771, 2.763, 2.756, 2.750};
  const double z = CPUCYCLES_Z99, z3 = z * z * z, z5 = z3 * z * z;
  double n = (double)df;
  if (df <= 30) return table[df - 1];
  return z + (z3 + z) / (4 * n) + (5 * z5 + 16 * z3 + 3 * z) / (96 * n * n);
}

static inline int cpucycles_order_doubles(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Executions (processes) of one benchmark compared: the 20% trimmed mean
 * of their figures and its squared standard error, from the winsorized
 * variance, with its degrees of freedom (Tukey and McLaughlin's, the
 * one-sample side of Yuen's t), so that an execution or two a busy
 * neighbour slowed without a flag weigh no more than the kept ones
 * (below 5 figures nothing is trimmed: the mean, the sample variance and
 * n - 1).  v[0..n-1], n >= 2, finite: v is left sorted and winsorized.  The interval
 * is mean +- t99(df) * sqrt(se2).  Every between-process interval:
 * cpucycles-compare's, cpucycles-info --compare's (the tools': qsort()
 * may malloc, which the harness never does, bench-stats.c). */
struct cpucycles_trimmed {
  double mean;     /* of the middle figures */
  double se2;      /* the mean's squared standard error */
  double variance; /* winsorized sample variance of the figures */
  long long df;    /* h - 1, h the figures kept */
};
static inline void cpucycles_trim(double *v, long long n, struct cpucycles_trimmed *t)
{
  long long i, trim = n / 5, h = n - 2 * trim;
  double m = 0, w = 0, d = 0;
  qsort(v, (size_t)n, sizeof *v, cpucycles_order_doubles);
  for (i = trim; i < n - trim; i++) m += v[i] / (double)h;
  /* winsorized: each trimmed figure as the nearest kept one */
  for (i = 0; i < n; i++) v[i] = v[i < trim ? trim : i >= n - trim ? n - trim - 1 : i], w += v[i] / (double)n;
  for (i = 0; i < n; i++) d += (v[i] - w) * (v[i] - w);
  t->mean = m;
  t->variance = d / (double)(n - 1);
  t->se2 = d / ((double)h * (double)(h - 1));
  t->df = h - 1;
}

static inline double cpucycles_sqrt(double x)
{
  double r, next;
  int i;
  if (!(x > 0)) return 0; /* 0, negatives (rounding) and NaN */
  r = x > 1 ? x : 1;
  for (i = 0; i < 2100; i++) {
    next = 0.5 * (r + x / r);
    if (!(next < r)) break;
    r = next;
  }
  return r;
}

#endif
