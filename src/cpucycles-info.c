/* SPDX-License-Identifier: MIT */
/* cpucycles-info - what cpucycles knows about this machine's counters:
 * the build host's table, whether this host is the build host, the
 * run-time verdict, the frequency and its source, and a few back-to-back
 * readings of the counter in use.
 *
 *   cpucycles-info           the report, for people (the lines libcpucycles'
 *                            cpucycles-info prints keep their exact form)
 *   cpucycles-info --json    the same facts as one JSON object, for scripts
 *   cpucycles-info --check   0 inline counter verified here, 1 fallback to
 *                            another cycle counter, 2 only an OS clock or
 *                            nothing left
 *
 * Exit 1 with a message on stderr when the output cannot be written, 2 on a
 * bad command line. */
#include "cpucycles.h"
#include "decide.h"
#include "table.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DELTAS 1000
#define DELTAS_SHOWN 16

static const char usage[] =
    "usage: cpucycles-info [--json | --check | --help | --version]\n"
    "  (no option)  report the build's counters, this host's verdict, the\n"
    "               frequency and the cost of a read\n"
    "  --json       the same facts as one JSON object (see README.md)\n"
    "  --check      exit 0 when the build's inline counter is verified on\n"
    "               this host, 1 when another cycle counter is used, 2 when\n"
    "               only an OS clock or nothing is left\n"
    "  --help       this text\n"
    "  --version    the version\n";

static int compare_ll(const void *a, const void *b)
{
  long long x = *(const long long *)a, y = *(const long long *)b;
  return (x > y) - (x < y);
}

/* Back-to-back cpucycles() differences: fills deltas[0..DELTAS-1] in read
 * order and returns their median. */
static long long measure_deltas(long long *deltas)
{
  long long t[DELTAS + 1], sorted[DELTAS];
  int i;
  for (i = 0; i <= DELTAS; i++) t[i] = cpucycles();
  for (i = 0; i < DELTAS; i++) sorted[i] = deltas[i] = t[i + 1] - t[i];
  qsort(sorted, DELTAS, sizeof sorted[0], compare_ll);
  return sorted[DELTAS / 2];
}

/* A full disk or a closed pipe must not look like success to a script. */
static int finish(int status)
{
  if (fflush(stdout) != 0 || ferror(stdout)) {
    fprintf(stderr, "cpucycles-info: cannot write the output: %s\n", strerror(errno));
    return 1;
  }
  return status;
}

/* ---- text mode ---- */

static void print_result(const char *name, const struct cpucycles_result *r, int kind)
{
  if (r->available)
    printf("  %-26s yes  precision %lld, %s\n", name, r->precision, cpucycles_kind_name(kind));
  else
    printf("  %-26s no   (%s)\n", name, r->reason ? r->reason : "unavailable");
}

static void print_build_table(void)
{
#define X(name, available, precision, hz, kind, reason)                                  \
  if ((available) == 1)                                                                  \
    printf("  %-26s yes  precision %d, %.0f MHz, %s\n", name, precision, (hz) / 1e6,     \
           cpucycles_kind_name(kind));                                                   \
  else                                                                                   \
    printf("  %-26s %s  (%s)\n", name, (available) == 0 ? "no " : "?  ", reason);
  CPUCYCLES_BUILD_COUNTERS(X)
#undef X
}

/* How cpucycles() reads the build's counter once it is verified. */
static const char *build_path(void)
{
  if (!CPUCYCLES_BUILD_CHOICE) return ", not inlined (run-time choice)";
#if defined(CPUCYCLES_INLINE_READ)
  return ", inlined in cpucycles()";
#else
  return ", read through the library (a 32-bit counter extended to 64 bits, per-thread perf events, "
         "state only the library has, or a counter configure could not probe)";
#endif
}

/* 1 when cpucycles() runs the build's counter inline, without a call. */
static int inline_used(const struct cpucycles_decision *d)
{
#if defined(CPUCYCLES_INLINE_READ)
  return CPUCYCLES_BUILD_CHOICE && d->build_verified;
#else
  (void)d;
  return 0;
#endif
}

