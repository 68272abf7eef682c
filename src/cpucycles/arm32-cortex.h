/* arm32-cortex: the ARMv7-A PMU cycle counter PMCCNTR, read with
 * mrc p15, 0, r, c9, c13, 0.
 *
 * A true core-cycle counter, but only 32 bits (about 2 s at 2 GHz): the read
 * returns the raw value in [0, 2^32) and CPUCYCLES_ARM32_CORTEX_BITS tells
 * the library to extend it.  User mode may read it only when PMUSERENR.EN
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

enum { cpucycles_arm32_cortex_kind = CPUCYCLES_KIND_ONCORE };

static inline long long cpucycles_arm32_cortex_read(void)
{
  unsigned int t;
  __asm__ __volatile__("mrc p15, 0, %0, c9, c13, 0" : "=r"(t));
  return (long long)t;
}

#if defined(CPUCYCLES_COUNTER_SETUP)
static inline int cpucycles_arm32_cortex_setup(struct cpucycles_setup *s)
{
  /* PMUSERENR is readable in user mode: bit 0 EN, bit 2 CR */
  unsigned int userenr;
  __asm__ __volatile__("mrc p15, 0, %0, c9, c14, 0" : "=r"(userenr));
  if (!(userenr & 5)) {
    s->reason = "kernel does not allow user reads of PMCCNTR (PMUSERENR.EN clear; needs a kernel module)";
    return -1;
  }
  return 0;
}
#endif
#endif
#endif
