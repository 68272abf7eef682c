/* SPDX-License-Identifier: MIT */
/* riscv64-rdcycle: the cycle CSR (Zicntr), read with RDCYCLE.
 *
 * A true core-cycle counter.  User mode may read it only when the kernel
 * sets the CY bit of scounteren.  Linux did so for every process until 6.6;
 * since then it does so only with /proc/sys/kernel/perf_user_access = 2
 * (legacy mode) or, with the default 1, for a process holding an mmap()ed
 * perf event: that is riscv64-perfrdcycle.  Otherwise: SIGILL. */
#ifndef CPUCYCLES_RISCV64_RDCYCLE_H
#define CPUCYCLES_RISCV64_RDCYCLE_H
#include "counter.h"
#if defined(__riscv) && defined(__riscv_xlen) && __riscv_xlen == 64
#define CPUCYCLES_HAVE_RISCV64_RDCYCLE 1
#define CPUCYCLES_RISCV64_RDCYCLE_INSTRUCTION "rdcycle" /* a word of its read's disassembly */

enum { cpucycles_riscv64_rdcycle_kind = CPUCYCLES_KIND_ONCORE };

CPUCYCLES_ALWAYS_INLINE long long cpucycles_riscv64_rdcycle_read(void)
{
  unsigned long long t;
  __asm__ __volatile__("rdcycle %0" : "=r"(t));
  return CPUCYCLES_CAST(long long, t);
}

#if defined(CPUCYCLES_COUNTER_SETUP)
#include "riscv-counteren.h"
/* refused where RDCYCLE belongs to perf events; a kernel that forbids it
 * otherwise is caught by the guarded read */
static inline int cpucycles_riscv64_rdcycle_setup(struct cpucycles_setup *s)
{
  return cpucycles_riscv_rdcycle_setup(s);
}
#endif
#endif
#endif
