/* SPDX-License-Identifier: MIT */
/* persecond.c - see persecond.h.
 *
 * This runs inside the library's first call, which must be
 * async-signal-safe: files are read with open/read into stack buffers
 * (src/core/setup/readfile.h), the report is built without stdio, and errno is
 * left as the caller had it.  Numbers are read by
 * cpucycles_parse_decimal() (readfile.h), in the C locale whatever the
 * program's. */
#include "persecond.h"
#include "cpucycles/counter.h"
#include "text.h"
#include "tscrate.h"
#include "counter-setup.h"
#include "readfile.h"
#include <errno.h>
#include <math.h> /* isnan, isinf: macros, no libm */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if defined(__APPLE__) || defined(__FreeBSD__) || defined(__NetBSD__) || defined(__OpenBSD__)
#include <sys/types.h>
#include <sys/sysctl.h>
#define CPUCYCLES_HAVE_SYSCTL 1
#define CPUCYCLES_HAVE_ISSETUGID 1
#endif
#if defined(__linux__)
#include <sys/auxv.h>
#endif

#define CPUCYCLES_PERSECOND_CPUFREQ "/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq"
#define CPUCYCLES_PERSECOND_STRING(x) CPUCYCLES_PERSECOND_STRING_(x)
#define CPUCYCLES_PERSECOND_STRING_(x) #x

/* isspace() in the C locale, whatever the program's locale. */
CPUCYCLES_COLD static int cpucycles_persecond_blank(char c)
{
  return c == ' ' || (c >= '\t' && c <= '\r');
}

/* 1 when hz is a plausible CPU frequency, else 0 with *why set. */
CPUCYCLES_COLD static int cpucycles_persecond_in_range(double hz, const char **why)
{
  if (hz <= 0) {
    *why = "not positive";
    return 0;
  }
  /* written so that NaN is outside too */
  if (!(hz >= (double)CPUCYCLES_PERSECOND_MIN && hz <= (double)CPUCYCLES_PERSECOND_MAX)) {
    *why = "outside 1 MHz to 100 GHz";
    return 0;
  }
  return 1;
}

/* The one number in text, blanks around it allowed, times unit (1 for Hz,
 * 1e3 for kHz), as a plausible frequency in Hz. */
CPUCYCLES_COLD static int cpucycles_persecond_parse(const char *text, double unit, long long *hz,
                                                    const char **why)
{
  const char *end;
  double value;
  while (cpucycles_persecond_blank(*text)) text++;
  if (!*text) {
    *why = "empty";
    return 0;
  }
  value = cpucycles_parse_decimal(text, &end);
  if (end == text) {
    *why = "not a number";
    return 0;
  }
  while (cpucycles_persecond_blank(*end)) end++;
  if (*end) {
    *why = "trailing junk after the number";
    return 0;
  }
  if (isnan(value) || isinf(value)) {
    *why = "not a finite number";
    return 0;
  }
  if (!cpucycles_persecond_in_range(value * unit, why)) return 0;
  *hz = (long long)(value * unit + 0.5);
  return 1;
}

CPUCYCLES_COLD int cpucycles_parse_persecond(const char *text, long long *hz, const char **why)
{
  return cpucycles_persecond_parse(text, 1, hz, why);
}

/* A C-string parse would stop at a NUL and trust what comes before it. */
CPUCYCLES_COLD int cpucycles_parse_persecond_file(const char *buf, size_t len, long long *hz,
                                                  const char **why)
{
  if (memchr(buf, 0, len)) {
    *why = "contains a NUL byte";
    return 0;
  }
  return cpucycles_persecond_parse(buf, 1, hz, why);
}

CPUCYCLES_COLD long long cpucycles_parse_cpufreq(const char *buf, size_t len)
{
  long long hz;
  const char *why;
  if (memchr(buf, 0, len)) return 0;
  return cpucycles_persecond_parse(buf, 1e3, &hz, &why) ? hz : 0;
}

/* The kernel's TSC rate in kHz, where it exposes it (some kernels have
 * /sys/devices/system/cpu/cpu0/tsc_freq_khz), or 0. */
CPUCYCLES_COLD long long cpucycles_persecond_from_tsc_khz_file(const char *path)
{
  char buf[64];
  const char *why;
  ssize_t len = cpucycles_readfile(path, buf, sizeof buf, &why);
  return len > 0 ? cpucycles_parse_cpufreq(buf, (size_t)len) : 0;
}

