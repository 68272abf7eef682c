/* SPDX-License-Identifier: MIT */
/* riscv32-rdcycle: the 64-bit cycle CSR of 32-bit RISC-V, read as two
 * halves with RDCYCLEH and RDCYCLE.
 *
 * The low half carries into the high half every 2^32 cycles (about 2 s at
 * 2 GHz), possibly between the two reads: reading the high half before and
 * after, and retrying when they differ, gives a consistent 64-bit value.
 * User access is the kernel's choice, as for riscv64-rdcycle (Linux 6.6 and
 * later forbid it by default: SIGILL). */
#ifndef CPUCYCLES_RISCV32_RDCYCLE_H
#define CPUCYCLES_RISCV32_RDCYCLE_H
#include "counter.h"
#if defined(__riscv) && defined(__riscv_xlen) && __riscv_xlen == 32
#define CPUCYCLES_HAVE_RISCV32_RDCYCLE 1
#define CPUCYCLES_RISCV32_RDCYCLE_INSTRUCTION "rdcycle" /* a word of its read's disassembly */

enum { cpucycles_riscv32_rdcycle_kind = CPUCYCLES_KIND_ONCORE };

CPUCYCLES_ALWAYS_INLINE long long cpucycles_riscv32_rdcycle_read(void)
{
  unsigned int hi, lo, hi2;
  do {
    __asm__ __volatile__("rdcycleh %0\n\trdcycle %1\n\trdcycleh %2" : "=r"(hi), "=r"(lo), "=r"(hi2));
  } while (hi != hi2);
  return CPUCYCLES_CAST(long long, ((CPUCYCLES_CAST(unsigned long long, hi) << 32) | lo));
}

#if defined(CPUCYCLES_COUNTER_SETUP)
#include "riscv-counteren.h"
/* refused where RDCYCLE belongs to perf events; a kernel that forbids it
 * otherwise is caught by the guarded read */
static inline int cpucycles_riscv32_rdcycle_setup(struct cpucycles_setup *s)
{
  return cpucycles_riscv_rdcycle_setup(s);
}
#endif
#endif
#endif
