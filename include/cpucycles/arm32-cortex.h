/* SPDX-License-Identifier: MIT */
/* arm32-cortex: the ARMv7-A PMU cycle counter PMCCNTR, read with
 * mrc p15, 0, r, c9, c13, 0.
 *
 * A true core-cycle counter, but only 32 bits (about 2 s at 2 GHz): read32
 * returns the raw value, and the read the library uses extends it to 64
 * bits with extend32.h (CPUCYCLES_ARM32_CORTEX_LIBRARY_READ says so).  User mode may read it only when PMUSERENR.EN
 * (or, on Armv8 in AArch32, .CR) is set, which Linux never does itself: it
 * takes a kernel module such as enable_arm_pmu.  Otherwise the MRC is
 * undefined in user mode and raises SIGILL (as under qemu-arm).  The
 * counter also stands still unless PMCR.E and PMCNTENSET.C are set, and
 * counts every 64 cycles if PMCR.D is: the precision check sees both. */
#ifndef CPUCYCLES_ARM32_CORTEX_H
#define CPUCYCLES_ARM32_CORTEX_H
#include "counter.h"
#if defined(__arm__) && defined(__ARM_ARCH) && __ARM_ARCH >= 7 && \
    defined(__ARM_ARCH_PROFILE) && __ARM_ARCH_PROFILE == 'A'
#define CPUCYCLES_HAVE_ARM32_CORTEX 1
#define CPUCYCLES_ARM32_CORTEX_BITS 32
#define CPUCYCLES_ARM32_CORTEX_LIBRARY_READ 1 /* extended by the library */

enum { cpucycles_arm32_cortex_kind = CPUCYCLES_KIND_ONCORE };

CPUCYCLES_ALWAYS_INLINE unsigned int cpucycles_arm32_cortex_read32(void)
{
  unsigned int t;
  __asm__ __volatile__("mrc p15, 0, %0, c9, c13, 0" : "=r"(t));
  return t;
}

#if defined(CPUCYCLES_COUNTER_SETUP)
#include "extend32.h"
CPUCYCLES_STATE_STORAGE struct cpucycles_extend32_anchor cpucycles_arm32_cortex_anchor;
CPUCYCLES_STATE_STORAGE __thread struct cpucycles_extend32 cpucycles_arm32_cortex_thread;

CPUCYCLES_ALWAYS_INLINE long long cpucycles_arm32_cortex_read(void)
{
  return cpucycles_extend32_read(&cpucycles_arm32_cortex_anchor, &cpucycles_arm32_cortex_thread,
                                 cpucycles_arm32_cortex_read32());
}

static inline int cpucycles_arm32_cortex_setup(struct cpucycles_setup *s)
{
  /* PMUSERENR is readable in user mode: bit 0 EN, bit 2 CR */
  unsigned int userenr;
  __asm__ __volatile__("mrc p15, 0, %0, c9, c14, 0" : "=r"(userenr));
  if (!(userenr & 5)) {
    s->reason = "kernel does not allow user reads of PMCCNTR (PMUSERENR.EN clear; needs a kernel module)";
    return -1;
  }
  /* the counter ticks once a cycle */
  cpucycles_extend32_start(&cpucycles_arm32_cortex_anchor, cpucycles_arm32_cortex_read32(),
                           (double)s->persecond / 1e6);
  return 0;
}
#endif
#endif
#endif
