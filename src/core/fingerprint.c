/* SPDX-License-Identifier: MIT */
/* fingerprint.c - see fingerprint.h. */
#include "fingerprint.h"
#include "cpucycles/counter.h"
#include "text.h"
#include "counter-setup.h"
#include "readfile.h"
#include <string.h>
#include <sys/utsname.h>

/* The fingerprint being written from /proc/cpuinfo, and which keys it has. */
struct cpucycles_cpuinfo_identity {
  char *buf;
  size_t len;
  unsigned long seen; /* bit k: cpucycles_cpuinfo_keys[k] is in buf */
};

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

/* "x86 family F model M stepping S features 0xECX:0xEDX tsc=T rdtscp=R
 * invariant_tsc=I": the processor's signature and leaf 1's feature words
 * (which tell vendors and models apart, and change when a VM moves to
 * another host), and the bits the counters depend on.  Built without stdio
 * (the first call may be in a handler) and libc's string functions
 * (text.h's cursor). */
CPUCYCLES_COLD static void x86_fingerprint(char *buf, size_t len)
{
  unsigned int one[4], ext1[4], ext7[4], family, model;
  struct cpucycles_cursor t;

  if (len == 0) return;
  cpucycles_cursor_start(&t, buf, len);
  x86_leaf(1, one);
  x86_leaf(0x80000001, ext1);
  x86_leaf(0x80000007, ext7);
  family = (one[0] >> 8) & 0xf;
  model = (one[0] >> 4) & 0xf;
  if (family == 0xf) family += (one[0] >> 20) & 0xff;
  if (family >= 6) model += ((one[0] >> 16) & 0xf) << 4;
  cpucycles_cursor_put(&t, "x86 family ");
  cpucycles_cursor_put_number(&t, family, 10, 1);
  cpucycles_cursor_put(&t, " model ");
  cpucycles_cursor_put_number(&t, model, 10, 1);
  cpucycles_cursor_put(&t, " stepping ");
  cpucycles_cursor_put_number(&t, one[0] & 0xf, 10, 1);
  cpucycles_cursor_put(&t, " features 0x");
  cpucycles_cursor_put_number(&t, one[2], 16, 8);
  cpucycles_cursor_put(&t, ":0x");
  cpucycles_cursor_put_number(&t, one[3], 16, 8);
  cpucycles_cursor_put(&t, " tsc=");
  cpucycles_cursor_put_number(&t, (one[3] >> 4) & 1, 10, 1); /* TSC */
  cpucycles_cursor_put(&t, " rdtscp=");
  cpucycles_cursor_put_number(&t, (ext1[3] >> 27) & 1, 10, 1); /* RDTSCP */
  cpucycles_cursor_put(&t, " invariant_tsc=");
  cpucycles_cursor_put_number(&t, (ext7[3] >> 8) & 1, 10, 1); /* invariant TSC */
}
#endif

#if !(defined(__x86_64__) || defined(__i386__)) || defined(CPUCYCLES_FINGERPRINT_CPUINFO)
/* What identifies the processor in the /proc/cpuinfo of each
 * architecture's kernel (its first CPU's lines; a line seen before is not
 * taken again):
 *   arm32, arm64   CPU implementer, variant, part, revision (the MIDR
 *                  fields), model name, Features
 *   riscv          mvendorid, marchid, mimpid (the machine ID registers),
 *                  uarch, isa
 *   ppc            cpu, revision (the PVR), timebase, machine
 *   s390x          processor 0 (version, identification, machine type),
 *                  features, facilities
 *   mips           cpu model, isa
 *   sparc          cpu, type (qemu-user's emulated cpuinfo has only type)
 * Long lists (isa, features, facilities) are written as a hash: they tell
 * processors apart, and would fill the fingerprint.  What changes while a
 * machine runs (clock, BogoMIPS, cpu MHz) is left out. */
