/* SPDX-License-Identifier: MIT */
/* t-harness - cpucycles_bench(): its statistics on fixed data, the whole
 * harness driven by a fake counter (overhead, exclusions, sampling,
 * errors, empty functions beside fn that cost otherwise), the frequency check on fake sysfs trees, and on the real
 * counter: an empty function measures 0, twice the work measures twice,
 * a migration and a sleep are caught, pinning restores the mask. */
#include "bench.h"
#include "tap.h"
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int near(double a, double b) { return a - b < 1e-9 && b - a < 1e-9; }

static int ascending(const long long *a, long long n)
{
  long long i;
  for (i = 1; i < n; i++)
    if (a[i - 1] > a[i]) return 0;
  return 1;
}

/* The k-th smallest (from 0) of values 0..49 occurring counts[v] times. */
static double value_at(const long long *counts, long long k)
{
  int v = 0;
  while (k >= counts[v]) k -= counts[v++];
  return v;
}

/* ---- statistics on fixed data ---- */
static void fixed_statistics(void)
{
  long long odd[] = {10, 1, 7, 3, 100}, even[] = {1000, 4, 2, 30, 1, 20, 3, 10}, one[] = {42};
  long long negative[] = {-5, 3, -1}, halves[16], modes[16], steady[16], *big;
  long long i, n = 100000, counts[50] = {0};
  struct cpucycles_bench_result r;
  unsigned long long x = 12345;
  double expected_median;
  int rc;

  memset(&r, 0, sizeof r);
  rc = cpucycles_bench_statistics(odd, 5, 0, &r);
  tap_ok(rc == 0 && r.count == 5 && r.min == 1 &&
             r.max == 100 && near(r.mean, 24.2) && near(r.median, 7) &&
             near(r.interquartile_mean, 20.0 / 3) && ascending(odd, 5),
         "odd count {10,1,7,3,100}: min 1 max 100 mean 24.2 median 7 IQM 6.667, sorted "
         "(got %g %g %g %g %g)", r.min, r.max, r.mean, r.median, r.interquartile_mean);
  rc = cpucycles_bench_statistics(even, 8, 0, &r);
  tap_ok(rc == 0 && r.count == 8 && r.min == 1 &&
             r.max == 1000 && near(r.mean, 133.75) && near(r.median, 7) &&
             near(r.interquartile_mean, 9.25) && ascending(even, 8),
         "even count {1000,4,2,30,1,20,3,10}: median 7 (mean of 4 and 10), mean 133.75, IQM 9.25 "
         "(got %g %g %g)", r.median, r.mean, r.interquartile_mean);
  tap_ok(cpucycles_bench_statistics(one, 1, 0, &r) == 0 && r.count == 1 && r.min == 42 &&
             r.max == 42 && near(r.median, 42) && near(r.interquartile_mean, 42),
         "one sample: every statistic is it");
  tap_ok(cpucycles_bench_statistics(negative, 3, 0, &r) == 0 && r.min == -5 && r.max == 3 &&
             near(r.median, -1) && near(r.mean, -1),
         "negative samples (faster than the null overhead) are kept as they are");

  for (i = 0; i < 16; i++) {
    halves[i] = i < 8 ? 100 : 200;
    modes[i] = i % 2 ? 200 : 100;
    steady[i] = 1000 + i % 2;
  }
  r.flags = CPUCYCLES_BENCH_PINNED;
  cpucycles_bench_statistics(halves, 16, 1, &r);
  tap_ok(r.flags & CPUCYCLES_BENCH_DRIFT, "first half at 100, second at 200: drift");
  r.flags = CPUCYCLES_BENCH_PINNED | CPUCYCLES_BENCH_DRIFT;
  cpucycles_bench_statistics(modes, 16, 1, &r);
  tap_ok(r.flags == (CPUCYCLES_BENCH_PINNED | CPUCYCLES_BENCH_SPREAD),
         "100 and 200 alternating: spread, no drift (the old drift flag cleared, others kept) (%#x)",
         r.flags);
  cpucycles_bench_statistics(steady, 16, 1, &r);
  tap_ok(r.flags == CPUCYCLES_BENCH_PINNED, "1000 and 1001: neither (%#x)", r.flags);

  big = malloc((size_t)n * sizeof *big);
  if (!big) abort();
  for (i = 0; i < n; i++) {
    x = x * 6364136223846793005ULL + 1;
    big[i] = (long long)(x >> 33) % 50;
    counts[big[i]]++;
  }
  expected_median = (value_at(counts, n / 2 - 1) + value_at(counts, n / 2)) / 2.0;
  cpucycles_bench_statistics(big, n, 0, &r);
  tap_ok(ascending(big, n) && near(r.median, expected_median) && r.min == 0 && r.max == 49,
         "100000 samples of 50 values: sorted, median %g (expected %g)", r.median,
         expected_median);
  for (i = 0; i < n; i++) big[i] = n - i; /* descending, then all equal */
  cpucycles_bench_statistics(big, n, 0, &r);
  for (i = 0; i < n; i++) big[i] = 7;
  cpucycles_bench_statistics(big, n, 0, &r);
  tap_ok(near(r.median, 7) && r.min == 7 && r.max == 7, "descending and all-equal input sort");
  free(big);
  errno = 0;
  tap_ok(cpucycles_bench_statistics(odd, 0, 0, &r) == -1 && errno == EINVAL, "n = 0: EINVAL");
}

