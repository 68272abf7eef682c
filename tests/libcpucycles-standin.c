/* SPDX-License-Identifier: MIT */
/* libcpucycles-standin.c - a stand-in for libcpucycles' own library
 * (djb's libcpucycles.so.1, which Debian ships under this library's
 * soname): exactly the binary interface its <cpucycles.h> declares, and
 * nothing of this library's.  t-installed builds it as a shared
 * libcpucycles.so.1 and runs programs built against this project's header
 * with it.  Its counter is CLOCK_MONOTONIC in nanoseconds, named
 * "standin-monotonic" so that a run can tell whose read it got. */
#include <stdio.h>
#include <time.h>

static long long standin_read(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

long long (*cpucycles)(void) = standin_read;
const char *cpucycles_implementation(void) { return "standin-monotonic"; }
const char *cpucycles_version(void) { return "20260105-standin"; }
long long cpucycles_persecond(void) { return 1000000000LL; }
void cpucycles_tracesetup(void) { printf("cpucycles tracesetup 0 standin-monotonic precision 1 scaling 1.000000 only32 0\n"); }
