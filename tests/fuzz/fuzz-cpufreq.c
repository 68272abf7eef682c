/* SPDX-License-Identifier: MIT */
/* fuzz-cpufreq - libFuzzer harness for the value of cpufreq's
 * /sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq (kHz), as
 * cpucycles_persecond_from_os() reads it.  Build and run: tests/fuzz/run.sh.
 *
 * Checked besides the sanitizers: the result is 0 or a plausible frequency,
 * 0 whenever the text holds a NUL. */
#include "persecond.c"
#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  char *text;
  long long hz;
  /* cpucycles_persecond_from_os() reads at most 63 bytes: longer is
   * "too large" and never parsed, but the parser must not care */
  text = malloc(size + 1);
  if (!text) return 0;
  memcpy(text, data, size);
  text[size] = 0;
  hz = cpucycles_parse_cpufreq(text, size);
  if (hz != 0 && (hz < CPUCYCLES_PERSECOND_MIN || hz > CPUCYCLES_PERSECOND_MAX)) abort();
  if (hz != 0 && memchr(text, 0, size)) abort();
  free(text);
  return 0;
}
