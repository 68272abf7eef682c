/* SPDX-License-Identifier: MIT */
/* t-compare - "is B faster than A?" without a clock: the statistics on
 * simulated timings (a TSC-like grid of 26 ticks, noise, interrupts,
 * drift), 100 seeded trials per case so that the rates are the test; the
 * whole comparison driven by a fake counter (interleaving, the order of
 * the pair, batching, exclusions, errors, what the verdict covers); results
 * as JSON and CSV, the JSON read back strictly (json-read.c, cpucycles-info
 * --compare's reader). */
#include "bench.h"
#include "format.h"
#include "json-read.h"
#include "stats.h"
#include "tap.h"
#include "verdict.h"
#include <errno.h>
#include <limits.h>
#include <locale.h>
#include <math.h> /* isnan: a macro, no libm */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STEP 26 /* this VM's TSC moves 26 ticks at a time */
#define PAIRS 2000
#define TRIALS 100

static unsigned long long seed;

static double absolute(double x) { return x < 0 ? -x : x; }

static double uniform(void) /* [0, 1) */
{
  seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(seed >> 11) / 9007199254740992.0;
}

/* A run of true length t as the counter sees it: two reads on a grid of
 * STEP ticks, at a random phase. */
static long long on_grid(double t)
{
  double phase = uniform() * STEP;
  return STEP * (long long)((phase + t) / STEP);
}

/* The time of one run: base, noise of about 30 ticks (a sum of 4
 * uniforms), an interrupt of 20000 ticks in spike_share of them. */
static double noisy(double base, double spike_share)
{
  double t = base + 30 * (uniform() + uniform() + uniform() + uniform() - 2);
  if (uniform() < spike_share) t += 20000;
  return t;
}

struct scenario {
  double a, b;        /* true lengths */
  double spikes;      /* share of runs with an interrupt */
  double drift;       /* both slow down by this share over the pairs */
  int moves;          /* the thread moves between a fast CPU and one 1.6
                         times slower every this many pairs (0: never) */
};

static long long a_runs[PAIRS], b_runs[PAIRS];

/* TRIALS comparisons of the scenario; counts of each verdict, and of
 * intervals that contain the true ratio. */
static void trials(const struct scenario *s, int verdicts[3], int *covered, double *worst)
{
  struct cpucycles_compare_result r;
  double truth = s->b / s->a, slow;
  int i, t;
  verdicts[0] = verdicts[1] = verdicts[2] = 0;
  *covered = 0;
  *worst = 0;
  for (t = 0; t < TRIALS; t++) {
    seed = 1000 + (unsigned long long)t;
    for (i = 0; i < PAIRS; i++) {
      slow = (1 + s->drift * i / PAIRS) * (s->moves && (i / s->moves) % 2 ? 1.6 : 1);
      a_runs[i] = on_grid(noisy(s->a * slow, s->spikes));
      b_runs[i] = on_grid(noisy(s->b * slow, s->spikes));
    }
    memset(&r, 0, sizeof r);
    if (cpucycles_compare_statistics(a_runs, b_runs, PAIRS, 1, STEP, &r) != 0) continue;
    verdicts[r.verdict]++;
    if (r.ratio_low <= truth && truth <= r.ratio_high) ++*covered;
    if (absolute(r.ratio - truth) > *worst) *worst = absolute(r.ratio - truth);
  }
}