/* The MHz figure may have a unit after it ("3000.000000MHz"), so only the
 * number's start is checked. */
CPUCYCLES_COLD long long cpucycles_parse_cpuinfo_mhz(const char *line)
{
  static const char *const keys[] = {"cpu MHz", "clock", "CPU MHz", "cpu MHz dynamic"};
  const char *value, *why, *end;
  size_t k;
  double mhz;
  for (k = 0; k < sizeof keys / sizeof keys[0]; k++) {
    value = cpucycles_cpuinfo_value(line, keys[k]);
    if (!value) continue;
    mhz = cpucycles_parse_decimal(value, &end);
    return cpucycles_persecond_in_range(mhz * 1e6, &why) ? (long long)(mhz * 1e6 + 0.5) : 0;
  }
  return 0;
}

/* Stops the scan of /proc/cpuinfo at the first line with a frequency. */
CPUCYCLES_COLD static int cpucycles_persecond_cpuinfo_line(void *hz, const char *line, size_t len)
{
  (void)len;
  *(long long *)hz = cpucycles_parse_cpuinfo_mhz(line);
  return *(long long *)hz != 0;
}

CPUCYCLES_COLD long long cpucycles_persecond_from_os(void)
{
  /* cpufreq's value is a few digits; the lines of /proc/cpuinfo read here
   * are short (longer ones, such as x86's "flags", are cut at 511 bytes) */
  char buf[512];
  const char *why;
  ssize_t len;
  long long hz = 0;
  len = cpucycles_readfile(CPUCYCLES_PERSECOND_CPUFREQ, buf, 64, &why);
  if (len >= 0) hz = cpucycles_parse_cpufreq(buf, (size_t)len);
  if (!hz)
    cpucycles_readfile_lines("/proc/cpuinfo", buf, sizeof buf, cpucycles_persecond_cpuinfo_line,
                             &hz);
#if defined(CPUCYCLES_HAVE_SYSCTL) && defined(__APPLE__)
  if (!hz) {
    unsigned long long value = 0;
    size_t size = sizeof value;
    int saved = errno;
    if (sysctlbyname("hw.cpufrequency", &value, &size, 0, 0) == 0 && value > 0)
      hz = (long long)value;
    errno = saved;
  }
#endif
  return hz;
}

/* The report, appended to without stdio (text.h): "what 'value': why",
 * after a "; " when there is a problem already; value (len bytes, of
 * which 40 are shown) may be 0. */
CPUCYCLES_COLD static void cpucycles_persecond_note(struct cpucycles_persecond_report *r,
                                                    const char *what, const char *value, size_t len,
                                                    const char *why)
{
  const char *separator = r->problems[0] ? "; " : "";
  /* a file written by echo ends in a newline, which is not the value's
   * (other control characters stay '?', as in every message) */
  while (value && len > 0 && value[len - 1] == '\n') len--;
  if (value)
    cpucycles_text_format(r->problems, sizeof r->problems, "%s%s '%.*s': %s", separator, what,
                          (int)(len < 40 ? len : 40), value, why);
  else
    cpucycles_text_format(r->problems, sizeof r->problems, "%s%s: %s", separator, what, why);
}

/* The file at path: 1 with *hz set; 0 when there is no such file (the
 * normal case, not reported) or it is not usable (reported). */
CPUCYCLES_COLD static int cpucycles_persecond_from_file(const char *path,
                                                        struct cpucycles_persecond_report *r,
                                                        long long *hz)
{
  char buf[CPUCYCLES_PERSECOND_FILE_MAX + 1];
  const char *why;
  ssize_t len = cpucycles_readfile(path, buf, sizeof buf, &why);
  if (len == CPUCYCLES_READFILE_MISSING) return 0;
  if (len == CPUCYCLES_READFILE_TOO_LARGE)
    why = "too large (more than " CPUCYCLES_PERSECOND_STRING(CPUCYCLES_PERSECOND_FILE_MAX)
          " bytes)";
  if (len >= 0 && cpucycles_parse_persecond_file(buf, (size_t)len, hz, &why)) return 1;
  cpucycles_persecond_note(r, path, len >= 0 ? buf : 0, len >= 0 ? (size_t)len : 0, why);
  return 0;
}

