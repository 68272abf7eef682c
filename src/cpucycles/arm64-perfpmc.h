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
 * so the setup fails there. */
#ifndef CPUCYCLES_ARM64_PERFPMC_H
#define CPUCYCLES_ARM64_PERFPMC_H
#include "linux-perf.h"
#if defined(__aarch64__) && defined(CPUCYCLES_HAVE_LINUX_PERF)
#define CPUCYCLES_HAVE_ARM64_PERFPMC 1

enum { cpucycles_arm64_perfpmc_kind = CPUCYCLES_KIND_ONCORE };

CPUCYCLES_STATE_STORAGE struct cpucycles_perf_state cpucycles_arm64_perfpmc_state;

/* The counter the control page names: 32 is the cycle counter PMCCNTR_EL0;
 * n + 1 is event counter n, selected through PMSELR_EL0 (the ISB makes the
 * selection take effect before the read). */
static inline unsigned long long cpucycles_arm64_perfpmc_pmc(unsigned int index)
{
  unsigned long long pmc;
  if (index == 32)
    __asm__ __volatile__("mrs %0, PMCCNTR_EL0" : "=r"(pmc));
  else
    __asm__ __volatile__("msr PMSELR_EL0, %1\n\tisb\n\tmrs %0, PMXEVCNTR_EL0"
                         : "=r"(pmc)
                         : "r"((unsigned long long)(index - 1)));
  return pmc;
}

static inline long long cpucycles_arm64_perfpmc_read(void)
{
  return cpucycles_perf_page_count(cpucycles_arm64_perfpmc_state.page,
                                   cpucycles_arm64_perfpmc_pmc);
}

#if defined(CPUCYCLES_COUNTER_SETUP)
#include "readfile.h"

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
  struct cpucycles_perf_state *p = &cpucycles_arm64_perfpmc_state;
  volatile struct perf_event_mmap_page *pc;
  /* config1: bit 1 asks for user access, bit 0 for a 64-bit counter; the
   * second try takes 32 bits, for when the cycle counter is taken and the
   * event counters are not 64 bits wide */
  if (cpucycles_perf_open(p, 3, 1, s) != 0 && cpucycles_perf_open(p, 2, 1, s) != 0) return -1;
  pc = p->page;
  if (!pc->cap_user_rdpmc || !pc->index) {
    s->reason = cpucycles_arm64_perfpmc_sysctl_off()
                    ? "user access to the PMU is off: needs 1 in /proc/sys/kernel/perf_user_access"
                    : "kernel does not allow PMU reads on this event (cap_user_rdpmc or index is 0)";
    goto fail;
  }
  if (pc->pmc_width != 32 && pc->pmc_width != 64) {
    s->reason = "unexpected pmc_width in the perf event page";
    goto fail;
  }
  return 0;
fail:
  munmap((void *)pc, (size_t)sysconf(_SC_PAGESIZE));
  close(p->fd);
  p->fd = -1;
  p->page = 0;
  return -1;
}
#endif
#endif
#endif
