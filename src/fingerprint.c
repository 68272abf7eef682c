/* fingerprint.c - see fingerprint.h. */
#include "fingerprint.h"
#include "text.h"
#ifndef CPUCYCLES_COUNTER_SETUP
#define CPUCYCLES_COUNTER_SETUP 1 /* for readfile.h */
#endif
#include "cpucycles/readfile.h"
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
  /* "x86 VENDOR family F model M stepping S tsc=T rdtscp=R invariant_tsc=I
   * pmu=P", without stdio (text.h): the first call may be in a handler */
  {
    static const char *const names[] = {" family ", " model ", " stepping ", " tsc=",
                                        " rdtscp=", " invariant_tsc=", " pmu="};
    const unsigned int values[] = {family, model, stepping, tsc, rdtscp, invariant, pmu_version};
    size_t i;
    buf[0] = 0;
    cpucycles_text_add_str(buf, len, "x86 ");
    cpucycles_text_add_str(buf, len, vendor);
    for (i = 0; i < sizeof values / sizeof values[0]; i++) {
      cpucycles_text_add_str(buf, len, names[i]);
      cpucycles_text_add_number(buf, len, values[i]);
    }
  }
}
#endif

#if !(defined(__x86_64__) || defined(__i386__)) || defined(CPUCYCLES_FUZZING)
/* The identity a /proc/cpuinfo line gives: the value of a "model name",
 * "cpu model", "uarch", "cpu", "CPU part" or "CPU implementer" line, into
 * buf (cut to len - 1 bytes).  Returns 1 when it is one, with a value.
 * (Compiled on x86 too for the fuzzer, tests/fuzz/fuzz-cpuinfo.c.) */
static int cpucycles_fingerprint_cpuinfo_line(const char *line, char *buf, size_t len)
{
  static const char *const keys[] = {"model name", "cpu model", "uarch", "cpu", "CPU part",
                                     "CPU implementer"};
  const char *value = 0;
  size_t k, n = 0;
  for (k = 0; !value && k < sizeof keys / sizeof keys[0]; k++)
    value = cpucycles_cpuinfo_value(line, keys[k]);
  if (!value) return 0;
  while (*value == ' ' || *value == '\t') value++;
  for (; value[n] && value[n] != '\n' && n + 1 < len; n++) buf[n] = value[n];
  buf[n] = 0;
  return n > 0;
}
#endif

#if !(defined(__x86_64__) || defined(__i386__))
struct cpucycles_fingerprint_identity {
  char *buf;
  size_t len;
};

static int cpucycles_fingerprint_identity_line(void *ctx, const char *line, size_t len)
{
  struct cpucycles_fingerprint_identity *id = (struct cpucycles_fingerprint_identity *)ctx;
  (void)len;
  return cpucycles_fingerprint_cpuinfo_line(line, id->buf, id->len);
}

/* The first identity line of /proc/cpuinfo, or "".  Read with open/read
 * (readfile.h): the first call runs this, and must be async-signal-safe. */
static void cpucycles_fingerprint_cpuinfo(char *buf, size_t len)
{
  char chunk[512];
  struct cpucycles_fingerprint_identity id;
  id.buf = buf;
  id.len = len;
  buf[0] = 0;
  cpucycles_readfile_lines("/proc/cpuinfo", chunk, sizeof chunk,
                           cpucycles_fingerprint_identity_line, &id);
}
#endif

void cpucycles_fingerprint(char *buf, size_t len)
{
#if defined(__x86_64__) || defined(__i386__)
  x86_fingerprint(buf, len);
#else
  struct utsname u;
  char identity[96];
  cpucycles_fingerprint_cpuinfo(identity, sizeof identity);
  buf[0] = 0;
  cpucycles_text_add_str(buf, len, uname(&u) == 0 ? u.machine : "unknown");
  cpucycles_text_add_str(buf, len, " ");
  cpucycles_text_add_str(buf, len, identity[0] ? identity : "(no cpuinfo)");
#endif
}
