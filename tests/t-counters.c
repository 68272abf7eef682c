/* SPDX-License-Identifier: MIT */
/* t-counters - every counter compiled into the library, re-validated on the
 * machine the tests run on: when it works, 1000 reads never decrease and
 * increase, and its precision is sane; when it does not, SKIP with why.
 * Each is measured alone (the one before it released), as the selection
 * measures them: on arm64, PMCCNTR_EL0 counts only while a perf event
 * with user access is open. */
#include "decide.h"
#include "table.h"
#include "tap.h"
#include "cpucycles.h"
#include <string.h>

/* A working counter's smallest step is below this many cycles.  A read
 * made of system calls costs the most: default-perfevent's two (ioctl and
 * read) measured 142273 and 146634 under qemu's riscv64 on Debian's 7.2.13
 * kernel (the tier's riscv64-open-smp2 row, on a machine where its
 * CLOCK_MONOTONIC system call measured 43973), over the 100000 this bound
 * once was; a stopped counter that jumps once measures about 2 million. */
#define SANE_PRECISION 500000

/* 1 when configure found the counter available on the build host. */
static int available_at_build(const char *name)
{
#define X(bname, available, precision, hz, kind, reason) \
  if (strcmp(bname, name) == 0) return (available) == 1;
  CPUCYCLES_BUILD_COUNTERS(X)
#undef X
  return 0;
}

int main(void)
{
  int i;
  long long persecond = cpucycles_persecond();
  int build_host = cpucycles_decision()->host_matches;
  tap_plan(cpucycles_table_size);
  for (i = 0; i < cpucycles_table_size; i++) {
    const struct cpucycles_counter *c = &cpucycles_table[i];
    struct cpucycles_result r;
    if (c->kind == CPUCYCLES_KIND_NONE) {
      /* the last resort must never win a selection on its merits */
      int available = cpucycles_measure(c, persecond, &r);
      tap_ok(!available && r.reason, "%s is never available to the selection (%s)", c->name,
             r.reason ? r.reason : "available!");
      continue;
    }
    int works = cpucycles_measure(c, persecond, &r) && cpucycles_measure_rate(c, &r);
    if (c->release) c->release(0);
    if (!works) {
      char what[64];
      snprintf(what, sizeof what, "%s works", c->name);
      /* What worked at configure time on this very host must still work. */
      if (build_host && available_at_build(c->name))
        tap_ok(0, "%s works here as it did at configure time (%s)", c->name, r.reason);
      else if (strcmp(c->name, "arm64-pmc") == 0 && strcmp(r.reason, "never increased") == 0)
        /* measured just after arm64-perfpmc's release, user reads may still
         * be allowed with the cycle counter stopped: its setup must say so
         * (a stopped counter that jumps once passes as a counter of
         * precision 2 million) */
        tap_ok(0, "%s's setup accepted a stopped counter (it never increased)", c->name);
      else
        tap_skip(what, r.reason);
      continue;
    }
    tap_diag("%s: precision %lld, %.0f ticks/s, scale %g", c->name, r.precision, r.measured_hz,
             r.scale);
    tap_ok(r.precision > 0 && r.precision < SANE_PRECISION && r.measured_hz > 0,
           "%s never decreases, increases, precision %lld is sane", c->name, r.precision);
  }
  return tap_done();
}
