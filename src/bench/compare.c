/* SPDX-License-Identifier: MIT */
/* compare.c - cpucycles_bench_compare()'s runs on a given clock (bench.h):
 * A and B interleaved in pairs, in a pseudo-random order, each run of the
 * same number of calls, pairs excluded when a run migrated or the thread
 * was switched out; the pairs go to the streaming statistics
 * (compare-stats.c).  bench-host.c gives it the real clock. */
#include "compare.h"
#include "util/rng.h"
#include <errno.h>
#include <pthread.h>
#include <string.h>

#define DEFAULT_SECONDS 0.25
#define UNTIMED_PAIRS 1000     /* when the rate of the counter is unknown */
#define MIN_PAIRS (4 * COMPARE_BLOCK) /* kept, when the time decides */
/* Disturbed pairs are made up for until MIN_PAIRS are kept, up to this
 * many run: a minimum counted in pairs run left a verdict on 2 blocks
 * (Student's t 63.7 at 99%) when a third was disturbed, as in an
 * emulated guest whose clock is a 1800-cycle HPET read. */
#define MIN_RUN_PAIRS (3 * MIN_PAIRS)
#define MAX_PAIRS 100000000LL
#define MIN_ASKED_PAIRS (2 * COMPARE_BLOCK) /* fewer can never give 2 blocks */
#define MAX_SECONDS 86400.0
#define WARM_UP_PAIRS 8
#define GROUP_MAX 64           /* pairs between two context-switch checks */
#define SWITCH_CHECK_SHARE 20  /* a group takes >= 20 times a switch check */

struct side {
  void (*fn)(void *);
  void *arg;
};

struct plan {
  const struct cpucycles_bench_clock *c;
  struct side a, b;
  long long calls, overhead, switch_cost;
  unsigned long long order; /* xorshift state: who runs first */
};

/* One timed run of p->calls calls; *moved is set when it migrated. */
static long long timed(const struct plan *p, const struct side *s, int *moved)
{
  unsigned long long cpu0, cpu1;
  long long t0, t1, j;
  t0 = p->c->start(&cpu0);
  for (j = 0; j < p->calls; j++) s->fn(s->arg);
  t1 = p->c->end(&cpu1);
  if (cpu0 != cpu1) *moved = 1;
  return t1 - t0 - p->overhead;
}

/* A group of up to GROUP_MAX pairs between two switch checks, added to
 * acc unless disturbed; returns the fastest pair's ticks (for the next
 * group's size). */
static long long run_group(struct plan *p, long long pairs, struct cpucycles_compare_acc *acc,
                       struct cpucycles_compare_result *r)
{
  long long a[GROUP_MAX], b[GROUP_MAX], ticks[2], before, after, i, fastest = -1;
  int moved[GROUP_MAX], b_first, j;
  const struct side *run[2];
  before = p->c->switches();
  for (i = 0; i < pairs; i++) {
    b_first = (int)(cpucycles_xorshift(&p->order) >> 63);
    r->b_first += b_first;
    moved[i] = 0;
    /* One call site for both: two sites would be two copies of the
     * bracket, at different alignments, and that alone measured A and A
     * as different (by 0.005%, with 10^5 pairs). */
    run[0] = b_first ? &p->b : &p->a;
    run[1] = b_first ? &p->a : &p->b;
    for (j = 0; j < 2; j++) ticks[j] = timed(p, run[j], &moved[i]);
    a[i] = ticks[b_first], b[i] = ticks[!b_first];
    if (fastest < 0 || a[i] + b[i] < fastest) fastest = a[i] + b[i];
  }
  after = p->c->switches();
  if (after != before) r->flags |= CPUCYCLES_BENCH_SWITCHED;
  for (i = 0; i < pairs; i++) {
    if (moved[i]) r->flags |= CPUCYCLES_BENCH_MIGRATED;
    if (moved[i] || after != before) r->disturbed++;
    else if (acc) cpucycles_compare_add(acc, a[i], b[i]);
  }
  return fastest + 2 * p->overhead;
}

/* The pairs: warm-ups, then groups until the count is run, or (wanted 0)
 * until the time is up and MIN_PAIRS were kept (MIN_RUN_PAIRS run). */
