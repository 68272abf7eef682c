/* SPDX-License-Identifier: MIT */
/* t-fingerprint - the host fingerprint off x86 is made of what each
 * architecture's kernel prints in /proc/cpuinfo: for every saved
 * /proc/cpuinfo of a real kernel in tests/cpuinfo/ (booted under
 * qemu-system by ci/sysemu), the fingerprint has the fields that identify
 * that processor, fits its buffer, and changes when one of them does (two
 * boards that differ there must not look the same: a build moved from one
 * to the other is re-checked).  On x86 the fingerprint is CPUID's, and
 * must say so.  The files are read through the library's own reader
 * (fingerprint.c compiled here with its cpuinfo part on every
 * architecture). */
#define CPUCYCLES_FINGERPRINT_CPUINFO 1
#include "fingerprint.c"
#include "tap.h"
#include <stdio.h>
#include <stdlib.h>

/* Each kernel's text, what its fingerprint must hold, and the line whose
 * value is changed to make another board of the same kind. */
static const struct {
  const char *file;
  const char *must[4];
  const char *changed;
} kernels[] = {
    {"riscv64-sid-7.2.txt", {"mvendorid=", "marchid=", "mimpid=", "isa#"}, "marchid"},
    {"ppc64el-bookworm-6.1.txt", {"cpu=POWER9", "revision=", "timebase=512000000", 0}, "revision"},
    {"s390x-bookworm-6.1.txt", {"processor0=", "machine = 8561", "facilities#", 0}, "processor 0"},
    {"armhf-bookworm-6.1.txt", {"implementer=0x41", "part=0xc0f", "variant=0x4", "features#"}, "CPU part"},
    {"mips64el-bookworm-6.1.txt", {"model=MIPS GENERIC QEMU", "isa#", "machine=mti,malta", 0}, "cpu model"},
};
/* (i386-bookworm-6.1.txt is there too, but x86's fingerprint is CPUID's) */
#define KERNELS (sizeof kernels / sizeof kernels[0])

/* The fingerprint of the cpuinfo text at path, as the library makes it
 * from /proc/cpuinfo (after the machine name, which uname gives). */
static int fingerprint_of(const char *path, char *buf, size_t len)
{
  char chunk[512];
  struct cpucycles_cpuinfo_identity id;
  id.buf = buf, id.len = len, id.seen = 0;
  buf[0] = 0;
  return cpucycles_readfile_lines(path, chunk, sizeof chunk, cpucycles_fingerprint_cpuinfo_line,
                                  &id);
}

/* A copy of the text at from in to, with "X" appended to the value of
 * the first line that starts with key.  Returns 1 when there was one. */
static int copy_changed(const char *from, const char *to, const char *key)
{
  FILE *in = fopen(from, "r"), *out = fopen(to, "w");
  char line[4096];
  int done = 0;
  if (in && out)
    while (fgets(line, sizeof line, in)) {
      size_t n = strlen(line);
      if (!done && strncmp(line, key, strlen(key)) == 0 && n > 0 && line[n - 1] == '\n') {
        line[n - 1] = 0;
        fprintf(out, "%sX\n", line);
        done = 1;
      } else {
        fputs(line, out);
      }
    }
  if (in) fclose(in);
  if (out && fclose(out) != 0) done = 0;
  return done;
}

int main(void)
{
  const char *top = getenv("top_srcdir");
  char host[CPUCYCLES_FINGERPRINT_MAX];
  size_t k, m;

  tap_plan(2 * (int)KERNELS + 1);
  cpucycles_fingerprint(host, sizeof host);
  tap_diag("this host: %s", host);
#if defined(__x86_64__) || defined(__i386__)
  tap_ok(strncmp(host, "x86 family ", 11) == 0, "on x86 the fingerprint is CPUID's: %s", host);
#else
  tap_ok(host[0] && !strstr(host, "(no cpuinfo)"), "this host's fingerprint reads /proc/cpuinfo: %s",
         host);
#endif
  for (k = 0; k < KERNELS; k++) {
    char path[1024], changed[1024], fp[CPUCYCLES_FINGERPRINT_MAX], other[CPUCYCLES_FINGERPRINT_MAX];
    const char *missing = 0;
    int read;
    snprintf(path, sizeof path, "%s/tests/cpuinfo/%s", top ? top : ".", kernels[k].file);
    read = fingerprint_of(path, fp, sizeof fp);
    for (m = 0; m < 4 && kernels[k].must[m]; m++)
      if (!strstr(fp, kernels[k].must[m])) missing = kernels[k].must[m];
    tap_ok(read == 0 && !missing && strlen(fp) + 1 < sizeof fp,
           "%s: %s%s%s", kernels[k].file, read ? "cannot be read" : fp, missing ? " lacks " : "",
           missing ? missing : "");
    snprintf(changed, sizeof changed, "t-fingerprint-%s", kernels[k].file);
    if (!copy_changed(path, changed, kernels[k].changed)) {
      tap_ok(0, "%s: no %s line to change", kernels[k].file, kernels[k].changed);
      continue;
    }
    fingerprint_of(changed, other, sizeof other);
    remove(changed);
    tap_ok(strcmp(fp, other) != 0, "%s with another %s: another fingerprint (%s)", kernels[k].file,
           kernels[k].changed, other);
  }
  return tap_done();
}