static void statistics(void)
{
  struct scenario same = {2000, 2000, 0, 0, 0}, slower = {2000, 2020, 0, 0, 0};
  struct scenario faster = {2000, 1980, 0, 0, 0}, spiky = {2000, 2020, 0.02, 0, 0};
  struct scenario drifting = {2000, 2020, 0.01, 0.5, 0}, half_step = {2000, 2010, 0, 0, 0};
  struct scenario same_moving = {2000, 2000, 0, 0, 137}, slower_moving = {2000, 2020, 0, 0, 137};
  struct cpucycles_compare_result r;
  int v[3], covered;
  double worst;
  long long i;

  trials(&same, v, &covered, &worst);
  tap_ok(v[CPUCYCLES_COMPARE_INDISTINGUISHABLE] >= 97,
         "A against A, 100 trials of 2000 pairs on a 26-tick grid: indistinguishable %d times "
         "(faster %d, slower %d; 99%% intervals)", v[0], v[1], v[2]);
  trials(&slower, v, &covered, &worst);
  tap_ok(v[CPUCYCLES_COMPARE_B_SLOWER] == TRIALS && covered >= 95 && worst < 0.002,
         "B 1%% slower (20 ticks, under one step): B slower %d of 100, the interval holds 1.01 "
         "%d times, worst error %.4f", v[2], covered, worst);
  trials(&faster, v, &covered, &worst);
  tap_ok(v[CPUCYCLES_COMPARE_B_FASTER] == TRIALS && covered >= 95,
         "B 1%% faster: B faster %d of 100, interval holds 0.99 %d times", v[1], covered);
  trials(&half_step, v, &covered, &worst);
  tap_ok(v[CPUCYCLES_COMPARE_B_SLOWER] >= 95 && covered >= 95,
         "B 0.5%% slower (10 ticks, under half a step): B slower %d of 100, covered %d", v[2],
         covered);
  trials(&spiky, v, &covered, &worst);
  tap_ok(v[CPUCYCLES_COMPARE_B_SLOWER] == TRIALS && worst < 0.003,
         "2%% of runs hit by a 20000-tick interrupt: still B slower %d of 100, worst error %.4f",
         v[2], worst);
  trials(&drifting, v, &covered, &worst);
  tap_ok(v[CPUCYCLES_COMPARE_B_SLOWER] == TRIALS && worst < 0.003,
         "both slowing down by half over the run, 1%% interrupts: B slower %d of 100, worst "
         "error %.4f", v[2], worst);

  /* the thread moves between a fast and a slow CPU (1.6 times the
   * cycles) every 137 pairs, mid-block: each pair is at one speed, so
   * its two runs move alike and the ratio holds */
  trials(&same_moving, v, &covered, &worst);
  tap_ok(v[CPUCYCLES_COMPARE_INDISTINGUISHABLE] >= 97,
         "A against A, the thread moving between a fast CPU and one 1.6 times slower every 137 "
         "pairs: indistinguishable %d of 100 (faster %d, slower %d)", v[0], v[1], v[2]);
  trials(&slower_moving, v, &covered, &worst);
  tap_ok(v[CPUCYCLES_COMPARE_B_SLOWER] == TRIALS && covered >= 95 && worst < 0.002,
         "B 1%% slower, moving between the two speeds: B slower %d of 100, the interval holds 1.01 "
         "%d times, worst error %.4f", v[2], covered, worst);

  for (i = 0; i < 200; i++) a_runs[i] = 4 * 500, b_runs[i] = 4 * 600;
  memset(&r, 0, sizeof r);
  tap_ok(cpucycles_compare_statistics(a_runs, b_runs, 200, 4, 1, &r) == 0 && r.a == 500 &&
             r.b == 600 && r.difference == 100 && r.ratio == 1.2 && r.difference_error == 0 &&
             r.pairs == 200 && r.blocks == 4 && r.verdict == CPUCYCLES_COMPARE_B_SLOWER,
         "runs of 4 calls, 2000 and 2400 ticks: 500 and 600 a call, ratio 1.2, 4 blocks");
  for (i = 0; i < 120; i++) a_runs[i] = i % 2 ? 26 : 0, b_runs[i] = i % 3 ? 0 : 26;
  r.flags = 0;
  tap_ok(cpucycles_compare_statistics(a_runs, b_runs, 120, 1, STEP, &r) == 0 && r.pairs == 100 &&
             (r.flags & CPUCYCLES_BENCH_BELOW_RESOLUTION),
         "runs of 0 and 26 on a 26-tick counter: below the resolution, the partial block left out");
  errno = 0;
  tap_ok(cpucycles_compare_statistics(a_runs, b_runs, 99, 1, STEP, &r) == -1 && errno == EINVAL &&
             cpucycles_compare_statistics(a_runs, b_runs, 100, 0, STEP, &r) == -1,
         "fewer than 2 blocks, or calls 0: EINVAL");
  tap_ok(!strcmp(cpucycles_compare_verdict_name(CPUCYCLES_COMPARE_B_SLOWER), "slower") &&
             !strcmp(cpucycles_compare_verdict_name(CPUCYCLES_COMPARE_B_FASTER), "faster") &&
             !strcmp(cpucycles_compare_verdict_name(CPUCYCLES_COMPARE_INDISTINGUISHABLE), "indistinguishable") &&
             !strcmp(cpucycles_compare_verdict_name(CPUCYCLES_COMPARE_CANNOT_JUDGE), "cannot judge") &&
             !cpucycles_compare_verdict_name(4),
         "verdict names: slower, faster, indistinguishable, cannot judge, as every comparison says them");
}

/* ---- the comparison on a fake counter: A costs 100 a call, B 101 ---- */
#define FAKE_READ 30
static long long fake_now, fake_switches, calls_made, switch_at = -1, last;
static int a_then_b, b_then_a, every_switch, switch_every;

static long long fake_start(unsigned long long *cpu)
{
  *cpu = 0;
  return fake_now;
}
static long long fake_end(unsigned long long *cpu)
{
  *cpu = 0;
  return fake_now += FAKE_READ;
}
static long long fake_count_switches(void) { return fake_switches; }
static const struct cpucycles_bench_clock fake = {fake_start, fake_end, fake_count_switches, 0, 0};

/* Which ran just before: 'a' or 'b'; an order is counted at each change. */
static void step(long long cost, char who)
{
  fake_now += cost;
  if (++calls_made == switch_at || every_switch || (switch_every && calls_made % switch_every == 0))
    fake_switches++;
  if (last && last != who) {
    if (last == 'a') a_then_b++;
    else b_then_a++;
  }
  last = who;
}
static void fake_a(void *arg) { (void)arg, step(100, 'a'); }
static void fake_b(void *arg) { (void)arg, step(101, 'b'); }
static void fake_still(void *arg) { (void)arg; }

static const struct cpucycles_bench_clock still = {fake_start, fake_start, fake_count_switches, 0, 0};

/* Options that can never give a result, or overflow the counter's ticks,
 * are EINVAL at once, on the fake counter at 10^9 ticks a second; the
 * smallest that can, 100 pairs, gives one. */
static int refused(const struct cpucycles_compare_options *o)
{
  struct cpucycles_compare_result r;
  errno = 0;
  return cpucycles_bench_compare_with(&fake, 1000000000, fake_a, 0, fake_b, 0, o, &r) == -1 &&
         errno == EINVAL;
}

