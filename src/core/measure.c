/* SPDX-License-Identifier: MIT */
/* measure.c - see measure.h.  Included whole by the configure probes, so it
 * depends on nothing but the counter files, guard.c and libc. */
#include "measure.h"
#include "guard.h"
#include "counter-setup.h"
#include "tickrate.h"
#define CPUCYCLES_SELECTION_MEMO_STORAGE 1 /* the selection's memo lives here */
#include "memo.h"
#include <stddef.h>
#include <string.h>
#if defined(__linux__)
#include <sys/prctl.h>
#endif

/* Which set of numbers the rule uses (configure's --with-selection-rule):
 * the probes are compiled with configure's -DCPUCYCLES_SELECTION_RULE, the
 * library and the tests take it from cpucycles-config.h, so configure's
 * choice and the run-time one use the same numbers. */
#if !defined(CPUCYCLES_SELECTION_RULE)
#include "cpucycles-config.h"
#endif
#if CPUCYCLES_SELECTION_RULE != CPUCYCLES_RULE_SEED && CPUCYCLES_SELECTION_RULE != CPUCYCLES_RULE_20260901
#error "CPUCYCLES_SELECTION_RULE is neither CPUCYCLES_RULE_SEED nor CPUCYCLES_RULE_20260901"
#endif

/* The rule, one row per kind (measure.h), with a penalty for each set of
 * numbers.  Seeds/000 (libcpucycles up to 20260105): an on-core counter
 * counts the core's cycles and pays nothing; an off-core one (the TSC, a
 * timer) counts time and pays 100, as does a count read through a system
 * call; an OS clock pays 200.  libcpucycles 20260901 (its tracesetup on
 * this machine: amd64-tsc 1001, amd64-tscasm 1011, default-monotonic 1071,
 * default-gettimeofday 3626, against steps of 1, 1, 51 and 2596): 1000 for
 * off-core counters and OS clocks, and 300 for one kind, which those
 * figures do not show: we give it to the system call (default-perfevent),
 * which counts the core's cycles but pays a system call for each read;
 * plus 10 per working counter before it in the list (cpucycles_choose).
 * Off-core timers at their own rate and OS clocks are scaled to cycles by
 * the frequency estimate. */
static const struct cpucycles_kind_rule { /* (small fields: 24 bytes a row, not 40) */
  const char *name;
  int penalty[2]; /* seeds/000's, 20260901's */
  signed char kind;
  signed char scaled;
  signed char counts; /* enum cpucycles_counts */
} cpucycles_kind_rules[] = {
    {"on-core", {0, 0}, CPUCYCLES_KIND_ONCORE, 0, CPUCYCLES_COUNTS_CORE_CYCLES},
    {"off-core", {100, 1000}, CPUCYCLES_KIND_OFFCORE, 0, CPUCYCLES_COUNTS_CONSTANT_RATE},
    {"off-core scaled", {100, 1000}, CPUCYCLES_KIND_SCALED, 1, CPUCYCLES_COUNTS_CONSTANT_RATE},
    {"system call", {100, 300}, CPUCYCLES_KIND_SYSCALL, 0, CPUCYCLES_COUNTS_CORE_CYCLES},
    {"OS clock", {200, 1000}, CPUCYCLES_KIND_OSCLOCK, 1, CPUCYCLES_COUNTS_OS_CLOCK},
    {"none", {0, 0}, CPUCYCLES_KIND_NONE, 0, CPUCYCLES_COUNTS_NOTHING}};

/* 20260901's term for a counter's place in the list: this much per working
 * counter before it (seeds/000 has none). */
#define CPUCYCLES_RULE_POSITION_PENALTY 10 /* (a constant, not a table: 16 bytes of read-only data) */

/* Not inlined: each accessor below is then a call and a load. */
__attribute__((__noinline__)) static const struct cpucycles_kind_rule *cpucycles_rule(int kind)
{
  size_t i, n = sizeof cpucycles_kind_rules / sizeof cpucycles_kind_rules[0];
  for (i = 0; i + 1 < n; i++)
    if (cpucycles_kind_rules[i].kind == kind) break;
  return &cpucycles_kind_rules[i]; /* an unknown kind is "none" */
}

long long cpucycles_rule_kind_penalty(int rule, int kind)
{
  return cpucycles_rule(kind)->penalty[rule == CPUCYCLES_RULE_20260901];
}
long long cpucycles_kind_penalty(int kind)
{
  return cpucycles_rule_kind_penalty(CPUCYCLES_SELECTION_RULE, kind);
}
const char *cpucycles_kind_name(int kind) { return cpucycles_rule(kind)->name; }
int cpucycles_kind_scaled(int kind) { return cpucycles_rule(kind)->scaled; }
int cpucycles_kind_counts(int kind) { return cpucycles_rule(kind)->counts; }

