/* SPDX-License-Identifier: MIT */
/* cpucycles-info - what cpucycles knows about this machine's counters:
 * the build host's table, whether this host is the build host, the
 * run-time verdict, the frequency and its source, back-to-back readings
 * of the counter in use, and its rate observed against CLOCK_MONOTONIC.
 *
 *   cpucycles-info           the report, for people (the lines libcpucycles'
 *                            cpucycles-info prints keep their exact form)
 *   cpucycles-info --json    the same facts as one JSON object, for scripts
 *   cpucycles-info --check   0 inline counter verified here (or, with no
 *                            build counter, the best counter here in
 *                            use), 1 fallback to another cycle counter,
 *                            2 only an OS clock or nothing left
 *   cpucycles-info --compare OLD NEW [--tolerance PERCENT] [--exit-faster]
 *                  [--judge-anyway]
 *                            cpucycles_bench() results saved as JSON
 *                            (cpucycles_bench_format()), matched by name,
 *                            several executions of each: 0 none slower, 1
 *                            one is, 2 a file that cannot be read or is
 *                            refused, 3 (--exit-faster) none slower, one
 *                            faster, 4 one cannot be judged (info-compare.c)
 *
 * Exit 1 with a message on stderr when the output cannot be written, 2 on a
 * bad command line. */
#include "cpucycles.h"
#include "decide.h"
#include "format.h"
#include "counter-setup.h"
#include "readfile.h"
#include "info-abi.h"
#include "private.h"
#include "info-compare.h"
#include "verdict.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The library's decision and table, from the shared library this program
 * runs with (cpucycles_private()->info: src/private.h, src/core/info-abi.h),
 * not from a copy linked into it: main() fills abi, or stops.  Weak, so
 * that a libcpucycles.so.1 without it (djb's libcpucycles, under the same
 * soname) gets a message, not a loader error.  The extensions it calls
 * once find_library() has found this project's library are weak for the
 * same reason: musl's loader binds every symbol at load time, so a strong
 * reference to one libcpucycles lacks stops the program before main(). */
#if defined(__GNUC__) && defined(__ELF__)
#pragma weak cpucycles_private
#pragma weak cpucycles_unit
#pragma weak cpucycles_unit_name
#endif
static const struct cpucycles_info_abi *abi;
#define cpucycles_decision() (abi->decision())
#define cpucycles_table (abi->table)
#define cpucycles_table_size (*abi->table_size)
#define cpucycles_kind_name(kind) (abi->kind_name(kind))
#define cpucycles_choose(results, n) (abi->choose(results, n))

/* 0 with abi set, or 2 with a message: the library is another version
 * (its structures may differ) or not this project's. */
static int find_library(void)
{
  const struct cpucycles_private *p = cpucycles_private ? cpucycles_private() : 0;
  if (!p) {
    fprintf(stderr, "cpucycles-info: this libcpucycles.so.1 (version %s) is not cpucycles' (it has "
                    "no cpucycles_private: libcpucycles itself?); install cpucycles %s's "
                    "library\n", cpucycles_version(), CPUCYCLES_VERSION);
    return 2;
  }
  /* another build of the same version may lay out the structures
   * otherwise: the interface's number and size say so first */
  if (p->interface != CPUCYCLES_PRIVATE_INTERFACE || p->size < sizeof *p) {
    fprintf(stderr, "cpucycles-info %s: the library is another build of cpucycles %s, with "
                    "another private interface (%u); install both from one build\n",
            CPUCYCLES_VERSION, p->version, p->interface);
    return 2;
  }
  abi = p->info;
  if (strcmp(p->version, CPUCYCLES_VERSION) != 0 || strcmp(abi->version, CPUCYCLES_VERSION) != 0 ||
      abi->decision_size != sizeof(struct cpucycles_decision)) {
    fprintf(stderr, "cpucycles-info %s: the library is cpucycles %s; install the same version of "
                    "both\n", CPUCYCLES_VERSION, p->version);
    return 2;
  }
  return 0;
}

#define DELTAS 1000
#define DELTAS_SHOWN 16
/* The deltas the text prints as offsets from their interquartile mean:
 * about as many as libcpucycles' line holds (it takes 64 reads, 63
 * deltas), in one line; --json gives them all. */
#define OFFSETS_SHOWN 64