static const struct {
  const char *key, *name;
  int hashed;
} cpucycles_cpuinfo_keys[] = {
    {"CPU implementer", "implementer", 0}, {"CPU variant", "variant", 0},
    {"CPU part", "part", 0},               {"CPU revision", "cpu_revision", 0},
    {"mvendorid", "mvendorid", 0},         {"marchid", "marchid", 0},
    {"mimpid", "mimpid", 0},               {"processor 0", "processor0", 0},
    {"cpu model", "model", 0},             {"model name", "model", 0},
    {"cpu", "cpu", 0},                     {"uarch", "uarch", 0},
    {"revision", "revision", 0},           {"timebase", "timebase", 0},
    {"isa", "isa", 1},                     {"Features", "features", 1},
    {"features", "features", 1},           {"facilities", "facilities", 1},
    {"machine", "machine", 0},             {"type", "type", 0},
};
#define CPUCYCLES_CPUINFO_VALUE_MAX 64 /* s390x's processor 0 line, whole */

/* FNV-1a, 32 bits: a short name for a long list. */
CPUCYCLES_COLD static unsigned int cpucycles_fingerprint_hash(const char *s, size_t n)
{
  unsigned int h = 2166136261u;
  for (; n > 0; n--) h = (h ^ (unsigned char)*s++) * 16777619u;
  return h;
}

/* Appends line's " name=value" (or " name#hash") to id->buf when it is one
 * of the keys above, not seen before.  Always 0: read on (ppc's timebase
 * and machine come after every CPU's lines).  A readfile_lines() callback
 * (no stdio: the first call may be in a signal handler). */
CPUCYCLES_COLD static int cpucycles_fingerprint_cpuinfo_line(void *ctx, const char *line,
                                                             size_t len)
{
  struct cpucycles_cpuinfo_identity *id = (struct cpucycles_cpuinfo_identity *)ctx;
  const char *value = 0;
  size_t k, n;
  (void)len;
  for (k = 0; k < sizeof cpucycles_cpuinfo_keys / sizeof cpucycles_cpuinfo_keys[0]; k++)
    if ((value = cpucycles_cpuinfo_value(line, cpucycles_cpuinfo_keys[k].key)) != 0) break;
  if (!value || (id->seen & (1ul << k))) return 0;
  while (*value == ' ' || *value == '\t') value++;
  for (n = strlen(value); n > 0 && (value[n - 1] == ' ' || value[n - 1] == '\t'); n--) continue;
  if (n == 0) return 0;
  id->seen |= 1ul << k;
  if (cpucycles_cpuinfo_keys[k].hashed)
    cpucycles_text_format(id->buf, id->len, " %s#%08x", cpucycles_cpuinfo_keys[k].name,
                          cpucycles_fingerprint_hash(value, n));
  else
    cpucycles_text_format(id->buf, id->len, " %s=%.*s", cpucycles_cpuinfo_keys[k].name,
                          (int)(n < CPUCYCLES_CPUINFO_VALUE_MAX ? n : CPUCYCLES_CPUINFO_VALUE_MAX),
                          value);
  return 0;
}
#endif

#if !(defined(__x86_64__) || defined(__i386__))
/* The identity of /proc/cpuinfo appended to buf, or " (no cpuinfo)".
 * Read with open/read (readfile.h): the first call runs this, and must be
 * async-signal-safe. */
CPUCYCLES_COLD static void cpucycles_fingerprint_cpuinfo(char *buf, size_t len)
{
  char chunk[512];
  struct cpucycles_cpuinfo_identity id;
  size_t before = strlen(buf);
  id.buf = buf;
  id.len = len;
  id.seen = 0;
  cpucycles_readfile_lines("/proc/cpuinfo", chunk, sizeof chunk,
                           cpucycles_fingerprint_cpuinfo_line, &id);
  if (strlen(buf) == before) cpucycles_text_format(buf, len, " (no cpuinfo)");
}
#endif

CPUCYCLES_COLD void cpucycles_fingerprint(char *buf, size_t len)
{
#if defined(__x86_64__) || defined(__i386__)
  x86_fingerprint(buf, len);
#else
  struct utsname u;
  buf[0] = 0;
  cpucycles_text_format(buf, len, "%s", uname(&u) == 0 ? u.machine : "unknown");
  cpucycles_fingerprint_cpuinfo(buf, len);
#endif
}
