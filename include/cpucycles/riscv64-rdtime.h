/* SPDX-License-Identifier: MIT */
/* riscv64-rdtime: the time CSR (Zicntr), read with RDTIME, scaled by the
 * timebase frequency.
 *
 * An off-core, constant-rate clock (often 1 to 25 MHz; the host TSC under
 * qemu-user), readable by every Linux process, though on some boards the
 * read traps to firmware that emulates it, at a cost of hundreds of cycles.
 * Its rate is the device tree's /cpus/timebase-frequency (a 4- or 8-byte
 * big-endian integer); without a device tree (ACPI systems, qemu-user)
 * setup times the counter against CLOCK_MONOTONIC instead. */
#ifndef CPUCYCLES_RISCV64_RDTIME_H
#define CPUCYCLES_RISCV64_RDTIME_H
#include "counter.h"
#if defined(__riscv) && defined(__riscv_xlen) && __riscv_xlen == 64
#define CPUCYCLES_HAVE_RISCV64_RDTIME 1
#define CPUCYCLES_RISCV64_RDTIME_INSTRUCTION "rdtime" /* a word of its read's disassembly */

enum { cpucycles_riscv64_rdtime_kind = CPUCYCLES_KIND_SCALED };

CPUCYCLES_ALWAYS_INLINE long long cpucycles_riscv64_rdtime_read(void)
{
  unsigned long long t;
  __asm__ __volatile__("rdtime %0" : "=r"(t));
  return CPUCYCLES_CAST(long long, t);
}

#if defined(CPUCYCLES_COUNTER_SETUP)
#include "tickrate.h"
#include "readfile.h"
/* /proc/device-tree/cpus/timebase-frequency, or 0 */
static inline double cpucycles_riscv64_rdtime_devicetree(void)
{
  char b[10]; /* a 4- or 8-byte big-endian number, and readfile's NUL */
  const char *why;
  unsigned long long hz = 0;
  ssize_t got = cpucycles_readfile("/proc/device-tree/cpus/timebase-frequency", b, sizeof b, &why),
          i;
  if (got != 4 && got != 8) return 0;
  for (i = 0; i < got; i++) hz = (hz << 8) | (unsigned char)b[i];
  return (double)hz;
}

static inline int cpucycles_riscv64_rdtime_setup(struct cpucycles_setup *s)
{
  return cpucycles_tickrate_setup(s, cpucycles_riscv64_rdtime_devicetree(),
                                  cpucycles_riscv64_rdtime_read);
}
#endif
#endif
#endif
