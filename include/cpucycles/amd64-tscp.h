/* SPDX-License-Identifier: MIT */
/* amd64-tscp: the time-stamp counter, read with RDTSCP and a fence.
 *
 * RDTSCP waits until every earlier instruction has executed before it reads
 * the TSC, but later instructions may still start before it: the LFENCE
 * after it keeps the code being measured from leaking in front of the read.
 * (On AMD, LFENCE is dispatch-serializing once the kernel sets
 * DE_CFG[1], which Linux does as a Spectre mitigation.)  RDTSCP also writes
 * the IA32_TSC_AUX value (the CPU number under Linux) into ECX, which the
 * read discards.  CPUs and hypervisors without RDTSCP (CPUID 0x80000001 EDX
 * bit 27 clear, e.g. qemu's "qemu64" model) raise SIGILL. */
#ifndef CPUCYCLES_AMD64_TSCP_H
#define CPUCYCLES_AMD64_TSCP_H
#include "counter.h"
#if defined(__x86_64__)
#define CPUCYCLES_HAVE_AMD64_TSCP 1
#define CPUCYCLES_AMD64_TSCP_INSTRUCTION "rdtscp" /* a word of its read's disassembly */
/* no RDTSCP; CR4.TSD */
#define CPUCYCLES_AMD64_TSCP_FAULTS (CPUCYCLES_FAULT_SIGILL | CPUCYCLES_FAULT_SIGSEGV)

enum { cpucycles_amd64_tscp_kind = CPUCYCLES_KIND_OFFCORE };

CPUCYCLES_ALWAYS_INLINE long long cpucycles_amd64_tscp_read(void)
{
  unsigned int aux; /* the CPU number: not wanted here */
  return cpucycles_rdtscp_lfence(&aux);
}

#if defined(CPUCYCLES_COUNTER_SETUP)
/* a CPU without RDTSCP is caught by the guarded read (SIGILL) */
CPUCYCLES_SETUP_NOTHING(amd64_tscp)
#endif
#endif
#endif
