/* SPDX-License-Identifier: MIT */
/* speedflip - LD_PRELOAD shim: a host whose speed changes while a
 * program runs, for t-compare-programs.  cpucycles-compare measures the
 * host's speed (cpucycles_bench_speed_now()) before, between and after
 * the two runs of a pair, each run a fork()ed child; here each of its
 * first CPUCYCLES_SPEEDFLIP fork()s switches the host between its own
 * speed and one CPUCYCLES_SPEEDFLIP_FACTOR (default 1.6) times slower:
 * the reference's cycles, as measured, times that factor.  A pair with a
 * switch in it is then one during which the speed changed, as on this
 * project's development VM, whose vCPUs run a fixed chain at 5,600 or
 * 9,300 ticks by turns.  (tests/speedshim.c slows a whole process by its
 * clocks; here the counter is left alone, and only the tool's view of
 * the speed changes.) */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "cpucycles-bench.h"
#include <dlfcn.h>
#include <stdlib.h>
#include <unistd.h>

static int flips;      /* the forks that switch the speed, left */
static int slow;       /* whether the host is slow now */
static double factor = 1.6;

__attribute__((constructor)) static void speedflip_start(void)
{
  const char *n = getenv("CPUCYCLES_SPEEDFLIP"), *f = getenv("CPUCYCLES_SPEEDFLIP_FACTOR");
  if (n && atoi(n) > 0) flips = atoi(n);
  if (f && atof(f) > 0) factor = atof(f);
}

pid_t fork(void)
{
  static pid_t (*real)(void);
  pid_t pid;
  if (!real) real = (pid_t(*)(void))dlsym(RTLD_NEXT, "fork");
  pid = real();
  if (pid > 0 && flips > 0) flips--, slow = !slow;
  return pid;
}

int cpucycles_bench_speed_now(struct cpucycles_bench_speed *speed)
{
  static int (*real)(struct cpucycles_bench_speed *);
  int rc;
  if (!real) real = (int (*)(struct cpucycles_bench_speed *))dlsym(RTLD_NEXT, "cpucycles_bench_speed_now");
  rc = real(speed);
  if (rc == 0 && slow) speed->reference *= factor;
  return rc;
}
