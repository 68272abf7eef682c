/* SPDX-License-Identifier: MIT */
/* measure.h - measuring counters and choosing one: the rules of
 * libcpucycles' selection, in the one piece of C that configure's probes
 * and the library's run-time fallback both use. */
#ifndef CPUCYCLES_MEASURE_H
#define CPUCYCLES_MEASURE_H
#include "cpucycles/counter.h"
#include "hidden.h"
CPUCYCLES_HIDDEN_BEGIN

/* The most counters a table may hold: the size of every array of results
 * (the decision's, configure's choice in probes/choose.c, the tests').
 * table.c fails to compile when the list of counters outgrows it. */
#define CPUCYCLES_MAX_COUNTERS 32

struct cpucycles_counter {
  const char *name;                          /* "amd64-tsc" */
  int kind;                                  /* enum cpucycles_kind */
  unsigned int faults;                       /* CPUCYCLES_FAULT_*, 0: all */
  int (*setup)(struct cpucycles_setup *);
  long long (*read)(void);
  /* Gives back setup's descriptors and mappings (0: it takes none);
   * zero_page: other threads may still read, leave them a page of zeros. */
  void (*release)(int zero_page);
};

struct cpucycles_result {
  int available;         /* 1 when the counter may be used */
  const char *reason;    /* why not, when it may not */
  long long precision;   /* cycles: smallest step times scale, plus penalty */
  double scale;          /* cycles per tick: 1 for unscaled kinds */
  double nominal_hz;     /* the rate a scaled counter claims, else 0 */
  double measured_hz;    /* ticks per second against CLOCK_MONOTONIC, or 0 */
};

/* x rounded to the nearest integer, for x >= 0 (no libm needed). */
static inline long long cpucycles_round(double x) { return (long long)(x + 0.5); }

/* The rule of each kind (libcpucycles' selection rule), in one table
 * in measure.c that every consumer asks: the probes, the selection, the
 * unit, the harness's frequency flags, cpucycles-info (tests/t-rule.c pins
 * it, and doc/counters.md's table against it). */
/* What a kind's counts are; the values are cpucycles.h's CPUCYCLES_UNIT_*
 * (cpucycles.c checks they agree). */
enum cpucycles_counts {
  CPUCYCLES_COUNTS_NOTHING = 0,
  CPUCYCLES_COUNTS_CORE_CYCLES = 1,
  CPUCYCLES_COUNTS_CONSTANT_RATE = 2,
  CPUCYCLES_COUNTS_OS_CLOCK = 3
};
/* The selection rule's two sets of numbers (configure's
 * --with-selection-rule, cpucycles-config.h's CPUCYCLES_SELECTION_RULE):
 * seeds/000's, which libcpucycles used up to 20260105, and 20260901's. */
#define CPUCYCLES_RULE_SEED 20260105
#define CPUCYCLES_RULE_20260901 20260901
/* Penalty in cycles added to a kind's measured precision, under the
 * build's numbers, or under `rule`'s. */
long long cpucycles_kind_penalty(int kind);
long long cpucycles_rule_kind_penalty(int rule, int kind);
/* "on-core", "off-core", ... for people. */
const char *cpucycles_kind_name(int kind);
/* 1 when a counter of this kind ticks at its own rate and is scaled to
 * cycles by the CPU frequency estimate (cpucycles_scale_for), else 0. */
int cpucycles_kind_scaled(int kind);
/* enum cpucycles_counts: what its counts are. */
int cpucycles_kind_counts(int kind);
/* 1 when its counts are time (a constant rate, an OS clock), so that a
 * cycle count in them is only as steady as the CPU's frequency. */
int cpucycles_kind_counts_time(int kind);
/* 1 for a cycle counter (on-core, off-core, scaled, system call), 0 for an
 * OS clock or nothing. */
int cpucycles_kind_is_cycle_counter(int kind);

/* Sets up and measures one counter, all under the fault guard.  persecond
 * is the CPU frequency estimate used to scale scaled kinds, whose rate is
 * timed CPUCYCLES_RATE_TIMINGS times to check the scale.  Returns
 * r->available (r->measured_hz stays 0). */
int cpucycles_measure(const struct cpucycles_counter *c, long long persecond,
                      struct cpucycles_result *r);