static const char usage[] =
    "usage: cpucycles-info [--json | --check | --help | --version]\n"
    "       cpucycles-info --compare OLD.json NEW.json [--tolerance PERCENT] [--exit-faster]\n"
    "                      [--judge-anyway] [--json]\n"
    "       cpucycles-info --compare COMPARISON.json [--tolerance PERCENT] [--exit-faster]\n"
    "                      [--judge-anyway] [--json]\n"
    "  (no option)  report the build's counters, this host's verdict, the\n"
    "               unit, the frequency, a read's cost, the counter's step and\n"
    "               its rate observed against the clock\n"
    "  --json       the same facts as one JSON object; with --compare, the\n"
    "               comparison as one JSON object (JSON in cpucycles_bench(3))\n"
    "  --check      exit 0 when the build's inline counter is verified on\n"
    "               this host (with no build counter, as in a portable build:\n"
    "               when the best cycle counter here is used), 1 when another\n"
    "               cycle counter is used, 2 when only an OS clock or nothing\n"
    "               is left\n"
    "  --compare    NEW's cycles per call against OLD's: cpucycles_bench()\n"
    "               results saved by cpucycles_bench_format(), one or more per\n"
    "               file (a JSON array, or one after another), matched by name;\n"
    "               the results of one name are executions (separate processes,\n"
    "               at least 2 a file), and the 99% interval is between them,\n"
    "               each figure divided by the harness's reference saved with it\n"
    "               (the host's speed); one file: a comparison (cpucycles-compare\n"
    "               --json, --compare --json) judged again; exit 0 when none is\n"
    "               slower by more than the tolerance (each interval below it), 1\n"
    "               when one is (its whole interval beyond it), 2 when a file\n"
    "               cannot be read or is not such a result, 4 when one cannot be\n"
    "               judged: flagged drift, spread or below-resolution, few runs\n"
    "               kept, measured apart (counter, unit, host, library), one\n"
    "               execution, or an interval across the tolerance (VERDICTS in\n"
    "               cpucycles_bench(3))\n"
    "  --tolerance  with --compare: the percentage a verdict must be beyond (5)\n"
    "  --exit-faster  with --compare: exit 3 when none is slower and one is\n"
    "               faster (by more than the tolerance), instead of 0\n"
    "  --judge-anyway  with --compare: judge what cannot be judged (exit 0 or 1,\n"
    "               not 4), the reasons still printed as warnings\n"
    "  --help       this text\n"
    "  --version    the version\n"
    "Each line and JSON member: cpucycles-info(1).  The counter library:\n"
    "cpucycles(3); the harness, whose results --compare reads: cpucycles_bench(3).\n";

static int compare_ll(const void *a, const void *b)
{
  long long x = *(const long long *)a, y = *(const long long *)b;
  return (x > y) - (x < y);
}

/* Back-to-back cpucycles() differences, in read order, and what is made
 * of them: their median (a read's cost), their interquartile mean (the
 * mean of the middle half, rounded to a whole count: a read's cost that,
 * unlike the median, is not held to the counter's steps), and the
 * smallest nonzero one (the counter's step; 0: it never moved). */
struct deltas {
  long long d[DELTAS];
  long long median, iqm, step;
};

static void measure_deltas(struct deltas *m)
{
  long long t[DELTAS + 1], sorted[DELTAS], sum = 0;
  const int low = DELTAS / 4, n = DELTAS - 2 * (DELTAS / 4);
  int i;
  for (i = 0; i <= DELTAS; i++) t[i] = cpucycles();
  for (i = 0; i < DELTAS; i++) sorted[i] = m->d[i] = t[i + 1] - t[i];
  qsort(sorted, DELTAS, sizeof sorted[0], compare_ll);
  for (m->step = 0, i = 0; i < DELTAS && !m->step; i++)
    if (sorted[i] > 0) m->step = sorted[i];
  m->median = sorted[DELTAS / 2];
  for (i = low; i < low + n; i++) sum += sorted[i];
  m->iqm = (sum + (sum < 0 ? -n / 2 : n / 2)) / n;
}

