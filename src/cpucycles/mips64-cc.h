/* mips64-cc: the MIPS cycle counter, hardware register 2 (CC, the CP0
 * Count register), read with RDHWR.
 *
 * RDHWR is a MIPS32/64 release 2 instruction, hence the .set push/mips32r2
 * around it for toolchains targeting an older ISA.  Linux lets user mode
 * read CC through HWREna on release 2 and later CPUs; older ones raise
 * SIGILL.  Two surprises: CC is only 32 bits (RDHWR sign-extends it, so the
 * read masks it and returns [0, 2^32); CPUCYCLES_MIPS64_CC_BITS tells the
 * library to extend it), and it steps once every CCRes cycles (hardware
 * register 3, often 2): cpucycles_mips64_cc_resolution() reads that
 * factor, which the read does not apply.  qemu-user returns 0 from CC
 * forever: the precision check rejects it as never increasing. */
#ifndef CPUCYCLES_MIPS64_CC_H
#define CPUCYCLES_MIPS64_CC_H
#include "counter.h"
#if defined(__mips__) && defined(__mips64)
#define CPUCYCLES_HAVE_MIPS64_CC 1
#define CPUCYCLES_MIPS64_CC_BITS 32

enum { cpucycles_mips64_cc_kind = CPUCYCLES_KIND_ONCORE };

static inline long long cpucycles_mips64_cc_read(void)
{
  unsigned long t;
  __asm__ __volatile__(".set push\n\t.set mips32r2\n\trdhwr %0, $2\n\t.set pop" : "=r"(t));
  return (long long)(t & 0xffffffffUL);
}

/* Cycles per CC step (CCRes, hardware register 3). */
static inline long long cpucycles_mips64_cc_resolution(void)
{
  unsigned long t;
  __asm__ __volatile__(".set push\n\t.set mips32r2\n\trdhwr %0, $3\n\t.set pop" : "=r"(t));
  return (long long)(t & 0xffffffffUL);
}

#if defined(CPUCYCLES_COUNTER_SETUP)
static inline int cpucycles_mips64_cc_setup(struct cpucycles_setup *s)
{
  if (cpucycles_mips64_cc_resolution() < 1) {
    s->reason = "CCRes (hardware register 3) is 0";
    return -1;
  }
  return 0;
}
#endif
#endif
#endif
