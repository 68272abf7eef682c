/* SPDX-License-Identifier: MIT */
/* t-gbench - Google Benchmark (GB) programs, read as cpucycles-compare's
 * GB mode will: src/tools/gbench.c's reader of GB's JSON (GB 1.7.1's
 * shape with repetitions and aggregates, an older one without run_type,
 * a newer one with skipped benchmarks, names as GB makes them, several
 * documents; each malformed text refused with its reason, on one
 * printable line), and the exact-name filter. */
#include "gbench.h"
#include "tap.h"
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PLAN 12

/* ---- the reader ---- */

/* A JSON text written with ` for ", so that the samples read as JSON:
 * malloc()ed (not freed: the test's own). */
static char *json(const char *s)
{
  char *t = strdup(s), *p;
  for (p = t; *p; p++)
    if (*p == '`') *p = '"';
  return t;
}

/* GB 1.7.1's shape (Debian 12): a context, two repetitions of one
 * benchmark with their aggregates, one of two threads, one in each unit,
 * one that failed. */
static const char sample_171[] =
    "{\n  `context`: {\n    `date`: `2026-11-29T05:31:29+00:00`,\n    `host_name`: `build-7`,\n"
    "    `executable`: `./bench`,\n    `num_cpus`: 2,\n    `mhz_per_cpu`: 2600,\n"
    "    `cpu_scaling_enabled`: true,\n"
    "    `caches`: [\n      {`type`: `Data`, `level`: 1, `size`: 49152, `num_sharing`: 1}\n    ],\n"
    "    `load_avg`: [0.951172,0.666504,0.385742],\n    `library_build_type`: `debug`\n  },\n"
    "  `benchmarks`: [\n"
    "    {`name`: `BM_Sum/64`, `family_index`: 0, `per_family_instance_index`: 0, `run_name`: `BM_Sum/64`,"
    " `run_type`: `iteration`, `repetitions`: 2, `repetition_index`: 0, `threads`: 1, `iterations`: 654745,"
    " `real_time`: 2.0999456276832738e+01, `cpu_time`: 2.0999856432656991e+01, `time_unit`: `ns`},\n"
    "    {`name`: `BM_Sum/64`, `family_index`: 0, `per_family_instance_index`: 0, `run_name`: `BM_Sum/64`,"
    " `run_type`: `iteration`, `repetitions`: 2, `repetition_index`: 1, `threads`: 1, `iterations`: 654745,"
    " `real_time`: 21.5, `cpu_time`: 21.25, `time_unit`: `ns`},\n"
    "    {`name`: `BM_Sum/64_mean`, `family_index`: 0, `per_family_instance_index`: 0, `run_name`: `BM_Sum/64`,"
    " `run_type`: `aggregate`, `repetitions`: 2, `threads`: 1, `aggregate_name`: `mean`, `aggregate_unit`: `time`,"
    " `iterations`: 2, `real_time`: 21.25, `cpu_time`: 21.0, `time_unit`: `ns`},\n"
    "    {`name`: `BM_Sum/64_cv`, `family_index`: 0, `per_family_instance_index`: 0, `run_name`: `BM_Sum/64`,"
    " `run_type`: `aggregate`, `repetitions`: 2, `threads`: 1, `aggregate_name`: `cv`,"
    " `aggregate_unit`: `percentage`, `iterations`: 2, `real_time`: 7.76e-03, `cpu_time`: 4.53e-03,"
    " `time_unit`: `ns`},\n"
    "    {`name`: `BM_Shared/threads:2`, `family_index`: 1, `per_family_instance_index`: 0,"
    " `run_name`: `BM_Shared/threads:2`, `run_type`: `iteration`, `repetitions`: 1, `repetition_index`: 0,"
    " `threads`: 2, `iterations`: 100, `real_time`: 1.5, `cpu_time`: 3.0, `time_unit`: `us`},\n"
    "    {`name`: `BM_Slow`, `run_name`: `BM_Slow`, `run_type`: `iteration`, `repetitions`: 1,"
    " `repetition_index`: 0, `threads`: 1, `iterations`: 10, `real_time`: 2.5, `cpu_time`: 2.0,"
    " `time_unit`: `ms`},\n"
    "    {`name`: `BM_Slower`, `run_name`: `BM_Slower`, `run_type`: `iteration`, `repetitions`: 1,"
    " `repetition_index`: 0, `threads`: 1, `iterations`: 1, `real_time`: 1.25, `cpu_time`: 1.0,"
    " `time_unit`: `s`},\n"
    "    {`name`: `BM_Err`, `family_index`: 2, `per_family_instance_index`: 0, `run_name`: `BM_Err`,"
    " `run_type`: `iteration`, `repetitions`: 1, `repetition_index`: 0, `threads`: 1,"
    " `error_occurred`: true, `error_message`: `broken \\`x\\``, `iterations`: 1, `real_time`: 0,"
    " `cpu_time`: 0, `time_unit`: `ns`}\n"
    "  ]\n}\n";

