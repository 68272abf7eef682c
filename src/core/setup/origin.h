/* SPDX-License-Identifier: MIT */
/* origin.h - setup-time helper: an OS clock counted from an origin.
 *
 * The OS clocks give times since an epoch: 1970 (gettimeofday), boot
 * (CLOCK_MONOTONIC), or whatever a time namespace says (unshare --time
 * --monotonic 3600000000 puts CLOCK_MONOTONIC a century ahead).  Scaled
 * to cycles, such a time overflows 64 bits (a century of nanoseconds
 * times 2.6 is -9.1e18 once wrapped).  So these counters count from an
 * origin that their first setup takes, one day before that moment, the
 * same for every thread: the count stays positive for 2^63/persecond
 * seconds (58 years at 5 GHz), and the day keeps it positive if the clock
 * is set back.  The origin is the library's (or a probe's): such a
 * counter is read through the library (..._LIBRARY_READ). */
#ifndef CPUCYCLES_ORIGIN_H
#define CPUCYCLES_ORIGIN_H
#if defined(CPUCYCLES_COUNTER_SETUP)
#include "cpucycles/counter.h"

/* The origin is written once, by the first setup, and read by every
 * read: atomically where a 64-bit atomic is lock-free (32-bit targets
 * without one only set it before any thread reads). */
#if defined(__GCC_ATOMIC_LLONG_LOCK_FREE) && __GCC_ATOMIC_LLONG_LOCK_FREE == 2
#define CPUCYCLES_ORIGIN(origin) __atomic_load_n(&(origin), __ATOMIC_RELAXED)
CPUCYCLES_COLD static inline void cpucycles_origin_set(long long *origin, long long value)
{
  long long none = 0;
  (void)__atomic_compare_exchange_n(origin, &none, value, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}
#else
#define CPUCYCLES_ORIGIN(origin) (origin)
CPUCYCLES_COLD static inline void cpucycles_origin_set(long long *origin, long long value)
{
  if (!*origin) *origin = value;
}
#endif

/* Sets the origin to one day before now (the clock in units_per_second),
 * unless a setup did already. */
CPUCYCLES_COLD static inline void cpucycles_origin_start(long long *origin, long long now,
                                                         long long units_per_second)
{
  cpucycles_origin_set(origin, now - 86400 * units_per_second);
}
#endif
#endif