static int report_text(const struct cpucycles_decision *d)
{
  long long deltas[DELTAS], median;
  int i;

  /* libcpucycles' lines, in its exact form: "cpucycles version V",
   * "cpucycles implementation NAME", "cpucycles persecond N".  Ours have
   * other shapes (a colon after a word, or more words before it). */
  printf("cpucycles version %s\n", cpucycles_version());
  printf("cpucycles build counters (measured by configure on the build host):\n");
  print_build_table();
  if (CPUCYCLES_CHOSEN[0])
    printf("cpucycles build chose %s%s\n", CPUCYCLES_CHOSEN, build_path());
  else
    printf("cpucycles build chose nothing: no probe could run (the choice is made at run time)\n");
  printf("cpucycles build fingerprint: %s\n", CPUCYCLES_BUILD_FINGERPRINT);
  printf("cpucycles host fingerprint:  %s (%s)\n", d->host_fingerprint,
         d->host_matches ? "matches the build host" : "differs from the build host");
  printf("cpucycles verdict: %s\n", d->why);
  if (d->reselected) {
    printf("cpucycles run-time counters (measured now):\n");
    for (i = 0; i < cpucycles_table_size && i < CPUCYCLES_MAX_COUNTERS; i++)
      print_result(cpucycles_table[i].name, &d->results[i], cpucycles_table[i].kind);
  }
  printf("cpucycles implementation %s\n", cpucycles_implementation());
  printf("cpucycles implementation kind: %s\n",
         cpucycles_kind_name(cpucycles_table[d->index].kind));
  printf("cpucycles persecond %lld\n", cpucycles_persecond());
  printf("cpucycles persecond source: %s\n", d->persecond_report.source);
  if (d->persecond_report.problems[0])
    printf("cpucycles persecond ignored: %s\n", d->persecond_report.problems);

  median = measure_deltas(deltas);
  printf("cpucycles deltas:");
  for (i = 0; i < DELTAS_SHOWN; i++) printf(" %lld", deltas[i]);
  printf(" ... median %lld of %d\n", median, DELTAS);
  return finish(0);
}

/* ---- JSON mode ---- */

/* Length of the valid UTF-8 sequence at s (1 to 4), or 0 when s does not
 * start one (a stray byte, an overlong form, a surrogate, past U+10FFFF,
 * or cut short). */
static int utf8_length(const unsigned char *s)
{
  int n, i;
  unsigned long c;
  if (s[0] < 0x80) return 1;
  if (s[0] >= 0xc2 && s[0] <= 0xdf) n = 2, c = s[0] & 0x1f;
  else if (s[0] >= 0xe0 && s[0] <= 0xef) n = 3, c = s[0] & 0x0f;
  else if (s[0] >= 0xf0 && s[0] <= 0xf4) n = 4, c = s[0] & 0x07;
  else return 0;
  for (i = 1; i < n; i++) {
    if ((s[i] & 0xc0) != 0x80) return 0; /* also stops at the NUL */
    c = (c << 6) | (s[i] & 0x3f);
  }
  if ((n == 3 && c < 0x800) || (n == 4 && (c < 0x10000 || c > 0x10ffff))) return 0;
  if (c >= 0xd800 && c <= 0xdfff) return 0;
  return n;
}

/* s as a JSON string: quotes, backslashes and control characters escaped,
 * a byte that is not valid UTF-8 (from an environment variable, say)
 * replaced by U+FFFD; NULL as null. */
static void json_string(const char *s)
{
  const unsigned char *p = (const unsigned char *)s;
  if (!s) {
    fputs("null", stdout);
    return;
  }
  putchar('"');
  while (*p) {
    int n = utf8_length(p);
    if (*p == '"' || *p == '\\') printf("\\%c", *p);
    else if (*p == '\n') fputs("\\n", stdout);
    else if (*p == '\t') fputs("\\t", stdout);
    else if (*p < 0x20 || *p == 0x7f) printf("\\u%04x", *p);
    else if (n == 0) fputs("\\ufffd", stdout);
    else fwrite(p, 1, n, stdout);
    p += n ? n : 1;
  }
  putchar('"');
}

static void json_key(const char *key, int first)
{
  printf("%s\n  \"%s\": ", first ? "{" : ",", key);
}

static const char *json_bool(int b) { return b ? "true" : "false"; }

static void json_build_table(void)
{
  int first = 1;
  fputs("[", stdout);
#define X(name, available, precision, hz, kind, reason)                                  \
  printf("%s\n    {\"name\": ", first ? "" : ",");                                       \
  json_string(name);                                                                     \
  printf(", \"available\": %s",                                                          \
         (available) == 1 ? "true" : (available) == 0 ? "false" : "null");               \
  if ((available) == 1)                                                                  \
    printf(", \"precision\": %lld, \"hz\": %.0f, \"kind\": \"%s\", \"reason\": null}",   \
           (long long)(precision), (double)(hz), cpucycles_kind_name(kind));             \
  else {                                                                                 \
    fputs(", \"precision\": null, \"hz\": null, \"kind\": null, \"reason\": ", stdout);  \
    json_string(reason);                                                                 \
    putchar('}');                                                                        \
  }                                                                                      \
  first = 0;
  CPUCYCLES_BUILD_COUNTERS(X)
#undef X
  fputs(first ? "]" : "\n  ]", stdout);
}

