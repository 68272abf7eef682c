/* SPDX-License-Identifier: MIT */
/* t-chosen - the counter a selection chooses still counts once the
 * selection is over and the other counters are released: in the thread
 * that chose, in a new thread, across sleeps (context switches) and on
 * every CPU the thread may run on.  Checked for the process's own counter
 * (its first call: the build's counter verified, or a run-time choice) and
 * for a run-time selection over the whole table, as on a host unlike the
 * build host.  First, the rule behind it on a synthetic table: a counter
 * that counts only while another counter is set up is never chosen (on
 * arm64, PMCCNTR_EL0 is readable only while a perf event with user access
 * is open: chosen beside it, it read 0 or died of SIGILL once the
 * selection released the event). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* sched_setaffinity, CPU_SET */
#endif
#include "cpucycles.h"
#include "decide.h"
#include "table.h"
#include "tap.h"
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define READS 1000

/* ---- The synthetic table ---- */
static int helper_set_up;          /* the helper's state: 1 between setup and release */
static long long synthetic_ticks;  /* what the synthetic counters count */
static int flaky_setups;           /* setups of the flaky counter so far */

static int helper_setup(struct cpucycles_setup *s)
{
  (void)s;
  helper_set_up = 1;
  return 0;
}
static void helper_release(int zero_page)
{
  (void)zero_page;
  helper_set_up = 0;
}
static long long helper_read(void) { return synthetic_ticks += 300; }
/* Counts only while the helper is set up (PMCCNTR_EL0 beside a perf event). */
static long long leaning_read(void) { return helper_set_up ? synthetic_ticks += 10 : 5; }
/* Works when first measured, fails when set up again (lost after the choice). */
static int flaky_setup(struct cpucycles_setup *s)
{
  s->reason = "gone";
  return ++flaky_setups == 1 ? 0 : -1;
}
static long long flaky_read(void) { return synthetic_ticks += 20; }
static long long zero_read(void) { return 0; }
/* A coarse clock: moves once every 5000 reads (a jiffies clocksource
 * read through its system call).  Measured alone, it moves within its
 * 10 tries of 1000; its recheck must give it as many. */
static long coarse_reads;
static long long coarse_read(void) { return ++coarse_reads / 5000; }
/* A fine counter (step 50), and one whose reads are counted. */
static long long fine_read(void) { return synthetic_ticks += 50; }
static int costly_reads;
static long long costly_read(void)
{
  costly_reads++;
  return synthetic_ticks += 1;
}
static int no_setup(struct cpucycles_setup *s)
{
  (void)s;
  return 0;
}
/* A counter whose step is counted_step, its reads counted; with
 * back_every > 0, every back_every-th read goes back a step. */
static long long counted_step;
static int counted_reads, back_every;
static long long counted_read(void)
{
  counted_reads++;
  if (back_every > 0 && counted_reads % back_every == 0) return synthetic_ticks -= counted_step;
  return synthetic_ticks += counted_step;
}

/* The first call's recheck of the build's counter (cpucycles_decide on
 * this host, with a plan that says it was measured at build_precision):
 * how many reads it took, and whether it was verified. */
static int recheck_reads(long long step, long long build_precision, int *verified)
{
  static struct cpucycles_decision d;
  static char host[sizeof d.host_fingerprint];
  struct cpucycles_counter table[] = {
      {"counted", CPUCYCLES_KIND_ONCORE, 0, no_setup, counted_read, 0},
      {"zero", CPUCYCLES_KIND_NONE, 0, no_setup, zero_read, 0}};
  struct cpucycles_plan plan = {0, 0, 1, host, 1000000000, 0};
  cpucycles_fingerprint(host, sizeof host);
  plan.build_precision = build_precision + cpucycles_kind_penalty(CPUCYCLES_KIND_ONCORE);
  counted_step = step;
  counted_reads = 0;
  cpucycles_decide(table, 2, &plan, "/nonexistent", 0, &d);
  *verified = d.build_verified;
  return counted_reads;
}

