/* SPDX-License-Identifier: MIT */
/* default-gettimeofday: gettimeofday(), in microseconds.  The portable
 * last clock before default-zero; scaled to cycles by persecond / 1e6.
 *
 * The count starts from an origin taken by setup, one day before the
 * process first used it, the same for every thread: microseconds since
 * 1970, times up to 10^5 cycles per microsecond (persecond may be up to
 * 100 GHz), would overflow 64 bits; from a recent origin the count stays
 * positive for 2^63/persecond seconds (58 years at 5 GHz, 2.9 years at
 * 100 GHz), and the day keeps it positive if the clock is set back.
 * Read through the library, which owns the origin. */
#ifndef CPUCYCLES_DEFAULT_GETTIMEOFDAY_H
#define CPUCYCLES_DEFAULT_GETTIMEOFDAY_H
#include "counter.h"
#define CPUCYCLES_HAVE_DEFAULT_GETTIMEOFDAY 1
#define CPUCYCLES_DEFAULT_GETTIMEOFDAY_LIBRARY_READ 1 /* needs the origin */

enum { cpucycles_default_gettimeofday_kind = CPUCYCLES_KIND_OSCLOCK };

#if defined(CPUCYCLES_COUNTER_SETUP)
#include "seccomp.h"
#include <stddef.h>
#include <sys/time.h>

#define CPUCYCLES_GETTIMEOFDAY_MARGIN_US 86400000000LL /* one day */

/* One copy per program that sets counters up: the library, or a probe. */
static long long cpucycles_default_gettimeofday_origin_us;

static inline long long cpucycles_default_gettimeofday_now_us(void)
{
  struct timeval t;
  if (gettimeofday(&t, NULL) != 0) return 0;
  return (long long)t.tv_sec * 1000000LL + t.tv_usec;
}

/* The origin is written once, by the first setup, which the library's
 * first call makes before anything reads.  Atomics only where 64-bit ones
 * need no library (32-bit PowerPC would need libatomic). */
#if defined(__GCC_ATOMIC_LLONG_LOCK_FREE) && __GCC_ATOMIC_LLONG_LOCK_FREE == 2
#define CPUCYCLES_GETTIMEOFDAY_ORIGIN() \
  __atomic_load_n(&cpucycles_default_gettimeofday_origin_us, __ATOMIC_RELAXED)
#define CPUCYCLES_GETTIMEOFDAY_SET_ORIGIN(none, value)                                         \
  ((void)__atomic_compare_exchange_n(&cpucycles_default_gettimeofday_origin_us, &(none), (value), \
                                     0, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
#else
#define CPUCYCLES_GETTIMEOFDAY_ORIGIN() cpucycles_default_gettimeofday_origin_us
#define CPUCYCLES_GETTIMEOFDAY_SET_ORIGIN(none, value)                     \
  do {                                                                     \
    (void)(none);                                                          \
    if (!cpucycles_default_gettimeofday_origin_us)                         \
      cpucycles_default_gettimeofday_origin_us = (value);                  \
  } while (0)
#endif

static inline long long cpucycles_default_gettimeofday_read(void)
{
  return cpucycles_default_gettimeofday_now_us() - CPUCYCLES_GETTIMEOFDAY_ORIGIN();
}

static inline int cpucycles_default_gettimeofday_setup(struct cpucycles_setup *s)
{
  long long none = 0, now;
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
  /* the first setup sets it, for good: every thread counts from it */
  CPUCYCLES_GETTIMEOFDAY_SET_ORIGIN(none, now - CPUCYCLES_GETTIMEOFDAY_MARGIN_US);
  return 0;
}
#endif
#endif
