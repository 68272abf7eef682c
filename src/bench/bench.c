/* SPDX-License-Identifier: MIT */
/* bench.c - cpucycles_bench()'s runs on a given clock (bench.h): the
 * counter's precision, the null benchmark, the warm-ups, the measured
 * runs, and which of them a migration or a context switch disturbed.
 * bench-host.c gives it the real clock. */
#include "bench.h"
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <sys/mman.h>

#define DEFAULT_ITERATIONS 1000 /* Timer::CPU's defaults */
#define DEFAULT_WARM_UPS 2
#define PRECISION_PAIRS 1000    /* back-to-back reads, as the library's check */
#define NULL_RUNS 512 /* in the scratch memory: */
typedef char cpucycles_null_runs_fit[NULL_RUNS <= CPUCYCLES_BENCH_SCRATCH ? 1 : -1];
#define BATCH_MAX 256
#define SWITCH_CHECK_SHARE 20   /* a batch takes >= 20 times a switch check */
#define CALLS_TARGET_STEPS 64   /* a timed run spans >= 64 times the precision */
#define CALLS_TARGET_OVERHEADS 8 /* ... and >= 8 null overheads */
#define CALLS_TRIES 8
#define CALLS_MAX 65536
#define RESOLUTION_STEPS 8      /* a run under 8 times it: BELOW_RESOLUTION */
/* NULL_PLACEMENT: the library's empty function and those placed beside fn
 * cost different amounts, by over half a cycle per call, and fn's figure
 * per call is under 20 times that spread (the subtraction may be off by
 * over 5% of it). */
#define PLACEMENT_CYCLES 0.5
#define PLACEMENT_SHARE 20

/* The kept runs in run order: all of them while they fit, then every
 * stride-th (the stride doubles each time the buffer fills up).  min, max
 * and sum are over all of them. */
struct kept {
  long long *buf, cap, n, stride, seen, min, max;
  double sum;
};

static void kept_init(struct kept *k, long long *buf, long long cap)
{
  k->buf = buf, k->cap = cap, k->n = 0, k->stride = 1, k->seen = 0, k->min = 0, k->max = 0;
  k->sum = 0;
}

static void keep(struct kept *k, long long v)
{
  long long j = k->seen++, i;
  if (j == 0 || v < k->min) k->min = v;
  if (j == 0 || v > k->max) k->max = v;
  k->sum += (double)v;
  if (j % k->stride) return;
  if (k->n == k->cap) { /* keeps runs 0, 2 stride, 4 stride...: j is one */
    for (i = 0; 2 * i < k->n; i++) k->buf[i] = k->buf[2 * i];
    k->n = (k->n + 1) / 2;
    k->stride *= 2;
    if (j % k->stride) return;
  }
  k->buf[k->n++] = v;
}

struct tally {
  long long disturbed, batch_max;
  unsigned int flags;
};

/* The null benchmark's function.  Called through a volatile pointer, so
 * the compiler calls it exactly as it calls the caller's fn. */
static void empty_function(void *arg)
{
  (void)arg;
  CPUCYCLES_COMPILER_BARRIER();
}
static void (*volatile null_function)(void *) = empty_function;

/* The harness's reference (cpucycles_bench_with_speed()): a fixed chain
 * of dependent multiply-adds, the same work in every build of this
 * library (each step needs the last: no compiler or core can shorten
 * it), timed between fn's runs on the same CPU and counter.  Its cycles
 * say how fast the host ran while fn was measured: a virtual CPU whose
 * core another guest shares ran a fixed chain at 5,600 or 9,300 TSC
 * ticks, by vCPU and minute, on the 2-core VM this was developed on, and
 * a result divided by it compares across such speeds as the code does.
 * Each run of it has a run of the null benchmark beside it, the same
 * calls, whose cycles are taken off: the reads' cost is not the chain's
 * (with a slow clock it was a third of a run; the calls a run takes,
 * chosen from the counter's step, differ from one measurement to the
 * next, and so did that share: a reference 1.44 times another where the
 * host ran 1.6 times slower). */