int cpucycles_kind_counts_time(int kind)
{
  int counts = cpucycles_kind_counts(kind);
  return counts == CPUCYCLES_COUNTS_CONSTANT_RATE || counts == CPUCYCLES_COUNTS_OS_CLOCK;
}

int cpucycles_kind_is_cycle_counter(int kind)
{
  int counts = cpucycles_kind_counts(kind);
  return counts == CPUCYCLES_COUNTS_CORE_CYCLES || counts == CPUCYCLES_COUNTS_CONSTANT_RATE;
}

/* Seeds/000's test of a multiplier found by timing, libcpucycles' way: the smallest
 * denominator d = 1, 2, 4, ..., 1024 at which every one of the n estimates
 * of cycles per tick, times d, is within 0.2 of the same whole number
 * k >= 1 (the CPU frequency is k/d times the counter's rate); 0 when there
 * is none. */
CPUCYCLES_COLD static int cpucycles_steady_multiple(const double *cycles_per_tick, int n)
{
  int den, i;
  if (n < 1) return 0;
  for (den = 1; den <= 1024; den *= 2) {
    double k = (double)cpucycles_round(cycles_per_tick[0] * den);
    if (k < 1) continue;
    for (i = 0; i < n; i++) {
      double off = cycles_per_tick[i] * den - k;
      if (off > 0.2 || off < -0.2) break;
    }
    if (i == n) return den;
  }
  return 0;
}

/* How far a timing may be from the rate the OS states: timings are good to
 * about 10^-4, a wrong rate (a misprogrammed CNTFRQ_EL0) is off by far
 * more. */
#define CPUCYCLES_RATE_AGREEMENT 0.01

CPUCYCLES_COLD double cpucycles_scale_for(int kind, const struct cpucycles_setup *s,
                                          const double *timed_hz, int n)
{
  double estimates[1 + CPUCYCLES_RATE_TIMINGS], stated;
  int i, den;
  if (!cpucycles_kind_scaled(kind)) return 1;
  if (s->nominal_hz <= 0 || s->persecond <= 0) return 0;
  stated = (double)s->persecond / s->nominal_hz;
  /* OS clocks have a fixed resolution and are always kept. */
  if (kind == CPUCYCLES_KIND_OSCLOCK) return stated;
  if (n > CPUCYCLES_RATE_TIMINGS) n = CPUCYCLES_RATE_TIMINGS;
  for (i = 0; i < n; i++)
    if (timed_hz[i] <= 0) return 0; /* it stopped */
  if (!s->rate_timed) {
    /* A rate the OS states (CNTFRQ_EL0, the timebase, the TOD clock's
     * 4.096 GHz) is kept when every timing confirms it, and the scale is
     * the exact ratio.  It is not held to a power-of-two denominator, as
     * libcpucycles does not: an ARMv8.6 core at 2.6 GHz over its 1 GHz
     * generic timer is 13/5, and no power of two pins that. */
    for (i = 0; i < n; i++)
      if (timed_hz[i] > s->nominal_hz * (1 + CPUCYCLES_RATE_AGREEMENT) ||
          timed_hz[i] < s->nominal_hz * (1 - CPUCYCLES_RATE_AGREEMENT))
        return 0;
    return stated;
  }
  /* A rate found by timing (libcpucycles' search for the scale): the CPU
   * frequency must be a steady multiple k/d of it, d a power of two up to
   * 1024 (an IBM z15 runs at 325/256 of its TOD clock), on which the
   * setup's timing and every later one agree.  The scale is then k/d
   * exactly, which rounds the timings' error away; a rate that moves, or
   * that no k/d within the timings' error explains, is thrown away. */
  estimates[0] = stated;
  for (i = 0; i < n; i++) estimates[1 + i] = (double)s->persecond / timed_hz[i];
  den = cpucycles_steady_multiple(estimates, 1 + n);
  return den ? (double)cpucycles_round(stated * den) / den : 0;
}

/* A counter that did not move in any of its tries (a coarse clock read
 * too few times, or a stopped one). */
static const char cpucycles_reason_never_increased[] = "never increased";

/* Everything measured about one counter inside ONE guarded region (each
 * region costs a dozen signal system calls): its setup, its scale, and up
 * to CPUCYCLES_TRIES rounds of `reads` back-to-back reads. */
