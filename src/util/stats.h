/* SPDX-License-Identifier: MIT */
/* stats.h - a square root the harness and the tools share.
 *
 * A square root without libm: the libraries need nothing beyond libc (a
 * configure check for -lm can fail under -Werror, and then sqrt() was left
 * undefined).  Newton's method from above: from
 * max(x, 1) each step decreases until it reaches the root, then stops;
 * under 70 steps for any x below 2^64, exact to the last bit or two. */
#ifndef CPUCYCLES_STATS_H
#define CPUCYCLES_STATS_H

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
