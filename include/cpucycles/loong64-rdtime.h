/* SPDX-License-Identifier: MIT */
/* loong64-rdtime: the LoongArch constant-frequency timer ("stable counter"),
 * read with RDTIME.D, scaled by its frequency.
 *
 * An off-core clock, typically 100 MHz, readable in user mode.  CPUCFG,
 * also a user-mode instruction, describes it: word 2 bit 14 (LLFTP) says
 * the timer exists, word 4 is the frequency of the crystal that drives it,
 * and word 5 holds a multiplier (bits 15..0) and divisor (bits 31..16), so
 * that it ticks at word4 * mul / div Hz.  RDTIME.D's second register gets
 * the counter's ID, which is not needed: it is discarded into $zero. */
#ifndef CPUCYCLES_LOONG64_RDTIME_H
#define CPUCYCLES_LOONG64_RDTIME_H
#include "counter.h"
#if defined(__loongarch__) && defined(__loongarch64)
#define CPUCYCLES_HAVE_LOONG64_RDTIME 1
#define CPUCYCLES_LOONG64_RDTIME_INSTRUCTION "rdtime.d" /* a word of its read's disassembly */

enum { cpucycles_loong64_rdtime_kind = CPUCYCLES_KIND_SCALED };

CPUCYCLES_ALWAYS_INLINE long long cpucycles_loong64_rdtime_read(void)
{
  unsigned long long t;
  __asm__ __volatile__("rdtime.d %0, $zero" : "=r"(t));
  return CPUCYCLES_CAST(long long, t);
}

/* CPUCFG word `word` (a user-mode instruction: no libc, no setup needed,
 * so ci/bare/loong64-bare.c runs it freestanding). */
static inline unsigned int cpucycles_loong64_cpucfg(unsigned int word)
{
  unsigned long long v;
  __asm__ __volatile__("cpucfg %0, %1" : "=r"(v) : "r"(CPUCYCLES_CAST(unsigned long long, word)));
  return CPUCYCLES_CAST(unsigned int, v);
}

/* The timer's rate as CPUCFG states it, word4 * mul / div Hz, or 0 when
 * word 2 bit 14 (LLFTP) is clear or a field is 0.  Plain instructions and
 * arithmetic: usable without libc and without CPUCYCLES_COUNTER_SETUP. */
static inline double cpucycles_loong64_rdtime_hz(void)
{
  unsigned int base, cfg5, mul, div;
  if (!(cpucycles_loong64_cpucfg(2) & (1u << 14))) return 0;
  base = cpucycles_loong64_cpucfg(4);
  cfg5 = cpucycles_loong64_cpucfg(5);
  mul = cfg5 & 0xffff;
  div = cfg5 >> 16;
  return base && mul && div ? (double)base * mul / div : 0;
}

#if defined(CPUCYCLES_COUNTER_SETUP)
#include "tickrate.h"
/* CPUCFG's rate, or when it states none the timer timed against
 * CLOCK_MONOTONIC (tickrate.h, which needs libc). */
static inline int cpucycles_loong64_rdtime_setup(struct cpucycles_setup *s)
{
  if (!(cpucycles_loong64_cpucfg(2) & (1u << 14))) {
    s->reason = "no constant-frequency timer (CPUCFG word 2 bit 14 clear)";
    return -1;
  }
  return cpucycles_tickrate_setup(s, cpucycles_loong64_rdtime_hz(), cpucycles_loong64_rdtime_read);
}
#endif
#endif
#endif
