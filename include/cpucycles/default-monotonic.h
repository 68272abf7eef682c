/* SPDX-License-Identifier: MIT */
/* default-monotonic: clock_gettime(CLOCK_MONOTONIC), in nanoseconds.
 * A fixed-resolution OS clock: scaled to cycles by persecond / 1e9. */
#ifndef CPUCYCLES_DEFAULT_MONOTONIC_H
#define CPUCYCLES_DEFAULT_MONOTONIC_H
#include "counter.h"
#include <time.h>
#if defined(CLOCK_MONOTONIC)
#define CPUCYCLES_HAVE_DEFAULT_MONOTONIC 1

enum { cpucycles_default_monotonic_kind = CPUCYCLES_KIND_OSCLOCK };

static inline long long cpucycles_default_monotonic_read(void)
{
  struct timespec t;
  if (clock_gettime(CLOCK_MONOTONIC, &t) != 0) return 0;
  return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

#if defined(CPUCYCLES_COUNTER_SETUP)
#include "seccomp.h"
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
  return 0;
}
#endif
#endif
#endif