/* Before run_type (GB < 1.4): every entry an iteration run, _mean too;
 * the complexity entries have no time. */
static const char sample_old[] =
    "{`context`: {`date`: `2017-05-01 10:00:00`, `num_cpus`: 4, `mhz_per_cpu`: 3000,"
    " `cpu_scaling_enabled`: false, `library_build_type`: `release`},\n"
    " `benchmarks`: [\n"
    "  {`name`: `BM_Old/8`, `iterations`: 1000, `real_time`: 120, `cpu_time`: 119, `time_unit`: `ns`},\n"
    "  {`name`: `BM_Old/8`, `iterations`: 1000, `real_time`: 122, `cpu_time`: 121, `time_unit`: `ns`},\n"
    "  {`name`: `BM_Old/8_mean`, `iterations`: 1000, `real_time`: 121, `cpu_time`: 120, `time_unit`: `ns`},\n"
    "  {`name`: `BM_Old_BigO`, `cpu_coefficient`: 15.1, `real_coefficient`: 15.2, `big_o`: `N`,"
    " `time_unit`: `ns`},\n"
    "  {`name`: `BM_Old_RMS`, `rms`: 0.02}\n"
    " ]}\n";

/* A newer GB's: a skipped benchmark, a name with every kind of character
 * (escaped and not), a label. */
static const char sample_new[] =
    "{`context`: {`library_version`: `v1.9.1`, `json_schema_version`: 1},\n"
    " `benchmarks`: [\n"
    "  {`name`: `BM_Skip`, `family_index`: 0, `per_family_instance_index`: 0, `run_name`: `BM_Skip`,"
    " `run_type`: `iteration`, `repetitions`: 1, `repetition_index`: 0, `threads`: 1, `skipped`: true,"
    " `skip_message`: `no GPU`, `iterations`: 0, `real_time`: 0, `cpu_time`: 0, `time_unit`: `ns`},\n"
    "  {`name`: `BM_Crc/4096/min_time:0.500 caf\\u00e9 \xe2\x86\x92 \\u03a9\\t\\\\`, `family_index`: 1,"
    " `per_family_instance_index`: 0, `run_name`: `BM_Crc/4096/min_time:0.500 caf\xc3\xa9 \xe2\x86\x92 \xce\xa9\\t\\\\`,"
    " `run_type`: `iteration`, `repetitions`: 1, `repetition_index`: 0, `threads`: 1,"
    " `iterations`: 5, `real_time`: 4e2, `cpu_time`: 3.5e2, `time_unit`: `ns`, `bytes_per_second`: 1e9,"
    " `label`: `crc32c`}\n"
    " ]}\n";

static const char crc_name[] = "BM_Crc/4096/min_time:0.500 caf\xc3\xa9 \xe2\x86\x92 \xce\xa9\t\\";

static int near(double x, double y) { return fabs(x - y) <= 1e-12 * fabs(y); }

/* 1 when why is one line of printable text */
static int one_line(const char *why)
{
  const char *p;
  if (!*why) return 0;
  for (p = why; *p; p++)
    if ((unsigned char)*p < 0x20 || *p == 0x7f) return 0;
  return 1;
}