/* The frequency observed against CLOCK_MONOTONIC, independently of how
 * the library found cpucycles_persecond(): the only check of it for a
 * counter that is not scaled.  A loop is timed by both, each clock read
 * between two counter reads (c0 m0 c1, loop, c2 m1 c3): the counter moved
 * at least c2 - c1 and at most c3 - c0 while the clock moved m1 - m0,
 * give or take one step of the counter and one of the clock (its
 * resolution) at each end; so the counts per second lie in [LOW, HIGH].
 * The loops grow eightfold until one takes a millisecond: about 10 ms in
 * all, at most OBSERVED_TRIES loops, so cpucycles-info stays quick on a
 * slow or busy machine.  A loop whose reads go backwards, or that the
 * clock saw take less than a microsecond (the unit its line gives) or too
 * short to bound, gives no range. */
#define OBSERVED_FIRST_LOOPS 1024
#define OBSERVED_TRIES 6
#define OBSERVED_ENOUGH_NS 1000000

struct observed {
  long long loops, microseconds, low, high;
};

static volatile int observed_sink;

static long long ns_between(const struct timespec *a, const struct timespec *b)
{
  return (long long)(b->tv_sec - a->tv_sec) * 1000000000LL + (b->tv_nsec - a->tv_nsec);
}

/* Fills *o for one loop of the given length and returns 1, or 0 when it
 * gives no range; *ns gets how long the clock saw it take (-1: no clock). */
static int observe_once(long long loops, long long step, long long resolution_ns,
                        struct observed *o, long long *ns)
{
  struct timespec m0, m1;
  long long c0, c1, c2, c3, i, least, most;
  c0 = cpucycles();
  if (clock_gettime(CLOCK_MONOTONIC, &m0) != 0) return *ns = -1, 0;
  c1 = cpucycles();
  for (i = 0; i < loops; i++) observed_sink = 0;
  c2 = cpucycles();
  if (clock_gettime(CLOCK_MONOTONIC, &m1) != 0) return *ns = -1, 0;
  c3 = cpucycles();
  *ns = ns_between(&m0, &m1);
  if (c1 < c0 || c2 < c1 || c3 < c2 || *ns < 1000 || *ns <= 2 * resolution_ns) return 0;
  least = c2 - c1 - step > 0 ? c2 - c1 - step : 0;
  most = c3 - c0 + step;
  o->loops = loops;
  o->microseconds = (*ns + 500) / 1000;
  /* floor and ceiling, in doubles: counts times 1e9 can pass 2^63 */
  o->low = (long long)(least * 1e9 / (double)(*ns + resolution_ns));
  o->high = (long long)(most * 1e9 / (double)(*ns - resolution_ns));
  if ((double)o->high < most * 1e9 / (double)(*ns - resolution_ns)) o->high++;
  return 1;
}

/* Each loop's range, in order, into o[0..]: their number. */
static int observe_persecond(long long step, struct observed *o)
{
  struct timespec r;
  long long loops = OBSERVED_FIRST_LOOPS, resolution_ns = 1, ns;
  int tries, n = 0;
  if (clock_getres(CLOCK_MONOTONIC, &r) == 0 && (r.tv_sec > 0 || r.tv_nsec > 0))
    resolution_ns = (long long)r.tv_sec * 1000000000LL + r.tv_nsec;
  for (tries = 0; tries < OBSERVED_TRIES; tries++, loops *= 8) {
    n += observe_once(loops, step, resolution_ns, &o[n], &ns);
    if (ns < 0 || ns >= OBSERVED_ENOUGH_NS) break;
  }
  return n;
}

/* A full disk or a closed pipe must not look like success to a script:
 * the report's exit status 1, --compare's 2 (an error, as every
 * comparison's: verdict.h). */
static int finish_with(int status, int failed)
{
  if (fflush(stdout) != 0 || ferror(stdout)) {
    fprintf(stderr, "cpucycles-info: cannot write the output: %s\n", strerror(errno));
    return failed;
  }
  return status;
}
static int finish(int status) { return finish_with(status, 1); }

/* ---- text mode ---- */

/* The tables' figure, the rule's score under the build's numbers: what
 * the selection compares, libcpucycles' "precision" (its tracesetup's
 * word), which is not the step below. */
static long long score_of(const struct cpucycles_result *results, int i)
{
  return abi->score(CPUCYCLES_SELECTION_RULE, results, i);
}

/* What a working counter listed before another adds to its score: 0
 * under seeds/000's numbers, 20260901's term for a counter's place. */
