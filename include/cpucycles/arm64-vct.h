/* SPDX-License-Identifier: MIT */
/* arm64-vct: the generic timer's virtual count CNTVCT_EL0, scaled by its
 * frequency CNTFRQ_EL0.
 *
 * An off-core clock: 24 MHz on Apple and many SoCs, 62.5 MHz under older
 * qemu, and 1 GHz on every CPU implementing Armv8.6 or later.  Linux lets
 * EL0 read both registers (CNTKCTL_EL1.EL0VCTEN), as its vDSO does.
 * A counter read is not ordered against earlier instructions: the CPU may
 * issue the MRS before them (even speculatively), so code being timed could
 * leak past the read.  The ISB in front makes it wait for everything before
 * it, the same as the kernel's own clock reads.  Kernels working around
 * counter errata (e.g. Cortex-A73 #858921) trap and emulate the MRS, which
 * still works but costs a trap per read. */
#ifndef CPUCYCLES_ARM64_VCT_H
#define CPUCYCLES_ARM64_VCT_H
#include "counter.h"
#if defined(__aarch64__)
#define CPUCYCLES_HAVE_ARM64_VCT 1
#define CPUCYCLES_ARM64_VCT_INSTRUCTION "cntvct_el0" /* a word of its read's disassembly */

enum { cpucycles_arm64_vct_kind = CPUCYCLES_KIND_SCALED };

CPUCYCLES_ALWAYS_INLINE long long cpucycles_arm64_vct_read(void)
{
  unsigned long long t;
  __asm__ __volatile__("isb\n\tmrs %0, CNTVCT_EL0" : "=r"(t) : : "memory");
  return CPUCYCLES_CAST(long long, t);
}

#if defined(CPUCYCLES_COUNTER_SETUP)
static inline int cpucycles_arm64_vct_setup(struct cpucycles_setup *s)
{
  unsigned long long hz;
  __asm__ __volatile__("mrs %0, CNTFRQ_EL0" : "=r"(hz));
  hz &= 0xffffffffULL; /* the upper half is reserved */
  if (!hz) {
    s->reason = "CNTFRQ_EL0 is 0: firmware did not set the timer frequency";
    return -1;
  }
  s->nominal_hz = (double)hz;
  return 0;
}
#endif
#endif
#endif
