/* SPDX-License-Identifier: MIT */
/* riscv32-perfrdcycle: riscv32-rdcycle's read (RDCYCLEH, RDCYCLE,
 * RDCYCLEH), made readable by a perf cycles event of each thread's own and
 * read through the event's control page: riscv64-perfrdcycle on 32-bit
 * RISC-V (that file says why each thread has its event, and why the count
 * is the page's offset plus the counter).  Without an event, or with
 * perf_user_access 0, the setup fails, and a bare read raises SIGILL,
 * which the guarded read reports.  (Debian has no riscv32 C library: this
 * file compiles only with a riscv32 Linux toolchain; its read is the one
 * ci/bare/riscv32-bare.c runs.) */
#ifndef CPUCYCLES_RISCV32_PERFRDCYCLE_H
#define CPUCYCLES_RISCV32_PERFRDCYCLE_H
#include "riscv32-rdcycle.h" /* the read of the cycle CSRs */
#if defined(__riscv) && defined(__riscv_xlen) && __riscv_xlen == 32 && \
    defined(CPUCYCLES_HAVE_LINUX_PERF)
#define CPUCYCLES_HAVE_RISCV32_PERFRDCYCLE 1
#define CPUCYCLES_RISCV32_PERFRDCYCLE_LIBRARY_READ 1 /* per-thread events */
#define CPUCYCLES_RISCV32_PERFRDCYCLE_HAS_STATE 1 /* cpucycles_riscv32_perfrdcycle_release */

enum { cpucycles_riscv32_perfrdcycle_kind = CPUCYCLES_KIND_ONCORE };

/* The counter the control page names: 1 is the cycle CSR pair. */
static inline unsigned long long cpucycles_riscv32_perfrdcycle_pmc(unsigned int index)
{
  return index == 1 ? CPUCYCLES_CAST(unsigned long long, cpucycles_riscv32_rdcycle_read()) : 0;
}

#if defined(CPUCYCLES_COUNTER_SETUP)
#include "linux-perf.h"
/* One copy per program that sets counters up: the library, or a probe. */
static __thread struct cpucycles_perf_event cpucycles_riscv32_perfrdcycle_thread CPUCYCLES_TLS_MODEL;
static struct cpucycles_perf_state cpucycles_riscv32_perfrdcycle_state;
static const struct cpucycles_perf_config cpucycles_riscv32_perfrdcycle_config = {
    .config1 = {0}, .ntries = 1, .keep_fd = 1, .need_rdpmc = 1, .need_index = 1,
    .state = &cpucycles_riscv32_perfrdcycle_state};

CPUCYCLES_ALWAYS_INLINE long long cpucycles_riscv32_perfrdcycle_read(void)
{
  struct cpucycles_perf_event *e = cpucycles_perf_thread_event(
      &cpucycles_riscv32_perfrdcycle_thread, &cpucycles_riscv32_perfrdcycle_config);
  if (!e) return cpucycles_perf_fallback(&cpucycles_riscv32_perfrdcycle_config);
  return cpucycles_perf_page_count(e->page, cpucycles_riscv32_perfrdcycle_pmc);
}

static inline int cpucycles_riscv32_perfrdcycle_setup(struct cpucycles_setup *s)
{
  return cpucycles_perf_setup_per_thread(&cpucycles_riscv32_perfrdcycle_thread,
                                         &cpucycles_riscv32_perfrdcycle_config, s);
}

static inline void cpucycles_riscv32_perfrdcycle_release(int zero_page)
{
  cpucycles_perf_release(&cpucycles_riscv32_perfrdcycle_config, zero_page);
}
#endif
#endif
#endif