static void test_171(void)
{
  struct cpucycles_gbench gb;
  const struct cpucycles_gbench_entry *e;
  const struct cpucycles_gbench_context *c;
  char why[256] = "", *text = json(sample_171);
  int r = cpucycles_gbench_parse(&gb, text, strlen(text), why, sizeof why);
  e = gb.entries;
  tap_ok(r == 0 && gb.count == 8 && gb.documents == 1 && !strcmp(e[0].name, "BM_Sum/64") &&
             e[0].name_length == 9 && !e[0].aggregate && !e[1].aggregate &&
             e[0].repetition_index == 0 && e[1].repetition_index == 1 && e[0].repetitions == 2 &&
             near(e[0].real_seconds, 2.0999456276832738e-08) && near(e[1].cpu_seconds, 21.25e-9) &&
             e[0].iterations == 654745 && e[0].family_index == 0 && e[0].per_family_instance_index == 0,
         "GB 1.7.1's JSON: each repetition's run under its name, its index, seconds per "
         "iteration from ns (%s)", r ? why : "read");
  tap_ok(r == 0 && e[2].aggregate && !strcmp(e[2].aggregate_name, "mean") &&
             !strcmp(e[2].name, "BM_Sum/64_mean") && e[2].run_name_length == 9 &&
             !strcmp(e[2].run_name, "BM_Sum/64") && e[2].repetition_index == -1 &&
             near(e[2].real_seconds, 21.25e-9) && e[3].aggregate && !strcmp(e[3].aggregate_name, "cv") &&
             isnan(e[3].real_seconds) && isnan(e[3].cpu_seconds) && !strcmp(e[0].aggregate_name, ""),
         "aggregates kept and marked, with aggregate_name and run_name; a cv is no time");
  tap_ok(r == 0 && e[4].threads == 2 && !strcmp(e[4].name, "BM_Shared/threads:2") &&
             near(e[4].real_seconds, 1.5e-6) && near(e[4].cpu_seconds, 3e-6) &&
             near(e[5].real_seconds, 2.5e-3) && near(e[6].real_seconds, 1.25) && near(e[6].cpu_seconds, 1.0),
         "threads, and time units us, ms, s");
  tap_ok(r == 0 && e[7].failed && !e[7].skipped && !strcmp(e[7].message, "broken \"x\"") &&
             isnan(e[7].real_seconds) && isnan(e[7].cpu_seconds) && !e[0].failed && !strcmp(e[0].message, ""),
         "error_occurred: failed, with its error_message, and no time (not GB's 0)");
  c = gb.contexts;
  tap_ok(r == 0 && !strcmp(c->executable, "./bench") && !strcmp(c->host_name, "build-7") &&
             !strcmp(c->date, "2026-11-29T05:31:29+00:00") && c->num_cpus == 2 && c->mhz_per_cpu == 2600 &&
             c->cpu_scaling_enabled == 1 && !strcmp(c->library_build_type, "debug") && c->debug &&
             !strcmp(c->library_version, ""),
         "the context: executable, host, date, CPUs, MHz, CPU scaling on, a debug build of GB");
  if (r == 0) cpucycles_gbench_free(&gb);
  free(text);
}

static void test_old_and_new(void)
{
  struct cpucycles_gbench gb;
  const struct cpucycles_gbench_entry *e;
  char why[256] = "", *text = json(sample_old);
  int r = cpucycles_gbench_parse(&gb, text, strlen(text), why, sizeof why);
  e = gb.entries;
  tap_ok(r == 0 && gb.count == 5 && !e[0].aggregate && !e[2].aggregate && !strcmp(e[2].name, "BM_Old/8_mean") &&
             !strcmp(e[2].run_name, "BM_Old/8_mean") && e[0].repetition_index == -1 && e[0].repetitions == 0 &&
             e[0].threads == 1 && near(e[1].real_seconds, 122e-9) && e[3].aggregate &&
             !strcmp(e[3].aggregate_name, "BigO") && isnan(e[3].real_seconds) && e[4].aggregate &&
             !strcmp(e[4].aggregate_name, "RMS") && gb.contexts[0].cpu_scaling_enabled == 0 &&
             !gb.contexts[0].debug && !strcmp(gb.contexts[0].host_name, ""),
         "before run_type: every entry an iteration run (its _mean too), but _BigO and _RMS, which "
         "have no time (%s)", r ? why : "read");
  if (r == 0) cpucycles_gbench_free(&gb);
  free(text);
  text = json(sample_new);
  r = cpucycles_gbench_parse(&gb, text, strlen(text), why, sizeof why);
  e = gb.entries;
  tap_ok(r == 0 && gb.count == 2 && e[0].failed && e[0].skipped && !strcmp(e[0].message, "no GPU") &&
             isnan(e[0].real_seconds) && !strcmp(gb.contexts[0].library_version, "v1.9.1") &&
             gb.contexts[0].cpu_scaling_enabled == -1 && gb.contexts[0].num_cpus == -1,
         "a newer GB's skipped benchmark: failed, its skip_message, no time (%s)", r ? why : "read");
  tap_ok(r == 0 && e[1].name_length == sizeof crc_name - 1 && !memcmp(e[1].name, crc_name, sizeof crc_name) &&
             e[1].run_name_length == sizeof crc_name - 1 && !memcmp(e[1].run_name, crc_name, sizeof crc_name) &&
             !strcmp(e[1].label, "crc32c") && near(e[1].real_seconds, 400e-9) &&
             cpucycles_json_number(&e[1].doc, "bytes_per_second", &(double){0}),
         "a name exactly as GB wrote it ('/', ':', spaces, UTF-8, escapes undone); the label; a "
         "user counter read from the entry's own members");
  if (r == 0) cpucycles_gbench_free(&gb);
  free(text);
}