static long long place_term(void)
{
  struct cpucycles_result two[2];
  memset(two, 0, sizeof two);
  two[0].available = two[1].available = 1;
  return score_of(two, 1);
}

/* The words that say what the score is, with the numbers' source. */
static void print_score_words(void)
{
  long long place = place_term();
  if (place)
    printf("score = step + the kind's penalty + %lld for each working counter listed before it, "
           "libcpucycles 20260901's numbers; the smallest chosen", place);
  else
    fputs("score = step + the kind's penalty, seeds/000's numbers (libcpucycles' to 20260105); "
          "the smallest chosen", stdout);
}

static void print_result(const char *name, const struct cpucycles_result *results, int i, int kind)
{
  const struct cpucycles_result *r = &results[i];
  if (r->available)
    printf("  %-26s yes  score %lld, %s\n", name, score_of(results, i), cpucycles_kind_name(kind));
  else
    printf("  %-26s no   (%s)\n", name, r->reason ? r->reason : "unavailable");
}

/* configure's results as the rule reads them: availability and precision,
 * in the list's order (their scores need the counters before them). */
static int build_results(struct cpucycles_result *results)
{
  int n = 0;
  memset(results, 0, CPUCYCLES_MAX_COUNTERS * sizeof *results);
#define X(name, works, step_and_penalty, hz, kind, reason)                             \
  if (n < CPUCYCLES_MAX_COUNTERS) {                                                    \
    results[n].available = (works) == 1;                                               \
    results[n].precision = (works) == 1 ? (long long)(step_and_penalty) : 0;           \
    n++;                                                                               \
  }
  CPUCYCLES_BUILD_COUNTERS(X)
#undef X
  return n;
}

static void print_build_table(void)
{
  struct cpucycles_result results[CPUCYCLES_MAX_COUNTERS];
  int i = 0;
  build_results(results);
#define X(name, available, precision, hz, kind, reason)                                  \
  if ((available) == 1)                                                                  \
    printf("  %-26s yes  score %lld, %.0f MHz, %s\n", name, score_of(results, i),        \
           (hz) / 1e6, cpucycles_kind_name(kind));                                       \
  else                                                                                   \
    printf("  %-26s %s  (%s)\n", name, (available) == 0 ? "no " : "?  ", reason);         \
  i++;
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

/* What the counts are, for people: cpucycles_unit_name() says the unit,
 * this what it means for a measurement. */
static const char *unit_note(int unit)
{
  switch (unit) {
  case CPUCYCLES_UNIT_CORE_CYCLES: return "the core's own cycles: work";
  case CPUCYCLES_UNIT_CONSTANT_RATE: return "time, not work";
  case CPUCYCLES_UNIT_OS_CLOCK: return "an OS clock scaled to cycles: coarse";
  default: return "no clock: every count is 0";
  }
}

/* The cpucyclespersecond variable, set but not used: libcpucycles' order
 * puts it last, after the file, the configure-time figure of this host and
 * every mechanism of the operating system, so that a frequency the system
 * states is never overridden by one typed by hand.  NULL when it is not
 * set, was used, or was skipped as a bad value (or in a privileged
 * process): the "ignored" line says that.  Its value is not shown (in a
 * privileged process it is the caller's text). */
static const char *persecond_unused(const struct cpucycles_decision *d)
{
  static char why[256];
  const char *name = "environment variable cpucyclespersecond";
  if (!getenv("cpucyclespersecond") || !strcmp(d->persecond_report.source, name) ||
      strstr(d->persecond_report.problems, name))
    return NULL;
  snprintf(why, sizeof why,
           "%s: not needed: %s answered first (the variable is used only when no operating "
           "system mechanism answers: FREQUENCY in cpucycles(3))",
           name, d->persecond_report.source);
  return why;
}

static int report_text(const struct cpucycles_decision *d)
{
  struct deltas m;
  struct observed o[OBSERVED_TRIES];
  int i, n;

  /* libcpucycles' lines, in its exact form: "cpucycles version V",
   * "cpucycles implementation NAME", "cpucycles persecond N".  Ours have
   * other shapes (a colon after a word, or more words before it). */
  printf("cpucycles version %s\n", cpucycles_version());
  fputs("cpucycles build counters (measured by configure on the build host; ", stdout);
  print_score_words();
  fputs("):\n", stdout);
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
    fputs("cpucycles run-time counters (measured now; ", stdout);
    print_score_words();
    fputs("):\n", stdout);
    for (i = 0; i < cpucycles_table_size && i < CPUCYCLES_MAX_COUNTERS; i++)
      print_result(cpucycles_table[i].name, d->results, i, cpucycles_table[i].kind);
  }
  printf("cpucycles implementation %s\n", cpucycles_implementation());
  printf("cpucycles implementation kind: %s\n",
         cpucycles_kind_name(cpucycles_table[d->index].kind));
  printf("cpucycles unit: %s", cpucycles_unit_name());
  if (cpucycles_unit() == CPUCYCLES_UNIT_CONSTANT_RATE)
    printf(" at %.3f GHz", (double)cpucycles_persecond() / 1e9);
  printf(": %s\n", unit_note(cpucycles_unit()));
  printf("cpucycles persecond %lld\n", cpucycles_persecond());
  printf("cpucycles persecond source: %s\n", d->persecond_report.source);
  if (d->persecond_report.problems[0])
    printf("cpucycles persecond ignored: %s\n", d->persecond_report.problems);
  if (persecond_unused(d)) printf("cpucycles persecond unused: %s\n", persecond_unused(d));

  measure_deltas(&m);
  printf("cpucycles deltas:");
  for (i = 0; i < DELTAS_SHOWN; i++) printf(" %lld", m.d[i]);
  printf(" ... median %lld of %d: a read's cost (the iqm line below: their interquartile mean, then "
         "each one's offset from it)\n", m.median, DELTAS);
  /* libcpucycles' form: "cpucycles iqm N" and each delta's offset from N,
   * signed and unspaced (here the first OFFSETS_SHOWN of them) */
  printf("cpucycles iqm %lld ", m.iqm);
  for (i = 0; i < OFFSETS_SHOWN; i++) printf("%+lld", m.d[i] - m.iqm);
  putchar('\n');
  if (m.step)
    printf("cpucycles step: %lld: the smallest nonzero delta, the counter's resolution\n", m.step);
  else
    printf("cpucycles step: none: the counter did not move in %d reads\n", DELTAS);
  /* libcpucycles' form, one line a loop */
  n = observe_persecond(m.step, o);
  for (i = 0; i < n; i++)
    printf("cpucycles observed persecond %lld...%lld with %lld loops %lld microseconds\n", o[i].low,
           o[i].high, o[i].loops, o[i].microseconds);
  if (!n)
    printf("cpucycles observed persecond: none: in every loop the counter or the clock went "
           "backwards, or the clock saw it take less than a microsecond\n");
  return finish(0);
}