#define REFERENCE_STEPS 256
#define REFERENCE_EVERY 8 /* fn's runs to one of the reference */
static volatile unsigned long long reference_sink;
/* Where it can, the chain is written in assembly: it must be the same
 * instructions at every optimization level.  In C at -O0 its two
 * variables live on the stack, each step a store and a load, and how
 * fast a load finds the store before it depends on where the stack lies
 * (the addresses' low bits): the same build's reference then varied by
 * 5% from one process to the next, and a host's speed with it. */
static void reference_chain(void *arg)
{
  unsigned long long x = (unsigned long long)(size_t)arg | 1;
#if defined(__GNUC__) && defined(__x86_64__)
  unsigned long long k = 0x9e3779b97f4a7c15ULL, n = REFERENCE_STEPS;
  __asm__ __volatile__("1:\n\t"
                       "imulq %[k], %[x]\n\t"
                       "addq %[n], %[x]\n\t"
                       "decq %[n]\n\t"
                       "jnz 1b"
                       : [x] "+r"(x), [n] "+r"(n)
                       : [k] "r"(k)
                       : "cc");
#elif defined(__GNUC__) && defined(__aarch64__)
  unsigned long long k = 0x9e3779b97f4a7c15ULL, n = REFERENCE_STEPS;
  __asm__ __volatile__("1:\n\t"
                       "madd %[x], %[x], %[k], %[n]\n\t"
                       "subs %[n], %[n], #1\n\t"
                       "b.ne 1b"
                       : [x] "+r"(x), [n] "+r"(n)
                       : [k] "r"(k)
                       : "cc");
#else
  int i;
  for (i = 0; i < REFERENCE_STEPS; i++) {
    x = x * 0x9e3779b97f4a7c15ULL + (unsigned long long)i;
#if defined(__GNUC__)
    __asm__ __volatile__("" : "+r"(x)); /* (x opaque: no reassociation) */
#endif
  }
#endif
  reference_sink = x;
}
static void (*volatile reference_function)(void *) = reference_chain;

/* One timed run: calls calls of fn(arg) between c->start() and c->end(),
 * at one call site for fn and the null benchmark alike.  *moved: it
 * changed CPUs. */
static long long timed_run(const struct cpucycles_bench_clock *c, void (*fn)(void *), void *arg,
                           long long calls, unsigned char *moved)
{
  long long j, t0, t1;
  unsigned long long cpu0, cpu1;
  t0 = c->start(&cpu0);
  for (j = 0; j < calls; j++) fn(arg);
  t1 = c->end(&cpu1);
  *moved = cpu0 != cpu1;
  return t1 - t0;
}

/* runs times: a timed run of fn, in batches between two c->switches();
 * undisturbed runs go to k (if any) less overhead.  With nk, each run of fn
 * has a run of the null benchmark beside it, the same calls, before it or
 * after in turn, which goes to nk as it is (the null overhead measured
 * while fn is measured: a frequency or a neighbour that changes during
 * the runs changes both alike).  A batch is as short as keeps the switch
 * check (switch_cost) under 1/SWITCH_CHECK_SHARE of it, judged by the
 * previous batch's fastest run; the first batch is a single run. */
static void run(const struct cpucycles_bench_clock *c, void (*fn)(void *), void *arg,
                long long calls, long long runs, long long overhead, long long switch_cost,
                struct kept *k, struct kept *nk, struct kept *rk, struct kept *rnk, long long ref_calls,
                struct tally *t)
{
  long long ticks[BATCH_MAX], null_ticks[BATCH_MAX], ref_ticks[BATCH_MAX], ref_null_ticks[BATCH_MAX],
      batch = 1, b, i, before, after, fastest, done = 0;
  unsigned char moved[BATCH_MAX], null_moved = 0, ref_moved = 0, ref_null_moved = 0;

