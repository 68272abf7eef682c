/* SPDX-License-Identifier: MIT */
/* amd64-tsc: the time-stamp counter, read with RDTSC.
 *
 * On every x86-64 CPU of the last fifteen years the TSC ticks at a constant
 * rate (the "invariant TSC", CPUID 0x80000007 EDX bit 8), whatever the core
 * clock does: it is an off-core clock that only looks like a cycle counter,
 * hence the off-core kind and its penalty.  RDTSC is not ordered against
 * the instructions around it; amd64-tscp is the ordered variant. */
#ifndef CPUCYCLES_AMD64_TSC_H
#define CPUCYCLES_AMD64_TSC_H
#include "counter.h"
#if defined(__x86_64__)
#define CPUCYCLES_HAVE_AMD64_TSC 1
#define CPUCYCLES_AMD64_TSC_INSTRUCTION "rdtsc" /* a word of its read's disassembly */
/* every x86-64 CPU has RDTSC: only CR4.TSD (PR_SET_TSC) makes it fault */
#define CPUCYCLES_AMD64_TSC_FAULTS CPUCYCLES_FAULT_SIGSEGV

enum { cpucycles_amd64_tsc_kind = CPUCYCLES_KIND_OFFCORE };

CPUCYCLES_ALWAYS_INLINE long long cpucycles_amd64_tsc_read(void) { return cpucycles_rdtsc(); }

#if defined(CPUCYCLES_COUNTER_SETUP)
/* CR4.TSD could make RDTSC fault: the guarded read finds out */
CPUCYCLES_SETUP_NOTHING(amd64_tsc)
#endif
#endif
#endif
