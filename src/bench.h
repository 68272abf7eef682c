/* SPDX-License-Identifier: MIT */
/* bench.h - cpucycles_bench()'s insides, for the tests: the harness runs
 * on a clock given as a parameter, so that a fake counter can drive every
 * path (overhead, exclusions, sampling) with numbers known in advance. */
#ifndef CPUCYCLES_BENCH_H
#define CPUCYCLES_BENCH_H
#include "cpucycles.h"

struct cpucycles_bench_clock {
  /* The reads before and after a run, in cycles; each also sets *cpu to
   * a number that differs between CPUs (0 when unknown). */
  long long (*start)(unsigned long long *cpu);
  long long (*end)(unsigned long long *cpu);
  /* Context switches of this thread so far, or -1 when unknown. */
  long long (*switches)(void);
  unsigned int flags; /* what is known of the counter: UNFENCED, FREQ_*, ... */
};

/* cpucycles_bench() on clock c. */
int cpucycles_bench_with(const struct cpucycles_bench_clock *c, void (*fn)(void *), void *arg,
                         const struct cpucycles_bench_options *options,
                         struct cpucycles_bench_result *result);

/* CPUCYCLES_BENCH_FREQ_SCALING, _FREQ_UNKNOWN or 0, from cpufreq's files
 * for this cpu under sysfs (normally "/sys"). */
unsigned int cpucycles_bench_frequency_flags(const char *sysfs, unsigned int cpu);

#endif
