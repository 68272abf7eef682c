/* SPDX-License-Identifier: MIT */
/* sparc64-rdtick: the SPARC V9 %tick register, read with RD.
 *
 * Counts processor cycles in bits 62..0.  Bit 63 is NPT ("non-privileged
 * trap"): when the kernel sets it, a user-mode read traps; when it is clear
 * it reads as 0, and it is masked off anyway so the value stays
 * non-negative.  %tick is ancillary state register 4: "rd %asr4" is the
 * same instruction as "rd %tick", spelled so that LLVM's integrated
 * assembler accepts it too. */
#ifndef CPUCYCLES_SPARC64_RDTICK_H
#define CPUCYCLES_SPARC64_RDTICK_H
#include "counter.h"
#if defined(__sparc__) && defined(__arch64__)
#define CPUCYCLES_HAVE_SPARC64_RDTICK 1
#define CPUCYCLES_SPARC64_RDTICK_INSTRUCTION "tick" /* a word of its read's disassembly: rd %tick */

enum { cpucycles_sparc64_rdtick_kind = CPUCYCLES_KIND_ONCORE };

CPUCYCLES_ALWAYS_INLINE long long cpucycles_sparc64_rdtick_read(void)
{
  unsigned long long t;
  __asm__ __volatile__("rd %%asr4, %0" : "=r"(t));
  return CPUCYCLES_CAST(long long, (t & 0x7fffffffffffffffULL));
}

#if defined(CPUCYCLES_COUNTER_SETUP)
/* an NPT-protected %tick faults and the guarded read says so */
CPUCYCLES_SETUP_NOTHING(sparc64_rdtick)
#endif
#endif
#endif
