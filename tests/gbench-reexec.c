/* SPDX-License-Identifier: MIT */
/* gbench-reexec - a stand-in for a Google Benchmark >= 1.9.3 program, for
 * t-gbench: at its start it does what GB's BENCHMARK_MAIN() does first,
 * MaybeReenterWithoutASLR() (src/benchmark.cc): it reads its personality,
 * and unless ADDR_NO_RANDOMIZE is set, sets it and exec()s itself again
 * (through /proc/self/exe, else argv[0]); when setting fails it carries
 * on.  Then it answers as a GB program does: --benchmark_list_tests=true
 * lists its two benchmarks, --benchmark_format=json writes GB's JSON for
 * them, --benchmark_filter= selects them (an extended regular expression,
 * as GB's); --benchmark_min_time= and --benchmark_repetitions= are
 * accepted, and anything else is ignored.
 *
 * BM_Layout's label says what t-gbench checks: the address of a variable
 * on its stack and of one of its functions (the same in every run when
 * randomization is off, different when it is on: a PIE's code moves too),
 * how many times it re-executed itself (counted in an environment
 * variable of its own), whether setting the personality was refused,
 * whether randomization is off, the CPUs it may run on, the length of
 * cpucycles-compare's padding variable (-1: none), how many BENCHMARK_*
 * variables it sees, and its working directory. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* sched_getaffinity, CPU_* */
#endif
#include <regex.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <unistd.h>

#define COUNT_VARIABLE "GBENCH_REEXEC_COUNT"
/* the times it reports: 12.5 and 25 ns, or TIMES times those (built with
 * -DTIMES=3: NEW at three times the time, for t-compare-programs) */
#ifndef TIMES
#define TIMES 1
#endif

extern char **environ;

static int refused; /* setting the personality failed */

/* MaybeReenterWithoutASLR(), as GB writes it (with the count of
 * re-executions, for the report). */
static void maybe_reenter_without_aslr(char **argv)
{
  int current, previous;
  char count[16];
  const char *was = getenv(COUNT_VARIABLE);
  if (!argv) return;
  current = personality(0xffffffff);
  if (current == -1) return;
  if ((unsigned int)current & ADDR_NO_RANDOMIZE) return;
  previous = personality((unsigned int)current | ADDR_NO_RANDOMIZE);
  if (previous == -1) {
    refused = 1;
    return;
  }
  current = personality(0xffffffff);
  if (current == -1 || !((unsigned int)current & ADDR_NO_RANDOMIZE)) return;
  snprintf(count, sizeof count, "%d", was ? atoi(was) + 1 : 1);
  setenv(COUNT_VARIABLE, count, 1);
  execv("/proc/self/exe", argv);
  execv(argv[0], argv);
  /* neither ran: on as it is */
}

/* s as a JSON string's contents on stdout */
static void put_json_text(const char *s)
{
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') printf("\\%c", c);
    else if (c < 0x20) printf("\\u%04x", c);
    else putchar(c);
  }
}

/* the value of argument prefix (e.g. "--benchmark_filter="), or 0 */
static const char *option(int argc, char **argv, const char *prefix)
{
  size_t n = strlen(prefix);
  int i;
  for (i = 1; i < argc; i++)
    if (strncmp(argv[i], prefix, n) == 0) return argv[i] + n;
  return 0;
}

