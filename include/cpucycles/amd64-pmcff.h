/* SPDX-License-Identifier: MIT */
/* amd64-pmcff: the core-cycle counter, read with RDPMC 0x40000001.
 *
 * libcpucycles 20260901's name for it; 20260105 (and this library before)
 * called it amd64-pmc, which --with-counter still takes.
 *
 * ECX bit 30 selects Intel's fixed-function counters; fixed counter 1
 * counts unhalted core cycles, at the core clock, so this is a true cycle
 * counter.  The LFENCE keeps RDPMC from being executed ahead of the code
 * being measured.  RDPMC faults (SIGSEGV) unless the kernel sets CR4.PCE for
 * us: setup opens and maps a perf cycles event, which is what makes Linux
 * allow it with the default rdpmc=1.  AMD CPUs have no fixed counters and
 * fault on this index; VMs without a virtual PMU fault too. */
#ifndef CPUCYCLES_AMD64_PMCFF_H
#define CPUCYCLES_AMD64_PMCFF_H
#include "counter.h"
#if defined(__x86_64__) && defined(CPUCYCLES_HAVE_LINUX_PERF)
#define CPUCYCLES_HAVE_AMD64_PMCFF 1
#define CPUCYCLES_AMD64_PMCFF_INSTRUCTION "rdpmc" /* a word of its read's disassembly */
#define CPUCYCLES_AMD64_PMCFF_HAS_STATE 1 /* cpucycles_amd64_pmcff_release */

enum { cpucycles_amd64_pmcff_kind = CPUCYCLES_KIND_ONCORE };

CPUCYCLES_ALWAYS_INLINE long long cpucycles_amd64_pmcff_read(void)
{
  unsigned int lo, hi;
  __asm__ __volatile__("lfence\n\trdpmc" : "=a"(lo), "=d"(hi) : "c"((1u << 30) + 1) : "memory");
  return CPUCYCLES_CAST(long long, ((CPUCYCLES_CAST(unsigned long long, hi) << 32) | lo));
}

#if defined(CPUCYCLES_COUNTER_SETUP)
#include "linux-perf.h"
/* The process's event, mapped, whose only job is to make the kernel allow
 * RDPMC in this process (one copy per program: the library, or a probe). */
static struct cpucycles_perf_event cpucycles_amd64_pmcff_event;
static struct cpucycles_perf_state cpucycles_amd64_pmcff_state;
static const struct cpucycles_perf_config cpucycles_amd64_pmcff_config = {
    .config1 = {0}, .ntries = 1, .state = &cpucycles_amd64_pmcff_state};

CPUCYCLES_COLD static inline int cpucycles_amd64_pmcff_setup(struct cpucycles_setup *s)
{
  /* Without an event the read can still work when rdpmc=2, so a failed open
   * is not final: the guarded read decides. */
  const char *reason;
  (void)s;
  if (!cpucycles_amd64_pmcff_event.open)
    cpucycles_perf_open(&cpucycles_amd64_pmcff_event, &cpucycles_amd64_pmcff_config, &reason);
  return 0;
}

static inline void cpucycles_amd64_pmcff_release(int zero_page)
{
  cpucycles_perf_release(&cpucycles_amd64_pmcff_config, zero_page);
}
#endif
#endif
#endif
