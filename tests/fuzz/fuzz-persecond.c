/* SPDX-License-Identifier: MIT */
/* fuzz-persecond - libFuzzer harness for the frequency a user writes:
 * the contents of /etc/cpucyclespersecond (the whole-file parse), the
 * cpucyclespersecond environment variable (a C string) and the report
 * that quotes a bad one.  Build and run: tests/fuzz/run.sh.
 *
 * Checked besides the sanitizers: an accepted value is in range and came
 * from a file without NULs; a rejected one has a reason; the report stays
 * a NUL-terminated line of printable characters within its size. */
#include "persecond.c"
#include <stdint.h>
#include <stdlib.h>

static void check_parse(int ok, long long hz, const char *why)
{
  if (ok && (hz < CPUCYCLES_PERSECOND_MIN || hz > CPUCYCLES_PERSECOND_MAX)) abort();
  if (!ok && (!why || !*why)) abort();
}

static void check_report(const struct cpucycles_persecond_report *r)
{
  const char *end = memchr(r->problems, 0, sizeof r->problems);
  const char *p;
  if (!end) abort();
  for (p = r->problems; p < end; p++)
    if ((unsigned char)*p < 0x20 || *p == 0x7f) abort();
}

static long long host_silent(const char **source)
{
  (void)source;
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  struct cpucycles_persecond_report r;
  char *text = malloc(size + 1);
  const char *why = 0;
  long long hz = 0;
  int ok;
  if (!text) return 0;
  memcpy(text, data, size);
  text[size] = 0;

  ok = cpucycles_parse_persecond_file(text, size, &hz, &why);
  check_parse(ok, hz, why);
  if (ok && memchr(text, 0, size)) abort();

  why = 0;
  ok = cpucycles_parse_persecond(text, &hz, &why);
  check_parse(ok, hz, why);

  /* as the environment variable, the last source (with a host that says
   * nothing, so that it is reached and no file is read): its value, or
   * the default after it, reported */
  hz = cpucycles_persecond_resolve_with(0, text, 0, host_silent, &r);
  if (ok ? strcmp(r.source, "environment variable cpucyclespersecond") != 0
         : hz != CPUCYCLES_PERSECOND_DEFAULT || !r.problems[0])
    abort();
  check_report(&r);
  free(text);
  return 0;
}
