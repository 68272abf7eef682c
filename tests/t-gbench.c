/* SPDX-License-Identifier: MIT */
/* t-gbench - Google Benchmark (GB) programs, read and run, as
 * cpucycles-compare's GB mode will: src/tools/gbench.c's reader of GB's
 * JSON (GB 1.7.1's shape with repetitions and aggregates, an older one
 * without run_type, a newer one with skipped benchmarks, names as GB
 * makes them, several documents; each malformed text refused with its
 * reason, on one printable line), the exact-name filter, and
 * src/tools/compare/gbench-run.c's runs: a real GB program
 * (gbench-fixture, where configure found libbenchmark) listed and run
 * once, whole and one benchmark at a time, pinned, padded, with GB's
 * BENCHMARK_* variables set here and not seen there; gbench-reexec, which
 * re-executes itself without address-space randomization as GB >= 1.9.3
 * does, run under the personality filter (it does not re-execute, and its
 * stack and code move between runs) and without it (it does, and they
 * stay); and programs that hang (killed at the timeout, with what they
 * forked), are no GB program, fail, die of a signal or cannot be run. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* sched_getaffinity, CPU_* */
#endif
#include "gbench.h"
#include "gbench-run.h"
#include "seccomp-filter.h"
#include "tap.h"
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <regex.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define PLAN 32

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
 * (escaped and not), a label, user counters (one named as a complexity
 * entry's member is). */
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
    " `rms`: 0.5, `label`: `crc32c`}\n"
    " ]}\n";

static const char crc_name[] = "BM_Crc/4096/min_time:0.500 caf\xc3\xa9 \xe2\x86\x92 \xce\xa9\t\\";

static double seconds_now(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

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
         "a name exactly as GB wrote it ('/', ':', spaces, UTF-8, escapes undone); the label; "
         "user counters read from the entry's own members (one named rms, as a complexity "
         "entry's, does not take the run's time away)");
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

/* The time GB goes by: CPU time, real time where the benchmark asked */
static void test_time_chosen(void)
{
  static const char text[] =
      "{`benchmarks`: [\n"
      " {`name`: `BM_A/8`, `run_type`: `iteration`, `iterations`: 1, `real_time`: 40, `cpu_time`: 10,"
      " `time_unit`: `ns`},\n"
      " {`name`: `BM_B/8/real_time`, `run_type`: `iteration`, `iterations`: 1, `real_time`: 40,"
      " `cpu_time`: 10, `time_unit`: `ns`},\n"
      " {`name`: `BM_C/manual_time/threads:2`, `run_type`: `iteration`, `iterations`: 1, `real_time`: 40,"
      " `cpu_time`: 10, `time_unit`: `ns`},\n"
      " {`name`: `real_time/8`, `run_type`: `iteration`, `iterations`: 1, `real_time`: 40,"
      " `cpu_time`: 10, `time_unit`: `ns`},\n"
      " {`name`: `BM_D/real_time_x`, `run_type`: `iteration`, `iterations`: 1, `real_time`: 40,"
      " `cpu_time`: 10, `time_unit`: `ns`}]}";
  struct cpucycles_gbench gb;
  char why[256] = "a time chosen wrong";
  char *t = json(text);
  int ok = cpucycles_gbench_parse(&gb, t, strlen(t), why, sizeof why) == 0 && gb.count == 5;
  const double cpu = 10e-9, real = 40e-9;
  if (ok)
    ok = cpucycles_gbench_seconds(&gb.entries[0]) == cpu && cpucycles_gbench_seconds(&gb.entries[1]) == real &&
         cpucycles_gbench_seconds(&gb.entries[2]) == real && cpucycles_gbench_seconds(&gb.entries[3]) == cpu &&
         cpucycles_gbench_seconds(&gb.entries[4]) == cpu;
  tap_ok(ok, "the time GB goes by: CPU time, real time for .../real_time and .../manual_time (a component "
             "of the name after its first, not a family real_time nor real_time_x)%s%s", ok ? "" : ": ", ok ? "" : why);
  if (gb.count) cpucycles_gbench_free(&gb);
  free(t);
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

/* ---- running programs ---- */

static char scratch[4096]; /* the test's own directory, removed at the end */

/* path of a file in scratch */
static const char *in_scratch(const char *name)
{
  static char path[2][4096 + 64];
  static int which;
  which ^= 1;
  snprintf(path[which], sizeof path[which], "%s/%s", scratch, name);
  return path[which];
}

/* A file in scratch with text, mode mode: its path. */
static const char *write_file(const char *name, const char *text, size_t n, mode_t mode)
{
  const char *path = in_scratch(name);
  FILE *f = fopen(path, "wb");
  if (f) fwrite(text, 1, n, f), fclose(f);
  chmod(path, mode);
  return path;
}

static void remove_scratch(void)
{
  static const char *const names[] = {"hang.sh", "hang.pid", "true-ish.sh", "usage.sh", "fail.sh",
                                      "signal.sh", "noexec.sh", "junk-elf", "log.txt", "out.json", "dir"};
  size_t i;
  for (i = 0; i < sizeof names / sizeof names[0]; i++) {
    unlink(in_scratch(names[i]));
    rmdir(in_scratch(names[i]));
  }
  rmdir(scratch);
}

/* The BM_Layout label's fields from a run of gbench-reexec. */
struct layout {
  unsigned long stack, code;
  int reexecuted, refused, aslr_off;
  long pad;
  unsigned long benchmark_variables;
  char cpus[256], cwd[4096];
  int ok;
};

static struct layout layout_of(const struct cpucycles_gbench *gb)
{
  struct layout l;
  size_t i;
  const char *cwd;
  memset(&l, 0, sizeof l);
  for (i = 0; i < gb->count; i++)
    if (!strcmp(gb->entries[i].name, "BM_Layout")) {
      l.ok = sscanf(gb->entries[i].label,
                    "stack=%lx code=%lx reexecuted=%d refused=%d aslr_off=%d cpus=%255s pad=%ld "
                    "benchmark_variables=%lu",
                    &l.stack, &l.code, &l.reexecuted, &l.refused, &l.aslr_off, l.cpus, &l.pad,
                    &l.benchmark_variables) == 8;
      if ((cwd = strstr(gb->entries[i].label, " cwd="))) snprintf(l.cwd, sizeof l.cwd, "%s", cwd + 5);
    }
  return l;
}

/* gbench-reexec run directly, as a user would, without the filter: its
 * BM_Layout's fields. */
static struct layout direct_layout(const char *reexec)
{
  struct cpucycles_gbench gb;
  struct layout l;
  char command[8192], *out = 0, why[256];
  size_t used = 0, room = 0;
  FILE *p;
  memset(&l, 0, sizeof l);
  snprintf(command, sizeof command, "'%s' --benchmark_format=json --benchmark_filter=BM_Layout", reexec);
  if (!(p = popen(command, "r"))) return l;
  for (;;) {
    if (used + 4096 > room && !(out = realloc(out, room = room * 2 + 8192))) break;
    size_t got = fread(out + used, 1, 4096, p);
    if (got == 0) break;
    used += got;
  }
  pclose(p);
  if (out && cpucycles_gbench_parse(&gb, out, used, why, sizeof why) == 0) {
    l = layout_of(&gb);
    cpucycles_gbench_free(&gb);
  }
  free(out);
  return l;
}

/* 1 when the file is a position-independent executable (its code moves
 * with randomization) */
static int is_pie(const char *path)
{
  unsigned char h[18];
  FILE *f = fopen(path, "rb");
  size_t n = f ? fread(h, 1, sizeof h, f) : 0;
  if (f) fclose(f);
  /* e_type (ET_DYN, 3) in the file's byte order (EI_DATA: 1 little, 2 big) */
  return n == sizeof h && !memcmp(h, "\x7f" "ELF", 4) && (h[5] == 1 ? h[16] : h[17]) == 3;
}

static int randomization_on(void)
{
  char c = '2';
  FILE *f = fopen("/proc/sys/kernel/randomize_va_space", "r");
  if (f) {
    if (fread(&c, 1, 1, f) != 1) c = '2';
    fclose(f);
  }
  return c != '0';
}

/* A CPU this process may run on (the last), or -1. */
static int some_cpu(void)
{
  cpu_set_t set;
  int k, cpu = -1;
  if (sched_getaffinity(0, sizeof set, &set) != 0) return -1;
  for (k = 0; k < CPU_SETSIZE; k++)
    if (CPU_ISSET(k, &set)) cpu = k;
  return cpu;
}

static void skip_n(int n, const char *what, const char *why)
{
  while (n-- > 0) tap_skip(what, why);
}

#define FIXTURE_CASES 6
static void test_fixture(const char *fixture)
{
  static const char *const expected[] = {"BM_Sum/64", "BM_Sum/4096", "BM_Shared/threads:2", "BM_Work"};
  struct cpucycles_gbench_options o;
  struct cpucycles_gbench_names names;
  struct cpucycles_gbench_run run;
  char why[512] = "", filter[128];
  size_t i, wrong = 0;
  int r, positive = 1, cpu = some_cpu(), log;
  cpucycles_gbench_default_options(&o);
  o.timeout = 60;

  r = cpucycles_gbench_list(fixture, 0, &o, &names, why, sizeof why);
  tap_ok(r == 0 && names.count == 4 && !strcmp(names.names[0], expected[0]) &&
             !strcmp(names.names[1], expected[1]) && !strcmp(names.names[2], expected[2]) &&
             !strcmp(names.names[3], expected[3]),
         "a GB program's list: its names exactly, in its order (%s)", r ? why : "listed");
  if (r == 0) cpucycles_gbench_names_free(&names);

  for (i = 0; i < 4; i++) {
    cpucycles_gbench_filter(filter, sizeof filter, expected[i], strlen(expected[i]));
    if (cpucycles_gbench_list(fixture, filter, &o, &names, why, sizeof why) != 0) {
      wrong++;
      tap_diag("%s: %s", filter, why);
      continue;
    }
    if (names.count != 1 || strcmp(names.names[0], expected[i])) wrong++;
    cpucycles_gbench_names_free(&names);
  }
  tap_ok(wrong == 0, "each name's filter lists that benchmark alone (%zu wrong)", wrong);

  r = cpucycles_gbench_run_once(fixture, 0, 0.01, &o, &run, why, sizeof why);
  for (i = 0; r == 0 && i < run.parsed.count; i++)
    positive &= run.parsed.entries[i].real_seconds > 0 && run.parsed.entries[i].cpu_seconds > 0 &&
                !run.parsed.entries[i].aggregate && !run.parsed.entries[i].failed &&
                run.parsed.entries[i].repetitions == 1 && !strcmp(run.parsed.entries[i].name, expected[i]);
  tap_ok(r == 0 && run.parsed.count == 4 && positive && run.parsed.entries[2].threads == 2 &&
             run.wall_seconds > 0,
         "one run: one iteration run a benchmark, in order, each time positive, 2 threads where "
         "asked (%s, %.2f s)", r ? why : "ran", run.wall_seconds);
  tap_ok(r == 0 && !strcmp(run.parsed.contexts[0].executable, fixture) && run.parsed.contexts[0].num_cpus > 0 &&
             run.parsed.contexts[0].library_build_type[0],
         "its context: the executable run, its CPUs, GB's build type (%s)",
         r == 0 ? run.parsed.contexts[0].library_build_type : why);
  if (r == 0) cpucycles_gbench_run_free(&run);

  cpucycles_gbench_filter(filter, sizeof filter, expected[2], strlen(expected[2]));
  r = cpucycles_gbench_run_once(fixture, filter, 0.01, &o, &run, why, sizeof why);
  tap_ok(r == 0 && run.parsed.count == 1 && !strcmp(run.parsed.entries[0].name, expected[2]),
         "one run of one benchmark, by its exact filter (%s)", r ? why : expected[2]);
  if (r == 0) cpucycles_gbench_run_free(&run);

  /* GB's flags from the environment (BENCHMARK_OUT would write a file,
   * BENCHMARK_LIST_TESTS list instead of run): not the child's */
  setenv("BENCHMARK_OUT", in_scratch("out.json"), 1);
  setenv("BENCHMARK_LIST_TESTS", "true", 1);
  o.cpu = cpu, o.pad_length = 1000;
  log = open(in_scratch("log.txt"), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  o.stderr_fd = log;
  r = cpucycles_gbench_run_once(fixture, filter, 0.01, &o, &run, why, sizeof why);
  tap_ok(r == 0 && run.parsed.count == 1 && access(in_scratch("out.json"), F_OK) != 0,
         "pinned to CPU %d, padded, its stderr to a log, with BENCHMARK_OUT and "
         "BENCHMARK_LIST_TESTS set here: it runs, and writes no file (%s)", cpu, r ? why : "ran");
  if (r == 0) cpucycles_gbench_run_free(&run);
  if (log >= 0) close(log);
  unsetenv("BENCHMARK_OUT");
  unsetenv("BENCHMARK_LIST_TESTS");
}

#define REEXEC_CASES 6
#define RUNS 4
static void test_reexec(const char *reexec)
{
  struct cpucycles_gbench_options o;
  struct cpucycles_gbench_run run;
  struct cpucycles_gbench_names names;
  struct layout l[RUNS], d[2];
  char why[512] = "", aslr_why[200] = "", scratch_real[4096], filter[64];
  int i, j, r, kept = 1, failed = 0, reexecuted = 0, not_refused = 0, stack_same = 0, code_same = 0;
  int pie = is_pie(reexec), cpu = some_cpu();
  cpucycles_gbench_default_options(&o);
  o.timeout = 60;

  cpucycles_gbench_filter(filter, sizeof filter, "BM_Other/8", 10);
  r = cpucycles_gbench_list(reexec, filter, &o, &names, why, sizeof why);
  tap_ok(r == 0 && names.count == 1 && !strcmp(names.names[0], "BM_Other/8"),
         "gbench-reexec's list, filtered (%s)", r ? why : "listed");
  if (r == 0) cpucycles_gbench_names_free(&names);

  /* the same command line and environment each time: only randomization
   * can move its stack and code */
  for (i = 0; i < RUNS; i++) {
    memset(&l[i], 0, sizeof l[i]);
    if (cpucycles_gbench_run_once(reexec, "BM_Layout", 0.01, &o, &run, why, sizeof why) != 0) {
      failed++;
      tap_diag("run %d: %s", i + 1, why);
      continue;
    }
    l[i] = layout_of(&run.parsed);
    kept &= run.aslr_kept;
    if (!run.aslr_kept) snprintf(aslr_why, sizeof aslr_why, "%s", run.aslr_why);
    if (!l[i].ok) failed++;
    reexecuted += l[i].reexecuted != 0 || l[i].aslr_off;
    not_refused += !l[i].refused;
    cpucycles_gbench_run_free(&run);
  }
  for (i = 0; i < RUNS; i++)
    for (j = 0; j < i; j++) stack_same += l[i].stack == l[j].stack, code_same += l[i].code == l[j].code;
  if (!failed && !kept) {
#if defined(TEST_HAVE_SECCOMP_FILTER) && (defined(__x86_64__) || defined(__aarch64__))
    tap_ok(0, "the personality filter is installed on this machine: %s", aslr_why);
#else
    tap_skip("the personality filter", aslr_why);
#endif
    skip_n(1, "randomization kept", aslr_why);
  } else {
    tap_ok(!failed && kept && reexecuted == 0 && not_refused == 0,
           "under the personality filter, a program that re-executes itself without randomization, "
           "as GB >= 1.9.3 does, is refused the personality and does not (%d of %d runs failed, "
           "%d re-executed)", failed, RUNS, reexecuted);
    if (!randomization_on())
      tap_skip("randomization kept", "randomization is off on this machine (randomize_va_space 0)");
    else
      tap_ok(!failed && stack_same == 0 && (!pie || code_same == 0),
             "and randomization is kept: its stack (and its code: %s) elsewhere in each of %d runs "
             "(%d pairs the same stack, %d the same code)",
             pie ? "a PIE" : "not a PIE, not checked", RUNS, stack_same, code_same);
  }

  /* without the filter, run directly: it re-executes, and every run has
   * the same layout (what the filter keeps from happening) */
  d[0] = direct_layout(reexec), d[1] = direct_layout(reexec);
  if (d[0].ok && d[0].refused)
    tap_skip("without the filter, it re-executes", "personality(ADDR_NO_RANDOMIZE) is refused here already");
  else if (!randomization_on())
    tap_skip("without the filter, it re-executes", "randomization is off on this machine");
  else
    tap_ok(d[0].ok && d[1].ok && d[0].reexecuted == 1 && d[1].reexecuted == 1 && d[0].aslr_off &&
               d[0].stack == d[1].stack && d[0].code == d[1].code,
           "run directly, without the filter, it re-executes itself and its stack and code are "
           "where they were (%#lx, %#lx): the check above would see it", d[0].stack, d[0].code);

  /* the options, as the child sees them */
  setenv("BENCHMARK_OUT", in_scratch("out.json"), 1);
  setenv("BENCHMARK_FORMAT", "console", 1);
  o.cpu = cpu, o.pad_length = 777, o.directory = scratch;
  r = cpucycles_gbench_run_once(reexec, 0, 0.01, &o, &run, why, sizeof why);
  l[0] = r == 0 ? layout_of(&run.parsed) : l[0];
  if (!realpath(scratch, scratch_real)) snprintf(scratch_real, sizeof scratch_real, "%s", scratch);
  {
    char cpu_text[16];
    snprintf(cpu_text, sizeof cpu_text, "%d", cpu);
    tap_ok(r == 0 && l[0].ok && !strcmp(l[0].cpus, cpu_text) && l[0].pad == 777 && l[0].benchmark_variables == 0,
           "the child runs on the one CPU asked for (%s), its environment padded by 777 bytes, "
           "without the BENCHMARK_* variables set here (%s)", r == 0 ? l[0].cpus : "-", r ? why : "ran");
    tap_ok(r == 0 && !strcmp(l[0].cwd, scratch_real),
           "in the working directory asked for (%s)", r == 0 ? l[0].cwd : why);
  }
  if (r == 0) cpucycles_gbench_run_free(&run);
  unsetenv("BENCHMARK_OUT");
  unsetenv("BENCHMARK_FORMAT");
}

/* /proc/PID gone, or a zombie (reparented to an init that does not reap) */
static int gone(long pid)
{
  char path[64], state = 0, buf[512], *p;
  FILE *f;
  snprintf(path, sizeof path, "/proc/%ld/stat", pid);
  if (!(f = fopen(path, "r"))) return 1;
  if (fgets(buf, sizeof buf, f) && (p = strrchr(buf, ')')) && p[1] == ' ') state = p[2];
  fclose(f);
  return state == 'Z' || state == 'X';
}

#define FAILURE_CASES 7
static void test_failures(const char *reexec)
{
  struct cpucycles_gbench_options o;
  struct cpucycles_gbench_run run;
  struct cpucycles_gbench_names names;
  char why[512] = "", why2[512] = "", script[8192];
  const char *path;
  double started, took;
  long pid = 0;
  int r, r2, k, log;
  FILE *f;
  cpucycles_gbench_default_options(&o);
  o.timeout = 30;

  /* hangs, with a process of its own group in the background */
  snprintf(script, sizeof script, "#!/bin/sh\nsleep 60 &\necho $! >'%s'\nexec sleep 60\n", in_scratch("hang.pid"));
  path = write_file("hang.sh", script, strlen(script), 0755);
  o.timeout = 0.5;
  started = seconds_now();
  r = cpucycles_gbench_run_once(path, 0, 0.01, &o, &run, why, sizeof why);
  took = seconds_now() - started;
  if ((f = fopen(in_scratch("hang.pid"), "r"))) {
    if (fscanf(f, "%ld", &pid) != 1) pid = 0;
    fclose(f);
  }
  for (k = 0; k < 200 && pid > 0 && !gone(pid); k++) usleep(10000);
  tap_ok(r != 0 && strstr(why, "still running after the timeout of 0.5 s: killed") && took >= 0.5 &&
             took < 20 && pid > 0 && gone(pid),
         "a program that hangs is killed at its timeout, with the process it left in the "
         "background (%s; %.2f s)", why, took);
  o.timeout = 30;

  /* /bin/true: exits 0, says nothing */
  r = cpucycles_gbench_list("/bin/true", 0, &o, &names, why, sizeof why);
  r2 = cpucycles_gbench_run_once("/bin/true", 0, 0.01, &o, &run, why2, sizeof why2);
  tap_ok(r != 0 && r2 != 0 && strstr(why, "it lists no benchmark") && strstr(why2, "printed nothing on stdout"),
         "/bin/true is refused: '%s'; '%s'", why, why2);

  /* a usage text, exit 0 */
  snprintf(script, sizeof script, "#!/bin/sh\necho 'usage: junk [options] \033[31mFILE'\necho '  -v  verbose'\n");
  path = write_file("usage.sh", script, strlen(script), 0755);
  r = cpucycles_gbench_list(path, 0, &o, &names, why, sizeof why);
  r2 = cpucycles_gbench_run_once(path, 0, 0.01, &o, &run, why2, sizeof why2);
  tap_ok(r != 0 && r2 != 0 && one_line(why) && one_line(why2) &&
             (strstr(why, "control characters") || strstr(why, "usage text")) &&
             strstr(why2, "not Google Benchmark's JSON") && strstr(why2, "it begins \"usage: junk [options] ?[31m"),
         "a program that prints a usage text is refused, its output cleaned: '%s'; '%s'", why, why2);

  /* fails, a line on stderr: read from the pipe, and back from a log */
  snprintf(script, sizeof script, "#!/bin/sh\necho 'first line' >&2\necho 'fatal: bad flag' >&2\nexit 3\n");
  path = write_file("fail.sh", script, strlen(script), 0755);
  r = cpucycles_gbench_run_once(path, 0, 0.01, &o, &run, why, sizeof why);
  log = open(in_scratch("log.txt"), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (log >= 0 && write(log, "an earlier line\n", 16) != 16) tap_diag("log: %s", strerror(errno));
  o.stderr_fd = log;
  r2 = cpucycles_gbench_run_once(path, 0, 0.01, &o, &run, why2, sizeof why2);
  o.stderr_fd = -1;
  if (log >= 0) close(log);
  tap_ok(r != 0 && r2 != 0 && strstr(why, "exit status 3: fatal: bad flag") &&
             strstr(why2, "exit status 3: fatal: bad flag"),
         "a program that fails: its exit status and the last line of its stderr, from a pipe and "
         "read back from a write-only log: '%s'; '%s'", why, why2);

  /* dies of a signal */
  snprintf(script, sizeof script, "#!/bin/sh\nkill -SEGV $$\n");
  path = write_file("signal.sh", script, strlen(script), 0755);
  r = cpucycles_gbench_run_once(path, 0, 0.01, &o, &run, why, sizeof why);
  tap_ok(r != 0 && strstr(why, "killed by signal 11"), "a program killed by a signal: '%s'", why);

  /* cannot be run */
  {
    char elf[64], w1[512] = "", w2[512] = "", w3[512] = "";
    int a, b, c;
    memset(elf, 0, sizeof elf);
    memcpy(elf, "\x7f" "ELF\x02\x01\x01", 7);
    path = write_file("noexec.sh", "#!/bin/sh\necho\n", 15, 0644);
    a = cpucycles_gbench_run_once(path, 0, 0.01, &o, &run, w1, sizeof w1);
    path = write_file("junk-elf", elf, sizeof elf, 0755);
    b = cpucycles_gbench_list(path, 0, &o, &names, w2, sizeof w2);
    c = cpucycles_gbench_run_once(in_scratch("missing"), 0, 0.01, &o, &run, w3, sizeof w3);
    tap_ok(a != 0 && b != 0 && c != 0 && strstr(w1, "cannot be run: Permission denied") &&
               strstr(w2, "cannot be run: Exec format error") && strstr(w3, "No such file or directory"),
           "programs that cannot be run, each with its reason: '%s'; '%s'; '%s'", w1, w2, w3);
  }

  /* a directory, a working directory that is not there, a CPU that is not */
  {
    char w1[512] = "", w2[512] = "", w3[512] = "";
    int a, b, c;
    mkdir(in_scratch("dir"), 0755);
    a = cpucycles_gbench_list(in_scratch("dir"), 0, &o, &names, w1, sizeof w1);
    o.directory = in_scratch("missing");
    b = cpucycles_gbench_run_once(reexec, 0, 0.01, &o, &run, w2, sizeof w2);
    o.directory = 0, o.cpu = CPU_SETSIZE - 1;
    c = cpucycles_gbench_run_once(reexec, 0, 0.01, &o, &run, w3, sizeof w3);
    o.cpu = -1;
    tap_ok(a != 0 && b != 0 && c != 0 && strstr(w1, "a directory, not a program") &&
               strstr(w2, "cannot enter its working directory: No such file") &&
               strstr(w3, "cannot be pinned to its CPU"),
           "a directory, a missing working directory, a CPU not there: '%s'; '%s'; '%s'", w1, w2, w3);
  }
}

int main(void)
{
  const char *top = getenv("top_builddir"), *why_not = getenv("CPUCYCLES_GBENCH_WHY");
  const char *runner = getenv("CPUCYCLES_PROBE_RUNNER"), *tmp = getenv("TMPDIR");
  char fixture[8192], reexec[8192], cwd[4096];
  int have_reexec;
  tap_plan(PLAN);
  test_171();
  test_old_and_new();
  test_several();
  test_refusals();
  test_filter();
  test_time_chosen();

  if (!top || !*top) top = ".";
  /* absolute: the runs' working directory changes */
  if (top[0] != '/' && getcwd(cwd, sizeof cwd)) {
    snprintf(fixture, sizeof fixture, "%.4000s/%.4000s/tests/gbench-fixture", cwd, top);
    snprintf(reexec, sizeof reexec, "%.4000s/%.4000s/tests/gbench-reexec", cwd, top);
  } else {
    snprintf(fixture, sizeof fixture, "%.4000s/tests/gbench-fixture", top);
    snprintf(reexec, sizeof reexec, "%.4000s/tests/gbench-reexec", top);
  }
  if (runner && *runner) {
    /* a user-mode emulator's guest may not exec another guest program */
    skip_n(FIXTURE_CASES + REEXEC_CASES + FAILURE_CASES, "GB programs run", "run through a probe runner");
    return tap_done();
  }
  snprintf(scratch, sizeof scratch, "%s/t-gbench.XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(scratch)) {
    tap_ok(0, "a scratch directory: mkdtemp %s: %s", scratch, strerror(errno));
    skip_n(FIXTURE_CASES + REEXEC_CASES + FAILURE_CASES - 1, "GB programs run", "no scratch directory");
    return tap_done();
  }
  if (why_not && *why_not) skip_n(FIXTURE_CASES, "a Google Benchmark program", why_not);
  else if (access(fixture, X_OK) != 0 && !why_not)
    skip_n(FIXTURE_CASES, "a Google Benchmark program", "tests/gbench-fixture not built (make check builds it)");
  else test_fixture(fixture);
  /* (make check builds it always: missing then is a failure) */
  have_reexec = access(reexec, X_OK) == 0;
  if (!have_reexec && !why_not) skip_n(REEXEC_CASES, "gbench-reexec", "tests/gbench-reexec not built");
  else test_reexec(reexec);
  test_failures(reexec);
  remove_scratch();
  return tap_done();
}