struct cpucycles_trial {
  const struct cpucycles_counter *c;
  long long persecond;
  int reads;
  long long enough_step;     /* > 0: stop reading at such a step (a recheck) */
  struct cpucycles_setup s;
  int setup_status;          /* 0 ok; -1 failed (s.reason) */
  int time_rate;             /* 1: time a scaled counter's rate to check it */
  double timed_hz[CPUCYCLES_RATE_TIMINGS];
  double scale;              /* cycles per tick, 0 when not kept */
  long long smallest_step;   /* smallest nonzero difference, or 0 */
  int decreased, tries;
};

/* `reads` back-to-back reads: smallest nonzero step, any decrease. */
static void cpucycles_read_many(struct cpucycles_trial *t)
{
  long long prev = t->c->read(), now, step;
  int i;
  t->smallest_step = 0;
  t->decreased = 0;
  for (i = 1; i < t->reads; i++) {
    now = t->c->read();
    step = now - prev;
    if (step < 0) t->decreased = 1;
    else if (step > 0 && (t->smallest_step == 0 || step < t->smallest_step))
      t->smallest_step = step;
    prev = now;
    if (t->smallest_step > 0 && t->smallest_step <= t->enough_step && !t->decreased &&
        i + 1 >= CPUCYCLES_RECHECK_MIN_READS)
      break;
  }
}

CPUCYCLES_COLD static void cpucycles_run_trial(void *arg)
{
  struct cpucycles_trial *t = arg;
  if (t->c->setup) {
    int timings = 0;
    t->setup_status = t->c->setup(&t->s);
    if (t->setup_status != 0) return;
    if (t->time_rate && t->c->kind == CPUCYCLES_KIND_SCALED)
      for (; timings < CPUCYCLES_RATE_TIMINGS; timings++)
        t->timed_hz[timings] = cpucycles_tickrate_measure_over(t->c->read, CPUCYCLES_RATE_TIMING_NS);
    t->scale = cpucycles_scale_for(t->c->kind, &t->s, t->timed_hz, timings);
    if (t->scale <= 0) return;
  }
  for (t->tries = 0; t->tries < CPUCYCLES_TRIES; t->tries++) {
    cpucycles_read_many(t);
    if (!t->decreased && t->smallest_step > 0) return;
  }
}

/* 1 when c's reads cannot fault here, so that it may be measured where
 * the guard cannot be set up (a sandbox that denies rt_sigaction or
 * rt_sigprocmask): only the OS clocks, and on x86 only while the TSC is
 * allowed (the vDSO's clocks read it).  Everything else is not tried. */
CPUCYCLES_COLD static int cpucycles_safe_unguarded(const struct cpucycles_counter *c)
{
  if (c->kind != CPUCYCLES_KIND_OSCLOCK) return 0;
#if defined(__linux__) && (defined(__x86_64__) || defined(__i386__)) && defined(PR_GET_TSC)
  {
    int tsc = 0;
    if (prctl(PR_GET_TSC, &tsc, 0, 0, 0) != 0 || tsc != PR_TSC_ENABLE) return 0;
  }
#endif
  return 1;
}

/* cpucycles_guarded_call(c->faults, fn, arg), or fn(arg) unguarded for a counter
 * that cannot fault where the guard is unavailable. */
CPUCYCLES_COLD static int cpucycles_call_for(const struct cpucycles_counter *c, void (*fn)(void *),
                                             void *arg)
{
  int signo = cpucycles_guarded_call(c->faults | CPUCYCLES_GUARD_TRUST_NOTE, fn, arg);
  if (signo != CPUCYCLES_GUARD_UNAVAILABLE || !cpucycles_safe_unguarded(c)) return signo;
  fn(arg);
  return 0;
}

/* Runs the trial under the guard and turns it into r (a trial without
 * setup takes the counter as set up, with the trial's scale). */