static void test_several(void)
{
  struct cpucycles_gbench gb;
  char why[256] = "", *a = json(sample_171), *b = json(sample_old), *both, *array;
  size_t na = strlen(a), nb = strlen(b);
  int r, r2;
  both = malloc(na + nb + 2), array = malloc(na + nb + 8);
  sprintf(both, "%s\n%s", a, b);
  sprintf(array, "[%s,\n%s]", a, b);
  r = cpucycles_gbench_parse(&gb, both, strlen(both), why, sizeof why);
  tap_ok(r == 0 && gb.count == 13 && gb.documents == 2 && gb.entries[7].document == 0 &&
             gb.entries[8].document == 1 && !strcmp(gb.entries[8].name, "BM_Old/8") &&
             gb.contexts[0].debug && !gb.contexts[1].debug,
         "two files one after another (cat a.json b.json): two documents, each entry's own, each "
         "context (%s)", r ? why : "read");
  if (r == 0) cpucycles_gbench_free(&gb);
  r2 = cpucycles_gbench_parse(&gb, array, strlen(array), why, sizeof why);
  tap_ok(r2 == 0 && gb.count == 13 && gb.documents == 2 && gb.entries[12].document == 1,
         "a JSON array of two files: the same (%s)", r2 ? why : "read");
  if (r2 == 0) cpucycles_gbench_free(&gb);
  free(a), free(b), free(both), free(array);
}