int main(int argc, char **argv)
{
  static const char *const names[] = {"BM_Layout", "BM_Other/8"};
  volatile char on_stack = 0;
  const char *filter, *format, *list, *pad, *count;
  char cwd[4096], label[8192], cpus[1024];
  size_t i, n = 0, benchmark_variables = 0;
  int selected[2], current, first = 1, k;
  regex_t re;
  cpu_set_t set;

  maybe_reenter_without_aslr(argv);
  filter = option(argc, argv, "--benchmark_filter=");
  format = option(argc, argv, "--benchmark_format=");
  list = option(argc, argv, "--benchmark_list_tests=");
  if (filter && *filter && strcmp(filter, "all") != 0) {
    if (regcomp(&re, filter, REG_EXTENDED | REG_NOSUB) != 0) {
      fprintf(stderr, "gbench-reexec: bad filter %s\n", filter);
      return 1;
    }
    for (i = 0; i < 2; i++) selected[i] = regexec(&re, names[i], 0, 0, 0) == 0;
    regfree(&re);
  } else {
    selected[0] = selected[1] = 1;
  }
  if (!selected[0] && !selected[1]) {
    fprintf(stderr, "Failed to match any benchmarks against regex: %s\n", filter);
    return 0;
  }
  if (list && strcmp(list, "true") == 0) {
    for (i = 0; i < 2; i++)
      if (selected[i]) printf("%s\n", names[i]);
    return 0;
  }

  current = personality(0xffffffff);
  count = getenv(COUNT_VARIABLE);
  pad = getenv("CPUCYCLES_COMPARE_PAD");
  for (i = 0; environ && environ[i]; i++) benchmark_variables += strncmp(environ[i], "BENCHMARK_", 10) == 0;
  if (!getcwd(cwd, sizeof cwd)) strcpy(cwd, "?");
  cpus[0] = 0;
  if (sched_getaffinity(0, sizeof set, &set) == 0)
    for (k = 0; k < CPU_SETSIZE && n + 8 < sizeof cpus; k++)
      if (CPU_ISSET(k, &set)) n += (size_t)snprintf(cpus + n, sizeof cpus - n, "%s%d", n ? "," : "", k);
  snprintf(label, sizeof label,
           "stack=%#lx code=%#lx reexecuted=%d refused=%d aslr_off=%d cpus=%s pad=%ld "
           "benchmark_variables=%zu cwd=%s",
           (unsigned long)(uintptr_t)&on_stack, (unsigned long)(uintptr_t)&maybe_reenter_without_aslr,
           count ? atoi(count) : 0, refused, current != -1 && ((unsigned int)current & ADDR_NO_RANDOMIZE),
           cpus, pad ? (long)strlen(pad) : -1L, benchmark_variables, cwd);

  if (!format || strcmp(format, "json") != 0) {
    for (i = 0; i < 2; i++)
      if (selected[i]) printf("%-12s %10.1f ns %10.1f ns %10d %s\n", names[i], 12.5 * TIMES, 12.5 * TIMES, 1000, i ? "" : label);
    return 0;
  }
  printf("{\n  \"context\": {\n    \"date\": \"2026-01-01T00:00:00+00:00\",\n    \"host_name\": \"stand-in\",\n"
         "    \"executable\": \"");
  put_json_text(argv[0]);
  printf("\",\n    \"num_cpus\": 1,\n    \"mhz_per_cpu\": 1000,\n    \"cpu_scaling_enabled\": false,\n"
         "    \"library_version\": \"v1.9.3\",\n    \"library_build_type\": \"release\",\n"
         "    \"json_schema_version\": 1\n  },\n  \"benchmarks\": [");
  for (i = 0; i < 2; i++) {
    if (!selected[i]) continue;
    printf("%s\n    {\n      \"name\": \"%s\",\n      \"family_index\": %zu,\n"
           "      \"per_family_instance_index\": 0,\n      \"run_name\": \"%s\",\n"
           "      \"run_type\": \"iteration\",\n      \"repetitions\": 1,\n      \"repetition_index\": 0,\n"
           "      \"threads\": 1,\n      \"iterations\": 1000,\n      \"real_time\": %g,\n"
           "      \"cpu_time\": %g,\n      \"time_unit\": \"ns\"",
           first ? "" : ",", names[i], i, names[i], (i ? 25.0 : 12.5) * TIMES, (i ? 25.0 : 12.5) * TIMES);
    if (i == 0) {
      printf(",\n      \"label\": \"");
      put_json_text(label);
      printf("\"");
    }
    printf("\n    }");
    first = 0;
  }
  printf("\n  ]\n}\n");
  return 0;
}
