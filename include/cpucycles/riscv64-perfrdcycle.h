/* SPDX-License-Identifier: MIT */
/* riscv64-perfrdcycle: RDCYCLE, made readable by a perf cycles event of
 * each thread's own, read through the event's mmap()ed control page
 * (linux-perf.h's lock/seq loop, as arm64-perfpmc).
 *
 * Since Linux 6.6 (with the default /proc/sys/kernel/perf_user_access = 1)
 * user mode may read a hardware counter only while an mmap()ed perf event
 * of its thread is on that counter: the SBI PMU driver sets the counter's
 * scounteren bit when it starts the event on a CPU and clears it when it
 * stops it, so another thread of the process, on another CPU or after a
 * switch, meets SIGILL.  Each thread therefore opens its own event on its
 * first read, and the count is the page's offset plus the counter, which
 * starts near 0 for the thread (the raw CSR may start anywhere: Debian's
 * riscv64 kernel under qemu gave values near 2^63).  The event is pinned
 * (linux-perf.h), so the driver keeps it on the cycle CSR (page index 1)
 * even beside another cycles event of the thread; an event elsewhere is
 * refused by the setup, and if one moved there the count would stand at
 * the page's offset.  A PMU that cannot exclude the kernel (no Sscofpmf)
 * gets the event counting every mode (linux-perf.h).  The driver also
 * takes RDCYCLE from every CPU the process has run on when the page of an
 * event on the cycle CSR is unmapped, from this process's other threads
 * and other processes' too: so the library unmaps a page, a release's or
 * an exiting thread's, only after disabling its event through its
 * descriptor, which is kept for that (keep_fd: linux-perf.h's
 * cpucycles_perf_unplace; a page whose descriptor the program closed
 * stays mapped).  The kernel's own unmapping, when a process exits or
 * execs with its event on the counter, the library cannot order.  (perf_user_access 2, the
 * legacy setting, opens RDCYCLE to every process, but on Debian's 7.2
 * kernel under qemu the cycle CSR then does not count without an event.) */
#ifndef CPUCYCLES_RISCV64_PERFRDCYCLE_H
#define CPUCYCLES_RISCV64_PERFRDCYCLE_H
#include "riscv64-rdcycle.h" /* the read of the cycle CSR */
#if defined(__riscv) && defined(__riscv_xlen) && __riscv_xlen == 64 && \
    defined(CPUCYCLES_HAVE_LINUX_PERF)
#define CPUCYCLES_HAVE_RISCV64_PERFRDCYCLE 1
#define CPUCYCLES_RISCV64_PERFRDCYCLE_LIBRARY_READ 1 /* per-thread events */
#define CPUCYCLES_RISCV64_PERFRDCYCLE_HAS_STATE 1 /* cpucycles_riscv64_perfrdcycle_release */

enum { cpucycles_riscv64_perfrdcycle_kind = CPUCYCLES_KIND_ONCORE };

/* The counter the control page names: 1 is the cycle CSR. */
static inline unsigned long long cpucycles_riscv64_perfrdcycle_pmc(unsigned int index)
{
  return index == 1 ? CPUCYCLES_CAST(unsigned long long, cpucycles_riscv64_rdcycle_read()) : 0;
}

#if defined(CPUCYCLES_COUNTER_SETUP)
#include "linux-perf.h"
/* One copy per program that sets counters up: the library, or a probe. */
static __thread struct cpucycles_perf_event cpucycles_riscv64_perfrdcycle_thread CPUCYCLES_TLS_MODEL;
static struct cpucycles_perf_state cpucycles_riscv64_perfrdcycle_state;
static const struct cpucycles_perf_config cpucycles_riscv64_perfrdcycle_config = {
    .config1 = {0}, .ntries = 1, .keep_fd = 1, .need_rdpmc = 1, .need_index = 1,
    .state = &cpucycles_riscv64_perfrdcycle_state};

CPUCYCLES_ALWAYS_INLINE long long cpucycles_riscv64_perfrdcycle_read(void)
{
  struct cpucycles_perf_event *e = cpucycles_perf_thread_event(
      &cpucycles_riscv64_perfrdcycle_thread, &cpucycles_riscv64_perfrdcycle_config);
  if (!e) return cpucycles_perf_fallback(&cpucycles_riscv64_perfrdcycle_config);
  return cpucycles_perf_page_count(e->page, cpucycles_riscv64_perfrdcycle_pmc);
}

static inline int cpucycles_riscv64_perfrdcycle_setup(struct cpucycles_setup *s)
{
  return cpucycles_perf_setup_per_thread(&cpucycles_riscv64_perfrdcycle_thread,
                                         &cpucycles_riscv64_perfrdcycle_config, s);
}

static inline void cpucycles_riscv64_perfrdcycle_release(int zero_page)
{
  cpucycles_perf_release(&cpucycles_riscv64_perfrdcycle_config, zero_page);
}
#endif
#endif
#endif