/* ---- the harness on a fake counter ----
 * Time moves only when fake_fn works and by FAKE_READ at each end read:
 * the null overhead and the precision are FAKE_READ exactly. */
#define FAKE_READ 30
static long long fake_now, fake_switches, fake_calls;
static unsigned long long fake_cpu;
static long long fake_read_cost = FAKE_READ;

static long long fake_start(unsigned long long *cpu)
{
  *cpu = fake_cpu;
  return fake_now;
}
static long long fake_end(unsigned long long *cpu)
{
  fake_now += fake_read_cost;
  *cpu = fake_cpu;
  return fake_now;
}
static long long fake_count_switches(void) { return fake_switches; }
static const struct cpucycles_bench_clock fake = {fake_start, fake_end, fake_count_switches, 0, 0};

/* Works 100, 110, 120, 130, 140, 100, ... (run numbers count the warm-ups);
 * on run migrate_at it moves CPU, on run switch_at it is switched out,
 * each time working 10^6 more; switch_every: every run is. */
struct fake_plan {
  long long migrate_at, switch_at;
  int switch_every;
};
static void fake_fn(void *arg)
{
  const struct fake_plan *p = arg;
  long long run = fake_calls++;
  fake_now += 100 + run % 5 * 10;
  if (run == p->migrate_at) fake_cpu++, fake_now += 1000000;
  if (run == p->switch_at || p->switch_every) fake_switches++, fake_now += 1000000;
}

/* These runs count calls: one call per run unless o says otherwise
 * (automatic calls have their own checks, in tiny_functions()). */
static int fake_bench(const struct fake_plan *plan, const struct cpucycles_bench_options *o,
                      struct cpucycles_bench_result *r)
{
  struct cpucycles_bench_options one;
  memset(&one, 0, sizeof one);
  if (o) one = *o;
  if (!one.calls) one.calls = 1;
  fake_calls = 0;
  return cpucycles_bench_with(&fake, fake_fn, (void *)plan, &one, r, 0);
}