static void options_out_of_range(void)
{
  static const long long too_few[] = {1, 50, 99};
  const double bad_seconds[] = {INFINITY, 1e10, 86401, NAN, -1};
  struct cpucycles_compare_options o;
  struct cpucycles_compare_result r;
  size_t i;
  int n = 0, rc;

  memset(&o, 0, sizeof o);
  for (i = 0; i < sizeof too_few / sizeof too_few[0]; i++) o.pairs = too_few[i], n += refused(&o);
  o.pairs = 100;
  rc = cpucycles_bench_compare_with(&fake, 1000000000, fake_a, 0, fake_b, 0, &o, &r);
  tap_ok(n == 3 && rc == 0 && r.pairs == 100 && r.verdict == CPUCYCLES_COMPARE_B_SLOWER,
         "pairs 1, 50, 99 (under 2 blocks: never a result): EINVAL, not EAGAIN (%d of 3); 100 "
         "pairs: a result", n);
  o.pairs = 0, n = 0;
  for (i = 0; i < sizeof bad_seconds / sizeof bad_seconds[0]; i++)
    o.seconds = bad_seconds[i], n += refused(&o);
  o.seconds = 0, o.pairs = 100000001, n += refused(&o);
  tap_ok(n == 6, "seconds inf, 1e10, 86401, NaN, -1 and pairs over 10^8: EINVAL (%d of 6)", n);
}

static void fake_runs(void)
{
  struct cpucycles_compare_options o;
  struct cpucycles_compare_result r;
  int rc;

  memset(&o, 0, sizeof o);
  o.pairs = 1000;
  rc = cpucycles_bench_compare_with(&fake, 0, fake_a, 0, fake_b, 0, &o, &r);
  tap_ok(rc == 0 && r.calls == 32 && r.overhead == FAKE_READ && r.precision == FAKE_READ &&
             absolute(r.a - 100) < 1e-9 && absolute(r.b - 101) < 1e-9 && absolute(r.ratio - 1.01) < 1e-9 &&
             r.verdict == CPUCYCLES_COMPARE_B_SLOWER && r.pairs == 1000 && r.disturbed == 0 &&
             (r.flags & CPUCYCLES_BENCH_SUBTRACTED) && !(r.flags & CPUCYCLES_BENCH_BELOW_RESOLUTION),
         "fake counter, 1000 pairs: 32 calls a run (64 steps of 30), a 100 b 101 a call, ratio "
         "1.01, B slower (calls %lld, a %g, b %g, ratio %g)", r.calls, r.a, r.b, r.ratio);
  tap_ok(r.b_first > 400 && r.b_first < 600 && a_then_b > 400 && b_then_a > 400,
         "the order varies: B first in %lld of 1000 pairs; runs of A then B %d times, B then A %d",
         r.b_first, a_then_b, b_then_a);

  calls_made = 0, switch_at = 20000;
  rc = cpucycles_bench_compare_with(&fake, 0, fake_a, 0, fake_b, 0, &o, &r);
  tap_ok(rc == 0 && (r.flags & CPUCYCLES_BENCH_SWITCHED) && r.disturbed >= 1 && r.disturbed <= 64 &&
             r.pairs == 950 && absolute(r.ratio - 1.01) < 1e-9,
         "a context switch excludes its group of pairs (%lld), the rest are kept in whole blocks "
         "(%lld)", r.disturbed, r.pairs);
  switch_at = -1;

  o.calls = 1;
  o.pairs = 500;
  rc = cpucycles_bench_compare_with(&fake, 0, fake_a, 0, fake_b, 0, &o, &r);
  tap_ok(rc == 0 && r.calls == 1 && (r.flags & CPUCYCLES_BENCH_BELOW_RESOLUTION) &&
             absolute(r.ratio - 1.01) < 1e-9,
         "calls 1 as asked: 100 ticks is under 8 steps, flagged below the resolution");

  memset(&o, 0, sizeof o);
  o.seconds = 0.01;
  rc = cpucycles_bench_compare_with(&fake, 1000000000, fake_a, 0, fake_b, 0, &o, &r);
  tap_ok(rc == 0 && r.pairs >= 1400 && r.pairs <= 1600,
         "0.01 s at 10^9 ticks a second, 6460 ticks a pair: about 1550 pairs (%lld)", r.pairs);
  o.seconds = 0;
  rc = cpucycles_bench_compare_with(&fake, 0, fake_a, 0, fake_b, 0, &o, &r);
  tap_ok(rc == 0 && r.pairs == 1000, "the rate unknown: 1000 pairs (%lld)", r.pairs);

  /* The time up after the first pair: the pairs kept, not the pairs
   * run, must reach 200 (4 blocks), the disturbed ones made up for. */
  o.seconds = 1e-6;
  calls_made = 0, switch_every = 128; /* a switch every other pair */
  rc = cpucycles_bench_compare_with(&fake, 1000000000, fake_a, 0, fake_b, 0, &o, &r);
  switch_every = 0;
  tap_ok(rc == 0 && r.pairs >= 200 && r.blocks >= 4 && r.disturbed >= 100 &&
             r.pairs + r.disturbed <= 600 && r.verdict == CPUCYCLES_COMPARE_B_SLOWER,
         "half the pairs disturbed and the time up: run on until 200 are kept (%lld kept, %lld "
         "blocks, %lld disturbed)", r.pairs, r.blocks, r.disturbed);
  every_switch = 1;
  errno = 0;
  rc = cpucycles_bench_compare_with(&fake, 1000000000, fake_a, 0, fake_b, 0, &o, &r);
  tap_ok(rc == -1 && errno == EAGAIN && r.disturbed == 600,
         "every pair disturbed and the time up: -1, EAGAIN after 600 pairs run (%lld)", r.disturbed);
  o.seconds = 0;
  errno = 0;
  rc = cpucycles_bench_compare_with(&fake, 0, fake_a, 0, fake_b, 0, 0, &r);
  every_switch = 0;
  tap_ok(rc == -1 && errno == EAGAIN && r.pairs == 0 && r.disturbed == 1000,
         "every pair disturbed: -1, EAGAIN (%lld disturbed)", r.disturbed);
  errno = 0;
  rc = cpucycles_bench_compare_with(&still, 0, fake_still, 0, fake_still, 0, 0, &r);
  tap_ok(rc == -1 && errno == ENOTSUP, "a counter that never moves: ENOTSUP");
  o.pairs = -1;
  errno = 0;
  tap_ok(cpucycles_bench_compare_with(&fake, 0, fake_a, 0, 0, 0, 0, &r) == -1 && errno == EINVAL &&
             cpucycles_bench_compare_with(&fake, 0, fake_a, 0, fake_b, 0, &o, &r) == -1,
         "no B, or negative pairs: EINVAL");
  options_out_of_range();
}

