/* SPDX-License-Identifier: MIT */
/* ppc32-mftb: the 64-bit time base of 32-bit PowerPC, read as two halves
 * with MFTBU and MFTB, scaled by the time base frequency.
 *
 * The upper half is read before and after the lower one, and the read is
 * retried when it changed, so that a carry between the two reads cannot
 * produce a value off by 2^32.  The clock itself is as in ppc64-mftb: off
 * core, constant rate, "timebase : N" in Linux's /proc/cpuinfo, else timed
 * against CLOCK_MONOTONIC. */
#ifndef CPUCYCLES_PPC32_MFTB_H
#define CPUCYCLES_PPC32_MFTB_H
#include "counter.h"
#if defined(__powerpc__) && !defined(__powerpc64__)
#define CPUCYCLES_HAVE_PPC32_MFTB 1
#define CPUCYCLES_PPC32_MFTB_INSTRUCTION "mftb" /* a word of its read's disassembly */

enum { cpucycles_ppc32_mftb_kind = CPUCYCLES_KIND_SCALED };

CPUCYCLES_ALWAYS_INLINE long long cpucycles_ppc32_mftb_read(void)
{
  unsigned int hi, lo, hi2;
  do {
    __asm__ __volatile__("mftbu %0\n\tmftb %1\n\tmftbu %2" : "=r"(hi), "=r"(lo), "=r"(hi2));
  } while (hi != hi2);
  return CPUCYCLES_CAST(long long, ((CPUCYCLES_CAST(unsigned long long, hi) << 32) | lo));
}

#if defined(CPUCYCLES_COUNTER_SETUP)
#include "tickrate.h"
static inline int cpucycles_ppc32_mftb_setup(struct cpucycles_setup *s)
{
  return cpucycles_tickrate_setup(s, cpucycles_tickrate_cpuinfo("timebase"),
                                  cpucycles_ppc32_mftb_read);
}
#endif
#endif
#endif
