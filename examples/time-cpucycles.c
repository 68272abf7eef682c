/* SPDX-License-Identifier: MIT */
/* time-cpucycles.c - time a function with cpucycles(): the median of many
 * runs.
 *
 *   cc -O2 time-cpucycles.c $(pkg-config --cflags --libs cpucycles) -o time-cpucycles
 *
 * One measurement is the function plus whatever the machine did at the
 * same moment (an interrupt, another program, a migration to another
 * CPU): take many and report the median, which such outliers do not move.
 * Each figure also includes the cost of one cpucycles() read;
 * cpucycles_bench() (bench-one.c) subtracts it, and does the rest. */
#include <cpucycles.h>
#include <stdio.h>
#include <stdlib.h>

#define RUNS 1001

static unsigned char data[4096];
static volatile unsigned sink; /* the result goes somewhere, or the compiler drops the work */

/* The function to time. */
static void sum_bytes(void)
{
  unsigned sum = 0;
  size_t i;
  for (i = 0; i < sizeof data; i++) sum += data[i];
  sink = sum;
}

static int by_value(const void *a, const void *b)
{
  long long x = *(const long long *)a, y = *(const long long *)b;
  return (x > y) - (x < y);
}

int main(void)
{
  static long long cycles[RUNS];
  size_t i;

  for (i = 0; i < sizeof data; i++) data[i] = (unsigned char)i;
  /* Not timed: the first cpucycles() call checks the counter (about 10
   * microseconds), and the first run brings data into the cache. */
  (void)cpucycles();
  sum_bytes();

  for (i = 0; i < RUNS; i++) {
    long long t0 = cpucycles();
    sum_bytes();
    cycles[i] = cpucycles() - t0;
  }
  qsort(cycles, RUNS, sizeof cycles[0], by_value);

  printf("sum_bytes: median %lld cycles of %d runs (min %lld, max %lld)\n", cycles[RUNS / 2], RUNS,
         cycles[0], cycles[RUNS - 1]);
  /* What the counts are: "constant-rate cycles" (the TSC) are time at this
   * many cycles per second, "core cycles" are work. */
  printf("counter %s, unit %s, %lld cycles per second\n", cpucycles_implementation(),
         cpucycles_unit_name(), cpucycles_persecond());
  return 0;
}