/* ---- results as data ---- */

/* The one row of a comparison document ("rows": [{...}]), parsed into
 * row: 0, or -1 with why. */
static int first_row(const struct cpucycles_json *doc, struct cpucycles_json *row, char *why, size_t size)
{
  const struct cpucycles_json_member *m = cpucycles_json_find(doc, "rows");
  struct cpucycles_json_span *spans;
  size_t count;
  int rc;
  if (!m || m->type != CPUCYCLES_JSON_ARRAY) return snprintf(why, size, "no rows"), -1;
  if (cpucycles_json_values(m->string, m->length, &spans, &count, why, size) != 0) return -1;
  rc = count == 1 ? cpucycles_json_parse(row, m->string + spans[0].offset, spans[0].length, why, size) : -1;
  if (count != 1) snprintf(why, size, "%zu rows", count);
  free(spans);
  return rc;
}
static int csv_fields(const char *line)
{
  int n = 1, quoted = 0;
  for (; *line && *line != '\n'; line++) {
    if (*line == '"') quoted = !quoted;
    else if (*line == ',' && !quoted) n++;
  }
  return n;
}

/* A result the library writes with a 70000-byte name, control characters
 * and bytes that are not UTF-8 in it, is strict JSON that reads back:
 * the name as it was, but U+FFFD for each byte that was not UTF-8. */
static void read_back_long_name(void)
{
  struct cpucycles_bench_result b;
  struct cpucycles_json doc;
  char *name = malloc(70001), *want = malloc(70003), *buf = 0, why[256];
  const char *text = 0;
  size_t length = 0;
  double x = 0;
  long n;
  int parsed;
  memset(&b, 0, sizeof b);
  b.interquartile_mean = 1100, b.interquartile_mean_error = 2;
  if (name && want) {
    memset(name, 'x', 70000), memcpy(name, "\033]0;\007\"\\\377", 8), name[70000] = 0;
    memcpy(want, "\033]0;\007\"\\\357\277\275", 10), memset(want + 10, 'x', 69992), want[70002] = 0;
    n = cpucycles_bench_format(0, 0, CPUCYCLES_FORMAT_JSON, name, &b);
    if (n > 0 && (buf = malloc((size_t)n + 1)) != 0)
      cpucycles_bench_format(buf, (unsigned long)n + 1, CPUCYCLES_FORMAT_JSON, name, &b);
  }
  strcpy(why, "not written");
  parsed = buf && cpucycles_json_parse(&doc, buf, strlen(buf), why, sizeof why) == 0;
  if (parsed) {
    text = cpucycles_json_string(&doc, "name", &length);
    cpucycles_json_number(&doc, "interquartile_mean", &x);
  }
  tap_ok(parsed && text && length == 70002 && !memcmp(text, want, length) && x == 1100,
         "a result with a 70000-byte name (control characters, a byte not UTF-8) is strict JSON "
         "and reads back: %s", parsed ? "its name as written" : why);
  if (parsed) cpucycles_json_free(&doc);
  free(name), free(want), free(buf);
}