static void fake_counter(void)
{
  struct fake_plan calm = {-1, -1, 0}, migrates = {500, -1, 0}, switches = {-1, 500, 0};
  struct fake_plan always = {-1, -1, 1};
  struct cpucycles_bench_options o;
  struct cpucycles_bench_result r;
  long long *buf, n = 100000;
  int rc;

  rc = fake_bench(&calm, 0, &r);
  tap_ok(rc == 0 && r.count == 1000 && r.disturbed == 0 && r.overhead == FAKE_READ &&
             r.precision == FAKE_READ &&
             r.flags == (CPUCYCLES_BENCH_SUBTRACTED | CPUCYCLES_BENCH_BELOW_RESOLUTION) &&
             r.min == 100 &&
             r.max == 140 && near(r.mean, 120) && near(r.median, 120) &&
             near(r.interquartile_mean, 120) && fake_calls == 1002,
         "fake counter, defaults, one call per run: 2 warm-ups + 1000 runs, overhead %lld subtracted exactly, "
         "min 100 median 120 max 140 (got %g %g %g, flags %#x, %lld calls)",
         r.overhead, r.min, r.median, r.max, r.flags, fake_calls);

  memset(&o, 0, sizeof o);
  o.keep_overhead = 1;
  o.warm_ups = -1;
  o.iterations = 10;
  rc = fake_bench(&calm, &o, &r);
  tap_ok(rc == 0 && r.overhead == 0 && !(r.flags & CPUCYCLES_BENCH_SUBTRACTED) && r.min == 130 &&
             r.count == 10 && fake_calls == 10,
         "keep_overhead, no warm-ups, 10 runs: raw times from 130, not subtracted (min %g)",
         r.min);

  rc = fake_bench(&migrates, 0, &r);
  tap_ok(rc == 0 && (r.flags & CPUCYCLES_BENCH_MIGRATED) && r.disturbed == 1 && r.count == 999 &&
             r.max == 140,
         "a run that changes CPU is flagged and excluded (disturbed %lld, max %g)", r.disturbed,
         r.max);
  rc = fake_bench(&switches, 0, &r);
  tap_ok(rc == 0 && (r.flags & CPUCYCLES_BENCH_SWITCHED) && r.disturbed >= 1 &&
             r.disturbed <= r.runs_per_switch_check && r.count + r.disturbed == 1000 && r.max == 140,
         "a context switch excludes its batch (%lld runs, batches of up to %lld)", r.disturbed,
         r.runs_per_switch_check);
  rc = fake_bench(&always, 0, &r);
  tap_ok(rc == -1 && errno == EAGAIN && r.count == 0 && r.disturbed == 1000 &&
             (r.flags & CPUCYCLES_BENCH_SWITCHED),
         "every run disturbed: -1, EAGAIN, count 0, flagged");

  memset(&o, 0, sizeof o);
  o.iterations = 10000000;
  rc = fake_bench(&calm, &o, &r);
  tap_ok(rc == 0 && r.count == 10000000 && (r.flags & CPUCYCLES_BENCH_SAMPLED) && r.min == 100 &&
             r.max == 140 && near(r.mean, 120) && near(r.median, 120),
         "10^7 runs without a buffer: sampled, exact count/min/max/mean (%lld, %g)", r.count,
         r.mean);

  buf = malloc((size_t)n * sizeof *buf);
  if (!buf) abort();
  o.iterations = n;
  o.samples = buf;
  rc = fake_bench(&calm, &o, &r);
  tap_ok(rc == 0 && r.count == n && !(r.flags & CPUCYCLES_BENCH_SAMPLED) && ascending(buf, n) &&
             buf[0] == 100 && buf[n - 1] == 140,
         "10^5 runs into the caller's buffer: every run, sorted, not sampled");
  free(buf);

  errno = 0;
  rc = cpucycles_bench_with(&fake, 0, 0, 0, &r, 0);
  o.samples = 0;
  o.iterations = -1;
  tap_ok(rc == -1 && errno == EINVAL && fake_bench(&calm, &o, &r) == -1 && errno == EINVAL,
         "no function, or negative iterations: EINVAL");
  fake_read_cost = 0;
  rc = fake_bench(&calm, 0, &r);
  fake_read_cost = FAKE_READ;
  tap_ok(rc == -1 && errno == ENOTSUP, "a counter that never moves: ENOTSUP");
}

/* ---- the frequency check on fake sysfs trees ---- */
static char sysfs[64];

static void put(const char *file, const char *text)
{
  char path[256], *slash;
  FILE *f;
  snprintf(path, sizeof path, "%s/devices/system/cpu/%s", sysfs, file);
  for (slash = path + strlen(sysfs) + 1; (slash = strchr(slash, '/')) != 0; slash++) {
    *slash = 0;
    mkdir(path, 0700);
    *slash = '/';
  }
  if (!(f = fopen(path, "w"))) abort();
  fputs(text, f);
  fclose(f);
}

static void cpufreq(const char *governor, const char *min, const char *max, const char *cur)
{
  put("cpu3/cpufreq/scaling_governor", governor);
  put("cpu3/cpufreq/scaling_min_freq", min);
  put("cpu3/cpufreq/scaling_max_freq", max);
  put("cpu3/cpufreq/scaling_cur_freq", cur);
}

