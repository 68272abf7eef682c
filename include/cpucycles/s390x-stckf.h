/* SPDX-License-Identifier: MIT */
/* s390x-stckf: the z/Architecture TOD clock, stored with STCKF.
 *
 * Bit 51 of the TOD clock steps once a microsecond, so the whole 64-bit
 * value counts 4096 per microsecond: a nominal 4.096 GHz off-core clock
 * (the low bits may move in larger steps; on z15 it looks like a 2.048 GHz
 * clock doubled).  STCKF ("fast") skips STCK's guarantee that every value
 * is unique, which makes it cheaper; it needs the store-clock-fast facility
 * (z9 and later).  It writes memory and sets the condition code. */
#ifndef CPUCYCLES_S390X_STCKF_H
#define CPUCYCLES_S390X_STCKF_H
#include "counter.h"
#if defined(__s390x__)
#define CPUCYCLES_HAVE_S390X_STCKF 1
#define CPUCYCLES_S390X_STCKF_INSTRUCTION "stckf" /* a word of its read's disassembly */

enum { cpucycles_s390x_stckf_kind = CPUCYCLES_KIND_SCALED };

/* The TOD clock counts from 1900: since 2010 its top bit is set, which as
 * a long long is negative.  The read subtracts its value at 2000-01-01
 * (36524 days of 86400 s, times 4096e6 ticks/s), so counts stay positive
 * until 2071. */
#define CPUCYCLES_S390X_TOD_2000 12925639065600000000ULL

CPUCYCLES_ALWAYS_INLINE long long cpucycles_s390x_stckf_read(void)
{
  unsigned long long t;
  __asm__ __volatile__("stckf %0" : "=Q"(t) : : "cc");
  return CPUCYCLES_CAST(long long, (t - CPUCYCLES_S390X_TOD_2000));
}

#if defined(CPUCYCLES_COUNTER_SETUP)
static inline int cpucycles_s390x_stckf_setup(struct cpucycles_setup *s)
{
  s->nominal_hz = 4096000000.0;
  return 0;
}
#endif
#endif
#endif
