/* SPDX-License-Identifier: MIT */
/* libcpucycles-lazy.c - a second stand-in for libcpucycles' own library,
 * for tests/t-bindings.sh: libcpucycles-standin.c's binary interface, with
 * two more of libcpucycles' ways that a binding can get wrong.
 *
 * Its pointer "cpucycles" starts at its setup function, which points it at
 * the counter and returns a count; cpucycles_persecond() and
 * cpucycles_implementation() call cpucycles() first, as libcpucycles'
 * do.  A binding that copies the pointer before the first call keeps
 * calling the setup: libcpucycles then selects again at every count
 * (about 0.5 ms each, and a scaled counter's origin moves); this one says
 * so on standard error and aborts, so that a test sees it.
 *
 * Its frequency, 3.4 GHz, is above 2^31: a binding that takes
 * cpucycles_persecond()'s result as a C int gets it truncated.
 *
 * Its counter is CLOCK_MONOTONIC in nanoseconds, named "standin-lazy". */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static long long lazy_read(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static long long lazy_setup(void);
long long (*cpucycles)(void) = lazy_setup;
static int lazy_done;

static long long lazy_setup(void)
{
  if (lazy_done) {
    fprintf(stderr, "standin-lazy: the setup function called again, through a copy of the pointer "
                    "\"cpucycles\" taken before the first call\n");
    abort();
  }
  lazy_done = 1;
  cpucycles = lazy_read;
  return cpucycles();
}

const char *cpucycles_implementation(void)
{
  cpucycles();
  return "standin-lazy";
}
const char *cpucycles_version(void) { return "20260105-standin-lazy"; }
long long cpucycles_persecond(void)
{
  cpucycles();
  return 3400000000LL;
}
void cpucycles_tracesetup(void)
{
  cpucycles();
  printf("cpucycles tracesetup 0 standin-lazy precision 1 scaling 1.000000 only32 0\n");
}
