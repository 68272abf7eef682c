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

#if defined(CPUCYCLES_COUNTER_SETUP)
/* Setup half: system calls that the installed header never needs. */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Opens a user-space-only CPU-cycles event for this thread on any CPU and,
 * when want_page, maps its control page.  Returns 0 or -1 with s->reason. */
static inline int cpucycles_perf_open(struct cpucycles_perf_state *p, int want_page,
                                      struct cpucycles_setup *s)
{
  struct perf_event_attr attr;
  memset(&attr, 0, sizeof attr);
  attr.type = PERF_TYPE_HARDWARE;
  attr.size = sizeof attr;
  attr.config = PERF_COUNT_HW_CPU_CYCLES;
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
