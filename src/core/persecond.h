/* SPDX-License-Identifier: MIT */
/* persecond.h - the CPU frequency estimate behind cpucycles_persecond(). */
#ifndef CPUCYCLES_PERSECOND_H
#define CPUCYCLES_PERSECOND_H
#include <stddef.h>
#include "hidden.h"
CPUCYCLES_HIDDEN_BEGIN

/* Used when nothing else gives a frequency: in the range of real CPUs and
 * close to multiples of the common 24 MHz, 25 MHz and 19.2 MHz crystals. */
#define CPUCYCLES_PERSECOND_DEFAULT 2399987654LL

/* Plausible CPU frequencies; anything outside is rejected as a typo. */
#define CPUCYCLES_PERSECOND_MIN 1000000LL        /* 1 MHz */
#define CPUCYCLES_PERSECOND_MAX 100000000000LL   /* 100 GHz */

/* Parses a frequency in Hz ("2400000000", "2.4e9", surrounding blanks and a
 * newline allowed).  Returns 1 and sets *hz, or 0 with *why set (empty,
 * not a number, trailing junk, <= 0, not finite, out of range). */
int cpucycles_parse_persecond(const char *text, long long *hz, const char **why);

/* /etc/cpucyclespersecond is read whole, up to this size; a larger file is
 * reported as too large and ignored. */
#define CPUCYCLES_PERSECOND_FILE_MAX 4096

/* The contents of a frequency file: len bytes at buf, with buf[len] == 0.
 * As cpucycles_parse_persecond(), and a NUL byte anywhere is refused. */
int cpucycles_parse_persecond_file(const char *buf, size_t len, long long *hz,
                                   const char **why);

/* cpufreq's cpuinfo_max_freq (kHz, "3500000\n"): len bytes at buf, with
 * buf[len] == 0.  Returns the Hz, or 0 for anything else. */
long long cpucycles_parse_cpufreq(const char *buf, size_t len);

/* The kHz figure in the file at path (the kernel's tsc_freq_khz), as Hz,
 * or 0. */
long long cpucycles_persecond_from_tsc_khz_file(const char *path);

/* One line of /proc/cpuinfo: the Hz of a "cpu MHz : 2596.134" (x86),
 * "clock : 3000.000000MHz" (ppc), "CPU MHz : 2500.00" (loongarch, some
 * riscv) or "cpu MHz dynamic : 5200" (s390x) line, else 0. */
long long cpucycles_parse_cpuinfo_mhz(const char *line);

/* What the OS says: cpufreq's cpuinfo_max_freq, then /proc/cpuinfo
 * ("cpu MHz", "clock", "CPU MHz"), then sysctl hw.cpufrequency on macOS.  Returns 0 when it says nothing usable.  Leaves errno alone. */
long long cpucycles_persecond_from_os(void);

/* Where each candidate came from, and what went wrong with those skipped. */
struct cpucycles_persecond_report {
  long long hz;
  const char *source;     /* "/etc/cpucyclespersecond", "environment", ... */
  char problems[512];     /* "environment cpucyclespersecond='abc': not a number; " */
};

/* What the host says: on x86 the TSC's rate as the hardware states it
 * (CPUID, tscrate.h) and the kernel's tsc_freq_khz, then the OS
 * (cpucycles_persecond_from_os()); 0 when nothing answers, else the Hz
 * with *source set. */
long long cpucycles_persecond_from_host(const char **source);

/* libcpucycles' order: the file at etc_path overrides all; then build_hz
 * (the configure-time figure, 0 when this host is not the build host);
 * then the host (cpucycles_persecond_from_host()); then, only when none
 * of those answers, env_value (the value of the cpucyclespersecond
 * variable, or NULL); then the default.  env_value is ignored (and
 * reported) in a privileged process (setuid, setgid, file capabilities:
 * AT_SECURE).  Never fails.  A file that does not exist is skipped
 * silently; one that cannot be read, is not a regular file or does not
 * parse whole, a bad variable and a build_hz out of range are skipped and
 * reported.  Async-signal-safe (open/read only, no stdio, no malloc);
 * errno is left as the caller had it. */
long long cpucycles_persecond_resolve(const char *etc_path, const char *env_value,
                                      long long build_hz,
                                      struct cpucycles_persecond_report *report);
/* The same, with host asked in cpucycles_persecond_from_host()'s place
 * (the tests' stand-in for a host that answers, or does not). */
long long cpucycles_persecond_resolve_with(const char *etc_path, const char *env_value,
                                           long long build_hz,
                                           long long (*host)(const char **source),
                                           struct cpucycles_persecond_report *report);

CPUCYCLES_HIDDEN_END
#endif