static void synthetic_selection(void)
{
  struct cpucycles_counter table[] = {
      {"helper", CPUCYCLES_KIND_OFFCORE, 0, helper_setup, helper_read, helper_release},
      {"leaning", CPUCYCLES_KIND_ONCORE, 0, no_setup, leaning_read, 0},
      {"zero", CPUCYCLES_KIND_NONE, 0, no_setup, zero_read, 0}};
  struct cpucycles_counter with_flaky[] = {
      {"flaky", CPUCYCLES_KIND_ONCORE, 0, flaky_setup, flaky_read, 0}, table[0], table[2]};
  struct cpucycles_result results[3];
  int chosen = cpucycles_select(table, 3, 1000000000, -1, results);
  tap_ok(chosen == 0 && !results[1].available,
         "a counter that counts only beside another's setup is not chosen (chose %s; leaning: %s)",
         table[chosen].name, results[1].available ? "available" : results[1].reason);
  tap_ok(helper_set_up == 1, "the chosen counter is left set up after the selection");
  chosen = cpucycles_select(with_flaky, 3, 1000000000, -1, results);
  tap_ok(chosen == 1 && !results[0].available && results[1].available && flaky_setups == 2,
         "a counter that fails when set up again after the choice is dropped for the next, "
         "measured then if it was left out (chose %s, %d setups)", with_flaky[chosen].name,
         flaky_setups);
  {
    /* seeds/000's numbers: an off-core counter pays 100, so with a step of
     * at least 1 it cannot beat an on-core score of 50 */
    struct cpucycles_counter behind[] = {
        {"fine", CPUCYCLES_KIND_ONCORE, 0, no_setup, fine_read, 0},
        {"costly", CPUCYCLES_KIND_OFFCORE, 0, no_setup, costly_read, 0}, table[2]};
    struct cpucycles_counter coarse[] = {{"coarse", CPUCYCLES_KIND_OFFCORE, 0, no_setup, coarse_read, 0},
                                         table[2]};
    int chosen_coarse = cpucycles_select(coarse, 2, 1000000000, -1, results);
    tap_ok(chosen_coarse == 0 && results[0].available,
           "a coarse clock (a step every 5000 reads) is chosen, its recheck given the reads it "
           "needs (chose %s: %s)", coarse[chosen_coarse].name,
           results[0].available ? "available" : results[0].reason);
    chosen = cpucycles_select(behind, 3, 1000000000, -1, results);
    if (CPUCYCLES_SELECTION_RULE == CPUCYCLES_RULE_SEED)
      tap_ok(chosen == 0 && costly_reads == 0 && results[1].reason == cpucycles_reason_not_measured,
             "a counter whose penalty alone reaches an earlier score is not measured (chose %s, "
             "%d reads of it)", behind[chosen].name, costly_reads);
    else
      tap_ok(chosen == 0 && costly_reads > 0 && results[1].available,
             "under 20260901's numbers every counter is measured (chose %s, %d reads of costly)",
             behind[chosen].name, costly_reads);
  }
  {
    /* The recheck reads until its verdict is settled: a step well within
     * the precision slack (3 times the build's 10) ends it after
     * CPUCYCLES_RECHECK_MIN_READS reads; one at its edge (30, which the
     * scale's slack could push past it) takes all CPUCYCLES_RECHECK_READS. */
    int settled, verified_settled, unsettled, verified_unsettled;
    settled = recheck_reads(20, 10, &verified_settled);
    unsettled = recheck_reads(30, 10, &verified_unsettled);
    tap_ok(verified_settled && settled == CPUCYCLES_RECHECK_MIN_READS && verified_unsettled &&
               unsettled == CPUCYCLES_RECHECK_READS,
           "the first call's recheck stops at %d reads once its step settles it (verified: %d, "
           "%d reads), and reads %d when it does not (verified: %d, %d reads)",
           CPUCYCLES_RECHECK_MIN_READS, verified_settled, settled, CPUCYCLES_RECHECK_READS,
           verified_unsettled, unsettled);
  }
  {
    /* A try with a decrease is not ended early: a counter that goes back
     * every 8th read is refused after every try's 100 reads. */
    struct cpucycles_counter back = {"back", CPUCYCLES_KIND_ONCORE, 0, no_setup, counted_read, 0};
    struct cpucycles_result r;
    int kept;
    counted_step = 20;
    counted_reads = 0;
    back_every = 8;
    kept = cpucycles_measure_reads(&back, 1000000000, CPUCYCLES_RECHECK_READS, 1000, &r);
    back_every = 0;
    tap_ok(!kept && counted_reads == CPUCYCLES_TRIES * CPUCYCLES_RECHECK_READS,
           "a recheck of a counter that goes back every 8th read: refused (%s) after %d reads",
           kept ? "kept" : r.reason, counted_reads);
  }
}

