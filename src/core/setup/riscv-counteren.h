/* SPDX-License-Identifier: MIT */
/* riscv-counteren.h - setup-time helper: may user mode read the cycle CSR
 * without a perf event of its own (riscv64-rdcycle, riscv32-rdcycle)?
 *
 * Linux decides it in the CY bit of scounteren, per hart.  Before 6.6 it
 * set the bit for every process.  Since 6.6 the SBI PMU driver sets it for
 * all only with /proc/sys/kernel/perf_user_access = 2 (legacy); with the
 * default 1 it sets it on a hart while a thread that has mmap()ed a cycles
 * event of its own runs there (riscv64-perfrdcycle), and clears it when
 * that event stops.  So under 1 a bare RDCYCLE works exactly while this
 * thread's perf event is on the cycle counter: a measurement taken then
 * (the selection opens riscv64-perfrdcycle's event first) would find it
 * working, and the counter would die of SIGILL once the event is gone.
 * Under 0 or 1 the setup therefore refuses; with 2, or no such setting
 * (an older kernel, or none readable here), the guarded read decides. */
#ifndef CPUCYCLES_RISCV_COUNTEREN_H
#define CPUCYCLES_RISCV_COUNTEREN_H
#if defined(CPUCYCLES_COUNTER_SETUP)
#include "cpucycles/counter.h"
#include "readfile.h"

CPUCYCLES_COLD static inline int cpucycles_riscv_rdcycle_setup(struct cpucycles_setup *s)
{
  char buf[16];
  const char *why;
  if (cpucycles_readfile("/proc/sys/kernel/perf_user_access", buf, sizeof buf, &why) <= 0 ||
      buf[0] == '2')
    return 0;
  s->reason = buf[0] == '0'
                  ? "user access to the cycle CSR is off (/proc/sys/kernel/perf_user_access is 0)"
                  : "RDCYCLE is readable only under a perf event's grant "
                    "(/proc/sys/kernel/perf_user_access is not 2): the perfrdcycle counter's, "
                    "not this one's";
  return -1;
}
#endif
#endif