static void formats(void)
{
  struct cpucycles_compare_result c;
  struct cpucycles_bench_result b;
  char buf[4096], header[4096], small[10], why[256];
  struct cpucycles_json doc;
  const char *text;
  size_t length;
  double x;
  long n;

  memset(&c, 0, sizeof c);
  c.ratio = 1.0125, c.ratio_low = 1.01, c.ratio_high = 1.015, c.verdict = CPUCYCLES_COMPARE_B_SLOWER;
  c.a = 1000.5, c.pairs = 1000, c.flags = CPUCYCLES_BENCH_PINNED | CPUCYCLES_BENCH_SWITCHED;
  n = cpucycles_compare_format(buf, sizeof buf, CPUCYCLES_FORMAT_JSON, "old \"v1\"\n", "new", &c);
  tap_ok(n > 0 && (size_t)n == strlen(buf) && !strncmp(buf, "{\n  \"schema\": 2,\n  \"type\": \"comparison\"", 37) &&
             strstr(buf, "\"old\": \"old \\\"v1\\\"\\n\"") &&
             strstr(buf, "\"rows\": [\n    {\"name\": \"new\", \"verdict\": \"slower\"") &&
             strstr(buf, "\"ratio\": 1.0125") && strstr(buf, "\"status\": 1,") &&
             strstr(buf, "\"flags\": [\"pinned\", \"switched\"]}\n  ]") && strstr(buf, "\"counter\": ") &&
             strstr(buf, "\"persecond_source\": ") && strstr(buf, "\"host\": "),
         "a comparison as JSON: schema 2, names escaped, a row with its name, verdict, ratio, flags; "
         "the environment");
  {
    struct cpucycles_json row;
    int ok = cpucycles_json_parse(&doc, buf, strlen(buf), why, sizeof why) == 0 &&
             (text = cpucycles_json_string(&doc, "old", &length)) && !strcmp(text, "old \"v1\"\n") &&
             cpucycles_json_number(&doc, "schema", &x) && x == 2 && !cpucycles_json_find(&doc, "nothing");
    if (ok && first_row(&doc, &row, why, sizeof why) == 0) {
      ok = cpucycles_json_number(&row, "pairs", &x) && x == 1000 &&
           (text = cpucycles_json_string(&row, "verdict", &length)) && !strcmp(text, "slower");
      cpucycles_json_free(&row);
    } else ok = 0;
    tap_ok(ok, "read back as JSON (json-read.c, cpucycles-info's reader): a string, a number, a missing "
               "key, the row's members (%s)", ok ? "all there" : why);
    cpucycles_json_free(&doc);
  }
  read_back_long_name();

  cpucycles_compare_format(header, sizeof header, CPUCYCLES_FORMAT_CSV_HEADER, 0, 0, 0);
  cpucycles_compare_format(buf, sizeof buf, CPUCYCLES_FORMAT_CSV, "a, with comma", "b \"q\"", &c);
  tap_ok(!strncmp(header, "schema,type,tool,old,new,", 25) && csv_fields(header) == csv_fields(buf) &&
             strstr(buf, ",\"a, with comma\",\"b \"\"q\"\"\",cycles per call,") &&
             strstr(buf, ",\"b \"\"q\"\"\",slower,true,,slower,1.0125,") && buf[strlen(buf) - 1] == '\n',
         "a comparison as a CSV row: %d fields as its header, quoted where needed", csv_fields(buf));

  memset(&b, 0, sizeof b);
  b.interquartile_mean = 5.25, b.calls = 1024, b.flags = CPUCYCLES_BENCH_BELOW_RESOLUTION;
  cpucycles_bench_format(header, sizeof header, CPUCYCLES_FORMAT_CSV_HEADER, 0, 0);
  cpucycles_bench_format(buf, sizeof buf, CPUCYCLES_FORMAT_CSV, "f", &b);
  tap_ok(csv_fields(header) == csv_fields(buf) && !strncmp(buf, "2,bench,f,0,5.25,", 17) &&
             strstr(buf, ",1024,") && strstr(buf, "below-resolution"),
         "a result as a CSV row: %d fields, calls and flags", csv_fields(buf));

  n = cpucycles_bench_format(small, sizeof small, CPUCYCLES_FORMAT_JSON, "f", &b);
  tap_ok(n > (long)sizeof small && strlen(small) == sizeof small - 1 &&
             cpucycles_bench_format(0, 0, CPUCYCLES_FORMAT_JSON, "f", &b) == n &&
             cpucycles_bench_format(buf, sizeof buf, 9, "f", &b) == -1,
         "as snprintf(): cut to the buffer, the whole length returned (%ld); format 9: -1", n);

  if (setlocale(LC_NUMERIC, "de_DE.UTF-8") || setlocale(LC_NUMERIC, "de_DE.utf8")) {
    cpucycles_bench_format(buf, sizeof buf, CPUCYCLES_FORMAT_JSON, "f", &b);
    tap_ok(strstr(buf, "\"interquartile_mean\": 5.25,") != 0,
           "under de_DE (decimal comma) the numbers keep their point");
    setlocale(LC_NUMERIC, "C");
  } else {
    tap_skip("numbers under a decimal-comma locale", "no de_DE locale");
  }
}

