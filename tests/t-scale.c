/* SPDX-License-Identifier: MIT */
/* t-scale - which scaled counters are kept, and with which cycles per tick
 * (cpucycles_scale_for, the rule of seeds/000: the CPU frequency must be a
 * steady multiple of the counter's rate over a power-of-two denominator,
 * except for fixed-resolution OS clocks).  Rates that must pass and rates
 * that must not, first on made-up timings (no clock needed), then through
 * the measurement itself on a simulated counter. */
#include "counter-setup.h"
#include "cpucycles/default-gettimeofday.h"
#include "cpucycles/default-monotonic.h"
#include "persecond.h"
#include "measure.h"
#include "tap.h"
#include <time.h>

#define CPUCYCLES_TOP_PERSECOND CPUCYCLES_PERSECOND_MAX

static int near(double a, double b) { return a - b < 1e-9 && b - a < 1e-9; }

/* The scale of a counter that states rate hz, on a CPU at persecond, when
 * its three timings come out at hz times 1 + 10^-4, 1 - 10^-4 and
 * 1 + 0.5 * 10^-4 (what a 5 ms timing gives on a busy machine). */
static double scale_timed(double hz, long long persecond, double error)
{
  double timed[3];
  timed[0] = hz * (1 + error);
  timed[1] = hz * (1 - error);
  timed[2] = hz * (1 + error / 2);
  return cpucycles_scale_for(CPUCYCLES_KIND_SCALED, hz, persecond, timed, 3);
}

/* A simulated scaled counter: CLOCK_MONOTONIC's nanoseconds (1 GHz), which
 * states the rate stated_hz. */
static double stated_hz;
static long long ns_read(void) { return cpucycles_default_monotonic_now_ns(); }
static int ns_setup(struct cpucycles_setup *s)
{
  s->nominal_hz = stated_hz;
  return 0;
}

