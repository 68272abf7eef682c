/* measure.c - see select.h.  Included whole by the configure probes, so it
 * depends on nothing but the counter files, guard.c and libc. */
#include "select.h"
#include "guard.h"
/* The counters' own rate timing (setup-time code, hence the define). */
#ifndef CPUCYCLES_COUNTER_SETUP
#define CPUCYCLES_COUNTER_SETUP 1
#endif
#include "cpucycles/tickrate.h"
#include <stddef.h>

#define READS_PER_TRY 1000
#define TRIES 10

long long cpucycles_kind_penalty(int kind)
{
  switch (kind) {
  case CPUCYCLES_KIND_ONCORE: return 0;
  case CPUCYCLES_KIND_OSCLOCK: return 200;
  default: return 100; /* off-core, scaled, syscall */
  }
}

const char *cpucycles_kind_name(int kind)
{
  switch (kind) {
  case CPUCYCLES_KIND_ONCORE: return "on-core";
  case CPUCYCLES_KIND_OFFCORE: return "off-core";
  case CPUCYCLES_KIND_SCALED: return "off-core scaled";
  case CPUCYCLES_KIND_SYSCALL: return "system call";
  case CPUCYCLES_KIND_OSCLOCK: return "OS clock";
  default: return "none";
  }
}

int cpucycles_kind_scaled(int kind)
{
  return kind == CPUCYCLES_KIND_SCALED || kind == CPUCYCLES_KIND_OSCLOCK;
}

double cpucycles_scale_for(int kind, double nominal_hz, long long persecond)
{
  double ratio;
  int den;
  if (!cpucycles_kind_scaled(kind)) return 1;
  if (nominal_hz <= 0) return 0;
  ratio = (double)persecond / nominal_hz;
  /* OS clocks have a fixed resolution and are always kept. */
  if (kind == CPUCYCLES_KIND_OSCLOCK) return ratio;
  /* An off-core clock is kept only when the CPU frequency is within 1% of
   * a multiple of its rate over a power-of-two denominator (seeds/000):
   * otherwise the frequency estimate is not trusted to turn its ticks into
   * cycles.  The denominator goes up to 256 because real machines need it:
   * an IBM z15 runs at 5.2 GHz = 325/256 of its 4.096 GHz TOD clock.  So in
   * practice this throws away clocks much faster than the CPU (ratio below
   * about 0.2).  The scale itself is the exact ratio: rounding it to the
   * multiple would add up to 1% of error to every count. */
  for (den = 1; den <= 256; den *= 2) {
    double multiple = (double)cpucycles_round(ratio * den), off = ratio * den - multiple;
    if (multiple >= 1 && off <= 0.01 * multiple && -off <= 0.01 * multiple) return ratio;
  }
  return 0;
}

struct reads {
  const struct cpucycles_counter *c;
  long long smallest_step; /* smallest nonzero difference, or 0 */
  int decreased;
};

/* READS_PER_TRY back-to-back reads: smallest nonzero step, any decrease. */
static void read_many(void *arg)
{
  struct reads *w = arg;
  long long prev = w->c->read(), now, step;
  int i;
  w->smallest_step = 0;
  w->decreased = 0;
  for (i = 1; i < READS_PER_TRY; i++) {
    now = w->c->read();
    step = now - prev;
    if (step < 0) w->decreased = 1;
    else if (step > 0 && (w->smallest_step == 0 || step < w->smallest_step))
      w->smallest_step = step;
    prev = now;
  }
}

int cpucycles_measure_precision(const struct cpucycles_counter *c, double scale,
                                struct cpucycles_result *r)
{
  struct reads w;
  int try, signo;
  w.c = c;
  for (try = 0; try < TRIES; try++) {
    signo = cpucycles_guarded_call(read_many, &w);
    if (signo) {
      r->available = 0;
      r->reason = cpucycles_fault_reason(signo);
      return 0;
    }
    if (!w.decreased && w.smallest_step > 0) break;
  }
  if (try == TRIES) {
    r->available = 0;
    r->reason = w.decreased ? "went backwards in every try" : "never increased";
    return 0;
  }
  r->available = 1;
  r->reason = 0;
  r->precision = cpucycles_round((double)w.smallest_step * scale) +
                 cpucycles_kind_penalty(c->kind);
  return 1;
}

struct timing {
  const struct cpucycles_counter *c;
  double hz;
};

/* Ticks per second against CLOCK_MONOTONIC (tickrate.h, 10 ms). */
static void time_counter(void *arg)
{
  struct timing *t = arg;
  t->hz = cpucycles_tickrate_measure(t->c->read);
}

struct setup_call {
  const struct cpucycles_counter *c;
  struct cpucycles_setup s;
  int status;
};

static void call_setup(void *arg)
{
  struct setup_call *sc = arg;
  sc->status = sc->c->setup(&sc->s);
}

int cpucycles_measure(const struct cpucycles_counter *c, long long persecond,
                      int measure_hz, struct cpucycles_result *r)
{
  struct setup_call sc;
  struct timing t;
  int signo;

  r->available = 0;
  r->reason = 0;
  r->precision = 0;
  r->scale = 0;
  r->nominal_hz = 0;
  r->measured_hz = 0;
  if (c->kind == CPUCYCLES_KIND_NONE) {
    r->reason = "never increases (last resort)";
    return 0;
  }

  sc.c = c;
  sc.s.persecond = persecond;
  sc.s.reason = 0;
  sc.s.nominal_hz = 0;
  sc.status = -1;
  signo = cpucycles_guarded_call(call_setup, &sc);
  r->nominal_hz = sc.s.nominal_hz;
  if (signo) {
    r->reason = cpucycles_fault_reason(signo);
    return 0;
  }
  if (sc.status != 0) {
    r->reason = sc.s.reason ? sc.s.reason : "setup failed";
    return 0;
  }

  r->scale = cpucycles_scale_for(c->kind, r->nominal_hz, persecond);
  if (r->scale <= 0) {
    r->reason = "CPU frequency is not near a multiple of the counter's rate";
    return 0;
  }
  if (!cpucycles_measure_precision(c, r->scale, r)) return 0;

  if (measure_hz) {
    t.c = c;
    t.hz = 0;
    signo = cpucycles_guarded_call(time_counter, &t);
    if (signo) {
      r->available = 0;
      r->reason = cpucycles_fault_reason(signo);
      return 0;
    }
    r->measured_hz = t.hz;
  }
  return 1;
}

int cpucycles_choose(const struct cpucycles_result *results, int n)
{
  int i, best = n - 1;
  for (i = 0; i < n - 1; i++) {
    if (!results[i].available) continue;
    if (!results[best].available || results[i].precision < results[best].precision)
      best = i;
  }
  return best;
}

int cpucycles_select(const struct cpucycles_counter *table, int n, long long persecond,
                     struct cpucycles_result *results)
{
  int i;
  for (i = 0; i < n; i++) cpucycles_measure(&table[i], persecond, 0, &results[i]);
  return cpucycles_choose(results, n);
}
