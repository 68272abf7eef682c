/* SPDX-License-Identifier: MIT */
/* default-mach: macOS's mach_absolute_time(), in "mach time units", which
 * mach_timebase_info() converts to nanoseconds (ns = ticks * numer / denom).
 *
 * The kind is OS clock, like default-monotonic, not scaled: it is a library
 * call whose unit the OS defines (1 ns on Intel Macs, where it is the TSC
 * converted; 1/24 MHz on Apple silicon, where it is CNTVCT_EL0 read from the
 * commpage), and a fixed-resolution OS clock is kept whatever the CPU
 * frequency, whereas a scaled counter is dropped when the frequency is not
 * near a multiple of its rate.  Where the raw counter is directly readable,
 * amd64-tsc or arm64-vct beats it anyway.  It does not count while the
 * machine sleeps. */
#ifndef CPUCYCLES_DEFAULT_MACH_H
#define CPUCYCLES_DEFAULT_MACH_H
#include "counter.h"
#if defined(__APPLE__)
#include <mach/mach_time.h>
#define CPUCYCLES_HAVE_DEFAULT_MACH 1

enum { cpucycles_default_mach_kind = CPUCYCLES_KIND_OSCLOCK };

CPUCYCLES_ALWAYS_INLINE long long cpucycles_default_mach_read(void)
{
  return CPUCYCLES_CAST(long long, mach_absolute_time());
}

#if defined(CPUCYCLES_COUNTER_SETUP)
static inline int cpucycles_default_mach_setup(struct cpucycles_setup *s)
{
  mach_timebase_info_data_t tb;
  if (mach_timebase_info(&tb) != 0 || tb.numer == 0 || tb.denom == 0) {
    s->reason = "mach_timebase_info failed";
    return -1;
  }
  /* ticks per second = 1e9 ns / (numer / denom ns per tick) */
  s->nominal_hz = 1e9 * (double)tb.denom / (double)tb.numer;
  return 0;
}
#endif
#endif
#endif
