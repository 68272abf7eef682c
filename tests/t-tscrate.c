/* SPDX-License-Identifier: MIT */
/* t-tscrate - the TSC's rate from CPUID and the kernel (src/core/tscrate.h),
 * on register values recorded from real CPUs and hypervisors, and the
 * kernel's tsc_freq_khz file. */
#include "persecond.h"
#include "tscrate.h"
#include "tap.h"
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(void)
{
  const char *source = 0;
  char path[64];
  FILE *f;
  long long hz;

  tap_plan(9);
  /* Ice Lake client: 38.4 MHz crystal, ratio 188/2 */
  hz = cpucycles_tscrate_cpuid(2, 188, 38400000, 0, &source);
  tap_ok(hz == 3609600000LL && strstr(source, "0x15"), "leaf 0x15 2/188, crystal 38.4 MHz: %lld (%s)", hz, source);
  /* Goldmont: 19.2 MHz crystal, 62/1 */
  hz = cpucycles_tscrate_cpuid(1, 62, 19200000, 0, &source);
  tap_ok(hz == 1190400000LL, "leaf 0x15 1/62, crystal 19.2 MHz: %lld", hz);
  /* Skylake client: no crystal enumerated, base 3000 MHz in leaf 0x16 */
  hz = cpucycles_tscrate_cpuid(2, 250, 0, 3000, &source);
  tap_ok(hz == 3000000000LL && strstr(source, "0x16"), "no crystal: leaf 0x16's 3000 MHz base (%s)", source);
  hz = cpucycles_tscrate_cpuid(0, 0, 0, 0, &source);
  tap_ok(hz == 0, "a VM that enumerates neither (this KVM guest): nothing (%lld)", hz);
  hz = cpucycles_tscrate_cpuid(1, 1, 5, 0, &source);
  tap_ok(hz == 0, "an absurd 5 Hz is refused (%lld)", hz);
  /* VMware: leaf 0x40000010 eax = TSC kHz */
  hz = cpucycles_tscrate_hypervisor(0x40000010, 2593906);
  tap_ok(hz == 2593906000LL, "hypervisor leaf 0x40000010, 2593906 kHz: %lld", hz);
  hz = cpucycles_tscrate_hypervisor(0x40000001, 2593906);
  tap_ok(hz == 0, "a hypervisor without the leaf (KVM here: max 0x40000001): nothing (%lld)", hz);

  snprintf(path, sizeof path, "t-tscrate-%ld.tmp", (long)getpid());
  f = fopen(path, "w");
  if (f) fputs("2592000\n", f), fclose(f);
  hz = cpucycles_persecond_from_tsc_khz_file(path);
  tap_ok(hz == 2592000000LL, "tsc_freq_khz 2592000: %lld", hz);
  f = fopen(path, "w");
  if (f) fputs("2592000 kHz\n", f), fclose(f);
  hz = cpucycles_persecond_from_tsc_khz_file(path);
  tap_ok(hz == 0, "tsc_freq_khz with junk is refused (%lld)", hz);
  remove(path);
  return tap_done();
}
