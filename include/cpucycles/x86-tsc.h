/* SPDX-License-Identifier: MIT */
/* x86-tsc: the time-stamp counter of 32-bit x86, read with RDTSC.
 *
 * Same counter as amd64-tsc.  On CPUs since the mid-2000s it ticks at a
 * constant rate whatever the core clock does (an off-core clock that looks
 * like a cycle counter); on older ones it counted core cycles but changed
 * rate with power saving, so it is not trusted as on-core either way.
 * CPUs without it (486-class and some embedded x86) raise SIGILL, as does a
 * kernel that sets CR4.TSD: the guarded read finds out. */
#ifndef CPUCYCLES_X86_TSC_H
#define CPUCYCLES_X86_TSC_H
#include "counter.h"
#if defined(__i386__)
#define CPUCYCLES_HAVE_X86_TSC 1
#define CPUCYCLES_X86_TSC_INSTRUCTION "rdtsc" /* a word of its read's disassembly */
/* no RDTSC; CR4.TSD */
#define CPUCYCLES_X86_TSC_FAULTS (CPUCYCLES_FAULT_SIGILL | CPUCYCLES_FAULT_SIGSEGV)

enum { cpucycles_x86_tsc_kind = CPUCYCLES_KIND_OFFCORE };

CPUCYCLES_ALWAYS_INLINE long long cpucycles_x86_tsc_read(void) { return cpucycles_rdtsc(); }

#if defined(CPUCYCLES_COUNTER_SETUP)
/* a CPU without RDTSC, or CR4.TSD, makes it fault: the guarded read finds out */
CPUCYCLES_SETUP_NOTHING(x86_tsc)
#endif
#endif
#endif