  while (runs > 0) {
    b = runs < batch ? runs : batch;
    before = c->switches();
    for (i = 0; i < b; i++) {
      if (nk && (i & 1)) null_ticks[i] = timed_run(c, null_function, 0, calls, &null_moved);
      ticks[i] = timed_run(c, fn, arg, calls, &moved[i]);
      if (nk && !(i & 1)) null_ticks[i] = timed_run(c, null_function, 0, calls, &null_moved);
      moved[i] |= null_moved;
      /* the reference, one run of it to REFERENCE_EVERY of fn's, and the
       * null benchmark's run of as many calls beside it, before or after
       * in turn */
      ref_ticks[i] = -1;
      if (rk && (done + i) % REFERENCE_EVERY == 0) {
        int null_first = ((done + i) / REFERENCE_EVERY) & 1;
        if (null_first) ref_null_ticks[i] = timed_run(c, null_function, 0, ref_calls, &ref_null_moved);
        ref_ticks[i] = timed_run(c, reference_function, 0, ref_calls, &ref_moved);
        if (!null_first) ref_null_ticks[i] = timed_run(c, null_function, 0, ref_calls, &ref_null_moved);
        moved[i] |= ref_moved | ref_null_moved;
      }
    }
    after = c->switches();
    if (after != before) t->flags |= CPUCYCLES_BENCH_SWITCHED;
    fastest = ticks[0];
    for (i = 0; i < b; i++) {
      if (ticks[i] < fastest) fastest = ticks[i];
      if (moved[i]) t->flags |= CPUCYCLES_BENCH_MIGRATED;
      if (moved[i] || after != before) t->disturbed++;
      else {
        if (k) keep(k, ticks[i] - overhead);
        if (nk) keep(nk, null_ticks[i]);
        if (rk && ref_ticks[i] >= 0) keep(rk, ref_ticks[i]), keep(rnk, ref_null_ticks[i]);
      }
    }
    if (b > t->batch_max) t->batch_max = b;
    runs -= b, done += b;
    batch = BATCH_MAX;
    if (before >= 0 && fastest > 0 && SWITCH_CHECK_SHARE * switch_cost / fastest < BATCH_MAX)
      batch = (SWITCH_CHECK_SHARE * switch_cost + fastest - 1) / fastest;
    if (batch < 1) batch = 1;
  }
}

/* The smallest nonzero difference of two back-to-back reads (0: the
 * counter never moved), and the cost of a context-switch check. */
long long cpucycles_bench_precision(const struct cpucycles_bench_clock *c)
{
  long long best = 0, d, i;
  unsigned long long cpu;
  for (i = 0; i < PRECISION_PAIRS; i++) {
    d = -c->start(&cpu);
    d += c->end(&cpu);
    if (d > 0 && (best == 0 || d < best)) best = d;
  }
  return best;
}

long long cpucycles_bench_switch_cost(const struct cpucycles_bench_clock *c)
{
  long long best = 0, d, i;
  unsigned long long cpu;
  for (i = 0; i < 3; i++) {
    d = -c->start(&cpu);
    c->switches();
    d += c->end(&cpu);
    if (i == 0 || d < best) best = d;
  }
  return best > 0 ? best : 0;
}

void cpucycles_bench_pin_here(struct cpucycles_bench_pin *p)
{
  p->active = 0;
#if defined(__linux__)
  {
    int cpu = sched_getcpu();
    cpu_set_t one;
    if (cpu < 0 || cpu >= CPU_SETSIZE || sched_getaffinity(0, sizeof p->saved, &p->saved) != 0)
      return;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    p->active = sched_setaffinity(0, sizeof one, &one) == 0;
  }
#endif
}

void cpucycles_bench_unpin(struct cpucycles_bench_pin *p)
{
  (void)p;
#if defined(__linux__)
  if (p->active) sched_setaffinity(0, sizeof p->saved, &p->saved);
#endif
}