/* ---- The live checks ---- */
static long long (*live_read)(void);
static long long process_read(void) { return cpucycles(); }

/* READS back-to-back reads: 1 when they never go backwards and increase. */
static int counts(const char *where, char *why, size_t size)
{
  long long first = live_read(), prev = first, now;
  long long deltas[READS - 1], d;
  int i, backwards = 0, j;
  for (i = 0; i < READS - 1; i++) {
    now = live_read();
    deltas[i] = now - prev;
    if (now < prev) backwards++;
    prev = now;
  }
  for (i = 1; i < READS - 1; i++) /* insertion sort, for the median */
    for (j = i; j > 0 && deltas[j - 1] > deltas[j]; j--)
      d = deltas[j], deltas[j] = deltas[j - 1], deltas[j - 1] = d;
  snprintf(why, size, "%s: %d backwards, %lld counted over %d reads, median step %lld", where,
           backwards, prev - first, READS, deltas[(READS - 1) / 2]);
  return backwards == 0 && prev > first;
}

static void *in_thread(void *arg)
{
  char *why = arg;
  return (void *)(long)counts("a new thread", why, 200);
}

/* Across 20 sleeps of 1 ms (each a context switch): never backwards, and
 * increasing over every sleep. */
static int counts_across_sleeps(char *why, size_t size)
{
  long long before, after;
  int i, ok = 1;
  for (i = 0; i < 20 && ok; i++) {
    before = live_read();
    usleep(1000);
    after = live_read();
    ok = after > before;
  }
  snprintf(why, size, "sleep %d: %lld then %lld", i, before, after);
  return ok;
}

/* On each CPU the thread may run on, pinned there in turn. */
static void counts_on_every_cpu(const char *way)
{
  cpu_set_t allowed, one;
  char why[200] = "", last[200] = "";
  int cpu, cpus = 0, ok = 1;
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0 || CPU_COUNT(&allowed) < 2) {
    tap_skip("counts on every CPU", "fewer than two CPUs to move between");
    return;
  }
  for (cpu = 0; cpu < CPU_SETSIZE; cpu++) {
    if (!CPU_ISSET(cpu, &allowed)) continue;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    if (sched_setaffinity(0, sizeof one, &one) != 0) continue;
    sched_yield();
    cpus++;
    if (!counts("", why, sizeof why)) ok = 0, snprintf(last, sizeof last, "CPU %d%s", cpu, why);
  }
  sched_setaffinity(0, sizeof allowed, &allowed);
  tap_ok(ok && cpus >= 2, "%s: counts on each of %d CPUs%s%s", way, cpus, ok ? "" : ": ", last);
}

static void live_checks(const char *way)
{
  char why[200], thread_why[200] = "";
  pthread_t t;
  void *thread_ok = 0;
  tap_ok(counts("this thread", why, sizeof why), "%s: %s", way, why);
  if (pthread_create(&t, 0, in_thread, thread_why) == 0) pthread_join(t, &thread_ok);
  tap_ok(thread_ok != 0, "%s: %s", way, thread_why);
  tap_ok(counts_across_sleeps(why, sizeof why), "%s: increases across 20 sleeps (%s)", way, why);
  counts_on_every_cpu(way);
}

int main(void)
{
  struct cpucycles_plan plan;
  struct cpucycles_decision *d = malloc(sizeof *d);
  tap_plan(15);
  synthetic_selection();

  live_read = process_read;
  tap_diag("the process counts with %s (%s)", cpucycles_implementation(), cpucycles_decision()->why);
  live_checks("the process's counter");

  /* A run-time selection over the whole table, then what the library's
   * first call does after one: release every counter but the chosen. */
  cpucycles_build_plan(&plan);
  plan.build_counter = -1;
  cpucycles_decide(cpucycles_table, cpucycles_table_size, &plan, 0, 0, d);
  cpucycles_table_release_others(d->index, 0);
  live_read = cpucycles_table[d->index].read;
  tap_diag("a run-time selection chooses %s", cpucycles_table[d->index].name);
  live_checks("a run-time selection's counter");
  free(d);
  return tap_done();
}