static void json_runtime_table(const struct cpucycles_decision *d)
{
  int i;
  if (!d->reselected) {
    fputs("null", stdout);
    return;
  }
  fputs("[", stdout);
  for (i = 0; i < cpucycles_table_size && i < CPUCYCLES_MAX_COUNTERS; i++) {
    const struct cpucycles_result *r = &d->results[i];
    printf("%s\n    {\"name\": ", i ? "," : "");
    json_string(cpucycles_table[i].name);
    printf(", \"available\": %s", json_bool(r->available));
    if (r->available)
      printf(", \"precision\": %lld, \"kind\": \"%s\", \"reason\": null}", r->precision,
             cpucycles_kind_name(cpucycles_table[i].kind));
    else {
      fputs(", \"precision\": null, \"kind\": null, \"reason\": ", stdout);
      json_string(r->reason ? r->reason : "unavailable");
      putchar('}');
    }
  }
  fputs(i ? "\n  ]" : "]", stdout);
}

static int report_json(const struct cpucycles_decision *d)
{
  long long deltas[DELTAS];
  long long persecond = cpucycles_persecond();
  const char *implementation = cpucycles_implementation();
  long long median = measure_deltas(deltas);

  json_key("version", 1), json_string(cpucycles_version());
  json_key("implementation", 0), json_string(implementation);
  json_key("implementation_kind", 0);
  json_string(cpucycles_kind_name(cpucycles_table[d->index].kind));
  json_key("persecond", 0), printf("%lld", persecond);
  json_key("persecond_source", 0), json_string(d->persecond_report.source);
  json_key("persecond_ignored", 0), json_string(d->persecond_report.problems);
  json_key("build_counters", 0), json_build_table();
  json_key("build_chose", 0), json_string(CPUCYCLES_CHOSEN[0] ? CPUCYCLES_CHOSEN : NULL);
  json_key("build_fingerprint", 0), json_string(CPUCYCLES_BUILD_FINGERPRINT);
  json_key("host_fingerprint", 0), json_string(d->host_fingerprint);
  json_key("host_matches", 0), fputs(json_bool(d->host_matches), stdout);
  json_key("build_counter_verified", 0), fputs(json_bool(d->build_verified), stdout);
  json_key("verdict", 0), json_string(d->why);
  json_key("inline", 0), fputs(json_bool(inline_used(d)), stdout);
  json_key("runtime_counters", 0), json_runtime_table(d);
  json_key("deltas_median", 0), printf("%lld", median);
  json_key("deltas_count", 0), printf("%d", DELTAS);
  fputs("\n}\n", stdout);
  return finish(0);
}

/* ---- check mode ---- */

static int check(const struct cpucycles_decision *d)
{
  int kind = cpucycles_table[d->index].kind;
  const char *name = cpucycles_table[d->index].name;
  int status;

  if (d->build_verified) {
    status = 0;
    printf("cpucycles check: ok: the build's counter %s is verified on this host (%s)\n", name,
           d->why);
  } else if (kind == CPUCYCLES_KIND_ONCORE || kind == CPUCYCLES_KIND_OFFCORE ||
             kind == CPUCYCLES_KIND_SCALED || kind == CPUCYCLES_KIND_SYSCALL) {
    status = 1;
    if (!strcmp(name, CPUCYCLES_CHOSEN))
      printf("cpucycles check: fallback: the build's counter %s (%s) is not verified on this "
             "host, chosen again at run time and read through the library (%s)\n",
             name, cpucycles_kind_name(kind), d->why);
    else
      printf("cpucycles check: fallback: using %s (%s), not the build's counter %s (%s)\n", name,
             cpucycles_kind_name(kind), CPUCYCLES_CHOSEN[0] ? CPUCYCLES_CHOSEN : "(none)", d->why);
  } else {
    status = 2;
    printf("cpucycles check: no cycle counter: only %s (%s) is left (%s)\n", name,
           cpucycles_kind_name(kind), d->why);
  }
  return finish(status);
}

int main(int argc, char **argv)
{
  enum { REPORT, JSON, CHECK } mode = REPORT;
  int i, modes = 0;

  for (i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--help")) {
      fputs(usage, stdout);
      return finish(0);
    } else if (!strcmp(argv[i], "--version")) {
      printf("cpucycles-info %s\n", cpucycles_version());
      return finish(0);
    } else if (!strcmp(argv[i], "--json")) {
      mode = JSON, modes++;
    } else if (!strcmp(argv[i], "--check")) {
      mode = CHECK, modes++;
    } else {
      fprintf(stderr, "cpucycles-info: %s '%s'\n",
              argv[i][0] == '-' ? "unknown option" : "unexpected argument", argv[i]);
      fputs(usage, stderr);
      return 2;
    }
  }
  if (modes > 1) {
    fputs("cpucycles-info: give at most one of --json and --check\n", stderr);
    fputs(usage, stderr);
    return 2;
  }
  switch (mode) {
  case JSON: return report_json(cpucycles_decision());
  case CHECK: return check(cpucycles_decision());
  default: return report_text(cpucycles_decision());
  }
}
