/* SPDX-License-Identifier: MIT */
/* tscrate.h - the TSC's rate as the hardware and the kernel state it, for
 * cpucycles_persecond() on x86 (where the TSC ticks at the nominal, "base"
 * frequency): exact figures, before the OS's guesses from cpufreq and
 * /proc/cpuinfo.  Included by persecond.c; the parsers take recorded
 * register values so that tests can feed them any CPU's. */
#ifndef CPUCYCLES_TSCRATE_H
#define CPUCYCLES_TSCRATE_H
#include "persecond.h"

/* CPUID leaf 0x15 (eax: denominator, ebx: numerator, ecx: crystal Hz) and
 * leaf 0x16's eax (base frequency in MHz).  The TSC ticks at crystal *
 * ebx / eax; where the crystal is not enumerated (ecx 0: Skylake-era
 * clients), the base frequency is the TSC's rate (Linux does the same).
 * Returns Hz with *source, or 0. */
static inline long long cpucycles_tscrate_cpuid(unsigned int eax, unsigned int ebx, unsigned int ecx,
                                                unsigned int base_mhz, const char **source)
{
  double hz = 0;
  if (eax && ebx && ecx) {
    hz = (double)ecx * ebx / eax;
    *source = "CPUID leaf 0x15 (TSC to crystal ratio)";
  } else if (base_mhz) {
    hz = base_mhz * 1e6;
    *source = "CPUID leaf 0x16 (base frequency)";
  }
  if (hz < (double)CPUCYCLES_PERSECOND_MIN || hz > (double)CPUCYCLES_PERSECOND_MAX) return 0;
  return (long long)(hz + 0.5);
}

/* The hypervisor's leaf 0x40000010 (VMware's convention, which KVM and
 * others follow): eax is the TSC's rate in kHz, when the hypervisor's
 * highest leaf (0x40000000's eax) reaches it.  Returns Hz, or 0. */
static inline long long cpucycles_tscrate_hypervisor(unsigned int max_leaf, unsigned int khz)
{
  double hz = khz * 1e3;
  if (max_leaf < 0x40000010 || max_leaf > 0x400000ff) return 0;
  if (hz < (double)CPUCYCLES_PERSECOND_MIN || hz > (double)CPUCYCLES_PERSECOND_MAX) return 0;
  return (long long)hz;
}

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#define CPUCYCLES_HAVE_TSCRATE 1

/* This machine's TSC rate from its CPUID (a hypervisor's leaf only when
 * CPUID says there is a hypervisor), or 0 with *source untouched. */
static inline long long cpucycles_tscrate_here(const char **source)
{
  unsigned int a = 0, b = 0, c = 0, d, max = __get_cpuid_max(0, 0), base_mhz = 0, other[3];
  long long hz;
  /* leaf 0x15's ratio first, leaf 0x16's base frequency kept for the end */
  if (max >= 0x15) __cpuid(0x15, a, b, c, d);
  if (max >= 0x16) __cpuid(0x16, base_mhz, other[0], other[1], other[2]);
  hz = cpucycles_tscrate_cpuid(a, b, c, 0, source);
  if (hz) return hz;
  __cpuid(1, a, b, c, d);
  if (c & (1u << 31)) { /* a hypervisor is present */
    unsigned int max_hv;
    __cpuid(0x40000000, max_hv, b, c, d);
    if (max_hv >= 0x40000010 && max_hv <= 0x400000ff) {
      __cpuid(0x40000010, a, b, c, d);
      hz = cpucycles_tscrate_hypervisor(max_hv, a);
      if (hz) {
        *source = "hypervisor CPUID leaf 0x40000010 (TSC kHz)";
        return hz;
      }
    }
  }
  return cpucycles_tscrate_cpuid(0, 0, 0, base_mhz, source);
}
#endif
#endif