int main(void)
{
  double s, timed[3];
  const struct cpucycles_counter ns_counter = {"simulated", CPUCYCLES_KIND_SCALED, ns_setup,
                                               ns_read, 0};
  struct cpucycles_result r;
  int kept;
  tap_plan(20);

  tap_ok(cpucycles_scale_for(CPUCYCLES_KIND_ONCORE, 0, 2000000000, 0, 0) == 1,
         "an on-core counter is not scaled");
  tap_ok(cpucycles_scale_for(CPUCYCLES_KIND_OFFCORE, 0, 2000000000, 0, 0) == 1,
         "an off-core counter read as cycles (TSC) is not scaled");

  /* Rates that must pass. */
  s = scale_timed(100e6, 2400000000LL, 1e-4);
  tap_ok(near(s, 24), "a 100 MHz clock on a 2.4 GHz CPU: 24 cycles per tick (got %g)", s);
  s = scale_timed(24e6, 2064000000LL, 1e-4);
  tap_ok(near(s, 86), "a 24 MHz clock on a 2.064 GHz CPU: 86 (got %g)", s);
  /* qemu-aarch64 on this kind of host: 2596 MHz over a 62.5 MHz CNTVCT */
  s = scale_timed(62.5e6, 2596118502LL, 1e-4);
  tap_ok(near(s, 2596118502.0 / 62.5e6), "41.54 cycles per tick (near 83/2) is kept, exact (got %g)", s);
  /* IBM z15: 5.2 GHz over the 4.096 GHz TOD clock is exactly 325/256 */
  s = scale_timed(4096e6, 5200000000LL, 1e-4);
  tap_ok(near(s, 325.0 / 256), "z15's 5.2 GHz over 4.096 GHz (325/256) is kept (got %g)", s);
  /* s390x under qemu-user here: 2596 MHz over 4096 MHz = 0.6338 */
  s = scale_timed(4096e6, 2596118502LL, 1e-4);
  tap_ok(near(s, 2596118502.0 / 4096e6), "a ratio below 1 (0.6338, near 5/8) is kept (got %g)", s);
  s = cpucycles_scale_for(CPUCYCLES_KIND_SCALED, 62.5e6, 2606250000LL, 0, 0);
  tap_ok(near(s, 41.7), "untimed (the first call's recheck), 41.7 = 166.8/4 passes (got %g)", s);

  /* Rates that must not. */
  s = scale_timed(62.5e6, 2606250000LL, 1e-4);
  tap_ok(s == 0, "41.7 cycles per tick, timed to 10^-4, is no steady k/2^j (got %g)", s);
  s = scale_timed(100e6, 730000000LL, 1e-4);
  tap_ok(s == 0, "7.3 cycles per tick, timed to 10^-4, is no steady k/2^j (got %g)", s);
  s = scale_timed(100e6, 2400000000LL, 0.02);
  tap_ok(s == 0, "a rate that moves by 2%% between timings is thrown away (got %g)", s);
  timed[0] = timed[1] = timed[2] = 110e6;
  s = cpucycles_scale_for(CPUCYCLES_KIND_SCALED, 100e6, 2400000000LL, timed, 3);
  tap_ok(s == 0, "a counter that ticks 10%% faster than it states is thrown away (got %g)", s);
  timed[1] = 0;
  s = cpucycles_scale_for(CPUCYCLES_KIND_SCALED, 100e6, 2400000000LL, timed, 3);
  tap_ok(s == 0, "a counter that stopped during a timing is thrown away (got %g)", s);
  s = cpucycles_scale_for(CPUCYCLES_KIND_SCALED, 0, 2400000000LL, 0, 0);
  tap_ok(s == 0, "a scaled counter with no known rate is thrown away (got %g)", s);

  s = cpucycles_scale_for(CPUCYCLES_KIND_OSCLOCK, 1e9, 2596118502LL, 0, 0);
  tap_ok(near(s, 2.596118502), "an OS clock is always kept, scaled exactly (got %g)", s);

  /* The measurement times the rate: a counter that states its true rate
   * (1 GHz, on a 3 GHz CPU) is kept, one that states 10% more is not. */
  stated_hz = 1e9;
  kept = cpucycles_measure(&ns_counter, 3000000000LL, 0, &r);
  tap_ok(kept && near(r.scale, 3), "a simulated 1 GHz clock that states 1 GHz is kept at 3 cycles per tick (%s)",
         kept ? "kept" : r.reason);
  stated_hz = 1.1e9;
  kept = cpucycles_measure(&ns_counter, 3000000000LL, 0, &r);
  tap_ok(!kept, "the same clock stating 1.1 GHz is thrown away (%s)", kept ? "kept" : r.reason);
  kept = cpucycles_measure_reads(&ns_counter, 3000000000LL, 0, 100, &r);
  tap_ok(kept, "the first call's recheck does not time it (%s)", kept ? "kept" : r.reason);

  /* Big tick counts are scaled exactly (a double would round to 64 ticks). */
  {
    unsigned long long q = CPUCYCLES_SCALE_Q32(325.0 / 256);
    long long t = 1LL << 58, a = cpucycles_scale_ticks(t, q), b = cpucycles_scale_ticks(t + 256, q);
    tap_ok(b - a == 325 && a == 325LL << 50,
           "2^58 ticks at 325/256 are 325 * 2^50 cycles, and 256 more ticks 325 more (%lld)", b - a);
  }
  /* gettimeofday() at the top of the accepted frequencies (100 GHz, 10^5
   * cycles per microsecond): microseconds since 1970 would overflow. */
  {
    struct cpucycles_setup st = {CPUCYCLES_TOP_PERSECOND, 0, 0};
    struct timespec ms = {0, 1000000};
    unsigned long long q;
    long long a, b;
    cpucycles_default_gettimeofday_setup(&st);
    q = CPUCYCLES_SCALE_Q32(cpucycles_scale_for(CPUCYCLES_KIND_OSCLOCK, st.nominal_hz,
                                                CPUCYCLES_TOP_PERSECOND, 0, 0));
    a = cpucycles_scale_ticks(cpucycles_default_gettimeofday_read(), q);
    nanosleep(&ms, 0);
    b = cpucycles_scale_ticks(cpucycles_default_gettimeofday_read(), q);
    tap_ok(a > 0 && b - a >= 100000000LL && b < (1LL << 62),
           "default-gettimeofday at 100 GHz: positive, far from overflow, 1 ms is >= 10^8 cycles (%lld, %lld)",
           a, b - a);
  }
  return tap_done();
}