/* cpucycles_measure with `reads` reads per try instead of libcpucycles'
 * 1000, and without timing the rate: the first call's recheck of a
 * counter configure measured.  With enough_step > 0, a try ends once
 * CPUCYCLES_RECHECK_MIN_READS reads have shown a step of at most
 * enough_step and no decrease: more reads could only find a smaller step,
 * so its precision passes.  They could find a decrease: a counter that
 * goes backwards now and then (one read in 10, say), which every try of
 * 100 reads would catch, may pass 16.  That is configure's check, of this
 * host's counter (10 tries of 1000 reads); the first call's looks for
 * what changes between hosts and runs: a fault, a trap, a stop, a coarser
 * step, and a counter that goes backwards within 16 reads. */
int cpucycles_measure_reads(const struct cpucycles_counter *c, long long persecond, int reads,
                            long long enough_step, struct cpucycles_result *r);

/* Reads of a recheck: the first call's of the counter configure chose
 * (16 of them once its step passes, above), and the selection's of the
 * counter it chose, set up again alone.  libcpucycles takes 1000 to
 * measure a counter it knows nothing of; a recheck only has to see the
 * counter work, increase, never decrease and keep its smallest step: 100
 * reads show the same smallest step as 1000 on every counter tried, at a
 * tenth of the cost (a few microseconds).  A coarse clock that does not
 * move in 100 is tried again, as in a measurement, up to 10 times. */
#define CPUCYCLES_RECHECK_READS 100
/* A measurement's tries of 1000 reads (libcpucycles'), a recheck's of its
 * reads: a counter is refused when every try went backwards or none moved. */
#define CPUCYCLES_READS_PER_TRY 1000
#define CPUCYCLES_TRIES 10
/* A recheck's fewest reads, when their smallest step already passes: a
 * counter that traps or is emulated shows its large step in every read,
 * a stopped one in any two. */
#define CPUCYCLES_RECHECK_MIN_READS 16

/* After cpucycles_measure, for configure's probes and the tests (the
 * library never asks, so the shared library leaves it out): times the
 * counter, as it is set up, against CLOCK_MONOTONIC over 10 ms, under the
 * guard, into r->measured_hz.  Returns r->available (0, with the fault as
 * r->reason, when the timing faulted). */
int cpucycles_measure_rate(const struct cpucycles_counter *c, struct cpucycles_result *r);

/* How many times a scaled counter's rate is timed for its check, and over
 * how long each (configure's probes and a run-time selection; the first
 * call's recheck of configure's choice does not time it). */
#define CPUCYCLES_RATE_TIMINGS 3
#define CPUCYCLES_RATE_TIMING_NS 5000000LL

/* Cycles per tick for a counter of this kind set up as s says (its
 * persecond, nominal_hz and rate_timed), or 0 when it is thrown away.
 * Unscaled kinds: 1.  OS clocks: persecond / nominal_hz, always kept.
 * Scaled kinds are checked against timed_hz, their rate timed n times
 * (ticks per second; n = 0 on the first call's recheck): a rate the OS
 * states must be confirmed, a rate found by timing must be a steady
 * multiple k/2^j.  See measure.c. */
double cpucycles_scale_for(int kind, const struct cpucycles_setup *s, const double *timed_hz,
                           int n);

/* Index of the counter to use among n measured ones: the available one of
 * smallest precision, the earlier one on a tie; the last entry (which is
 * default-zero) when none is available.  The one rule that configure's
 * choice (probes/choose.c) and the run-time choice share. */
int cpucycles_choose(const struct cpucycles_result *results, int n);
/* The same under `rule`'s numbers (20260901's adds, to each available
 * counter's precision, 10 per available counter before it), and the score
 * it compares: cpucycles_choose is cpucycles_rule_choose with the build's. */
int cpucycles_rule_choose(int rule, const struct cpucycles_result *results, int n);
long long cpucycles_rule_score(int rule, const struct cpucycles_result *results, int i);

/* Measures every counter of the table, each alone (what it set up is
 * released before the next is measured), and returns the index of the
 * chosen one, set up again alone and rechecked (default-zero, the last
 * entry, when nothing else works).  in_use is the index of a counter the
 * process is counting with, never released (cpucycles_tracesetup()), or
 * -1. */
int cpucycles_select(const struct cpucycles_counter *table, int n, long long persecond,
                     int in_use, struct cpucycles_result *results);
/* The reason of a counter the selection did not measure, as it could not
 * win: an OS clock behind a working one (it can only tie with it), or a
 * counter whose penalty alone reaches the score of an earlier one
 * (seeds/000's numbers): the same pointer in every result. */
extern const char cpucycles_reason_not_measured[];

CPUCYCLES_HIDDEN_END
#endif
