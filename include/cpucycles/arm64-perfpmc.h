/* SPDX-License-Identifier: MIT */
/* arm64-perfpmc: the cycles event that perf_event_open() set up, read from
 * the PMU through the event's mmap()ed control page (linux-perf.h's lock/seq
 * loop, as amd64-perfpmc).
 *
 * Linux (5.17 and later) grants EL0 reads of the PMU only when
 * /proc/sys/kernel/perf_user_access is 1 (default 0) and only for a
 * thread-bound event opened with attr.config1 bit 1 ("rdpmc"); bit 0 asks
 * for a 64-bit counter.  The page's index is 32
 * for the cycle counter PMCCNTR_EL0 (where the kernel puts a cycles event
 * whenever it is free) and n + 1 for event counter n, read through
 * PMSELR_EL0/PMXEVCNTR_EL0; the kernel zeroes PMSELR_EL0 whenever it bumps
 * the lock, so the loop also retries a read whose selection was lost.
 * On big.LITTLE machines the kernel refuses user access to generic events,
 * so the setup fails there.  Each thread has its own event, opened on its
 * first read (another thread's event does not count this one). */
#ifndef CPUCYCLES_ARM64_PERFPMC_H
#define CPUCYCLES_ARM64_PERFPMC_H
#include "arm64-pmc.h" /* the read of index 32 */
#if defined(__aarch64__) && defined(CPUCYCLES_HAVE_LINUX_PERF)
#define CPUCYCLES_HAVE_ARM64_PERFPMC 1
#define CPUCYCLES_ARM64_PERFPMC_LIBRARY_READ 1 /* per-thread events */
#define CPUCYCLES_ARM64_PERFPMC_HAS_STATE 1 /* cpucycles_arm64_perfpmc_release */

enum { cpucycles_arm64_perfpmc_kind = CPUCYCLES_KIND_ONCORE };

/* The counter the control page names: 32 is the cycle counter PMCCNTR_EL0;
 * n + 1 is event counter n, selected through PMSELR_EL0 (the ISB makes the
 * selection take effect before the read: it orders the read's own steps,
 * not the measured code, so no "memory" clobber, as counter.h's rule says). */
static inline unsigned long long cpucycles_arm64_perfpmc_pmc(unsigned int index)
{
  unsigned long long pmc;
  if (index == 32) return CPUCYCLES_CAST(unsigned long long, cpucycles_arm64_pmc_read());
  __asm__ __volatile__("msr PMSELR_EL0, %1\n\tisb\n\tmrs %0, PMXEVCNTR_EL0"
                       : "=r"(pmc)
                       : "r"(CPUCYCLES_CAST(unsigned long long, (index - 1))));
  return pmc;
}

#if defined(CPUCYCLES_COUNTER_SETUP)
#include "linux-perf.h"
#include "readfile.h"

/* One copy per program that sets counters up: the library, or a probe.
 * config1: bit 1 asks for user access, bit 0 for a 64-bit counter; the
 * second try takes 32 bits, for when the cycle counter is taken and the
 * event counters are not 64 bits wide. */
static __thread struct cpucycles_perf_event cpucycles_arm64_perfpmc_thread CPUCYCLES_TLS_MODEL;
static struct cpucycles_perf_state cpucycles_arm64_perfpmc_state;
static const struct cpucycles_perf_config cpucycles_arm64_perfpmc_config = {
    .config1 = {3, 2}, .ntries = 2, .need_rdpmc = 1,
    .state = &cpucycles_arm64_perfpmc_state};

CPUCYCLES_ALWAYS_INLINE long long cpucycles_arm64_perfpmc_read(void)
{
  struct cpucycles_perf_event *e = cpucycles_perf_thread_event(&cpucycles_arm64_perfpmc_thread,
                                                               &cpucycles_arm64_perfpmc_config);
  if (!e) return cpucycles_perf_fallback(&cpucycles_arm64_perfpmc_config);
  return cpucycles_perf_page_count(e->page, cpucycles_arm64_perfpmc_pmc);
}

/* 1 when /proc/sys/kernel/perf_user_access says 0, else 0.  Read with
 * open/read (readfile.h): the library's first call runs this. */
static inline int cpucycles_arm64_perfpmc_sysctl_off(void)
{
  char buf[16];
  const char *why;
  return cpucycles_readfile("/proc/sys/kernel/perf_user_access", buf, sizeof buf, &why) > 0 &&
         buf[0] == '0';
}

static inline int cpucycles_arm64_perfpmc_setup(struct cpucycles_setup *s)
{
  if (cpucycles_perf_setup_per_thread(&cpucycles_arm64_perfpmc_thread,
                                      &cpucycles_arm64_perfpmc_config, s) == 0)
    return 0;
  if (s->reason && strstr(s->reason, "cap_user_rdpmc") && cpucycles_arm64_perfpmc_sysctl_off())
    s->reason = "user access to the PMU is off: needs 1 in /proc/sys/kernel/perf_user_access";
  return -1;
}

static inline void cpucycles_arm64_perfpmc_release(int zero_page)
{
  cpucycles_perf_release(&cpucycles_arm64_perfpmc_config, zero_page);
}
#endif
#endif
#endif
