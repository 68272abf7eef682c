/* SPDX-License-Identifier: MIT */
/* default-gettimeofday: gettimeofday(), in microseconds.  The portable
 * last clock before default-zero; scaled to cycles by persecond / 1e6.
 *
 * Counted from an origin (origin.h): microseconds since 1970, times up to
 * 10^5 cycles per microsecond (persecond may be up to 100 GHz), would
 * overflow 64 bits.
 * Read through the library, which owns the origin. */
#ifndef CPUCYCLES_DEFAULT_GETTIMEOFDAY_H
#define CPUCYCLES_DEFAULT_GETTIMEOFDAY_H
#include "counter.h"
#define CPUCYCLES_HAVE_DEFAULT_GETTIMEOFDAY 1
#define CPUCYCLES_DEFAULT_GETTIMEOFDAY_LIBRARY_READ 1 /* needs the origin */

enum { cpucycles_default_gettimeofday_kind = CPUCYCLES_KIND_OSCLOCK };

#if defined(CPUCYCLES_COUNTER_SETUP)
#include "origin.h"
#include "seccomp.h"
#include <stddef.h>
#include <sys/time.h>

/* One copy per program that sets counters up: the library, or a probe. */
static long long cpucycles_default_gettimeofday_origin_us;

static inline long long cpucycles_default_gettimeofday_now_us(void)
{
  struct timeval t;
  if (gettimeofday(&t, NULL) != 0) return 0;
  return CPUCYCLES_CAST(long long, t.tv_sec) * 1000000LL + t.tv_usec;
}

CPUCYCLES_ALWAYS_INLINE long long cpucycles_default_gettimeofday_read(void)
{
  return cpucycles_default_gettimeofday_now_us() - CPUCYCLES_ORIGIN(cpucycles_default_gettimeofday_origin_us);
}

static inline int cpucycles_default_gettimeofday_setup(struct cpucycles_setup *s)
{
  long long now;
  s->nominal_hz = 1e6;
#if defined(__linux__)
  /* the vDSO makes the system call itself where it cannot read the
   * kernel's clocksource (seccomp.h) */
  if (!cpucycles_seccomp_allows_clock(1)) {
    s->reason = CPUCYCLES_SECCOMP_REASON;
    return -1;
  }
#endif
  now = cpucycles_default_gettimeofday_now_us();
  if (now <= 0) {
    s->reason = "gettimeofday() failed";
    return -1;
  }
  cpucycles_origin_start(&cpucycles_default_gettimeofday_origin_us, now, 1000000);
  return 0;
}
#endif
#endif