CPUCYCLES_COLD static int cpucycles_measure_in_guard(struct cpucycles_trial *t,
                                                     struct cpucycles_result *r)
{
  int signo = cpucycles_call_for(t->c, cpucycles_run_trial, t);
  r->nominal_hz = t->s.nominal_hz;
  r->scale = t->scale;
  r->available = 0;
  if (signo) {
    r->reason = cpucycles_fault_reason(signo);
    return 0;
  }
  if (t->setup_status != 0) {
    r->reason = t->s.reason ? t->s.reason : "setup failed";
    return 0;
  }
  if (t->scale <= 0) {
    r->reason = t->s.nominal_hz <= 0 || t->persecond <= 0
                    ? "CPU frequency or counter rate unknown"
                : t->s.rate_timed
                    ? "its timed rate is no steady k/2^j (j <= 10) of the CPU frequency"
                    : "its timed rate is not the rate it states (1% apart, or it stopped)";
    return 0;
  }
  if (t->tries == CPUCYCLES_TRIES) {
    r->reason = t->decreased ? "went backwards in every try" : cpucycles_reason_never_increased;
    return 0;
  }
  r->available = 1;
  r->reason = 0;
  r->precision = cpucycles_round((double)t->smallest_step * t->scale) +
                 cpucycles_kind_penalty(t->c->kind);
  return 1;
}

CPUCYCLES_COLD static void cpucycles_trial_init(struct cpucycles_trial *t,
                                                const struct cpucycles_counter *c,
                                                long long persecond, int reads, int time_rate)
{
  memset(t, 0, sizeof *t); /* no reason, rate, timings, scale or steps yet */
  t->c = c;
  t->persecond = persecond;
  t->reads = reads;
  t->s.persecond = persecond;
  t->setup_status = -1;
  t->time_rate = time_rate;
}


struct cpucycles_timing {
  const struct cpucycles_counter *c;
  double hz;
};

/* Ticks per second against CLOCK_MONOTONIC (tickrate.h, 10 ms). */
CPUCYCLES_COLD static void cpucycles_time_counter(void *arg)
{
  struct cpucycles_timing *tm = arg;
  tm->hz = cpucycles_tickrate_measure(tm->c->read);
}

CPUCYCLES_COLD static int cpucycles_measure_with(const struct cpucycles_counter *c,
                                                 long long persecond, int reads,
                                                 long long enough_step, int time_rate,
                                                 struct cpucycles_result *r)
{
  struct cpucycles_trial t;

  memset(r, 0, sizeof *r); /* not available, no reason, no figures */
  if (c->kind == CPUCYCLES_KIND_NONE) {
    r->reason = "never increases (last resort)";
    return 0;
  }
  cpucycles_trial_init(&t, c, persecond, reads, time_rate);
  t.enough_step = enough_step;
  return cpucycles_measure_in_guard(&t, r);
}

/* The recheck: configure timed the rate and chose this scale already. */
CPUCYCLES_COLD int cpucycles_measure_reads(const struct cpucycles_counter *c, long long persecond,
                                           int reads, long long enough_step,
                                           struct cpucycles_result *r)
{
  return cpucycles_measure_with(c, persecond, reads, enough_step, 0, r);
}

CPUCYCLES_COLD int cpucycles_measure(const struct cpucycles_counter *c, long long persecond,
                                     struct cpucycles_result *r)
{
  return cpucycles_measure_with(c, persecond, CPUCYCLES_READS_PER_TRY, 0, 1, r);
}

CPUCYCLES_COLD int cpucycles_measure_rate(const struct cpucycles_counter *c,
                                          struct cpucycles_result *r)
{
  struct cpucycles_timing tm;
  int signo;
  tm.c = c;
  tm.hz = 0;
  signo = cpucycles_call_for(c, cpucycles_time_counter, &tm);
  if (signo) {
    r->available = 0;
    r->reason = cpucycles_fault_reason(signo);
    return 0;
  }
  r->measured_hz = tm.hz;
  return r->available;
}

CPUCYCLES_COLD long long cpucycles_rule_score(int rule, const struct cpucycles_result *results,
                                              int i)
{
  long long score = results[i].precision;
  int j;
  for (j = 0; j < i; j++)
    if (results[j].available && rule == CPUCYCLES_RULE_20260901) score += CPUCYCLES_RULE_POSITION_PENALTY;
  return score;
}

CPUCYCLES_COLD int cpucycles_rule_choose(int rule, const struct cpucycles_result *results, int n)
{
  int i, best = n - 1;
  long long best_score = 0, score;
  for (i = 0; i < n - 1; i++) {
    if (!results[i].available) continue;
    score = cpucycles_rule_score(rule, results, i);
    if (!results[best].available || score < best_score) best = i, best_score = score;
  }
  return best;
}

CPUCYCLES_COLD int cpucycles_choose(const struct cpucycles_result *results, int n)
{
  return cpucycles_rule_choose(CPUCYCLES_SELECTION_RULE, results, n);
}

const char cpucycles_reason_not_measured[] = "not measured: an earlier counter's score cannot be beaten";

/* The smallest score a counter of this kind can measure: its penalty, and
 * a step of at least one tick, which is at least one cycle unless the kind
 * is scaled (its scale, cycles per tick, is known only once it is set up). */
