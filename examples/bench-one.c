/* SPDX-License-Identifier: MIT */
/* bench-one.c - time a function with cpucycles_bench().
 *
 *   cc -O2 bench-one.c $(pkg-config --cflags --libs cpucycles-bench) -o bench-one
 *
 * cpucycles_bench() does what time-cpucycles.c does by hand, and more: it
 * warms up, fences the reads, subtracts what an empty call costs, batches
 * a function too short for the counter, leaves out (and counts) the runs
 * that migrated or were switched out, and flags statistics it doubts.
 * The function takes one void * argument: pass your data through it. */
#include <cpucycles-bench.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

struct buffer {
  unsigned char bytes[4096];
  unsigned sum;
};

/* The function to time, in the form cpucycles_bench() calls. */
static void sum_bytes(void *arg)
{
  struct buffer *b = arg;
  unsigned sum = 0;
  size_t i;
  for (i = 0; i < sizeof b->bytes; i++) sum += b->bytes[i];
  b->sum = sum; /* stored, so that the compiler keeps the work */
}

int main(void)
{
  static struct buffer data;
  struct cpucycles_bench_options options = {0}; /* 0 everywhere: the defaults */
  struct cpucycles_bench_result r;
  unsigned int flag;
  size_t i;

  for (i = 0; i < sizeof data.bytes; i++) data.bytes[i] = (unsigned char)i;
  options.iterations = 1000; /* the default, said out loud */
  options.pin = 1;           /* stay on this CPU during the runs */

  if (cpucycles_bench(sum_bytes, &data, &options, &r) != 0) {
    /* EAGAIN: every run was disturbed (try again); ENOTSUP: no counter
     * moves here (cpucycles-info says which is in use). */
    fprintf(stderr, "cpucycles_bench: %s\n", strerror(errno));
    return 1;
  }

  printf("sum_bytes: median %.1f cycles a call, interquartile mean %.1f +- %.1f\n", r.median,
         r.interquartile_mean, r.interquartile_mean_error);
  /* precision: the finest figure a run can show (its fenced reads). */
  printf("%lld runs of %lld call(s) kept, %lld disturbed; precision %lld cycles a run\n",
         r.count, r.calls, r.disturbed, r.precision);
  /* The flags say how it was measured and what to doubt: print their names. */
  printf("flags:");
  for (flag = 1; flag != 0; flag <<= 1)
    if ((r.flags & flag) && cpucycles_bench_flag_name(flag)) printf(" %s", cpucycles_bench_flag_name(flag));
  printf("\n");
  return 0;
}
