/* SPDX-License-Identifier: MIT */
/* arm64-pmc: the PMU cycle counter PMCCNTR_EL0, read with MRS.
 *
 * A true core-cycle counter, but EL0 may read it only when the kernel sets
 * PMUSERENR_EL0.EN or .CR.  Stock Linux sets CR only while a perf event
 * with user access is open in the thread (arm64-perfpmc, the supported
 * route); a kernel module such as enable_arm_pmu sets EN for good, and
 * only then does this counter stand alone (see its setup).
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
  /* Linux's perf_user_access grants CR and ER, never EN, to a thread while
   * a perf event of its own with user access is open (arm64-perfpmc reads
   * PMCCNTR_EL0 under that event), and leaves them set after the event is
   * closed, until the next event starts: the cycle counter is then zeroed
   * or stopped, and reads return one value, or jump when the kernel writes
   * it (a "precision" of 2 million under qemu).  Without EN, EL0 cannot
   * read whether the counter runs: only EN (a kernel module's grant for
   * good) lets this counter stand alone, and with EN the enables are
   * readable: PMCR_EL0.E and PMCNTENSET_EL0.C. */
  if (!(userenr & 1)) {
    s->reason = "PMCCNTR_EL0 is readable only under a perf event's grant (PMUSERENR_EL0.CR "
                "without EN): arm64-perfpmc's, not this counter's";
    return -1;
  }
  {
    unsigned long long pmcr, enabled;
    __asm__ __volatile__("mrs %0, PMCR_EL0" : "=r"(pmcr));
    __asm__ __volatile__("mrs %0, PMCNTENSET_EL0" : "=r"(enabled));
    if (!(pmcr & 1) || !(enabled >> 31 & 1)) {
      s->reason = "PMCCNTR_EL0 is readable but stopped (PMCR_EL0.E or PMCNTENSET_EL0.C clear)";
      return -1;
    }
  }
  return 0;
}
#endif
#endif
#endif
