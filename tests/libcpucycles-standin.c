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

#if defined(STANDIN_OTHER_BUILD)
/* -DSTANDIN_OTHER_BUILD=VERSION: instead, another build of this project
 * of that version, whose private interface is the first (src/private.h's
 * layout then, a number 1): cpucycles-info must refuse it, not read its
 * structures as its own's. */
#define STANDIN_TEXT_(x) #x
#define STANDIN_TEXT(x) STANDIN_TEXT_(x)
struct standin_private {
  unsigned int interface;
  unsigned long size;
  const char *version;
};
static const struct standin_private standin_private = {1, sizeof standin_private,
                                                       STANDIN_TEXT(STANDIN_OTHER_BUILD)};
const struct standin_private *cpucycles_private(void);
const struct standin_private *cpucycles_private(void) { return &standin_private; }
#endif
