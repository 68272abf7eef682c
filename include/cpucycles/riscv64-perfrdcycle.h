/* SPDX-License-Identifier: MIT */
/* riscv64-perfrdcycle: RDCYCLE, made readable by a perf cycles event.
 *
 * Since Linux 6.6 (with the default /proc/sys/kernel/perf_user_access = 1)
 * user mode may read a hardware counter only while it holds an mmap()ed
 * perf event on that counter: the kernel then sets the counter's scounteren
 * bit for this process.  Setup opens and maps a user-space cycles event,
 * which the SBI PMU driver places on the cycle CSR, and keeps it open; the
 * read is then plain RDCYCLE, without amd64-perfpmc's seqlock: the kernel
 * stops the counter when the thread is switched out and restarts it from
 * the same value, so the raw CSR stays continuous for this thread.
 * If the event lands on another counter, or perf_user_access is 0, RDCYCLE
 * still raises SIGILL and the guarded read reports it. */
#ifndef CPUCYCLES_RISCV64_PERFRDCYCLE_H
#define CPUCYCLES_RISCV64_PERFRDCYCLE_H
#include "riscv64-rdcycle.h" /* the same read */
#if defined(__riscv) && defined(__riscv_xlen) && __riscv_xlen == 64 && \
    defined(CPUCYCLES_HAVE_LINUX_PERF)
#define CPUCYCLES_HAVE_RISCV64_PERFRDCYCLE 1
#define CPUCYCLES_RISCV64_PERFRDCYCLE_INSTRUCTION "rdcycle" /* a word of its read's disassembly */
#define CPUCYCLES_RISCV64_PERFRDCYCLE_HAS_STATE 1 /* cpucycles_riscv64_perfrdcycle_release */

enum { cpucycles_riscv64_perfrdcycle_kind = CPUCYCLES_KIND_ONCORE };

CPUCYCLES_ALWAYS_INLINE long long cpucycles_riscv64_perfrdcycle_read(void)
{
  return cpucycles_riscv64_rdcycle_read(); /* what differs is the setup */
}

#if defined(CPUCYCLES_COUNTER_SETUP)
#include "linux-perf.h"
/* The process's event, mapped, which makes the kernel allow RDCYCLE in this
 * process (one copy per program: the library, or a probe). */
static struct cpucycles_perf_event cpucycles_riscv64_perfrdcycle_event;
static struct cpucycles_perf_config cpucycles_riscv64_perfrdcycle_config = {.config1 = {0},
                                                                            .ntries = 1};

static inline int cpucycles_riscv64_perfrdcycle_setup(struct cpucycles_setup *s)
{
  if (cpucycles_riscv64_perfrdcycle_event.open) return 0;
  return cpucycles_perf_open(&cpucycles_riscv64_perfrdcycle_event,
                             &cpucycles_riscv64_perfrdcycle_config, &s->reason);
}

static inline void cpucycles_riscv64_perfrdcycle_release(int zero_page)
{
  cpucycles_perf_release(&cpucycles_riscv64_perfrdcycle_config, zero_page);
}
#endif
#endif
#endif
