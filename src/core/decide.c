/* SPDX-License-Identifier: MIT */
/* decide.c - see decide.h. */
#include "decide.h"
#include "text.h"
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* The recheck on first use may find a precision this much worse than the
 * build host's before the counter is distrusted: a shared, noisy machine
 * moves the smallest step a little, a broken or trapping counter moves it
 * tenfold and more.  The two figures come from different programs
 * (configure's probe is an executable, the library a shared object), so
 * the library finds the per-thread state of a counter without a call to
 * __tls_get_addr() on each read (tls.h): when it made one,
 * riscv64-perfrdcycle's step under qemu went from configure's 182 to 260
 * here, and in one CI run past this slack in 8 processes of 8. */
#define PRECISION_SLACK 3

/* How far cycles per tick may move before the build's scale is distrusted.
 * A rate the OS states gives the same scale on the build host every time;
 * a timed one (ppc mftb where /proc/cpuinfo has no "timebase", riscv64
 * rdtime without a device tree) is rounded to the same k/2^j unless its
 * timing lands near the edge of a rounding window; a changed CPU frequency
 * or counter rate moves it by far more, and then the library chooses at
 * run time. */
#define SCALE_SLACK 0.005

/* 1 when deciding about this counter needs the CPU frequency: a scaled
 * counter or an OS clock (its scale), or a counter with state (the perf
 * counters' per-thread fallback).  A bare TSC or cycle register does not:
 * its frequency is resolved later, on the first cpucycles_persecond(). */
CPUCYCLES_COLD static int needs_persecond(const struct cpucycles_counter *c)
{
  return c->release || (c->kind != CPUCYCLES_KIND_ONCORE && c->kind != CPUCYCLES_KIND_OFFCORE);
}

CPUCYCLES_COLD void cpucycles_decide_persecond(const struct cpucycles_plan *plan,
                                               const char *etc_path, const char *env_name,
                                               struct cpucycles_decision *d)
{
  if (d->persecond_resolved) return;
  d->persecond = cpucycles_persecond_resolve(etc_path, env_name ? getenv(env_name) : 0,
                                             d->host_matches ? plan->build_persecond : 0,
                                             &d->persecond_report);
  d->persecond_resolved = 1;
}

/* A smallest step that already passes the precision check below, at any
 * scale that passes the scale check (and a cycle to spare for rounding):
 * the recheck's reads may stop once they have shown it.  0 (read them
 * all) when the build recorded no precision. */
CPUCYCLES_COLD static long long settled_step(const struct cpucycles_counter *c,
                                             const struct cpucycles_plan *plan)
{
  double room = (double)(PRECISION_SLACK * plan->build_precision - cpucycles_kind_penalty(c->kind));
  long long step;
  if (plan->build_precision <= 0 || plan->build_scale <= 0) return 0;
  step = (long long)(room / (plan->build_scale * (1 + SCALE_SLACK))) - 1;
  return step > 0 ? step : 0;
}

/* Why the configure-time counter may not be used here, or 0 if it may. */
CPUCYCLES_COLD static const char *verify_build_counter(const struct cpucycles_counter *table, int n,
                                                       const struct cpucycles_plan *plan,
                                                       struct cpucycles_decision *d)
{
  const struct cpucycles_counter *c;
  struct cpucycles_result *r = &d->build_check;

  if (plan->build_counter < 0 || plan->build_counter >= n) return "no counter was chosen at build time";
  c = &table[plan->build_counter];
  if (!d->host_matches) return "this host differs from the build host";
  if (!cpucycles_measure_reads(c, d->persecond, CPUCYCLES_RECHECK_READS, settled_step(c, plan), r)) {
    cpucycles_text_format(d->why, sizeof d->why, "%s failed its check here: %s", c->name,
                          r->reason);
    return d->why;
  }
  if (r->scale > plan->build_scale * (1 + SCALE_SLACK) ||
      r->scale < plan->build_scale * (1 - SCALE_SLACK)) {
    cpucycles_text_format(d->why, sizeof d->why, "%s: cycles per tick is ", c->name);
    cpucycles_text_add_fixed(d->why, sizeof d->why, r->scale, 3);
    cpucycles_text_format(d->why, sizeof d->why, " here (persecond %lld), ", d->persecond);
    cpucycles_text_add_fixed(d->why, sizeof d->why, plan->build_scale, 3);
    cpucycles_text_add_str(d->why, sizeof d->why, " at build time");
    return d->why;
  }
  if (plan->build_precision > 0 && r->precision > PRECISION_SLACK * plan->build_precision) {
    cpucycles_text_format(d->why, sizeof d->why, "%s: precision %lld here, %lld at build time",
                          c->name, r->precision, plan->build_precision);
    return d->why;
  }
  return 0;
}

CPUCYCLES_COLD void cpucycles_decide(const struct cpucycles_counter *table, int n,
                                     const struct cpucycles_plan *plan, const char *etc_path,
                                     const char *env_name, struct cpucycles_decision *d)
{
  const char *refused;
  char reason[sizeof d->why - 32];
  struct cpucycles_cursor words;

  /* Not the results table: only a reselection fills it, and untouched it
   * costs the first call no page faults. */
  memset(d, 0, offsetof(struct cpucycles_decision, results));
  if (n > CPUCYCLES_MAX_COUNTERS) n = CPUCYCLES_MAX_COUNTERS;
  cpucycles_fingerprint(d->host_fingerprint, sizeof d->host_fingerprint);
  d->host_matches = cpucycles_same_text(d->host_fingerprint, plan->build_fingerprint);
  if (plan->build_counter < 0 || plan->build_counter >= n || !d->host_matches || needs_persecond(&table[plan->build_counter]))
    cpucycles_decide_persecond(plan, etc_path, env_name, d);

  refused = verify_build_counter(table, n, plan, d);
  if (!refused) {
    d->build_verified = 1;
    d->index = plan->build_counter;
    /* Exactly the scale <cpucycles.h> inlines, not the one measured now:
     * the first call (here) and the inline calls after it must agree to
     * the last cycle, and with tick counts near 2^62 (s390x) a difference
     * in the ninth digit would be a jump of a billion cycles. */
    d->scale = plan->build_scale;
    cpucycles_cursor_start(&words, d->why, sizeof d->why);
    cpucycles_cursor_put(&words, plan->build_inline ? "inline " : "");
    cpucycles_cursor_put(&words, table[d->index].name);
    cpucycles_cursor_put(&words, " verified on this host");
    cpucycles_cursor_put(&words, plan->build_inline ? "" : " (read through the library, not inlined)");
    return;
  }
  reason[0] = 0;
  cpucycles_text_add_str(reason, sizeof reason, refused);
  d->reselected = 1;
  memset(d->results, 0, sizeof d->results);
  cpucycles_decide_persecond(plan, etc_path, env_name, d);
  d->index = cpucycles_select(table, n, d->persecond, -1, d->results);
  d->scale = d->results[d->index].available ? d->results[d->index].scale : 1;
  d->why[0] = 0;
  cpucycles_text_format(d->why, sizeof d->why, "chosen at run time: %s", reason);
}
