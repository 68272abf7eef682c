/* SPDX-License-Identifier: MIT */
/* t-fallback - the decision refuses a counter that faults, freezes or runs
 * backwards, and a host that is not the build host; it then chooses a
 * working counter, whose reads never go backwards.  Run through
 * cpucycles_decide(), the code the library's first call runs, with a
 * table that contains deliberately broken counters. */
#include "decide.h"
#include "table.h"
#include "fault.h"
#include "tap.h"
#include <signal.h>
#include <string.h>

static long long faulting_read(void)
{
#if defined(__x86_64__) || defined(__i386__)
  __asm__ __volatile__("ud2"); /* the invalid opcode: SIGILL */
#else
  return test_fault(); /* SIGSEGV */
#endif
  return 1;
}

static long long frozen_read(void) { return 42; }

static long long backwards_value = 1000000000;
static long long backwards_read(void) { return backwards_value -= 7; }

static int no_setup(struct cpucycles_setup *s)
{
  (void)s;
  return 0;
}

enum { FAULTING, FROZEN, BACKWARDS, FIRST_REAL };

int main(void)
{
  struct cpucycles_counter table[CPUCYCLES_MAX_COUNTERS];
  struct cpucycles_decision d;
  struct cpucycles_plan plan;
  char host[CPUCYCLES_FINGERPRINT_MAX];
  int n = 0, i, monotonic = -1, decreasing = 0;
  long long prev, now;

  table[n++] = (struct cpucycles_counter){"test-faulting", CPUCYCLES_KIND_ONCORE, 0, no_setup, faulting_read, 0};
  table[n++] = (struct cpucycles_counter){"test-frozen", CPUCYCLES_KIND_ONCORE, 0, no_setup, frozen_read, 0};
  table[n++] = (struct cpucycles_counter){"test-backwards", CPUCYCLES_KIND_ONCORE, 0, no_setup, backwards_read, 0};
  for (i = 0; i < cpucycles_table_size && n < CPUCYCLES_MAX_COUNTERS; i++) {
    if (strcmp(cpucycles_table[i].name, "default-monotonic") == 0) monotonic = n;
    table[n++] = cpucycles_table[i];
  }
  cpucycles_fingerprint(host, sizeof host);
  tap_plan(9);

  /* The chosen counter faults on this host. */
  plan.build_counter = FAULTING;
  plan.build_precision = 10;
  plan.build_scale = 1;
  plan.build_fingerprint = host;
  plan.build_persecond = 0;
  plan.build_inline = 1;
  cpucycles_decide(table, n, &plan, 0, 0, &d);
  tap_diag("verdict: %s", d.why);
  tap_ok(!d.build_verified && strstr(d.why, "faulted with SIG") != 0, "a faulting counter is refused");
  tap_ok(d.reselected && d.index >= FIRST_REAL, "a working counter is chosen instead (%s)",
         table[d.index].name);
  tap_ok(!d.results[FROZEN].available && !d.results[BACKWARDS].available,
         "frozen and backwards counters are rejected (%s; %s)", d.results[FROZEN].reason,
         d.results[BACKWARDS].reason);
  prev = table[d.index].read();
  for (i = 0; i < 100000; i++) {
    now = table[d.index].read();
    if (now < prev) decreasing++;
    prev = now;
  }
  tap_ok(decreasing == 0, "100000 reads of the fallback never decrease");

  /* A frozen chosen counter. */
  plan.build_counter = FROZEN;
  cpucycles_decide(table, n, &plan, 0, 0, &d);
  tap_ok(!d.build_verified && strstr(d.why, "never increased") != 0, "a frozen counter is refused (%s)",
         d.why);

  /* Another host: a working counter is still not trusted blindly. */
  if (monotonic < 0) {
    tap_skip("another host's choice is refused", "no default-monotonic here");
    tap_skip("the refusal says why", "no default-monotonic here");
  } else {
    plan.build_counter = monotonic;
    plan.build_precision = 0;
    plan.build_fingerprint = "x86 SomeOtherCPU family 6 model 6 stepping 3 tsc=1 rdtscp=0";
    plan.build_scale = 1; /* not looked at: the host check comes first */
    cpucycles_decide(table, n, &plan, 0, 0, &d);
    tap_ok(!d.build_verified && d.reselected, "another host's choice is refused and reselected");
    tap_ok(strstr(d.why, "differs from the build host") != 0, "the refusal says why: %s", d.why);
  }

  /* Same host, much worse precision than configure measured. */
  if (monotonic < 0) {
    tap_skip("a counter far less precise than at build time is refused", "no default-monotonic");
  } else {
    plan.build_counter = monotonic;
    plan.build_fingerprint = host;
    plan.build_persecond = 1000000000; /* 1 cycle per ns */
    plan.build_scale = 1;
    plan.build_precision = 1;
    cpucycles_decide(table, n, &plan, 0, 0, &d);
    tap_ok(!d.build_verified && strstr(d.why, "precision") != 0,
           "a counter far less precise than at build time is refused (%s)", d.why);
  }

  /* Nothing works: default-zero (the library's last entry), no crash. */
  table[BACKWARDS] = cpucycles_table[cpucycles_table_size - 1];
  plan.build_counter = FAULTING;
  plan.build_fingerprint = host;
  cpucycles_decide(table, FIRST_REAL, &plan, 0, 0, &d);
  tap_ok(strcmp(table[d.index].name, "default-zero") == 0 && table[d.index].read() == 0,
         "with no working counter, default-zero is the last resort (%s)", table[d.index].name);
  return tap_done();
}