static void pairs(struct plan *p, long long wanted, long long budget,
                  struct cpucycles_compare_acc *acc, struct cpucycles_compare_result *r)
{
  long long done = 0, size = 1, fastest, n;
  unsigned long long cpu;
  long long start;
  run_group(p, WARM_UP_PAIRS, 0, r);
  r->b_first = 0, r->disturbed = 0, r->flags &= ~(CPUCYCLES_BENCH_SWITCHED | CPUCYCLES_BENCH_MIGRATED);
  start = p->c->start(&cpu);
  while (wanted ? done < wanted
                : (done - r->disturbed < MIN_PAIRS && done < MIN_RUN_PAIRS) ||
                      (done < MAX_PAIRS && p->c->end(&cpu) - start < budget)) {
    n = wanted && wanted - done < size ? wanted - done : size;
    fastest = run_group(p, n, acc, r);
    done += n;
    size = GROUP_MAX;
    if (p->switch_cost >= 0 && fastest > 0 &&
        SWITCH_CHECK_SHARE * p->switch_cost / fastest < GROUP_MAX)
      size = (SWITCH_CHECK_SHARE * p->switch_cost + fastest - 1) / fastest;
    if (size < 1) size = 1;
  }
}

/* cpucycles_bench_compare()'s work once its memory is held (and the
 * thread pinned): 0, or an errno value. */
static int measure(struct plan *p, long long wanted, long long budget,
                   const struct cpucycles_compare_options *o, long long *scratch,
                   struct cpucycles_compare_result *r)
{
  struct cpucycles_compare_acc acc;
  long long calls_b;

  r->precision = cpucycles_bench_precision(p->c);
  if (r->precision == 0) return ENOTSUP;
  p->switch_cost = cpucycles_bench_switch_cost(p->c);
  p->calls = o && o->calls ? o->calls : 0;
  if (!p->calls) { /* the same calls for both, enough for the faster one */
    p->overhead = cpucycles_bench_null_overhead(p->c, 1, p->switch_cost, scratch);
    if (p->overhead < 0) p->overhead = 0;
    p->calls = cpucycles_bench_choose_calls(p->c, p->a.fn, p->a.arg, r->precision, p->overhead);
    calls_b = cpucycles_bench_choose_calls(p->c, p->b.fn, p->b.arg, r->precision, p->overhead);
    if (calls_b > p->calls) p->calls = calls_b;
  }
  r->calls = p->calls;
  p->overhead = cpucycles_bench_null_overhead(p->c, p->calls, p->switch_cost, scratch);
  if (p->overhead < 0) p->overhead = 0;
  else r->flags |= CPUCYCLES_BENCH_SUBTRACTED;
  r->overhead = p->overhead;

  cpucycles_compare_start(&acc);
  pairs(p, wanted, budget, &acc, r);
  return cpucycles_compare_finish(&acc, p->calls, r->precision, r) ? EAGAIN : 0;
}

int cpucycles_bench_compare_with(const struct cpucycles_bench_clock *c, long long persecond,
                                 void (*a)(void *), void *arg_a, void (*b)(void *), void *arg_b,
                                 const struct cpucycles_compare_options *o,
                                 struct cpucycles_compare_result *r)
{
  struct plan p;
  struct cpucycles_bench_hold hold CPUCYCLES_BENCH_HELD = {0};
  double seconds = o && o->seconds > 0 ? o->seconds : DEFAULT_SECONDS;
  long long wanted = o ? o->pairs : 0, budget;
  int saved_errno = errno, rc;

  /* What can never succeed is refused, not answered with EAGAIN each time:
   * fewer pairs than 2 blocks; and a time that is not a number, or does
   * not fit in the counter's ticks (written so that NaN is refused too). */
  if (!a || !b || !r ||
      (o && (o->pairs < 0 || (o->pairs > 0 && o->pairs < MIN_ASKED_PAIRS) || o->pairs > MAX_PAIRS ||
             !(o->seconds >= 0 && o->seconds <= MAX_SECONDS) || o->calls < 0))) {
    errno = EINVAL;
    return -1;
  }
  budget = (long long)(seconds * (double)persecond);
  if (!wanted && persecond <= 0) wanted = UNTIMED_PAIRS;
  memset(r, 0, sizeof *r);
  if (cpucycles_bench_take(&hold, o && o->pin, c->flags, &r->flags) != 0) return -1;
  p.c = c, p.a.fn = a, p.a.arg = arg_a, p.b.fn = b, p.b.arg = arg_b;
  p.order = 0x9e3779b97f4a7c15ULL;
  /* (bench.h, "What a call holds") */
  pthread_cleanup_push(cpucycles_bench_release_arg, &hold);
  rc = measure(&p, wanted, budget, o, hold.scratch, r);
  pthread_cleanup_pop(1);
  errno = rc ? rc : saved_errno;
  return rc ? -1 : 0;
}