/* the library's square root (no libm) */
/* ---- the verdict where A measures nothing, and extreme differences ---- */
static void unmeasurable_a(void)
{
  static long long a_runs[200], b_runs[200];
  struct cpucycles_compare_result r;
  struct cpucycles_bench_result b;
  char buf[4096], why[256];
  struct cpucycles_json doc;
  long long i;
  int rc, parsed, swapped;

  /* A at 0 (an empty function, overhead subtracted), B at 5000 + 0..1 */
  for (i = 0; i < 200; i++) a_runs[i] = 0, b_runs[i] = 5000 + i % 2;
  memset(&r, 0, sizeof r);
  rc = cpucycles_compare_statistics(a_runs, b_runs, 200, 1, 1, &r);
  tap_ok(rc == 0 && r.verdict == CPUCYCLES_COMPARE_B_SLOWER && isnan(r.ratio) &&
             isnan(r.ratio_low) && isnan(r.ratio_high) && r.difference > 5000 && r.difference < 5001,
         "A measuring 0, B 5000: %s by the difference's interval (%g +- %g), ratio %g (NaN: none)",
         cpucycles_compare_verdict_name(r.verdict), r.difference, r.difference_error, r.ratio);
  /* A below 0 (faster than the null overhead), B above it, and back */
  for (i = 0; i < 200; i++) a_runs[i] = -3 + i % 3, b_runs[i] = 600 + i % 7;
  rc = cpucycles_compare_statistics(a_runs, b_runs, 200, 1, 1, &r);
  swapped = r.verdict == CPUCYCLES_COMPARE_B_SLOWER && isnan(r.ratio);
  rc |= cpucycles_compare_statistics(b_runs, a_runs, 200, 1, 1, &r);
  tap_ok(rc == 0 && swapped && r.verdict == CPUCYCLES_COMPARE_B_FASTER && r.ratio < 0.01,
         "A at about -2, B at 603: B slower (ratio NaN); swapped: %s (ratio %g)",
         cpucycles_compare_verdict_name(r.verdict), r.ratio);
  for (i = 0; i < 200; i++) a_runs[i] = i % 2, b_runs[i] = 1 - i % 2;
  rc = cpucycles_compare_statistics(a_runs, b_runs, 200, 1, 1, &r);
  tap_ok(rc == 0 && r.verdict == CPUCYCLES_COMPARE_INDISTINGUISHABLE,
         "A and B both at 0 or 1: %s", cpucycles_compare_verdict_name(r.verdict));

  /* B - A beyond a long long */
  for (i = 0; i < 200; i++) a_runs[i] = -LLONG_MAX, b_runs[i] = LLONG_MAX;
  rc = cpucycles_compare_statistics(a_runs, b_runs, 200, 1, 1, &r);
  swapped = r.verdict == CPUCYCLES_COMPARE_B_SLOWER && r.difference > 1.8e19;
  rc |= cpucycles_compare_statistics(b_runs, a_runs, 200, 1, 1, &r);
  tap_ok(rc == 0 && swapped && r.verdict == CPUCYCLES_COMPARE_B_FASTER && r.difference < -1.8e19,
         "A at -LLONG_MAX, B at LLONG_MAX: B slower (no overflow); swapped: %s by %g",
         cpucycles_compare_verdict_name(r.verdict), r.difference);

  /* no ratio: null in JSON, an empty field in CSV */
  for (i = 0; i < 200; i++) a_runs[i] = 0, b_runs[i] = 5000;
  cpucycles_compare_statistics(a_runs, b_runs, 200, 1, 1, &r);
  cpucycles_compare_format(buf, sizeof buf, CPUCYCLES_FORMAT_JSON, "a", "b", &r);
  parsed = cpucycles_json_parse(&doc, buf, strlen(buf), why, sizeof why) == 0;
  {
    struct cpucycles_json row;
    int rows = parsed && first_row(&doc, &row, why, sizeof why) == 0;
    tap_ok(rows && cpucycles_json_find(&row, "ratio") &&
               cpucycles_json_find(&row, "ratio")->type == CPUCYCLES_JSON_NULL &&
               cpucycles_json_find(&row, "ratio_low")->type == CPUCYCLES_JSON_NULL &&
               strstr(buf, "\"ratio\": null,") && !strstr(buf, "nan"),
           "a NaN ratio is null in JSON, which a strict reader takes (%s)", rows ? "parsed" : why);
    if (rows) cpucycles_json_free(&row);
  }
  if (parsed) cpucycles_json_free(&doc);
  cpucycles_compare_format(buf, sizeof buf, CPUCYCLES_FORMAT_CSV, "a", "b", &r);
  tap_ok(strstr(buf, ",b,slower,true,,slower,,,,") != 0, "and an empty field in CSV: %.80s", buf);

  memset(&b, 0, sizeof b);
  b.median = NAN, b.mean = INFINITY, b.min = -INFINITY;
  cpucycles_bench_format(buf, sizeof buf, CPUCYCLES_FORMAT_JSON, "f", &b);
  parsed = cpucycles_json_parse(&doc, buf, strlen(buf), why, sizeof why) == 0;
  tap_ok(parsed && cpucycles_json_find(&doc, "median")->type == CPUCYCLES_JSON_NULL &&
             cpucycles_json_find(&doc, "mean")->type == CPUCYCLES_JSON_NULL &&
             cpucycles_json_find(&doc, "min")->type == CPUCYCLES_JSON_NULL &&
             cpucycles_json_find(&doc, "max")->type == CPUCYCLES_JSON_NUMBER,
         "a result's NaN, inf and -inf are null in JSON (%s)", parsed ? "strict JSON" : why);
  if (parsed) cpucycles_json_free(&doc);
}

/* ---- what an in-process verdict covers ----
 * A byte-identical copy of A, placed elsewhere, measures 0.1% slower in
 * its process (fake_copy: 101 every tenth call): the verdict is right for
 * that process, and the result must say that it covers no other placement,
 * in a flag and in words beside the verdict.  The flag is looked up by its
 * name, which is the interface the formats use. */
static unsigned int flag_named(const char *name)
{
  unsigned int bit;
  for (bit = 1; bit; bit <<= 1)
    if (cpucycles_bench_flag_name(bit) && !strcmp(cpucycles_bench_flag_name(bit), name)) return bit;
  return 0;
}

static long long copy_calls;
static void fake_copy(void *arg) { (void)arg, step(++copy_calls % 10 ? 100 : 101, 'b'); }

