/* arm64-perfpmc: the cycles event that perf_event_open() set up, read from
 * the PMU through the event's mmap()ed control page (the seqlock pattern of
 * amd64-perfpmc).
 *
 * Linux (5.17 and later) grants EL0 reads of the PMU only when
 * /proc/sys/kernel/perf_user_access is 1 (default 0) and only for a
 * thread-bound event opened with attr.config1 bit 1 ("rdpmc"); bit 0 asks
 * for a 64-bit counter.  linux-perf.h's cpucycles_perf_open() leaves
 * config1 at 0, so this file opens its own event.  The page's index is 32
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

static inline long long cpucycles_arm64_perfpmc_read(void)
{
  volatile struct perf_event_mmap_page *pc = cpucycles_arm64_perfpmc_state.page;
  unsigned int seq, index, width;
  unsigned long long count, pmc;
  do {
    seq = pc->lock;
    CPUCYCLES_COMPILER_BARRIER();
    index = pc->index;
    count = (unsigned long long)pc->offset;
    if (pc->cap_user_rdpmc && index) {
      width = pc->pmc_width;
      if (index == 32)
        __asm__ __volatile__("mrs %0, PMCCNTR_EL0" : "=r"(pmc));
      else
        __asm__ __volatile__("msr PMSELR_EL0, %1\n\tisb\n\tmrs %0, PMXEVCNTR_EL0"
                             : "=r"(pmc)
                             : "r"((unsigned long long)(index - 1)));
      /* pmc_width (32 or 64, checked by setup) valid bits, sign-extended */
      pmc <<= 64 - width;
      count += (unsigned long long)((long long)pmc >> (64 - width));
    }
    CPUCYCLES_COMPILER_BARRIER();
  } while (pc->lock != seq);
  return (long long)count;
}

#if defined(CPUCYCLES_COUNTER_SETUP)
#include <stdio.h>

static inline int cpucycles_arm64_perfpmc_open(struct cpucycles_perf_state *p,
                                               unsigned long long config1)
{
  struct perf_event_attr attr;
  void *m;
  memset(&attr, 0, sizeof attr);
  attr.type = PERF_TYPE_HARDWARE;
  attr.size = sizeof attr;
  attr.config = PERF_COUNT_HW_CPU_CYCLES;
  attr.config1 = config1;
  attr.exclude_kernel = 1;
  attr.exclude_hv = 1;
  p->page = 0;
  p->fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
  if (p->fd < 0) return -1;
  m = mmap(0, (size_t)sysconf(_SC_PAGESIZE), PROT_READ, MAP_SHARED, p->fd, 0);
  if (m == MAP_FAILED) {
    close(p->fd);
    p->fd = -1;
    errno = EFAULT; /* told apart from a failed open below */
    return -1;
  }
  p->page = (volatile struct perf_event_mmap_page *)m;
  return 0;
}

/* 1 when /proc/sys/kernel/perf_user_access says 0, else 0 */
static inline int cpucycles_arm64_perfpmc_sysctl_off(void)
{
  FILE *f = fopen("/proc/sys/kernel/perf_user_access", "r");
  int c;
  if (!f) return 0;
  c = fgetc(f);
  fclose(f);
  return c == '0';
}

static inline int cpucycles_arm64_perfpmc_setup(struct cpucycles_setup *s)
{
  struct cpucycles_perf_state *p = &cpucycles_arm64_perfpmc_state;
  volatile struct perf_event_mmap_page *pc;
  /* a 64-bit counter with user access; 32 bits where there are no long
   * counters and the cycle counter is taken */
  if (cpucycles_arm64_perfpmc_open(p, 3) != 0 && cpucycles_arm64_perfpmc_open(p, 2) != 0) {
    if (errno == EFAULT)
      s->reason = "mmap of the perf event page failed";
    else if (errno == ENOENT || errno == EOPNOTSUPP || errno == ENODEV)
      s->reason = "perf_event_open: no user-readable hardware cycle event (no PMU, or big.LITTLE)";
    else if (errno == EACCES || errno == EPERM)
      s->reason = "perf_event_open: not permitted (see /proc/sys/kernel/perf_event_paranoid)";
    else if (errno == ENOSYS)
      s->reason = "perf_event_open: no such system call";
    else
      s->reason = "perf_event_open with user access (config1 = 3 or 2) failed";
    return -1;
  }
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