long long *cpucycles_bench_scratch(void)
{
  void *m = mmap(0, CPUCYCLES_BENCH_SCRATCH * sizeof(long long), PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return m == MAP_FAILED ? 0 : (long long *)m;
}

void cpucycles_bench_scratch_free(long long *scratch)
{
  if (scratch) munmap(scratch, CPUCYCLES_BENCH_SCRATCH * sizeof(long long));
}

int cpucycles_bench_take(struct cpucycles_bench_hold *h, int pin, unsigned int clock_flags,
                         unsigned int *flags)
{
  h->pin.active = 0;
  h->nulls.n = 0, h->nulls.page = 0;
  if (!(h->scratch = cpucycles_bench_scratch())) {
    errno = ENOMEM;
    return -1;
  }
  if (pin) cpucycles_bench_pin_here(&h->pin);
  *flags = clock_flags | (h->pin.active ? CPUCYCLES_BENCH_PINNED : 0);
  return 0;
}

void cpucycles_bench_release(struct cpucycles_bench_hold *h)
{
  cpucycles_bench_unpin(&h->pin);
  cpucycles_bench_scratch_free(h->scratch);
  if (h->nulls.page) munmap(h->nulls.page, CPUCYCLES_BENCH_NULLS_PAGE);
  h->pin.active = 0, h->scratch = 0, h->nulls.page = 0, h->nulls.n = 0;
}

void cpucycles_bench_release_arg(void *h) { cpucycles_bench_release(h); }

/* The null benchmark (the cost of the reads and of calls empty calls):
 * the median of NULL_RUNS runs, kept in scratch, or -1 when none was
 * undisturbed. */
long long cpucycles_bench_null_overhead(const struct cpucycles_bench_clock *c, long long calls,
                                        long long switch_cost, long long *scratch)
{
  struct kept kn;
  struct tally ignored = {0, 0, 0};
  struct cpucycles_bench_result stats;
  kept_init(&kn, scratch, NULL_RUNS);
  run(c, null_function, 0, calls, NULL_RUNS, 0, switch_cost, &kn, 0, 0, 0, 0, &ignored);
  stats.flags = 0;
  if (kn.n == 0 || cpucycles_bench_statistics(kn.buf, kn.n, 0, &stats) != 0) return -1;
  return (long long)(stats.median + (stats.median < 0 ? -0.5 : 0.5));
}

/* The calls per timed run for fn (see "Tiny functions" in cpucycles.h):
 * doubled until the fastest of CALLS_TRIES runs, less overhead (of one
 * empty call), spans the target. */
long long cpucycles_bench_choose_calls(const struct cpucycles_bench_clock *c, void (*fn)(void *),
                                       void *arg, long long precision, long long overhead)
{
  long long target = CALLS_TARGET_STEPS * precision, calls, fastest, t0, i, j;
  unsigned long long cpu;
  if (target < CALLS_TARGET_OVERHEADS * overhead) target = CALLS_TARGET_OVERHEADS * overhead;
  for (calls = 1; calls < CALLS_MAX; calls *= 2) {
    fastest = -1;
    for (i = 0; i < CALLS_TRIES; i++) {
      t0 = c->start(&cpu);
      for (j = 0; j < calls; j++) fn(arg);
      t0 = c->end(&cpu) - t0;
      if (fastest < 0 || t0 < fastest) fastest = t0;
    }
    if (fastest - overhead >= target) break;
  }
  return calls;
}

/* The figures of runs of calls calls, per call. */
static void per_call(struct cpucycles_bench_result *r, long long calls)
{
  double k = (double)calls;
  r->min /= k, r->max /= k, r->mean /= k, r->median /= k, r->interquartile_mean /= k;
  r->interquartile_mean_error /= k;
}

/* Whether a run of median (and minimum) ticks, overhead subtracted, is
 * still too short for the counter. */
int cpucycles_bench_below_resolution(double median, double min, long long precision)
{
  return median < (double)(RESOLUTION_STEPS * precision) || min < 0;
}

/* The median of the null runs beside fn's (as cpucycles_bench_null_overhead()
 * rounds it), or -1 when there was none. */
static long long interleaved_overhead(struct kept *nk)
{
  struct cpucycles_bench_result stats;
  stats.flags = 0;
  if (nk->n == 0 || cpucycles_bench_statistics(nk->buf, nk->n, 0, &stats) != 0) return -1;
  return (long long)(stats.median + (stats.median < 0 ? -0.5 : 0.5));
}

/* The reference's figure from its kept runs and the null runs beside
 * them: a chain's cycles (the runs' median less the null runs', over the
 * calls a run made), how many runs, and a speed that changed (its own
 * drift or spread). */
static void reference_figure(struct kept *rk, struct kept *rnk, long long calls, long long precision,
                             struct cpucycles_bench_speed *speed)
{
  struct cpucycles_bench_result stats;
  long long null_overhead = interleaved_overhead(rnk);
  stats.flags = 0;
  cpucycles_bench_statistics(rk->buf, rk->n, precision, &stats);
  if (null_overhead < 0 || null_overhead >= stats.median) null_overhead = 0;
  speed->reference = (stats.median - (double)null_overhead) / (double)calls;
  speed->reference_runs = rk->seen;
  speed->flags = stats.flags & (CPUCYCLES_BENCH_DRIFT | CPUCYCLES_BENCH_SPREAD);
}

/* The measured runs of fn, into the caller's samples or the reservoir
 * (scratch), and their statistics: 0, or -1 when every run was disturbed.
 * When the null overhead is subtracted, the null runs made beside fn's
 * (in scratch's second half) give the overhead subtracted in the end: the
 * null benchmark made before the runs, whose overhead the kept runs have
 * had taken off, is corrected by the difference (in the kept runs, so the
 * caller's samples and every figure agree). */
static int measured_runs(const struct cpucycles_bench_clock *c, void (*fn)(void *), void *arg,
                         long long calls, long long iterations, long long *samples,
                         long long *scratch, long long switch_cost,
                         struct cpucycles_bench_result *r, struct cpucycles_bench_speed *speed)
{
  struct tally t = {0, 0, 0};
  struct kept k, nk, rk, rnk;
  int subtracted = (r->flags & CPUCYCLES_BENCH_SUBTRACTED) != 0;
  long long overhead, shift, i, ref_calls = 1;

  if (samples) kept_init(&k, samples, iterations);
  else kept_init(&k, scratch, CPUCYCLES_BENCH_RESERVOIR);
  kept_init(&nk, scratch + CPUCYCLES_BENCH_RESERVOIR, CPUCYCLES_BENCH_RESERVOIR);
  kept_init(&rk, scratch + 2 * CPUCYCLES_BENCH_RESERVOIR, CPUCYCLES_BENCH_REFERENCES);
  kept_init(&rnk, scratch + 2 * CPUCYCLES_BENCH_RESERVOIR + CPUCYCLES_BENCH_REFERENCES,
            CPUCYCLES_BENCH_REFERENCES);
  /* a run of the reference spans the counter's steps many times over, as
   * fn's does ("Tiny functions"): its median is then no grid's */
  if (speed) ref_calls = cpucycles_bench_choose_calls(c, reference_function, 0, r->precision, 0);
  run(c, fn, arg, calls, iterations, r->overhead, switch_cost, &k, subtracted ? &nk : 0, speed ? &rk : 0,
      &rnk, ref_calls, &t);
  r->flags |= t.flags;
  r->disturbed = t.disturbed;
  r->runs_per_switch_check = t.batch_max;
  if (k.seen == 0) return -1;
  if (speed && rk.n > 0) reference_figure(&rk, &rnk, ref_calls, r->precision, speed);
  if (subtracted && (overhead = interleaved_overhead(&nk)) >= 0) {
    shift = overhead - r->overhead;
    for (i = 0; i < k.n; i++) k.buf[i] -= shift;
    k.min -= shift, k.max -= shift, k.sum -= (double)shift * (double)k.seen;
    r->overhead = overhead;
  }
  cpucycles_bench_statistics(k.buf, k.n, r->precision, r);
  if (k.stride > 1) { /* the exact figures, over every kept run */
    r->flags |= CPUCYCLES_BENCH_SAMPLED;
    r->count = k.seen;
    r->min = (double)k.min;
    r->max = (double)k.max;
    r->mean = k.sum / (double)k.seen;
  }
  return 0;
}

/* Whether fn and the library's empty function lie in different 4 GiB
 * regions (where a call costs differently on recent Intel cores). */
static int far_from_library(void (*fn)(void *))
{
  unsigned long long here = (unsigned long long)(size_t)empty_function;
  return ((here ^ (unsigned long long)(size_t)fn) >> 16 >> 16) != 0;
}

/* The null benchmark, and how much it depends on where the empty function
 * lies: the null overhead of calls calls of the library's own empty
 * function (returned: a function that does work hides some of what a call
 * to a far place costs, so no other empty function is nearer fn's truth),
 * and into *spread the difference between the dearest and the cheapest of
 * it and the empty functions placed beside fn (nulls), per run; -1
 * (unknown) when none could be placed and fn lies far from the library, or
 * when one of them had no undisturbed run.  They
 * take turns, in rounds of NULL_RUNS / NULL_ROUNDS runs each, so that a
 * machine whose speed changes moves them alike rather than apart. */
#define NULL_ROUNDS 8
#define NULLS (1 + CPUCYCLES_BENCH_PLACED)
typedef char cpucycles_nulls_fit[NULLS * NULL_RUNS <= CPUCYCLES_BENCH_SCRATCH ? 1 : -1];
static long long placed_overhead(const struct cpucycles_bench_clock *c, void (*fn)(void *),
                                 const struct cpucycles_bench_nulls *nulls, long long calls,
                                 long long switch_cost, long long *scratch, long long *spread)
{
  struct kept kn[NULLS];
  struct tally ignored = {0, 0, 0};
  struct cpucycles_bench_result stats;
  void (*null[NULLS])(void *);
  long long own = -1, low = 0, high = 0, o;
  int i, round, seen = 0, n = 1 + nulls->n;
  *spread = 0;
  if (nulls->n == 0) {
    if (far_from_library(fn)) *spread = -1;
    return cpucycles_bench_null_overhead(c, calls, switch_cost, scratch);
  }
  null[0] = null_function;
  for (i = 1; i < n; i++) null[i] = nulls->fn[i - 1];
  for (i = 0; i < n; i++) kept_init(&kn[i], scratch + i * NULL_RUNS, NULL_RUNS);
  for (round = 0; round < NULL_ROUNDS; round++)
    for (i = 0; i < n; i++)
      run(c, null[i], 0, calls, NULL_RUNS / NULL_ROUNDS, 0, switch_cost, &kn[i], 0, 0, 0, 0, &ignored);
  for (i = 0; i < n; i++) {
    stats.flags = 0;
    if (kn[i].n == 0 || cpucycles_bench_statistics(kn[i].buf, kn[i].n, 0, &stats) != 0) continue;
    o = (long long)(stats.median + (stats.median < 0 ? -0.5 : 0.5));
    if (i == 0) own = o;
    if (!seen++ || o < low) low = o;
    if (seen == 1 || o > high) high = o;
  }
  *spread = seen == n ? high - low : -1;
  return own;
}

/* Whether a figure of median per call, after subtracting a null overhead
 * uncertain by spread per run of calls calls (-1: unknown), is within
 * what that uncertainty allows (see CPUCYCLES_BENCH_NULL_PLACEMENT). */
int cpucycles_bench_null_placement(double median, long long spread, long long calls)
{
  double per_call = (double)spread / (double)calls;
  if (spread < 0) return 1;
  if (median < 0) median = -median;
  return per_call > PLACEMENT_CYCLES && median < PLACEMENT_SHARE * per_call;
}

/* cpucycles_bench()'s work once its memory is held (and the thread
 * pinned): 0, or an errno value. */
static int measure(const struct cpucycles_bench_clock *c, void (*fn)(void *), void *arg,
                   const struct cpucycles_bench_options *o, long long *scratch,
                   const struct cpucycles_bench_nulls *nulls, long long *spread,
                   struct cpucycles_bench_result *r, struct cpucycles_bench_speed *speed)
{
  long long warm_ups = o && o->warm_ups ? o->warm_ups : DEFAULT_WARM_UPS;
  long long iterations = o && o->iterations ? o->iterations : DEFAULT_ITERATIONS;
  long long calls = o && o->calls > 0 ? o->calls : 1;
  long long switch_cost, overhead;
  struct tally ignored = {0, 0, 0};

  r->precision = cpucycles_bench_precision(c);
  if (r->precision == 0) return ENOTSUP;
  switch_cost = cpucycles_bench_switch_cost(c);
  if (!(o && o->calls)) {
    overhead = cpucycles_bench_null_overhead(c, 1, switch_cost, scratch);
    calls = cpucycles_bench_choose_calls(c, fn, arg, r->precision, overhead > 0 ? overhead : 0);
  }
  r->calls = calls;
  /* the null benchmark: nothing between the reads but the calls */
  overhead = placed_overhead(c, fn, nulls, calls, switch_cost, scratch, spread);
  if (overhead != -1 && !(o && o->keep_overhead)) {
    r->overhead = overhead;
    r->flags |= CPUCYCLES_BENCH_SUBTRACTED;
  }

  if (warm_ups > 0) run(c, fn, arg, calls, warm_ups, 0, switch_cost, 0, 0, 0, 0, 0, &ignored);
  return measured_runs(c, fn, arg, calls, iterations, o ? o->samples : 0, scratch, switch_cost, r, speed)
             ? EAGAIN
             : 0;
}

int cpucycles_bench_with(const struct cpucycles_bench_clock *c, void (*fn)(void *), void *arg,
                         const struct cpucycles_bench_options *o,
                         struct cpucycles_bench_result *r, struct cpucycles_bench_speed *speed)
{
  long long iterations = o && o->iterations ? o->iterations : DEFAULT_ITERATIONS;
  struct cpucycles_bench_hold hold CPUCYCLES_BENCH_HELD = {0};
  long long spread = 0;
  int saved_errno = errno, rc;

  /* samples has room for iterations: they must be given with it */
  if (!fn || !r || iterations < 0 || (o && o->calls < 0) || (o && o->samples && !o->iterations)) {
    errno = EINVAL;
    return -1;
  }
  memset(r, 0, sizeof *r);
  if (speed) memset(speed, 0, sizeof *speed);
  if (cpucycles_bench_take(&hold, o && o->pin, c->flags, &r->flags) != 0) return -1;
  /* (bench.h, "What a call holds") */
  pthread_cleanup_push(cpucycles_bench_release_arg, &hold);
  if (c->place_nulls) c->place_nulls(fn, &hold.nulls);
  rc = measure(c, fn, arg, o, hold.scratch, &hold.nulls, &spread, r, speed);
  pthread_cleanup_pop(1);
  if (rc != 0) {
    errno = rc;
    return -1;
  }
  if (cpucycles_bench_below_resolution(r->median, r->min, r->precision))
    r->flags |= CPUCYCLES_BENCH_BELOW_RESOLUTION;
  per_call(r, r->calls);
  if ((r->flags & CPUCYCLES_BENCH_SUBTRACTED) &&
      cpucycles_bench_null_placement(r->median, spread, r->calls))
    r->flags |= CPUCYCLES_BENCH_NULL_PLACEMENT;
  errno = saved_errno;
  return 0;
}

/* The reference alone (cpucycles_bench_speed_now()): REFERENCE_ALONE runs
 * of it, each spanning the counter's steps many times over, undisturbed
 * ones kept; 0, or an errno value. */
#define REFERENCE_ALONE 64
int cpucycles_bench_speed_with(const struct cpucycles_bench_clock *c, struct cpucycles_bench_speed *speed)
{
  long long buf[REFERENCE_ALONE], null_buf[REFERENCE_ALONE], precision, calls, switch_cost;
  struct kept rk, rnk;
  struct tally t = {0, 0, 0};
  memset(speed, 0, sizeof *speed);
  if ((precision = cpucycles_bench_precision(c)) == 0) return ENOTSUP;
  switch_cost = cpucycles_bench_switch_cost(c);
  calls = cpucycles_bench_choose_calls(c, reference_function, 0, precision, 0);
  kept_init(&rk, buf, REFERENCE_ALONE);
  kept_init(&rnk, null_buf, REFERENCE_ALONE);
  /* each run with a null run of as many calls beside it (run()'s nk) */
  run(c, reference_function, 0, calls, REFERENCE_ALONE, 0, switch_cost, &rk, &rnk, 0, 0, 0, &t);
  if (rk.n == 0) return EAGAIN;
  reference_figure(&rk, &rnk, calls, precision, speed);
  return 0;
}
