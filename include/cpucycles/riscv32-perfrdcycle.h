/* SPDX-License-Identifier: MIT */
/* riscv32-perfrdcycle: riscv32-rdcycle's read (RDCYCLEH, RDCYCLE,
 * RDCYCLEH), made readable by a perf cycles event: riscv64-perfrdcycle's
 * setup on 32-bit RISC-V.  Since Linux 6.6 user mode may read the cycle
 * CSRs only while it holds an mmap()ed perf event on that counter; setup
 * opens and maps one and keeps it open.  Without it, or with
 * perf_user_access 0, the read raises SIGILL and the guarded read reports
 * it.  (Debian has no riscv32 C library: this file compiles only with a
 * riscv32 Linux toolchain; its read is the one ci/bare/riscv32-bare.c runs.) */
#ifndef CPUCYCLES_RISCV32_PERFRDCYCLE_H
#define CPUCYCLES_RISCV32_PERFRDCYCLE_H
#include "riscv32-rdcycle.h" /* the same read */
#if defined(__riscv) && defined(__riscv_xlen) && __riscv_xlen == 32 && \
    defined(CPUCYCLES_HAVE_LINUX_PERF)
#define CPUCYCLES_HAVE_RISCV32_PERFRDCYCLE 1
#define CPUCYCLES_RISCV32_PERFRDCYCLE_INSTRUCTION "rdcycle" /* a word of its read's disassembly */
#define CPUCYCLES_RISCV32_PERFRDCYCLE_HAS_STATE 1 /* cpucycles_riscv32_perfrdcycle_release */

enum { cpucycles_riscv32_perfrdcycle_kind = CPUCYCLES_KIND_ONCORE };

CPUCYCLES_ALWAYS_INLINE long long cpucycles_riscv32_perfrdcycle_read(void)
{
  return cpucycles_riscv32_rdcycle_read(); /* what differs is the setup */
}

#if defined(CPUCYCLES_COUNTER_SETUP)
#include "linux-perf.h"
/* The process's event, mapped, which makes the kernel allow RDCYCLE in this
 * process (one copy per program: the library, or a probe). */
static struct cpucycles_perf_event cpucycles_riscv32_perfrdcycle_event;
static struct cpucycles_perf_config cpucycles_riscv32_perfrdcycle_config = {.config1 = {0},
                                                                            .ntries = 1};

static inline int cpucycles_riscv32_perfrdcycle_setup(struct cpucycles_setup *s)
{
  if (cpucycles_riscv32_perfrdcycle_event.open) return 0;
  return cpucycles_perf_open(&cpucycles_riscv32_perfrdcycle_event,
                             &cpucycles_riscv32_perfrdcycle_config, &s->reason);
}

static inline void cpucycles_riscv32_perfrdcycle_release(int zero_page)
{
  cpucycles_perf_release(&cpucycles_riscv32_perfrdcycle_config, zero_page);
}
#endif
#endif
#endif
