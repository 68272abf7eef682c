/* SPDX-License-Identifier: MIT */
/* amd64-tscasm: the time-stamp counter, read with RDTSC and combined into
 * one 64-bit register by the asm itself.
 *
 * libcpucycles 20260901 has it beside amd64-tsc: there amd64-tsc is the
 * compiler's __rdtsc() and amd64-tscasm its own asm sequence, this one
 * ("rdtsc; shlq $32,%rdx; orq %rdx,%rax"), unfenced.  Ours reads amd64-tsc
 * with inline asm already, so the two read the same clock the same way and
 * differ only in who joins EDX:EAX (the compiler, or the asm).  It is here
 * so that its name, its place in the list and the choice it makes are
 * libcpucycles 20260901's, under 20260901's numbers
 * (--with-selection-rule=20260901), whose term for a counter's place in
 * the list makes amd64-tsc win while it works.  Under seeds/000's numbers
 * it is refused: the two measure alike, and the noise of each
 * measurement chose one or the other from one process to the next (and
 * the counter's name, which a saved result records, with it).  No LFENCE: the
 * ordered read is amd64-tscp, and a fenced tscasm would be another counter
 * than 20260901's under its name. */
#ifndef CPUCYCLES_AMD64_TSCASM_H
#define CPUCYCLES_AMD64_TSCASM_H
#include "counter.h"
#if defined(__x86_64__)
#define CPUCYCLES_HAVE_AMD64_TSCASM 1
#define CPUCYCLES_AMD64_TSCASM_INSTRUCTION "rdtsc" /* a word of its read's disassembly */
/* as amd64-tsc: only CR4.TSD makes RDTSC fault */
#define CPUCYCLES_AMD64_TSCASM_FAULTS CPUCYCLES_FAULT_SIGSEGV

enum { cpucycles_amd64_tscasm_kind = CPUCYCLES_KIND_OFFCORE };

CPUCYCLES_ALWAYS_INLINE long long cpucycles_amd64_tscasm_read(void)
{
  long long result;
  /* Unordered, like amd64-tsc's read: no fence, hence no "memory" clobber
   * (counter.h says why). */
  __asm__ __volatile__("rdtsc\n\tshlq $32, %%rdx\n\torq %%rdx, %%rax" : "=a"(result) : : "rdx");
  return result;
}

#if defined(CPUCYCLES_COUNTER_SETUP)
#if !defined(CPUCYCLES_SELECTION_RULE)
#include "cpucycles-config.h" /* (the probes get it from configure's -D) */
#endif
/* CR4.TSD could make RDTSC fault: the guarded read finds out */
CPUCYCLES_COLD static inline int cpucycles_amd64_tscasm_setup(struct cpucycles_setup *s)
{
#if CPUCYCLES_SELECTION_RULE == 20260901
  (void)s;
  return 0;
#else
  s->reason = "amd64-tsc's clock: a candidate under rule 20260901 only";
  return -1;
#endif
}
#endif
#endif
#endif