CPUCYCLES_COLD static long long cpucycles_least_score(int kind)
{
  return cpucycles_kind_penalty(kind) + (cpucycles_kind_scaled(kind) ? 0 : 1);
}

/* Measures table[i] into results[i], alone (what it set up is given back
 * unless it is the counter in use). */
CPUCYCLES_COLD static void cpucycles_select_measure(const struct cpucycles_counter *table, int i,
                                                    long long persecond, int in_use,
                                                    struct cpucycles_result *results)
{
  cpucycles_measure(&table[i], persecond, &results[i]);
  /* Each counter is measured alone, as configure's probes (one process
   * each) and libcpucycles measure them: what one counter set up can
   * make another work for a while.  On arm64 the kernel lets EL0 read
   * PMCCNTR_EL0 only while a perf event with user access is open in the
   * thread, so arm64-pmc measured beside arm64-perfpmc's event looks
   * best, then reads 0, or dies of SIGILL after the next context
   * switch, once that event is released. */
  if (table[i].release && i != in_use) table[i].release(0);
}

CPUCYCLES_COLD int cpucycles_select(const struct cpucycles_counter *table, int n,
                                    long long persecond, int in_use,
                                    struct cpucycles_result *results)
{
  struct cpucycles_result again;
  int i, best, os_clock = -1;
  long long best_score = -1;
#if defined(__linux__)
  memset(&cpucycles_selection_memo, 0, sizeof cpucycles_selection_memo);
  cpucycles_selection_memo.active = 1;
#endif
  for (i = 0; i < n; i++) {
    memset(&results[i], 0, sizeof results[i]);
    /* The OS clocks come last and are listed best first (the vDSO's
     * CLOCK_MONOTONIC, the same clock through its system call, then
     * gettimeofday): once one works, a later one is a fallback that
     * cannot win but a tie, and measuring the system call's 1000 reads
     * would cost most of the selection's time. */
    if (table[i].kind == CPUCYCLES_KIND_OSCLOCK && os_clock >= 0) {
      results[i].reason = cpucycles_reason_not_measured;
      continue;
    }
    /* A counter whose penalty alone (and a step of one) reaches the best
     * score measured before it can only lose, or tie with an earlier one,
     * which wins ties: the TSC's 101 here leaves default-perfevent (100 +
     * at least 1) and the OS clocks (200 and more) unmeasured, 60 us of a
     * selection's 200.  Seeds/000's numbers only: under 20260901's, each
     * working counter adds 10 to the score of every counter after it, so
     * one left unmeasured would leave the later ones' scores unknown. */
    if (CPUCYCLES_SELECTION_RULE == CPUCYCLES_RULE_SEED && best_score >= 0 &&
        table[i].kind != CPUCYCLES_KIND_NONE && cpucycles_least_score(table[i].kind) >= best_score) {
      results[i].reason = cpucycles_reason_not_measured;
      continue;
    }
    cpucycles_select_measure(table, i, persecond, in_use, results);
    if (table[i].kind == CPUCYCLES_KIND_OSCLOCK && results[i].available) os_clock = i;
    if (results[i].available && (best_score < 0 || results[i].precision < best_score))
      best_score = results[i].precision;
  }
  /* The chosen counter is set up again, alone, and must still count (a
   * recheck's reads: its rate and step are known; a coarse clock that did
   * not move in them gets a measurement's, as many as it moved in
   * before).  When it does not, the counters left unmeasured (their
   * reason says so) are measured after all, and the choice made again. */
  for (;;) {
    best = cpucycles_choose(results, n);
    if (!results[best].available || table[best].kind == CPUCYCLES_KIND_NONE) break;
    if (cpucycles_measure_reads(&table[best], persecond, CPUCYCLES_RECHECK_READS, 0, &again)) break;
    if (again.reason == cpucycles_reason_never_increased &&
        cpucycles_measure_reads(&table[best], persecond, CPUCYCLES_READS_PER_TRY, 0, &again))
      break;
    if (table[best].release && best != in_use) table[best].release(0);
    results[best].available = 0;
    results[best].reason = "worked only beside another counter: failed when set up alone";
    for (i = 0; i < n; i++)
      if (results[i].reason == cpucycles_reason_not_measured)
        cpucycles_select_measure(table, i, persecond, in_use, results);
  }
#if defined(__linux__)
  memset(&cpucycles_selection_memo, 0, sizeof cpucycles_selection_memo);
#endif
  return best;
}