/* ---- JSON mode ---- */

/* s as a JSON string (format.h's escaping); NULL as null. */
static void json_string(const char *s)
{
  char small[512], *text = small;
  struct cpucycles_out o;
  cpucycles_out_start(&o, small, sizeof small);
  cpucycles_out_json_string(&o, s);
  if (o.len >= sizeof small && (text = malloc(o.len + 1)) != 0) {
    cpucycles_out_start(&o, text, o.len + 1);
    cpucycles_out_json_string(&o, s);
  }
  fputs(text ? text : small, stdout);
  if (text != small) free(text);
}

static void json_key(const char *key, int first)
{
  printf("%s\n  \"%s\": ", first ? "{" : ",", key);
}

static const char *json_bool(int b) { return b ? "true" : "false"; }

static void json_build_table(void)
{
  struct cpucycles_result results[CPUCYCLES_MAX_COUNTERS];
  int i = 0;
  build_results(results);
  fputs("[", stdout);
#define X(name, available, precision, hz, kind, reason)                                  \
  printf("%s\n    {\"name\": ", i ? "," : "");                                           \
  json_string(name);                                                                     \
  printf(", \"available\": %s",                                                          \
         (available) == 1 ? "true" : (available) == 0 ? "false" : "null");               \
  if ((available) == 1)                                                                  \
    printf(", \"precision\": %lld, \"score\": %lld, \"hz\": %.0f, \"kind\": \"%s\", "      \
           "\"reason\": null}",                                                           \
           (long long)(precision), score_of(results, i), (double)(hz),                   \
           cpucycles_kind_name(kind));                                                   \
  else {                                                                                 \
    fputs(", \"precision\": null, \"score\": null, \"hz\": null, \"kind\": null, "          \
          "\"reason\": ", stdout);                                                        \
    json_string(reason);                                                                 \
    putchar('}');                                                                        \
  }                                                                                      \
  i++;
  CPUCYCLES_BUILD_COUNTERS(X)
#undef X
  fputs(i ? "\n  ]" : "]", stdout);
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
      printf(", \"precision\": %lld, \"score\": %lld, \"kind\": \"%s\", \"reason\": null}",
             r->precision, score_of(d->results, i), cpucycles_kind_name(cpucycles_table[i].kind));
    else {
      fputs(", \"precision\": null, \"score\": null, \"kind\": null, \"reason\": ", stdout);
      json_string(r->reason ? r->reason : "unavailable");
      putchar('}');
    }
  }
  fputs(i ? "\n  ]" : "]", stdout);
}

