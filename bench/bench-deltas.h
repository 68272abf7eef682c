/* SPDX-License-Identifier: MIT */
/* bench-deltas.h - how the median peers of bench-compare measure: n runs
 * of fn(arg), each between two reads, their differences in d.  One
 * definition for peers whose reads differ only in what `cpucycles` names:
 * this library's inline function (bench-compare.c) or libcpucycles' data
 * pointer (bench-libcpucycles.c, which cannot include <cpucycles.h>). */
#ifndef CPUCYCLES_BENCH_DELTAS_H
#define CPUCYCLES_BENCH_DELTAS_H
#define BENCH_DEFINE_DELTAS(name)                                         \
  void name(void (*fn)(void *), void *arg, long long *d, int n)          \
  {                                                                       \
    long long t0, t1;                                                     \
    int i;                                                                \
    for (i = 0; i < n; i++) {                                             \
      t0 = cpucycles();                                                   \
      fn(arg);                                                            \
      t1 = cpucycles();                                                   \
      d[i] = t1 - t0;                                                     \
    }                                                                     \
  }
#endif