static void placement_scope(void)
{
  unsigned int not_covered = flag_named("placement-not-covered");
  struct cpucycles_compare_options o;
  struct cpucycles_compare_result r;
  char json[4096], csv[4096], header[4096], why[256];
  struct cpucycles_json doc;
  const char *words = 0;
  size_t length;
  long long i;
  int rc, parsed;

  memset(&o, 0, sizeof o);
  o.pairs = 1000;
  rc = cpucycles_bench_compare_with(&fake, 0, fake_a, 0, fake_copy, 0, &o, &r);
  tap_ok(rc == 0 && r.verdict == CPUCYCLES_COMPARE_B_SLOWER && not_covered && (r.flags & not_covered),
         "a copy of A 0.1%% slower where it lies: B slower in this process, and flagged "
         "placement-not-covered (ratio %.4f, flags %#x)", r.ratio, r.flags);
  cpucycles_compare_format(json, sizeof json, CPUCYCLES_FORMAT_JSON, "a", "copy", &r);
  parsed = cpucycles_json_parse(&doc, json, strlen(json), why, sizeof why) == 0;
  {
    struct cpucycles_json row;
    int rows = parsed && first_row(&doc, &row, why, sizeof why) == 0;
    if (rows) words = cpucycles_json_string(&row, "verdict_covers", &length);
    tap_ok(rows && words && strstr(words, "one process's placement") &&
               strstr(words, "cpucycles-compare covers placement across processes") &&
               strstr(json, "\"verdict\": \"slower\", \"beyond_tolerance\": true, \"reasons\": [], \"says\": \"slower\", \"ratio\": ") && strstr(json, ", \"verdict_covers\": ") &&
               strstr(json, "\"placement-not-covered\""),
           "its JSON says so beside the verdict, in words and in flags (%s)", words ? words : why);
    if (rows) cpucycles_json_free(&row);
  }
  if (parsed) cpucycles_json_free(&doc);
  cpucycles_compare_format(header, sizeof header, CPUCYCLES_FORMAT_CSV_HEADER, 0, 0, 0);
  cpucycles_compare_format(csv, sizeof csv, CPUCYCLES_FORMAT_CSV, "a", "copy", &r);
  tap_ok(strstr(header, ",ratio_high,verdict_covers,") && csv_fields(header) == csv_fields(csv) &&
             strstr(csv, ",this interval covers one process's placement; cpucycles-compare "
                         "covers placement across processes,") &&
             strstr(csv, "placement-not-covered"),
         "and its CSV row, the words in the column after the interval");

  for (i = 0; i < 200; i++) a_runs[i] = 2000, b_runs[i] = 2002;
  r.flags = 0;
  rc = cpucycles_compare_statistics(a_runs, b_runs, 200, 1, 1, &r);
  tap_ok(rc == 0 && not_covered && (r.flags & not_covered),
         "cpucycles_compare_statistics() on pairs of one process: flagged too (%#x)", r.flags);
}

/* ---- the real counter: an empty function against a loop ---- */
static void empty(void *arg) { (void)arg; }
static void loop(void *arg)
{
  long long n = *(long long *)arg, i;
  for (i = 0; i < n; i++) __asm__ __volatile__("" : "+r"(i));
}

/* One call a run: the empty function measures about 0, perhaps below it
 * (the null overhead is a median); the loop of 300 iterations (or of 20
 * per step of a coarse counter: gettimeofday's is thousands of cycles)
 * many steps of the counter.  The verdict must say so, whichever is A;
 * only a comparison whose every block the harness saw disturbed (EAGAIN)
 * says nothing. */
static void empty_against_loop(void)
{
  struct cpucycles_compare_options o;
  struct cpucycles_compare_result r;
  struct cpucycles_bench_result step;
  struct cpucycles_bench_options bo;
  long long n = 300;
  int rc, first, disturbed;

  memset(&bo, 0, sizeof bo);
  bo.iterations = 10;
  if (cpucycles_bench(empty, 0, &bo, &step) == 0 && 20 * step.precision > n) n = 20 * step.precision;
  memset(&o, 0, sizeof o);
  o.calls = 1;
  o.seconds = 0.05;
  rc = cpucycles_bench_compare(empty, 0, loop, &n, &o, &r);
  disturbed = rc != 0 && errno == EAGAIN;
  first = disturbed || (rc == 0 && r.verdict == CPUCYCLES_COMPARE_B_SLOWER);
  tap_diag("empty against loop: a %g b %g, ratio %g, %s", r.a, r.b, r.ratio,
           rc == 0 ? cpucycles_compare_verdict_name(r.verdict) : "no result");
  rc = cpucycles_bench_compare(loop, &n, empty, 0, &o, &r);
  disturbed |= rc != 0 && errno == EAGAIN;
  tap_ok(first && (disturbed || (rc == 0 && r.verdict == CPUCYCLES_COMPARE_B_FASTER)),
         "an empty function (A at %g cycles) against a %lld-iteration loop, one call a run: B "
         "slower, and swapped B faster%s", r.b, n,
         disturbed ? " (or every block disturbed, as the harness says: EAGAIN)" : "");
}

static void square_root(void)
{
  double x[] = {2, 1e-6, 0.25, 1e18, 123456789.0}, worst = 0, r;
  int i;
  for (i = 0; i < 5; i++) {
    r = cpucycles_sqrt(x[i]);
    if (absolute(r * r - x[i]) / x[i] > worst) worst = absolute(r * r - x[i]) / x[i];
  }
  tap_ok(worst < 1e-15 && cpucycles_sqrt(0) == 0 && cpucycles_sqrt(-1) == 0 &&
             cpucycles_sqrt(4) == 2,
         "cpucycles_sqrt: relative error of r*r %g on 2, 1e-6, 0.25, 1e18, 123456789; 0 for 0 "
         "and below", worst);
}

/* The one rule (verdict.h), on intervals given: each verdict's edge, the
 * tolerance's, the reasons, the exit statuses and their combination, t. */