static int report_json(const struct cpucycles_decision *d)
{
  struct deltas m;
  struct observed o[OBSERVED_TRIES];
  long long persecond = cpucycles_persecond();
  const char *implementation = cpucycles_implementation();
  int i, n;

  measure_deltas(&m);
  n = observe_persecond(m.step, o);

  json_key("version", 1), json_string(cpucycles_version());
  json_key("implementation", 0), json_string(implementation);
  json_key("implementation_kind", 0);
  json_string(cpucycles_kind_name(cpucycles_table[d->index].kind));
  json_key("persecond", 0), printf("%lld", persecond);
  json_key("persecond_source", 0), json_string(d->persecond_report.source);
  json_key("persecond_ignored", 0), json_string(d->persecond_report.problems);
  json_key("persecond_unused", 0), json_string(persecond_unused(d));
  json_key("selection_rule", 0), printf("%d", CPUCYCLES_SELECTION_RULE);
  json_key("build_counters", 0), json_build_table();
  json_key("build_chose", 0), json_string(CPUCYCLES_CHOSEN[0] ? CPUCYCLES_CHOSEN : NULL);
  json_key("build_fingerprint", 0), json_string(CPUCYCLES_BUILD_FINGERPRINT);
  json_key("host_fingerprint", 0), json_string(d->host_fingerprint);
  json_key("host_matches", 0), fputs(json_bool(d->host_matches), stdout);
  json_key("build_counter_verified", 0), fputs(json_bool(d->build_verified), stdout);
  json_key("verdict", 0), json_string(d->why);
  json_key("inline", 0), fputs(json_bool(inline_used(d)), stdout);
  json_key("runtime_counters", 0), json_runtime_table(d);
  json_key("deltas_median", 0), printf("%lld", m.median);
  json_key("deltas_count", 0), printf("%d", DELTAS);
  json_key("unit", 0), json_string(cpucycles_unit_name());
  json_key("unit_note", 0), json_string(unit_note(cpucycles_unit()));
  json_key("step", 0);
  if (m.step) printf("%lld", m.step);
  else fputs("null", stdout);
  json_key("deltas_iqm", 0), printf("%lld", m.iqm);
  json_key("deltas_offsets", 0);
  for (i = 0; i < DELTAS; i++) printf("%s%lld", i ? ", " : "[", m.d[i] - m.iqm);
  putchar(']');
  /* the longest loop's: the narrowest range */
  if (n) {
    json_key("observed_persecond_low", 0), printf("%lld", o[n - 1].low);
    json_key("observed_persecond_high", 0), printf("%lld", o[n - 1].high);
    json_key("observed_loops", 0), printf("%lld", o[n - 1].loops);
    json_key("observed_microseconds", 0), printf("%lld", o[n - 1].microseconds);
  } else {
    json_key("observed_persecond_low", 0), fputs("null", stdout);
    json_key("observed_persecond_high", 0), fputs("null", stdout);
    json_key("observed_loops", 0), fputs("null", stdout);
    json_key("observed_microseconds", 0), fputs("null", stdout);
  }
  /* every loop's, as the text's lines */
  json_key("observed", 0), putchar('[');
  for (i = 0; i < n; i++)
    printf("%s{\"loops\": %lld, \"microseconds\": %lld, \"persecond_low\": %lld, "
           "\"persecond_high\": %lld}",
           i ? ", " : "", o[i].loops, o[i].microseconds, o[i].low, o[i].high);
  putchar(']');
  fputs("\n}\n", stdout);
  return finish(0);
}

