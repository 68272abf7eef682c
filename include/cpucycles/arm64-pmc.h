/* SPDX-License-Identifier: MIT */
/* arm64-pmc: the PMU cycle counter PMCCNTR_EL0, read with MRS.
 *
 * A true core-cycle counter, but EL0 may read it only when the kernel sets
 * PMUSERENR_EL0.EN or .CR.  Stock Linux does so only while a perf event
 * with user access is open in the thread (arm64-perfpmc, the supported
 * route); a kernel module such as enable_arm_pmu does so for good.
 * Otherwise the MRS is undefined at EL0: SIGILL (also on Apple CPUs, whose
 * PMU is not the architected one).  The read is not ordered against the
 * instructions around it (no ISB, which would cost more than it saves). */
#ifndef CPUCYCLES_ARM64_PMC_H
#define CPUCYCLES_ARM64_PMC_H
#include "counter.h"
#if defined(__aarch64__)
#define CPUCYCLES_HAVE_ARM64_PMC 1
#define CPUCYCLES_ARM64_PMC_INSTRUCTION "pmccntr_el0" /* a word of its read's disassembly */

enum { cpucycles_arm64_pmc_kind = CPUCYCLES_KIND_ONCORE };

CPUCYCLES_ALWAYS_INLINE long long cpucycles_arm64_pmc_read(void)
{
  unsigned long long t;
  __asm__ __volatile__("mrs %0, PMCCNTR_EL0" : "=r"(t));
  return CPUCYCLES_CAST(long long, t);
}

#if defined(CPUCYCLES_COUNTER_SETUP)
static inline int cpucycles_arm64_pmc_setup(struct cpucycles_setup *s)
{
  /* PMUSERENR_EL0 is readable at EL0 wherever the PMU exists (elsewhere the
   * MRS faults, which the guard reports): bit 0 EN, bit 2 CR */
  unsigned long long userenr;
  __asm__ __volatile__("mrs %0, PMUSERENR_EL0" : "=r"(userenr));
  if (!(userenr & 5)) {
    s->reason = "kernel does not allow user reads of PMCCNTR_EL0 (PMUSERENR_EL0.EN/CR clear)";
    return -1;
  }
  return 0;
}
#endif
#endif
#endif