static void verdict_rule(void)
{
  struct cpucycles_judgement j;
  int ok = 1, edges = 0;
  double x[] = {0.01, 0.02, 0.03, 0.01, 0.02}, p;
  struct cpucycles_estimate e;
#define JUDGE(low, high, tol, reasons, faster, want_verdict, want_status)                  \
  do {                                                                                      \
    cpucycles_judge(low, high, tol, reasons, faster, &j);                                   \
    edges++;                                                                                \
    if (j.verdict != (want_verdict) || j.status != (want_status)) {                         \
      ok = 0;                                                                               \
      tap_diag("[%g, %g] tolerance %g reasons %#x: verdict %d status %d, want %d %d", low, \
               high, tol, (unsigned)(reasons), j.verdict, j.status, want_verdict, want_status); \
    }                                                                                       \
  } while (0)
  /* tolerance 0: by 1 alone */
  JUDGE(1.001, 1.01, 0, 0, 0, CPUCYCLES_VERDICT_SLOWER, CPUCYCLES_EXIT_SLOWER);
  JUDGE(0.99, 0.999, 0, 0, 0, CPUCYCLES_VERDICT_FASTER, CPUCYCLES_EXIT_NOT_SLOWER);
  JUDGE(0.99, 0.999, 0, 0, 1, CPUCYCLES_VERDICT_FASTER, CPUCYCLES_EXIT_FASTER);
  JUDGE(0.999, 1.001, 0, 0, 1, CPUCYCLES_VERDICT_INDISTINGUISHABLE, CPUCYCLES_EXIT_NOT_SLOWER);
  /* tolerance 5%: a pass needs the whole interval below 1.05, a failure above */
  JUDGE(1.01, 1.04, 0.05, 0, 0, CPUCYCLES_VERDICT_SLOWER, CPUCYCLES_EXIT_NOT_SLOWER);
  JUDGE(1.051, 1.08, 0.05, 0, 0, CPUCYCLES_VERDICT_SLOWER, CPUCYCLES_EXIT_SLOWER);
  JUDGE(1.03, 1.07, 0.05, 0, 0, CPUCYCLES_VERDICT_CANNOT_JUDGE, CPUCYCLES_EXIT_CANNOT_JUDGE);
  if (!j.undecided || !(j.reasons & CPUCYCLES_REASON_ACROSS)) ok = 0, tap_diag("across: not undecided");
  JUDGE(0.90, 0.94, 0.05, 0, 1, CPUCYCLES_VERDICT_FASTER, CPUCYCLES_EXIT_FASTER);
  JUDGE(0.96, 0.99, 0.05, 0, 1, CPUCYCLES_VERDICT_FASTER, CPUCYCLES_EXIT_NOT_SLOWER);
  /* a reason forbids a verdict however clear the interval */
  JUDGE(1.5, 1.6, 0, CPUCYCLES_REASON_SPEED, 0, CPUCYCLES_VERDICT_CANNOT_JUDGE, CPUCYCLES_EXIT_CANNOT_JUDGE);
  JUDGE(NAN, NAN, 0, 0, 0, CPUCYCLES_VERDICT_CANNOT_JUDGE, CPUCYCLES_EXIT_CANNOT_JUDGE);
  if (!(j.reasons & CPUCYCLES_REASON_NO_FIGURE)) ok = 0, tap_diag("NaN: not NO_FIGURE");
#undef JUDGE
  tap_ok(ok, "the verdict rule on %d intervals: by 1 at tolerance 0, by 1 + tolerance above, "
             "across it undecided (4), a reason or no figure cannot judge, 3 only with --exit-faster",
         edges);
  tap_ok(cpucycles_exit_combine(0, 1) == 1 && cpucycles_exit_combine(4, 1) == 1 &&
             cpucycles_exit_combine(1, 4) == 1 && cpucycles_exit_combine(3, 4) == 4 &&
             cpucycles_exit_combine(0, 3) == 3 && cpucycles_exit_combine(1, 2) == 2 &&
             cpucycles_exit_combine(2, 0) == 2 && cpucycles_exit_combine(0, 0) == 0,
         "a suite's status: an error over all, then slower, cannot judge, faster, 0");
  /* Student's t: the table's ends, 99.5%, the expansion past 30, the normal */
  tap_ok(cpucycles_verdict_t(1, 1) == 63.657 && cpucycles_verdict_t(30, 1) == 2.750 &&
             cpucycles_verdict_t(10, 2) == 3.581 && cpucycles_verdict_t(4.9, 1) == 4.604 &&
             absolute(cpucycles_verdict_t(1000, 1) - 2.5808) < 0.001 &&
             absolute(cpucycles_verdict_t(120, 2) - 2.8599) < 0.001 &&
             cpucycles_verdict_t(0, 1) == 2.575829 && cpucycles_verdict_t(0, 2) == 2.807034,
         "Student's t: 63.657 at 1 degree, 2.750 at 30, 3.581 at 10 and 99.5%%, 4.604 at 4.9, "
         "%.4f at 1000 (2.5808), %.4f at 120 and 99.5%% (2.8599), the normal point at 0",
         cpucycles_verdict_t(1000, 1), cpucycles_verdict_t(120, 2));
  /* five paired samples, one trimmed each side: sorted 0.01 [0.01 0.02 0.02] 0.03
   * 0.03 -> mean 0.05/3; winsorized 0.01 0.01 0.02 0.02 0.02, its squared
   * deviations from 0.016 sum to 1.2e-4, over h (h - 1) = 6: 2e-5 */
  p = cpucycles_estimate_paired(x, 5, &e);
  tap_ok(p == 0 && absolute(e.log_ratio - 0.05 / 3) < 1e-12 && e.df == 2 && e.n == 5 &&
             absolute(e.se2 - 2e-5) < 1e-15,
         "a paired estimate of 5 samples: the 20%% trimmed mean %g (0.05/3), df %g (2), se2 %g "
         "(2e-5, from the winsorized variance)", e.log_ratio, e.df, e.se2);
}

int main(void)
{
  tap_plan(49);
  square_root();
  verdict_rule();
  statistics();
  unmeasurable_a();
  fake_runs();
  formats();
  placement_scope();
  empty_against_loop();
  return tap_done();
}
