/* SPDX-License-Identifier: MIT */
/* compare.h - cpucycles_bench_compare()'s insides: the streaming
 * statistics (compare-stats.c), fed pair by pair by the runs (compare.c)
 * or by cpucycles_compare_statistics(). */
#ifndef CPUCYCLES_COMPARE_H
#define CPUCYCLES_COMPARE_H
#include "bench.h"

#define COMPARE_BLOCK 50 /* pairs per block (cpucycles.h says 50) */

struct cpucycles_compare_acc {
  /* The open block: A, and B - A (in a double: the difference of two long
   * longs may not fit in one). */
  double a[COMPARE_BLOCK], d[COMPARE_BLOCK];
  int n;                                          /* pairs in it */
  long long blocks;                               /* closed blocks */
  double mean_d, m2_d; /* their trimmed means of B - A: mean, sum of squares */
  double mean_a;       /* the mean of their trimmed means of A */
  long long min, seen; /* the smallest run of either, and pairs added */
};

void cpucycles_compare_start(struct cpucycles_compare_acc *acc);
/* One pair: cycles of A's run and of B's, overhead subtracted. */
void cpucycles_compare_add(struct cpucycles_compare_acc *acc, long long a, long long b);
/* Fills result's statistics from the closed blocks (a partial last block
 * is left out); -1 with fewer than 2 blocks. */
int cpucycles_compare_finish(const struct cpucycles_compare_acc *acc, long long calls,
                             long long precision, struct cpucycles_compare_result *result);

#endif
