/* SPDX-License-Identifier: MIT */
/* ppc64-mftb: the 64-bit time base of 64-bit PowerPC, read with MFTB,
 * scaled by the time base frequency.
 *
 * An off-core, constant-rate clock (512 MHz on POWER8 to POWER10, tens of
 * MHz on embedded cores; the host TSC under qemu-user), readable by every
 * process.  Linux prints its rate as "timebase : N" in /proc/cpuinfo; where
 * that line is missing (other OSes, qemu-user, which shows the host's
 * cpuinfo) setup times the counter against CLOCK_MONOTONIC instead. */
#ifndef CPUCYCLES_PPC64_MFTB_H
#define CPUCYCLES_PPC64_MFTB_H
#include "counter.h"
#if defined(__powerpc64__)
#define CPUCYCLES_HAVE_PPC64_MFTB 1
#define CPUCYCLES_PPC64_MFTB_INSTRUCTION "mftb" /* a word of its read's disassembly */

enum { cpucycles_ppc64_mftb_kind = CPUCYCLES_KIND_SCALED };

CPUCYCLES_ALWAYS_INLINE long long cpucycles_ppc64_mftb_read(void)
{
  unsigned long long t;
  __asm__ __volatile__("mftb %0" : "=r"(t));
  return CPUCYCLES_CAST(long long, t);
}

#if defined(CPUCYCLES_COUNTER_SETUP)
#include "tickrate.h"
static inline int cpucycles_ppc64_mftb_setup(struct cpucycles_setup *s)
{
  return cpucycles_tickrate_setup(s, cpucycles_tickrate_cpuinfo("timebase"),
                                  cpucycles_ppc64_mftb_read);
}
#endif
#endif
#endif
