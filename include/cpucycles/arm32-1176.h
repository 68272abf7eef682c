/* SPDX-License-Identifier: MIT */
/* arm32-1176: the ARM1176's cycle counter CCNT (the core of the first
 * Raspberry Pi), read with mrc p15, 0, r, c15, c12, 1.
 *
 * ARMv6's system performance monitor, in coprocessor 15's c15 registers:
 * not ARMv7's PMU in c9 (arm32-cortex), so neither counter can stand in
 * for the other.  A core-cycle counter of 32 bits (about 5 s at 700 MHz),
 * extended to 64 by the library's read (extend32.h).  It counts only
 * while PMNC.E is set and every 64 cycles while PMNC.D is: setup writes
 * PMNC with E set and D clear.  Both registers are privileged unless the
 * kernel grants user access (a module, as for arm32-cortex); otherwise
 * the MCR or MRC is undefined in user mode and raises SIGILL, which the
 * guarded setup reports.  On an ARMv7 core c15 is implementation-defined
 * and privileged: SIGILL too (as under qemu-arm). */
#ifndef CPUCYCLES_ARM32_1176_H
#define CPUCYCLES_ARM32_1176_H
#include "counter.h"
#if defined(__arm__) && defined(__ARM_ARCH) && __ARM_ARCH >= 6 && \
    (!defined(__thumb__) || defined(__thumb2__)) && \
    !(defined(__ARM_ARCH_PROFILE) && __ARM_ARCH_PROFILE == 'M')
#define CPUCYCLES_HAVE_ARM32_1176 1
#define CPUCYCLES_ARM32_1176_BITS 32
#define CPUCYCLES_ARM32_1176_LIBRARY_READ 1 /* extended by the library */

enum { cpucycles_arm32_1176_kind = CPUCYCLES_KIND_ONCORE };

CPUCYCLES_ALWAYS_INLINE unsigned int cpucycles_arm32_1176_read32(void)
{
  unsigned int t;
  __asm__ __volatile__("mrc p15, 0, %0, c15, c12, 1" : "=r"(t));
  return t;
}

#if defined(CPUCYCLES_COUNTER_SETUP)
#include "extend32.h"
CPUCYCLES_STATE_STORAGE struct cpucycles_extend32_anchor cpucycles_arm32_1176_anchor;
CPUCYCLES_STATE_STORAGE __thread struct cpucycles_extend32 cpucycles_arm32_1176_thread;

CPUCYCLES_ALWAYS_INLINE long long cpucycles_arm32_1176_read(void)
{
  return cpucycles_extend32_read(&cpucycles_arm32_1176_anchor, &cpucycles_arm32_1176_thread,
                                 cpucycles_arm32_1176_read32());
}

static inline int cpucycles_arm32_1176_setup(struct cpucycles_setup *s)
{
  /* PMNC: E (bit 0) set, D (bit 3: count every 64 cycles) clear */
  unsigned int pmnc = 1;
  __asm__ __volatile__("mcr p15, 0, %0, c15, c12, 0" : : "r"(pmnc));
  /* the counter ticks once a cycle */
  cpucycles_extend32_start(&cpucycles_arm32_1176_anchor, cpucycles_arm32_1176_read32(),
                           (double)s->persecond / 1e6);
  return 0;
}
#endif
#endif
#endif
