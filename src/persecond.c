/* persecond.c - see persecond.h. */
#include "persecond.h"
#include <ctype.h>
#include <errno.h>
#include <math.h> /* isnan, isinf: macros, no libm */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__APPLE__) || defined(__FreeBSD__) || defined(__NetBSD__) || defined(__OpenBSD__)
#include <sys/types.h>
#include <sys/sysctl.h>
#define CPUCYCLES_HAVE_SYSCTL 1
#endif

int cpucycles_parse_persecond(const char *text, long long *hz, const char **why)
{
  char *end;
  double value;
  while (isspace((unsigned char)*text)) text++;
  if (!*text) {
    *why = "empty";
    return 0;
  }
  errno = 0;
  value = strtod(text, &end);
  if (end == text) {
    *why = "not a number";
    return 0;
  }
  while (isspace((unsigned char)*end)) end++;
  if (*end) {
    *why = "trailing junk after the number";
    return 0;
  }
  if (isnan(value) || isinf(value) || errno == ERANGE) {
    *why = "not a finite number";
    return 0;
  }
  if (value <= 0) {
    *why = "not positive";
    return 0;
  }
  if (value < (double)CPUCYCLES_PERSECOND_MIN || value > (double)CPUCYCLES_PERSECOND_MAX) {
    *why = "outside 1 MHz to 100 GHz";
    return 0;
  }
  *hz = (long long)(value + 0.5);
  return 1;
}

/* The start of the file ("" for an empty one), or 0 when it cannot be
 * opened.  Everything in it must parse, so junk on a later line counts. */
static int read_file(const char *path, char *buf, size_t len)
{
  FILE *f = fopen(path, "r");
  size_t got;
  if (!f) return 0;
  got = fread(buf, 1, len - 1, f);
  buf[got] = 0;
  fclose(f);
  return 1;
}

/* /proc/cpuinfo lines such as "cpu MHz : 2596.134" (x86), "clock :
 * 3000.000000MHz" (ppc), "CPU MHz: 1500" (some riscv, loongarch). */
static long long cpuinfo_mhz(void)
{
  static const char *const keys[] = {"cpu MHz", "clock", "CPU MHz", "cpu MHz dynamic"};
  char line[256];
  FILE *f = fopen("/proc/cpuinfo", "r");
  long long hz = 0;
  size_t k;
  if (!f) return 0;
  while (!hz && fgets(line, sizeof line, f)) {
    for (k = 0; k < sizeof keys / sizeof keys[0]; k++) {
      size_t n = strlen(keys[k]);
      const char *colon = strchr(line, ':');
      double mhz;
      if (strncmp(line, keys[k], n) != 0 || !colon) continue;
      if (strspn(line + n, " \t") != (size_t)(colon - line - (long)n)) continue;
      mhz = strtod(colon + 1, 0);
      if (mhz * 1e6 >= (double)CPUCYCLES_PERSECOND_MIN && mhz * 1e6 <= (double)CPUCYCLES_PERSECOND_MAX)
        hz = (long long)(mhz * 1e6 + 0.5);
      break;
    }
  }
  fclose(f);
  return hz;
}

long long cpucycles_persecond_from_os(void)
{
  char line[64];
  long long hz;
  /* cpufreq reports kHz */
  if (read_file("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq", line, sizeof line)) {
    double khz = strtod(line, 0);
    if (khz * 1e3 >= (double)CPUCYCLES_PERSECOND_MIN && khz * 1e3 <= (double)CPUCYCLES_PERSECOND_MAX)
      return (long long)(khz * 1e3 + 0.5);
  }
  hz = cpuinfo_mhz();
  if (hz) return hz;
#if defined(CPUCYCLES_HAVE_SYSCTL) && defined(__APPLE__)
  {
    unsigned long long value = 0;
    size_t len = sizeof value;
    if (sysctlbyname("hw.cpufrequency", &value, &len, 0, 0) == 0 && value > 0) return (long long)value;
  }
#endif
  return 0;
}

static void note_problem(struct cpucycles_persecond_report *r, const char *what,
                         const char *value, const char *why)
{
  size_t used = strlen(r->problems);
  snprintf(r->problems + used, sizeof r->problems - used, "%s%s '%.40s': %s",
           used ? "; " : "", what, value, why);
}

/* Newlines and other controls as '?', so that a report stays one line. */
static void flatten(char *s)
{
  for (; *s; s++)
    if (iscntrl((unsigned char)*s)) *s = '?';
}

long long cpucycles_persecond_resolve(const char *etc_path, const char *env_value,
                                      long long build_hz,
                                      struct cpucycles_persecond_report *r)
{
  char line[128];
  const char *why;
  long long hz;

  r->problems[0] = 0;
  if (etc_path && read_file(etc_path, line, sizeof line)) {
    if (cpucycles_parse_persecond(line, &hz, &why)) {
      r->source = etc_path;
      return r->hz = hz;
    }
    flatten(line);
    note_problem(r, etc_path, line, why);
  }
  if (env_value) {
    if (cpucycles_parse_persecond(env_value, &hz, &why)) {
      r->source = "environment variable cpucyclespersecond";
      return r->hz = hz;
    }
    snprintf(line, sizeof line, "%s", env_value);
    flatten(line);
    note_problem(r, "environment variable cpucyclespersecond", line, why);
  }
  if (build_hz > 0) {
    r->source = "configure-time measurement (same host)";
    return r->hz = build_hz;
  }
  hz = cpucycles_persecond_from_os();
  if (hz) {
    r->source = "operating system";
    return r->hz = hz;
  }
  r->source = "default";
  return r->hz = CPUCYCLES_PERSECOND_DEFAULT;
}
