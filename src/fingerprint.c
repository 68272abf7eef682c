/* fingerprint.c - see fingerprint.h. */
#include "fingerprint.h"
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>

static void x86_fingerprint(char *buf, size_t len)
{
  unsigned int a, b, c, d, max_basic, max_ext, family, model, stepping;
  unsigned int tsc, rdtscp = 0, invariant = 0, pmu_version = 0;
  char vendor[13];

  __cpuid(0, max_basic, b, c, d);
  memcpy(vendor, &b, 4);
  memcpy(vendor + 4, &d, 4);
  memcpy(vendor + 8, &c, 4);
  vendor[12] = 0;

  __cpuid(1, a, b, c, d);
  stepping = a & 0xf;
  family = (a >> 8) & 0xf;
  model = (a >> 4) & 0xf;
  if (family == 0xf) family += (a >> 20) & 0xff;
  if (family >= 6) model += ((a >> 16) & 0xf) << 4;
  tsc = (d >> 4) & 1;

  if (max_basic >= 0xa) {
    __cpuid(0xa, a, b, c, d);
    pmu_version = a & 0xff;
  }
  __cpuid(0x80000000, max_ext, b, c, d);
  if (max_ext >= 0x80000001) {
    __cpuid(0x80000001, a, b, c, d);
    rdtscp = (d >> 27) & 1;
  }
  if (max_ext >= 0x80000007) {
    __cpuid(0x80000007, a, b, c, d);
    invariant = (d >> 8) & 1;
  }
  snprintf(buf, len, "x86 %s family %u model %u stepping %u tsc=%u rdtscp=%u invariant_tsc=%u pmu=%u",
           vendor, family, model, stepping, tsc, rdtscp, invariant, pmu_version);
}
#else

/* First "model name", "cpu model", "uarch", "cpu", "CPU part" line. */
static void cpuinfo_identity(char *buf, size_t len)
{
  static const char *const keys[] = {"model name", "cpu model", "uarch", "cpu", "CPU part",
                                     "CPU implementer"};
  char line[256];
  FILE *f = fopen("/proc/cpuinfo", "r");
  size_t k;
  buf[0] = 0;
  if (!f) return;
  while (!buf[0] && fgets(line, sizeof line, f)) {
    for (k = 0; k < sizeof keys / sizeof keys[0]; k++) {
      const char *colon = strchr(line, ':');
      size_t n = strlen(keys[k]);
      /* the whole key: "cpu" must not match "cpu family" */
      if (!colon || strncmp(line, keys[k], n) != 0 ||
          strspn(line + n, " \t") != (size_t)(colon - line) - n)
        continue;
      colon++;
      while (*colon == ' ' || *colon == '\t') colon++;
      snprintf(buf, len, "%s", colon);
      buf[strcspn(buf, "\n")] = 0;
      break;
    }
  }
  fclose(f);
}
#endif

void cpucycles_fingerprint(char *buf, size_t len)
{
#if defined(__x86_64__) || defined(__i386__)
  x86_fingerprint(buf, len);
#else
  struct utsname u;
  char identity[96];
  cpuinfo_identity(identity, sizeof identity);
  if (uname(&u) != 0) snprintf(u.machine, sizeof u.machine, "unknown");
  snprintf(buf, len, "%s %s", u.machine, identity[0] ? identity : "(no cpuinfo)");
#endif
}