/* 1 when the process has rights its caller may lack (setuid, setgid,
 * file capabilities, an LSM transition: the kernel's AT_SECURE): then its
 * environment is the caller's and steers nothing. */
CPUCYCLES_COLD static int cpucycles_persecond_privileged(void)
{
#if defined(__linux__) && defined(AT_SECURE)
  return getauxval(AT_SECURE) != 0;
#elif defined(CPUCYCLES_HAVE_ISSETUGID)
  return issetugid() != 0;
#else
  return getuid() != geteuid() || getgid() != getegid();
#endif
}

CPUCYCLES_COLD static int cpucycles_persecond_from_env(const char *value,
                                                       struct cpucycles_persecond_report *r,
                                                       long long *hz)
{
  const char *why;
  if (cpucycles_persecond_privileged()) {
    /* the value is not shown either: it is the caller's text */
    cpucycles_persecond_note(r, "environment variable cpucyclespersecond", 0, 0,
                             "ignored in a privileged (setuid, setgid or capability) process");
    return 0;
  }
  if (cpucycles_parse_persecond(value, hz, &why)) return 1;
  cpucycles_persecond_note(r, "environment variable cpucyclespersecond", value, strlen(value),
                           why);
  return 0;
}

/* The configure-time figure is checked like the others: a broken
 * measurement or a hand-edited cpucycles-config.h must not be trusted. */
CPUCYCLES_COLD static int cpucycles_persecond_from_build(long long build_hz,
                                                         struct cpucycles_persecond_report *r)
{
  const char *why;
  if (cpucycles_persecond_in_range((double)build_hz, &why)) return 1;
  cpucycles_text_format(r->problems, sizeof r->problems, "%sconfigure-time figure %lld: %s",
                        r->problems[0] ? "; " : "", build_hz, why);
  return 0;
}

CPUCYCLES_COLD long long cpucycles_persecond_from_host(const char **source)
{
  long long hz;
#if defined(CPUCYCLES_HAVE_TSCRATE)
  hz = cpucycles_tscrate_here(source);
  if (hz) return hz;
#endif
  hz = cpucycles_persecond_from_tsc_khz_file("/sys/devices/system/cpu/cpu0/tsc_freq_khz");
  if (hz) {
    *source = "kernel's tsc_freq_khz";
    return hz;
  }
  hz = cpucycles_persecond_from_os();
  if (hz) *source = "operating system";
  return hz;
}

/* libcpucycles' order: the file overrides all; the OS mechanisms next (our
 * configure-time measurement of this very host first among them); the
 * variable only when none of them answers; then the default. */
CPUCYCLES_COLD static long long cpucycles_persecond_choose(const char *etc_path,
                                                           const char *env_value,
                                                           long long build_hz,
                                                           long long (*host)(const char **source),
                                                           struct cpucycles_persecond_report *r)
{
  long long hz;
  if (etc_path && cpucycles_persecond_from_file(etc_path, r, &hz)) {
    r->source = etc_path;
    return hz;
  }
  if (build_hz != 0 && cpucycles_persecond_from_build(build_hz, r)) {
    r->source = "configure-time measurement (same host)";
    return build_hz;
  }
  hz = host(&r->source);
  if (hz) return hz;
  if (env_value && cpucycles_persecond_from_env(env_value, r, &hz)) {
    r->source = "environment variable cpucyclespersecond";
    return hz;
  }
  r->source = "default";
  return CPUCYCLES_PERSECOND_DEFAULT;
}

CPUCYCLES_COLD long long cpucycles_persecond_resolve_with(const char *etc_path,
                                                          const char *env_value, long long build_hz,
                                                          long long (*host)(const char **source),
                                                          struct cpucycles_persecond_report *r)
{
  int saved = errno;
  r->problems[0] = 0;
  r->hz = cpucycles_persecond_choose(etc_path, env_value, build_hz, host, r);
  errno = saved;
  return r->hz;
}

CPUCYCLES_COLD long long cpucycles_persecond_resolve(const char *etc_path, const char *env_value,
                                                     long long build_hz,
                                                     struct cpucycles_persecond_report *r)
{
  return cpucycles_persecond_resolve_with(etc_path, env_value, build_hz,
                                          cpucycles_persecond_from_host, r);
}
