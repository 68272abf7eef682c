/* SPDX-License-Identifier: MIT */
/* extend32.h - 64-bit counts from a 32-bit counter (arm32-cortex,
 * mips64-cc), with gettimeofday() counting the wraps.
 *
 * A 32-bit cycle counter wraps every 2^32 ticks: about 2 s at 2 GHz.  The
 * raw difference between two reads is exact modulo 2^32; what it cannot say
 * is how many whole wraps went by.  So each read is paired with
 * gettimeofday(): the microseconds since this thread's previous read, times
 * the expected ticks per microsecond, estimate the elapsed ticks, and the
 * number of wraps is the whole multiple of 2^32 closest to that estimate
 * minus the raw difference.  The result is exact while the estimate is off
 * by less than 2^31 ticks: with ticks per microsecond off by 10% at 2 GHz,
 * a thread may leave 10 s between two reads.
 *
 * Never backwards: each read adds the raw difference (0 to 2^32 - 1) plus a
 * nonnegative number of wraps, even if gettimeofday() is stepped back.
 * State is per thread, so reads take no lock; every thread starts from the
 * anchor taken by setup, so threads agree on the count.
 *
 * Only the library and the probes use this (it needs setup), so a 32-bit
 * counter is read through the library, never inlined in <cpucycles.h>;
 * the gettimeofday() it needs costs more than the call anyway. */
#ifndef CPUCYCLES_EXTEND32_H
#define CPUCYCLES_EXTEND32_H
#include "cpucycles/counter.h"
#if defined(CPUCYCLES_COUNTER_SETUP)
#include <stddef.h>
#include <sys/time.h>

#define CPUCYCLES_EXTEND32_WRAP 4294967296.0

struct cpucycles_extend32 {
  long long full;   /* the 64-bit count at the last read */
  long long us;     /* gettimeofday() at the last read, in microseconds */
  unsigned int raw; /* the counter's 32 bits at the last read */
  int started;      /* 0 until the thread's first read */
};

struct cpucycles_extend32_anchor {
  struct cpucycles_extend32 start; /* taken by setup; each thread's start */
  double ticks_per_us;             /* the counter's expected rate */
};

static inline long long cpucycles_extend32_now_us(void)
{
  struct timeval tv;
  gettimeofday(&tv, NULL);
  return CPUCYCLES_CAST(long long, tv.tv_sec) * 1000000 + tv.tv_usec;
}

/* One read: raw 32 bits taken at time us. */
static inline long long cpucycles_extend32_step(struct cpucycles_extend32 *e, unsigned int raw,
                                                long long us, double ticks_per_us)
{
  unsigned int delta = raw - e->raw; /* exact modulo 2^32 */
  double missing = (double)(us - e->us) * ticks_per_us - (double)delta;
  long long wraps = missing > 0 ? CPUCYCLES_CAST(long long, (missing / CPUCYCLES_EXTEND32_WRAP + 0.5)) : 0;
  e->full += CPUCYCLES_CAST(long long, delta) + wraps * CPUCYCLES_CAST(long long, CPUCYCLES_EXTEND32_WRAP);
  e->raw = raw;
  e->us = us;
  return e->full;
}

/* For setup: starts every thread's count at the counter's raw value now. */
CPUCYCLES_COLD static inline void cpucycles_extend32_start(struct cpucycles_extend32_anchor *a,
                                                           unsigned int raw, double ticks_per_us)
{
  a->start.full = raw;
  a->start.us = cpucycles_extend32_now_us();
  a->start.raw = raw;
  a->start.started = 1;
  a->ticks_per_us = ticks_per_us;
}

/* The read: this thread's state t, which starts from the anchor. */
CPUCYCLES_ALWAYS_INLINE long long cpucycles_extend32_read(const struct cpucycles_extend32_anchor *a,
                                                struct cpucycles_extend32 *t, unsigned int raw)
{
  if (!t->started) *t = a->start;
  return cpucycles_extend32_step(t, raw, cpucycles_extend32_now_us(), a->ticks_per_us);
}

#endif /* CPUCYCLES_COUNTER_SETUP */
#endif