/* ---- check mode ---- */

static int check(const struct cpucycles_decision *d)
{
  int kind = cpucycles_table[d->index].kind;
  const char *name = cpucycles_table[d->index].name;
  int cycles = abi->is_cycle_counter(kind);
  int status;

  if (d->build_verified) {
    status = 0;
    printf("cpucycles check: ok: the build's counter %s is verified on this host (%s)\n", name,
           d->why);
  } else if (!CPUCYCLES_CHOSEN[0] && cycles && d->reselected &&
             d->index == cpucycles_choose(d->results, cpucycles_table_size)) {
    /* A portable build (or one whose probes could not run) has no build
     * counter to verify: the question is whether the best one is used. */
    status = 0;
    printf("cpucycles check: ok: no build counter (a portable build); %s (%s) is the best "
           "counter this host has\n", name, cpucycles_kind_name(kind));
  } else if (cycles) {
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
  enum { REPORT, JSON, CHECK, COMPARE } mode = REPORT;
  int i, modes = 0;
  const char *old_path = 0, *new_path = 0, *end;
  double tolerance = 5;
  int exit_faster = 0, judge_anyway = 0, json = 0, tolerance_given = 0;

  for (i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--help")) {
      fputs(usage, stdout);
      return finish(0);
    } else if (!strcmp(argv[i], "--version")) {
      printf("cpucycles-info %s\n", CPUCYCLES_VERSION);
      return finish(0);
    } else if (!strcmp(argv[i], "--json")) {
      json = 1;
    } else if (!strcmp(argv[i], "--check")) {
      mode = CHECK, modes++;
    } else if (!strcmp(argv[i], "--compare") && i + 1 < argc && argv[i + 1][0] != '-') {
      /* OLD NEW, or one comparison to judge again */
      mode = COMPARE, modes++;
      old_path = argv[++i];
      if (i + 1 < argc && argv[i + 1][0] != '-') new_path = argv[++i];
    } else if (!strcmp(argv[i], "--exit-faster")) {
      exit_faster = 1;
    } else if (!strcmp(argv[i], "--judge-anyway")) {
      judge_anyway = 1;
    } else if (!strcmp(argv[i], "--tolerance") && i + 1 < argc) {
      tolerance = cpucycles_parse_decimal(argv[++i], &end);
      tolerance_given = 1;
      if (end == argv[i] || *end || tolerance < 0 || tolerance >= 100) {
        fprintf(stderr, "cpucycles-info: --tolerance '%s': not a percentage from 0 to 100\n",
                argv[i]);
        return 2;
      }
    } else if (!strcmp(argv[i], "--compare") || !strcmp(argv[i], "--tolerance")) {
      fprintf(stderr, "cpucycles-info: %s needs %s\n", argv[i],
              argv[i][2] == 'c' ? "two files, OLD and NEW (or one comparison)" : "a percentage");
      fputs(usage, stderr);
      return 2;
    } else {
      fprintf(stderr, "cpucycles-info: %s '%s'\n",
              argv[i][0] == '-' ? "unknown option" : "unexpected argument", argv[i]);
      fputs(usage, stderr);
      return 2;
    }
  }
  if (json && mode == REPORT) mode = JSON;
  if (modes > 1 || (json && mode == CHECK)) {
    fputs("cpucycles-info: give at most one of --json, --check and --compare (--json goes with "
          "--compare too)\n", stderr);
    fputs(usage, stderr);
    return 2;
  }
  if ((exit_faster || judge_anyway) && mode != COMPARE) {
    fprintf(stderr, "cpucycles-info: %s goes with --compare\n",
            exit_faster ? "--exit-faster" : "--judge-anyway");
    return 2;
  }
  if (mode != COMPARE && find_library() != 0) return 2;
  switch (mode) {
  case JSON: return report_json(cpucycles_decision());
  case CHECK: return check(cpucycles_decision());
  case COMPARE:
    return finish_with(new_path ? cpucycles_info_compare(old_path, new_path, tolerance, exit_faster,
                                                         judge_anyway, json)
                                : cpucycles_info_rejudge(old_path, tolerance, tolerance_given, exit_faster,
                                                         judge_anyway, json),
                       CPUCYCLES_EXIT_ERROR);
  default: return report_text(cpucycles_decision());
  }
}