static void test_refusals(void)
{
  static const struct {
    const char *text, *says;
  } bad[] = {
      {"garbage", "not JSON: line 1, column 1"},
      {"", "not JSON"},
      {"[]", "an empty array"},
      {"{`context`: {}}", "no \"benchmarks\" array"},
      {"{`benchmarks`: {}}", "no \"benchmarks\" array"},
      {"{`type`: `bench`, `name`: `x`, `interquartile_mean`: 5}", "no \"benchmarks\" array"},
      {"{`benchmarks`: [{`real_time`: 1, `cpu_time`: 1, `time_unit`: `ns`}]}", "benchmark 1: no name"},
      {"{`benchmarks`: [{`name`: 5, `real_time`: 1}]}", "benchmark 1: its name is not a string"},
      {"{`benchmarks`: [7]}", "benchmark 1: not an object"},
      {"{`benchmarks`: [{`name`: `A`, `cpu_time`: 1, `time_unit`: `ns`}]}", "(\"A\"): no real_time"},
      {"{`benchmarks`: [{`name`: `A`, `real_time`: 1, `time_unit`: `ns`}]}", "(\"A\"): no cpu_time"},
      {"{`benchmarks`: [{`name`: `A`, `real_time`: `12`, `cpu_time`: 1, `time_unit`: `ns`}]}",
       "real_time: not a number"},
      {"{`benchmarks`: [{`name`: `A`, `real_time`: -1, `cpu_time`: 1, `time_unit`: `ns`}]}",
       "real_time: -1, negative"},
      {"{`benchmarks`: [{`name`: `A`, `real_time`: 1, `cpu_time`: 1e999, `time_unit`: `ns`}]}",
       "cpu_time: not a finite number"},
      {"{`benchmarks`: [{`name`: `A`, `real_time`: 1, `cpu_time`: 1, `time_unit`: `fs`}]}",
       "time_unit \"fs\": not ns, us, ms or s"},
      {"{`benchmarks`: [{`name`: `A`, `real_time`: 1, `cpu_time`: 1}]}", "(\"A\"): no time_unit"},
      /* GB writes a cv of a zero mean as NaN, which is no JSON */
      {"{`benchmarks`: [{`name`: `A`, `real_time`: NaN, `cpu_time`: 1, `time_unit`: `ns`}]}",
       "not JSON: line 1, column 44"},
      {"{`benchmarks`: [{`name`: `A`, `threads`: `two`, `real_time`: 1, `cpu_time`: 1, `time_unit`: `ns`}]}",
       "threads: not a number"},
      {"{`benchmarks`: [{`name`: `A`, `name`: `B`, `real_time`: 1, `cpu_time`: 1, `time_unit`: `ns`}]}",
       "the key \"name\" appears more than once"},
      {"{`benchmarks`: [{`name`: `ok`, `real_time`: 1, `cpu_time`: 1, `time_unit`: `ns`}]}\n"
       "{`benchmarks`: [{`name`: `B`, `real_time`: 1, `cpu_time`: 1, `time_unit`: `ns`}]}\n"
       "{`benchmarks`: [{`name`: `\\u001b]0;x\\u0007`, `real_time`: -2, `cpu_time`: 1, `time_unit`: `ns`}]}",
       "document 3 (line 3): benchmark 1 (\"?]0;x?\"): real_time: -2, negative"},
  };
  size_t i, wrong = 0, dirty = 0, n = sizeof bad / sizeof bad[0];
  struct cpucycles_gbench gb;
  char why[256], last[256] = "";
  for (i = 0; i < n; i++) {
    char *text = json(bad[i].text);
    strcpy(why, "");
    if (cpucycles_gbench_parse(&gb, text, strlen(text), why, sizeof why) == 0) {
      cpucycles_gbench_free(&gb);
      wrong++;
      tap_diag("accepted: %s", bad[i].text);
    } else if (!strstr(why, bad[i].says)) {
      wrong++;
      tap_diag("refused as \"%s\", not \"%s\"", why, bad[i].says);
    }
    if (!one_line(why)) dirty++;
    if (gb.entries || gb.count || gb.contexts || gb.documents) wrong++;
    strcpy(last, why);
    free(text);
  }
  tap_ok(wrong == 0 && dirty == 0,
         "%zu texts refused, each with its reason on one printable line (%zu wrong), e.g. '%s'", n, wrong, last);
}

static void test_filter(void)
{
  char buf[128], escaped[128], small[8];
  int r1 = cpucycles_gbench_filter(buf, sizeof buf, "BM_Shared/threads:2", 19);
  int ok1 = r1 == 0 && !strcmp(buf, "^BM_Shared/threads:2$");
  int r2 = cpucycles_gbench_filter(escaped, sizeof escaped, "a.b(c)*[d]{e}|f^$\\g+?", 21);
  int ok2 = r2 == 0 && !strcmp(escaped, "^a\\.b\\(c\\)\\*\\[d\\]\\{e\\}\\|f\\^\\$\\\\g\\+\\?$");
  regex_t re;
  /* read by an extended regular expression, as GB's filter is: the name
   * matches, and only it */
  if (ok2 && regcomp(&re, escaped, REG_EXTENDED | REG_NOSUB) == 0) {
    ok2 = regexec(&re, "a.b(c)*[d]{e}|f^$\\g+?", 0, 0, 0) == 0 &&
          regexec(&re, "axb(c)*[d]{e}|f^$\\g+?", 0, 0, 0) != 0 &&
          regexec(&re, "a.b(c)*[d]{e}|f^$\\g+?x", 0, 0, 0) != 0;
    regfree(&re);
  } else {
    ok2 = 0;
  }
  tap_ok(ok1 && ok2 && cpucycles_gbench_filter(small, 6, "BM_X", 4) != 0 &&
             cpucycles_gbench_filter(small, 7, "BM_X", 4) == 0 && !strcmp(small, "^BM_X$") &&
             cpucycles_gbench_filter(buf, sizeof buf, "a\nb", 3) != 0 &&
             cpucycles_gbench_filter(buf, sizeof buf, "a\0b", 3) != 0,
         "a filter for exactly one name: ^name$, each operator of an extended regular expression "
         "escaped (%s: regcomp() matches the name and no other); too small a buffer, a newline or "
         "a NUL refused", r2 == 0 ? escaped : "refused");
}

int main(void)
{
  tap_plan(PLAN);
  test_171();
  test_old_and_new();
  test_several();
  test_refusals();
  test_filter();
  return tap_done();
}
