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
