/* linux-perf.h - the Linux perf_event plumbing shared by the counters that
 * ask the kernel for a cycle counter (amd64-pmc, amd64-perfpmc,
 * default-perfevent, and the arm64/riscv64 perf variants).
 *
 * The kernel only lets user space read the PMU when a perf event is open:
 * with /sys/bus/event_source/devices/cpu/rdpmc = 1 (the default), RDPMC is
 * allowed for a process that has mmap()ed such an event; with 2 it is
 * allowed everywhere.  perf_event_paranoid <= 2 is needed to open a
 * user-only event.  A machine without a PMU (most VMs) fails the open with
 * ENOENT or EOPNOTSUPP: "hardware events not supported". */
#ifndef CPUCYCLES_LINUX_PERF_H
#define CPUCYCLES_LINUX_PERF_H
#include "counter.h"
#if defined(__linux__)
#define CPUCYCLES_HAVE_LINUX_PERF 1
#include <linux/perf_event.h>

struct cpucycles_perf_state {
  int fd;                                     /* the open cycles event */
  volatile struct perf_event_mmap_page *page; /* its mmap()ed first page */
};

/* The event's count, read in user space through its control page, as
 * include/uapi/linux/perf_event.h documents: the kernel may move the event
 * to another hardware counter, or stop it, at any context switch, and bumps
 * pc->lock when it does, so the loop retries until index, offset and the
 * counter were read with no update in between.  read_pmc(index) reads the
 * hardware counter the page names (index is 1-based); the counter is
 * pmc_width bits wide and is sign-extended (an arithmetic right shift, as
 * GCC and Clang define it) before offset is added.  read_pmc is always a
 * constant, so the compiler inlines it. */
static inline long long cpucycles_perf_page_count(volatile struct perf_event_mmap_page *pc,
                                                 unsigned long long (*read_pmc)(unsigned int))
{
  unsigned int seq, index, width;
  unsigned long long count, pmc;
  do {
    seq = pc->lock;
    CPUCYCLES_COMPILER_BARRIER();
    index = pc->index;
    count = (unsigned long long)pc->offset;
    if (pc->cap_user_rdpmc && index) {
      width = pc->pmc_width;
      pmc = read_pmc(index) << (64 - width);
      count += (unsigned long long)((long long)pmc >> (64 - width));
    }
    CPUCYCLES_COMPILER_BARRIER();
  } while (pc->lock != seq);
  return (long long)count;
}

#if defined(CPUCYCLES_COUNTER_SETUP)
/* Setup half: system calls that the installed header never needs. */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Opens a user-space-only CPU-cycles event for this thread on any CPU and,
 * when want_page, maps its control page.  config1 carries arch-specific
 * flags (arm64: bit 1 asks for user access, bit 0 for a 64-bit counter).
 * Returns 0 or -1 with s->reason. */
static inline int cpucycles_perf_open(struct cpucycles_perf_state *p, unsigned long long config1,
                                      int want_page, struct cpucycles_setup *s)
{
  struct perf_event_attr attr;
  memset(&attr, 0, sizeof attr);
  attr.type = PERF_TYPE_HARDWARE;
  attr.size = sizeof attr;
  attr.config = PERF_COUNT_HW_CPU_CYCLES;
  attr.config1 = config1;
  attr.exclude_kernel = 1;
  attr.exclude_hv = 1;
  p->page = 0;
  p->fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
  if (p->fd < 0) {
    if (errno == ENOENT || errno == EOPNOTSUPP || errno == ENODEV)
      s->reason = "perf_event_open: hardware cycle events not supported (no PMU)";
    else if (errno == EACCES || errno == EPERM)
      s->reason = "perf_event_open: not permitted (see /proc/sys/kernel/perf_event_paranoid)";
    else if (errno == ENOSYS)
      s->reason = "perf_event_open: no such system call";
    else
      s->reason = "perf_event_open failed";
    return -1;
  }
  if (want_page) {
    void *m = mmap(0, (size_t)sysconf(_SC_PAGESIZE), PROT_READ, MAP_SHARED, p->fd, 0);
    if (m == MAP_FAILED) {
      s->reason = "mmap of the perf event page failed";
      close(p->fd);
      p->fd = -1;
      return -1;
    }
    p->page = (volatile struct perf_event_mmap_page *)m;
  }
  return 0;
}
#endif /* CPUCYCLES_COUNTER_SETUP */
#endif /* __linux__ */
#endif