static void frequency(void)
{
  char cmd[128];
  unsigned int f;
  snprintf(sysfs, sizeof sysfs, "%s/t-harness.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
  if (!mkdtemp(sysfs)) abort();

  f = cpucycles_bench_frequency_flags(sysfs, 3);
  tap_ok(f == CPUCYCLES_BENCH_FREQ_UNKNOWN, "no cpufreq: unknown (%#x)", f);
  cpufreq("powersave\n", "800000\n", "3000000\n", "3000000\n");
  f = cpucycles_bench_frequency_flags(sysfs, 3);
  tap_ok(f == CPUCYCLES_BENCH_FREQ_SCALING, "powersave from 0.8 to 3 GHz: scaling (%#x)", f);
  cpufreq("performance\n", "800000\n", "3000000\n", "2990000\n");
  put("intel_pstate/no_turbo", "1\n");
  f = cpucycles_bench_frequency_flags(sysfs, 3);
  tap_ok(f == 0, "performance, turbo off, at its maximum: fixed (%#x)", f);
  f = cpucycles_bench_frequency_flags(sysfs, 2);
  tap_ok(f == CPUCYCLES_BENCH_FREQ_UNKNOWN, "the files of the CPU asked for, not another's (%#x)", f);
  put("intel_pstate/no_turbo", "0\n");
  f = cpucycles_bench_frequency_flags(sysfs, 3);
  tap_ok(f == CPUCYCLES_BENCH_FREQ_SCALING, "the same with turbo on: scaling (%#x)", f);
  put("intel_pstate/no_turbo", "1\n");
  cpufreq("performance\n", "800000\n", "3000000\n", "1500000\n");
  f = cpucycles_bench_frequency_flags(sysfs, 3);
  tap_ok(f == CPUCYCLES_BENCH_FREQ_SCALING, "performance but at half its maximum: scaling (%#x)", f);
  cpufreq("userspace\n", "2000000\n", "2000000\n", "2000000\n");
  put("cpufreq/boost", "0\n");
  f = cpucycles_bench_frequency_flags(sysfs, 3);
  tap_ok(f == 0, "minimum = maximum, boost off: fixed (%#x)", f);
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", sysfs);
  if (system(cmd) != 0) tap_diag("could not remove %s", sysfs);
}

/* ---- the real counter ---- */
static cpu_set_t initial_mask;

static void empty(void *arg) { (void)arg; }

static void busy(void *arg)
{
  long long n = *(long long *)arg, i;
  for (i = 0; i < n; i++) __asm__ __volatile__("" : "+r"(i));
}

struct mover {
  long long runs, at;
  int to;
  int sleep;
  int pinned_ok;
};

/* On run `at`: moves the thread to CPU `to`, or sleeps 2 ms. */
static void disturb(void *arg)
{
  struct mover *m = arg;
  if (m->runs++ != m->at) return;
  if (m->sleep) {
    struct timespec ts = {0, 2000000};
    nanosleep(&ts, 0);
  } else {
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(m->to, &one);
    sched_setaffinity(0, sizeof one, &one);
  }
}

static void check_pinned(void *arg)
{
  cpu_set_t now;
  if (sched_getaffinity(0, sizeof now, &now) != 0 || CPU_COUNT(&now) != 1) *(int *)arg = 0;
}

static void show(const char *what, const struct cpucycles_bench_result *r)
{
  char names[200] = "";
  unsigned int bit;
  for (bit = 1; bit; bit <<= 1)
    if ((r->flags & bit) && cpucycles_bench_flag_name(bit)) {
      strcat(names, " ");
      strcat(names, cpucycles_bench_flag_name(bit));
    }
  tap_diag("%s: median %g IQM %g mean %g min %g max %g, %lld kept, %lld disturbed, "
           "overhead %lld, precision %lld, runs per switch check %lld, calls %lld, flags%s", what, r->median,
           r->interquartile_mean, r->mean, r->min, r->max, r->count, r->disturbed, r->overhead,
           r->precision, r->runs_per_switch_check, r->calls, names);
}

/* The checks below compare figures of runs made at different moments: a
 * busy machine (another process on the core, a hypervisor's other guests)
 * changes the speed of everything between two moments, by 1.7x and 3.3x
 * between two runs here, without a switch or a migration the harness could
 * see.  So two things compared are interleaved, and a check that still
 * rests on one moment is tried up to ATTEMPTS times, its line saying how
 * many it took: a harness that is wrong fails every attempt. */
#define ATTEMPTS 5
#define ROUNDS 9 /* interleaved rounds of each side, an odd number */

/* The median of ROUNDS ratios (sorted in place). */
static double median_ratio(double *v)
{
  int i, j;
  double t;
  for (i = 1; i < ROUNDS; i++)
    for (j = i; j > 0 && v[j - 1] > v[j]; j--) t = v[j], v[j] = v[j - 1], v[j - 1] = t;
  return v[ROUNDS / 2];
}

/* busy(40000)'s median over busy(20000)'s, as the median of ROUNDS rounds'
 * ratios: each round a short pinned cpucycles_bench() of each, one right
 * after the other (which first alternates), so that a change of speed
 * longer than a round (under a millisecond) hits both sides alike.  0 when
 * a run failed or 20000 measured nothing; *once and *twice: the last
 * round's results. */
static double interleaved_ratio(struct cpucycles_bench_result *once,
                                struct cpucycles_bench_result *twice)
{
  struct cpucycles_bench_options o;
  long long w1 = 20000, w2 = 40000;
  double ratios[ROUNDS];
  int i, j, rc;
  memset(&o, 0, sizeof o);
  memset(once, 0, sizeof *once);
  memset(twice, 0, sizeof *twice);
  o.pin = 1;
  o.iterations = 31;
  for (i = 0; i < ROUNDS; i++) {
    for (rc = 0, j = 0; j < 2; j++) /* 20000 first in even rounds */
      rc |= (j ^ i % 2) ? cpucycles_bench(busy, &w2, &o, twice) : cpucycles_bench(busy, &w1, &o, once);
    if (rc != 0 || once->median <= 0) return 0;
    ratios[i] = twice->median / once->median;
  }
  return median_ratio(ratios);
}

static void real_counter(void)
{
  const char *impl = cpucycles_implementation();
  int tsc = !strcmp(impl, "amd64-tsc") || !strcmp(impl, "amd64-tscasm") || !strcmp(impl, "amd64-tscp") ||
            !strcmp(impl, "x86-tsc");
  struct cpucycles_bench_options o;
  struct cpucycles_bench_result r, once, twice;
  struct mover m;
  cpu_set_t before, after;
  double ratio;
  int rc, cpu, other = -1, i, ok, attempt;
  struct timespec t0, t1;

  memset(&o, 0, sizeof o);
  o.iterations = 1000; /* of up to 65536 calls each, batched: keep emulators quick */
  /* Retried: the null overhead subtracted is measured before the runs,
   * and a machine whose speed changed in between leaves the difference. */
  for (attempt = 1;; attempt++) {
    rc = cpucycles_bench(empty, 0, &o, &r);
    ok = rc == 0 && (r.flags & CPUCYCLES_BENCH_SUBTRACTED) && r.median <= 2.0 * r.precision &&
         r.median >= -2.0 * r.precision;
    if (ok || attempt == ATTEMPTS) break;
  }
  show("empty function", &r);
  tap_ok(ok, "an empty function measures 0 within twice the precision (%g, precision %lld; "
             "attempt %d of at most %d)", r.median, r.precision, attempt, ATTEMPTS);
  tap_ok(tsc ? !(r.flags & CPUCYCLES_BENCH_UNFENCED) : (r.flags & CPUCYCLES_BENCH_UNFENCED) != 0,
         "%s: %s", impl, tsc ? "fenced TSC reads" : "cpucycles() between barriers, flagged unfenced");

  /* Interleaved (interleaved_ratio()), and retried. */
  for (attempt = 1;; attempt++) {
    ratio = interleaved_ratio(&once, &twice);
    if ((ratio >= 1.5 && ratio <= 2.6) || attempt == ATTEMPTS) break;
  }
  show("busy 20000, the last round", &once);
  show("busy 40000, the last round", &twice);
  tap_ok(ratio >= 1.5 && ratio <= 2.6,
         "twice the work measures about twice: %.2f, the median of %d interleaved rounds' ratios "
         "(attempt %d of at most %d)", ratio, ROUNDS, attempt, ATTEMPTS);
  {
    struct cpucycles_compare_options co;
    struct cpucycles_compare_result cr;
    long long w1 = 20000, w2 = 40000;
    memset(&co, 0, sizeof co);
    co.pairs = 300;
    rc = cpucycles_bench_compare(busy, &w1, busy, &w2, &co, &cr);
    tap_ok(rc == 0 && cr.verdict == CPUCYCLES_COMPARE_B_SLOWER && cr.ratio >= 1.5 &&
               cr.ratio <= 2.6 && cr.ratio_low <= cr.ratio && cr.ratio <= cr.ratio_high &&
               cr.pairs + cr.disturbed >= 250,
           "the real comparison, twice the work as B: B slower, ratio %.3f [%.3f, %.3f], %lld "
           "pairs kept, %lld disturbed", cr.ratio, cr.ratio_low, cr.ratio_high, cr.pairs,
           cr.disturbed);
  }

  memset(&o, 0, sizeof o);
  o.calls = 1; /* disturb() counts calls: run 100 is call 100 */
  /* Retried: a stall no switch count shows (the hypervisor's) may keep a
   * run of 1.5 ms; the sleeping run kept fails every attempt. */
  for (attempt = 1;; attempt++) {
    memset(&m, 0, sizeof m);
    m.at = 100;
    m.sleep = 1;
    rc = cpucycles_bench(disturb, &m, &o, &r);
    ok = rc == 0 && (r.flags & CPUCYCLES_BENCH_SWITCHED) && r.disturbed >= 1 &&
         r.max < cpucycles_persecond() / 1000 * 3 / 2;
    if (ok || attempt == ATTEMPTS) break;
  }
  show("2 ms sleep in run 100", &r);
  tap_ok(ok, "a 2 ms sleep in one run is flagged as a context switch and left out (max %g; "
             "attempt %d of at most %d)", r.max, attempt, ATTEMPTS);

  cpu = sched_getcpu();
  sched_getaffinity(0, sizeof before, &before);
  for (i = 0; i < CPU_SETSIZE && other < 0; i++)
    if (i != cpu && CPU_ISSET(i, &before)) other = i;
  if (cpu < 0 || other < 0) {
    tap_skip("a migration in a run is flagged", "one CPU only");
  } else {
    cpu_set_t start;
    /* Unpinned, the scheduler may already have put the thread on `other`
     * and the move would be no move: start from `cpu` for certain. */
    CPU_ZERO(&start);
    CPU_SET(cpu, &start);
    sched_setaffinity(0, sizeof start, &start);
    memset(&m, 0, sizeof m);
    m.at = 100;
    m.to = other;
    rc = cpucycles_bench(disturb, &m, &o, &r);
    sched_setaffinity(0, sizeof before, &before);
    show("moved to another CPU in run 100", &r);
    tap_ok(rc == 0 && (r.flags & CPUCYCLES_BENCH_MIGRATED) && r.disturbed >= 1,
           "a migration from CPU %d to %d in one run is flagged and left out", cpu, other);
  }

  /* Against the mask the program started with: the pinned runs above
   * must have given it back too. */
  ok = 1;
  o.pin = 1;
  rc = cpucycles_bench(check_pinned, &ok, &o, &r);
  sched_getaffinity(0, sizeof after, &after);
  if (CPU_COUNT(&initial_mask) < 2)
    tap_skip("pinned during the runs, the mask restored after", "one CPU only");
  else
    tap_ok(rc == 0 && ok && (r.flags & CPUCYCLES_BENCH_PINNED) && CPU_EQUAL(&initial_mask, &after),
           "pinned to one CPU during the runs, the mask (%d CPUs) restored after each time",
           CPU_COUNT(&after));

  /* 10^7 real runs, 10^6 under an emulator (the runner the tests run
   * through: 30 s of each row of the cross matrix under qemu-user, whose
   * clocks are system calls), still a thousand times the reservoir */
  memset(&o, 0, sizeof o);
  o.iterations = getenv("CPUCYCLES_PROBE_RUNNER") && *getenv("CPUCYCLES_PROBE_RUNNER") ? 1000000 : 10000000;
  o.calls = 1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  rc = cpucycles_bench(empty, 0, &o, &r);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  show("real runs", &r);
  tap_ok(rc == 0 && (r.flags & CPUCYCLES_BENCH_SAMPLED) && r.count + r.disturbed == o.iterations,
         "%lld real runs without a buffer, in %.2f s", o.iterations,
         (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
}

/* ---- limits: the samples buffer, a small thread stack ---- */
#define SMALL_STACK 16384
static void *bench_on_small_stack(void *arg)
{
  struct cpucycles_bench_result r;
  struct cpucycles_compare_result cr;
  struct cpucycles_compare_options co;
  int *ok = arg;
  memset(&co, 0, sizeof co);
  co.pairs = 200;
  ok[0] = cpucycles_bench(empty, 0, 0, &r) == 0 && r.count > 0;
  ok[1] = cpucycles_bench_compare(empty, 0, empty, 0, &co, &cr) == 0 ||
          errno == EAGAIN; /* every block disturbed: no stack at fault */
  return 0;
}

static void limits(void)
{
  static long long samples[1024]; /* room for the default, so the old code did not crash */
  struct fake_plan calm = {-1, -1, 0};
  struct cpucycles_bench_options o;
  struct cpucycles_bench_result r;
  pthread_attr_t attr;
  pthread_t thread;
  int ok[2] = {0, 0}, rc;

  /* samples has room for iterations: 0 (1000 by default) would overrun it */
  memset(&o, 0, sizeof o);
  o.samples = samples;
  o.calls = 1;
  errno = 0;
  rc = fake_bench(&calm, &o, &r);
  tap_ok(rc == -1 && errno == EINVAL, "samples given without iterations: EINVAL (%d)", rc);

#if defined(TAP_UNDER_SANITIZER)
  tap_skip("on a 16 KiB thread", "a sanitizer's redzones need a larger stack");
#else
  /* A thread of 16 KiB of stack (glibc's PTHREAD_STACK_MIN on x86-64, of
   * which its thread-local storage takes some 5 KiB; musl's is 2 KiB),
   * or PTHREAD_STACK_MIN where that is more; a stack overflow kills the
   * whole test, which then fails. */
  pthread_attr_init(&attr);
  rc = pthread_attr_setstacksize(&attr, PTHREAD_STACK_MIN > SMALL_STACK ? PTHREAD_STACK_MIN : SMALL_STACK);
  if (rc == 0 && pthread_create(&thread, &attr, bench_on_small_stack, ok) == 0)
    pthread_join(thread, 0);
  pthread_attr_destroy(&attr);
  tap_ok(ok[0] && ok[1], "cpucycles_bench() and cpucycles_bench_compare() on a thread of 16 KiB "
         "of stack (PTHREAD_STACK_MIN here: %ld)", (long)PTHREAD_STACK_MIN);
#endif
}

static void flag_names(void)
{
  unsigned int bit, known = 0, distinct = 1;
  for (bit = 1; bit; bit <<= 1) {
    unsigned int other;
    if (!cpucycles_bench_flag_name(bit)) continue;
    known++;
    for (other = 1; other < bit; other <<= 1)
      if (cpucycles_bench_flag_name(other) &&
          !strcmp(cpucycles_bench_flag_name(other), cpucycles_bench_flag_name(bit)))
        distinct = 0;
  }
  tap_ok(known == 15 && distinct && !cpucycles_bench_flag_name(0) &&
             !cpucycles_bench_flag_name(CPUCYCLES_BENCH_MIGRATED | CPUCYCLES_BENCH_SWITCHED) &&
             !strcmp(cpucycles_bench_flag_name(CPUCYCLES_BENCH_MIGRATED), "migrated"),
         "15 flags with distinct names; 0 and combinations have none");
}

/* ---- tiny functions on the fake counter: 3 ticks a call, steps of 30 ---- */
static void fake_tiny(void *arg)
{
  (void)arg;
  fake_now += 3;
}

/* A function whose first call makes the reads dearer (30 ticks to 60):
 * a clock whose cost changes while fn is measured, as a frequency step or
 * a neighbour changes it, after the null benchmark made before. */
static long long drift_calls;
static void fake_tiny_drift(void *arg)
{
  (void)arg;
  fake_now += 3;
  if (++drift_calls == 1) fake_read_cost = 2 * FAKE_READ;
}

static void tiny_functions(void)
{
  struct cpucycles_bench_options o;
  struct cpucycles_bench_result r;
  int rc;

  rc = cpucycles_bench_with(&fake, fake_tiny, 0, 0, &r, 0);
  tap_ok(rc == 0 && r.calls == 1024 && near(r.median, 3) && near(r.min, 3) && near(r.max, 3) &&
             r.overhead == FAKE_READ && !(r.flags & CPUCYCLES_BENCH_BELOW_RESOLUTION),
         "a 3-tick function on a 30-tick counter: 1024 calls a run (64 steps), 3 a call, not "
         "flagged (calls %lld, median %g, flags %#x)", r.calls, r.median, r.flags);
  memset(&o, 0, sizeof o);
  o.calls = 1;
  rc = cpucycles_bench_with(&fake, fake_tiny, 0, &o, &r, 0);
  tap_ok(rc == 0 && r.calls == 1 && near(r.median, 3) &&
             (r.flags & CPUCYCLES_BENCH_BELOW_RESOLUTION),
         "the same with one call a run: flagged below the resolution (flags %#x)", r.flags);
  drift_calls = 0;
  rc = cpucycles_bench_with(&fake, fake_tiny_drift, 0, &o, &r, 0);
  fake_read_cost = FAKE_READ;
  tap_ok(rc == 0 && near(r.median, 3) && r.overhead == 2 * FAKE_READ,
         "reads that grow dearer once fn runs: the null overhead subtracted is the one measured "
         "beside fn's runs (%lld), and fn measures its 3 (median %g)", r.overhead, r.median);
  o.calls = -1;
  errno = 0;
  tap_ok(cpucycles_bench_with(&fake, fake_tiny, 0, &o, &r, 0) == -1 && errno == EINVAL,
         "negative calls: EINVAL");
}

/* ---- where fn lies: empty functions placed beside it, on the fake counter ----
 * The fake place_nulls() gives three empty functions that cost
 * placed_cost[i] ticks a call, as calls to fn's place may cost more than
 * calls to the library's own empty function (which costs nothing here). */
static long long placed_cost[CPUCYCLES_BENCH_PLACED];
static void placed0(void *arg) { (void)arg; fake_now += placed_cost[0]; }
static void placed1(void *arg) { (void)arg; fake_now += placed_cost[1]; }
static void placed2(void *arg) { (void)arg; fake_now += placed_cost[2]; }
static void fake_place(void (*fn)(void *), struct cpucycles_bench_nulls *nulls)
{
  (void)fn;
  nulls->fn[0] = placed0, nulls->fn[1] = placed1, nulls->fn[2] = placed2;
  nulls->n = CPUCYCLES_BENCH_PLACED;
  nulls->page = 0;
}
static const struct cpucycles_bench_clock fake_placed = {fake_start, fake_end, fake_count_switches, 0,
                                                         fake_place};
static long long work_cost;
static void fake_work(void *arg)
{
  (void)arg;
  fake_now += work_cost;
}

static void placement(void)
{
  struct cpucycles_bench_result r;
  int rc;

  /* an empty call to fn's place costs 2 more a call than one to the
   * library's: an empty fn there measures 2, or is flagged */
  placed_cost[0] = placed_cost[1] = placed_cost[2] = 2;
  work_cost = 2;
  rc = cpucycles_bench_with(&fake_placed, fake_work, 0, 0, &r, 0);
  tap_ok(rc == 0 && near(r.median, 2) && r.overhead == FAKE_READ &&
             (r.flags & CPUCYCLES_BENCH_NULL_PLACEMENT),
         "empty calls to fn's place dearer by 2 a call than to the library's: an empty fn "
         "there, measuring 2, is flagged null-placement (median %g, flags %#x)", r.median, r.flags);
  work_cost = 5;
  rc = cpucycles_bench_with(&fake_placed, fake_work, 0, 0, &r, 0);
  tap_ok(rc == 0 && near(r.median, 5) && (r.flags & CPUCYCLES_BENCH_NULL_PLACEMENT),
         "and a 5-tick function there: flagged (median %g, flags %#x)", r.median, r.flags);
  work_cost = 100;
  rc = cpucycles_bench_with(&fake_placed, fake_work, 0, 0, &r, 0);
  tap_ok(rc == 0 && near(r.median, 100) && !(r.flags & CPUCYCLES_BENCH_NULL_PLACEMENT),
         "the same spread under a 100-tick function (2%%): not flagged (median %g, flags %#x)",
         r.median, r.flags);

  /* the placed ones disagree among themselves: 0, 0, 2 */
  placed_cost[0] = placed_cost[1] = 0;
  work_cost = 3;
  rc = cpucycles_bench_with(&fake_placed, fake_work, 0, 0, &r, 0);
  tap_ok(rc == 0 && near(r.median, 3) && (r.flags & CPUCYCLES_BENCH_NULL_PLACEMENT),
         "empty functions beside fn at 0, 0 and 2 a call: a 3-tick function is flagged "
         "(median %g, flags %#x)", r.median, r.flags);
  placed_cost[2] = 0;
  rc = cpucycles_bench_with(&fake_placed, fake_work, 0, 0, &r, 0);
  tap_ok(rc == 0 && near(r.median, 3) && !(r.flags & CPUCYCLES_BENCH_NULL_PLACEMENT),
         "all empty functions alike: the 3-tick function is not flagged (flags %#x)", r.flags);
  tap_ok(cpucycles_bench_null_placement(40.0, -1, 1) && cpucycles_bench_null_placement(-1.0, 1024, 1024) &&
             !cpucycles_bench_null_placement(0.1, 512, 1024) &&
             !cpucycles_bench_null_placement(25.0, 1, 1) && cpucycles_bench_null_placement(15.0, 1, 1),
         "the rule: flagged when the spread is unknown, or over 0.5 a call and over 1/20 of the "
         "figure (in either sign)");
}

/* The reference alone (cpucycles_bench_speed_now()), and beside a
 * function (cpucycles_bench_with_speed()): the same fixed chain, so the
 * same cycles give or take the machine's noise (within a factor of 2 is
 * what no noise undoes: a different chain, or one per call rather than
 * per run, would be 256 times off). */
static void speed(void)
{
  struct cpucycles_bench_speed alone, beside;
  struct cpucycles_bench_result r;
  int rc = cpucycles_bench_speed_now(&alone);
  tap_ok(rc == 0 && alone.reference > 0 && alone.reference_runs >= 32,
         "cpucycles_bench_speed_now(): the reference alone, %.1f cycles a run of its chain, %lld runs kept",
         alone.reference, alone.reference_runs);
  rc = cpucycles_bench_with_speed(empty, 0, 0, &r, &beside);
  tap_ok(rc == 0 && beside.reference > alone.reference / 2 && beside.reference < alone.reference * 2 &&
             beside.reference_runs >= 100,
         "cpucycles_bench_with_speed(): the reference beside a function's runs, %.1f cycles (alone %.1f), "
         "%lld runs", beside.reference, alone.reference, beside.reference_runs);
  errno = 0;
  tap_ok(cpucycles_bench_speed_now(0) == -1 && errno == EINVAL &&
             cpucycles_bench_with_speed(empty, 0, 0, &r, 0) == -1 && errno == EINVAL,
         "no speed to fill: EINVAL");
}

int main(void)
{
  tap_plan(50);
  sched_getaffinity(0, sizeof initial_mask, &initial_mask);
  fixed_statistics();
  fake_counter();
  tiny_functions();
  placement();
  frequency();
  real_counter();
  flag_names();
  limits();
  speed();
  return tap_done();
}
