/* SPDX-License-Identifier: MIT */
/* default-monotonic: clock_gettime(CLOCK_MONOTONIC), in nanoseconds.
 * A fixed-resolution OS clock: scaled to cycles by persecond / 1e9.
 * Counted from an origin (origin.h): a time namespace may put the clock a
 * century ahead, which scaled to cycles overflows.  Read through the
 * library, which owns the origin. */
#ifndef CPUCYCLES_DEFAULT_MONOTONIC_H
#define CPUCYCLES_DEFAULT_MONOTONIC_H
#include "counter.h"
#include <time.h>
#if defined(CLOCK_MONOTONIC)
#define CPUCYCLES_HAVE_DEFAULT_MONOTONIC 1
#define CPUCYCLES_DEFAULT_MONOTONIC_LIBRARY_READ 1 /* needs the origin */

enum { cpucycles_default_monotonic_kind = CPUCYCLES_KIND_OSCLOCK };

/* CLOCK_MONOTONIC in nanoseconds, as it is (the tests' clock too). */
static inline long long cpucycles_default_monotonic_now_ns(void)
{
  struct timespec t;
  if (clock_gettime(CLOCK_MONOTONIC, &t) != 0) return 0;
  return CPUCYCLES_CAST(long long, t.tv_sec) * 1000000000LL + t.tv_nsec;
}

#if defined(CPUCYCLES_COUNTER_SETUP)
#include "origin.h"
#include "seccomp.h"

/* One copy per program that sets counters up: the library, or a probe. */
static long long cpucycles_default_monotonic_origin_ns;

CPUCYCLES_ALWAYS_INLINE long long cpucycles_default_monotonic_read(void)
{
  return cpucycles_default_monotonic_now_ns() - CPUCYCLES_ORIGIN(cpucycles_default_monotonic_origin_ns);
}

static inline int cpucycles_default_monotonic_setup(struct cpucycles_setup *s)
{
  struct timespec t;
  s->nominal_hz = 1e9;
#if defined(__linux__)
  /* the vDSO makes the system call itself where it cannot read the
   * kernel's clocksource (seccomp.h) */
  if (!cpucycles_seccomp_allows_clock(0)) {
    s->reason = CPUCYCLES_SECCOMP_REASON;
    return -1;
  }
#endif
  if (clock_gettime(CLOCK_MONOTONIC, &t) != 0) {
    s->reason = "clock_gettime(CLOCK_MONOTONIC) failed";
    return -1;
  }
  cpucycles_origin_start(&cpucycles_default_monotonic_origin_ns, cpucycles_default_monotonic_now_ns(),
                         1000000000);
  return 0;
}
#endif
#endif
#endif
