/* SPDX-License-Identifier: MIT */
/* fingerprint.c - see fingerprint.h. */
#include "fingerprint.h"
#include "cpucycles/counter.h"
#include "text.h"
#include "counter-setup.h"
#include "readfile.h"
#include <string.h>
#include <sys/utsname.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#if defined(__GLIBC__) && defined(__has_include)
#if __has_include(<sys/platform/x86.h>)
#include <sys/platform/x86.h>
#define CPUCYCLES_GLIBC_CPUID 1
#endif
#endif

/* The registers (eax, ebx, ecx, edx) of one CPUID leaf.  Under KVM every
 * CPUID instruction is a VM exit costing several microseconds, so where
 * glibc has cached the leaves at start-up (2.33 and later,
 * <sys/platform/x86.h>) they are taken from there: leaf 1, 0x80000001 and
 * 0x80000007 are among them; an unknown leaf reads as zeros. */
CPUCYCLES_COLD static void x86_leaf(unsigned int leaf, unsigned int r[4])
{
#if defined(CPUCYCLES_GLIBC_CPUID)
  const struct cpuid_feature *f = __x86_get_cpuid_feature_leaf(
      leaf == 1 ? CPUID_INDEX_1 : leaf == 0x80000001 ? CPUID_INDEX_80000001 : CPUID_INDEX_80000007);
  memcpy(r, f->cpuid_array, 4 * sizeof r[0]);
#else
  unsigned int top = __get_cpuid_max(leaf & 0x80000000, 0);
  r[0] = r[1] = r[2] = r[3] = 0;
  if (top >= leaf) __cpuid(leaf, r[0], r[1], r[2], r[3]);
#endif
}

/* "x86 family F model M stepping S features ECX:EDX tsc=T rdtscp=R
 * invariant_tsc=I": the processor's signature and leaf 1's feature words
 * (which tell vendors and models apart, and change when a VM moves to
 * another host), and the bits the counters depend on.  Built without stdio
 * (text.h): the first call may be in a handler. */
CPUCYCLES_COLD static void x86_fingerprint(char *buf, size_t len)
{
  unsigned int one[4], ext1[4], ext7[4], family, model;

  x86_leaf(1, one);
  x86_leaf(0x80000001, ext1);
  x86_leaf(0x80000007, ext7);
  family = (one[0] >> 8) & 0xf;
  model = (one[0] >> 4) & 0xf;
  if (family == 0xf) family += (one[0] >> 20) & 0xff;
  if (family >= 6) model += ((one[0] >> 16) & 0xf) << 4;
  buf[0] = 0;
  cpucycles_text_format(buf, len,
                        "x86 family %u model %u stepping %u features 0x%08x:0x%08x tsc=%u rdtscp=%u "
                        "invariant_tsc=%u",
                        family, model, one[0] & 0xf, one[2], one[3], (one[3] >> 4) & 1 /* TSC */,
                        (ext1[3] >> 27) & 1 /* RDTSCP */, (ext7[3] >> 8) & 1 /* invariant TSC */);
}
#endif

#if !(defined(__x86_64__) || defined(__i386__)) || defined(CPUCYCLES_FUZZING)
/* The identity a /proc/cpuinfo line gives: the value of a "model name",
 * "cpu model", "uarch", "cpu", "CPU part" or "CPU implementer" line, into
 * buf (cut to len - 1 bytes).  Returns 1 when it is one, with a value.
 * (Compiled on x86 too for the fuzzer, tests/fuzz/fuzz-cpuinfo.c.) */
CPUCYCLES_COLD static int cpucycles_fingerprint_cpuinfo_line(const char *line, char *buf,
                                                             size_t len)
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

CPUCYCLES_COLD static int cpucycles_fingerprint_identity_line(void *ctx, const char *line,
                                                              size_t len)
{
  struct cpucycles_fingerprint_identity *id = (struct cpucycles_fingerprint_identity *)ctx;
  (void)len;
  return cpucycles_fingerprint_cpuinfo_line(line, id->buf, id->len);
}

/* The first identity line of /proc/cpuinfo, or "".  Read with open/read
 * (readfile.h): the first call runs this, and must be async-signal-safe. */
CPUCYCLES_COLD static void cpucycles_fingerprint_cpuinfo(char *buf, size_t len)
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

CPUCYCLES_COLD void cpucycles_fingerprint(char *buf, size_t len)
{
#if defined(__x86_64__) || defined(__i386__)
  x86_fingerprint(buf, len);
#else
  struct utsname u;
  char identity[96];
  cpucycles_fingerprint_cpuinfo(identity, sizeof identity);
  buf[0] = 0;
  cpucycles_text_format(buf, len, "%s %s", uname(&u) == 0 ? u.machine : "unknown",
                        identity[0] ? identity : "(no cpuinfo)");
#endif
}
