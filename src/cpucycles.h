/* cpucycles.h - count CPU cycles.
 *
 *   #include <cpucycles.h>
 *   long long t0 = cpucycles();
 *   work();
 *   long long cycles = cpucycles() - t0;
 *
 * Link with -lcpucycles (pkg-config cpucycles).  The API is libcpucycles':
 * cpucycles(), cpucycles_persecond(), cpucycles_implementation(),
 * cpucycles_version().
 *
 * cpucycles() is inline: once the library has verified, on the first call,
 * that the counter configure chose works on this host, each call is that
 * counter's instruction(s) behind one load and one predictable branch.
 * Until then, and for good if the check fails, it calls into the library,
 * which uses the best counter that works here.  It never fails: at worst
 * it counts with gettimeofday(), or returns 0 where there is no clock. */
#ifndef CPUCYCLES_H
#define CPUCYCLES_H

#include "cpucycles-config.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Nonzero once the inline path is verified (set by the library, once). */
extern int cpucycles_fixed_verified;

/* The library's path: the first call (verification) and the fallback. */
long long cpucycles_slow(void);

/* The same count as cpucycles(), as a real function for callers that
 * cannot inline (FFI, dlopen). */
long long cpucycles_function(void);

/* Estimated cycles per second (see cpucycles-info for its source). */
long long cpucycles_persecond(void);
/* The name of the counter in use, e.g. "amd64-tsc". */
const char *cpucycles_implementation(void);
/* The library's version, e.g. "0.1.0". */
const char *cpucycles_version(void);

#if defined(__GNUC__)
#define CPUCYCLES_LIKELY(x) __builtin_expect(!!(x), 1)
#define CPUCYCLES_LOAD_VERIFIED() __atomic_load_n(&cpucycles_fixed_verified, __ATOMIC_ACQUIRE)
#else
#define CPUCYCLES_LIKELY(x) (x)
#define CPUCYCLES_LOAD_VERIFIED() (*(volatile int *)&cpucycles_fixed_verified)
#endif

static inline long long cpucycles(void)
{
#if defined(CPUCYCLES_FIXED_READ)
  if (CPUCYCLES_LIKELY(CPUCYCLES_LOAD_VERIFIED())) {
#if CPUCYCLES_FIXED_SCALED
    return cpucycles_scale_ticks(CPUCYCLES_FIXED_READ(), CPUCYCLES_SCALE_Q32(CPUCYCLES_FIXED_SCALE));
#else
    return CPUCYCLES_FIXED_READ();
#endif
  }
#endif
  return cpucycles_slow();
}

#ifdef __cplusplus
}
#endif

#endif
