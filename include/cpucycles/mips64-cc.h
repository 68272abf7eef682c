/* SPDX-License-Identifier: MIT */
/* mips64-cc: the MIPS cycle counter, hardware register 2 (CC, the CP0
 * Count register), read with RDHWR.
 *
 * RDHWR is a MIPS32/64 release 2 instruction, hence the .set push/mips32r2
 * around it for toolchains targeting an older ISA.  Linux lets user mode
 * read CC through HWREna on release 2 and later CPUs; older ones raise
 * SIGILL.  Two surprises: CC is only 32 bits (read32 returns the raw value
 * and the library's read extends it with extend32.h), and it steps once
 * every CCRes cycles (hardware register 3, often 2), so the read multiplies
 * by CCRes.  qemu-user returns 0 from CC forever: the precision check
 * rejects it as never increasing. */
#ifndef CPUCYCLES_MIPS64_CC_H
#define CPUCYCLES_MIPS64_CC_H
#include "counter.h"
#if defined(__mips__) && defined(__mips64)
#define CPUCYCLES_HAVE_MIPS64_CC 1
#define CPUCYCLES_MIPS64_CC_BITS 32
#define CPUCYCLES_MIPS64_CC_LIBRARY_READ 1 /* extended by the library */

enum { cpucycles_mips64_cc_kind = CPUCYCLES_KIND_ONCORE };

CPUCYCLES_ALWAYS_INLINE unsigned int cpucycles_mips64_cc_read32(void)
{
  unsigned long t;
  __asm__ __volatile__(".set push\n\t.set mips32r2\n\trdhwr %0, $2\n\t.set pop" : "=r"(t));
  return CPUCYCLES_CAST(unsigned int, t);
}

/* Cycles per CC step (CCRes, hardware register 3). */
static inline long long cpucycles_mips64_cc_resolution(void)
{
  unsigned long t;
  __asm__ __volatile__(".set push\n\t.set mips32r2\n\trdhwr %0, $3\n\t.set pop" : "=r"(t));
  return CPUCYCLES_CAST(long long, (t & 0xffffffffUL));
}

#if defined(CPUCYCLES_COUNTER_SETUP)
#include "extend32.h"
CPUCYCLES_STATE_STORAGE struct cpucycles_extend32_anchor cpucycles_mips64_cc_anchor;
CPUCYCLES_STATE_STORAGE __thread struct cpucycles_extend32 cpucycles_mips64_cc_thread;
CPUCYCLES_STATE_STORAGE long long cpucycles_mips64_cc_ccres;

CPUCYCLES_ALWAYS_INLINE long long cpucycles_mips64_cc_read(void)
{
  return cpucycles_mips64_cc_ccres * cpucycles_extend32_read(&cpucycles_mips64_cc_anchor,
                                                             &cpucycles_mips64_cc_thread,
                                                             cpucycles_mips64_cc_read32());
}

static inline int cpucycles_mips64_cc_setup(struct cpucycles_setup *s)
{
  cpucycles_mips64_cc_ccres = cpucycles_mips64_cc_resolution();
  if (cpucycles_mips64_cc_ccres < 1) {
    s->reason = "CCRes (hardware register 3) is 0";
    return -1;
  }
  cpucycles_extend32_start(&cpucycles_mips64_cc_anchor, cpucycles_mips64_cc_read32(),
                           (double)s->persecond / 1e6 / (double)cpucycles_mips64_cc_ccres);
  return 0;
}
#endif
#endif
#endif
