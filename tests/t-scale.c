/* SPDX-License-Identifier: MIT */
/* t-scale - which scaled counters are kept, and with which cycles per tick
 * (cpucycles_scale_for, libcpucycles' rule): a rate the OS states
 * must be confirmed by timing; a rate found by timing must make the CPU
 * frequency a steady multiple k/2^j of it; OS clocks are always kept.
 * Rates that must pass and rates that must not, first on made-up timings
 * (no clock needed), then through the measurement itself on a simulated
 * counter. */
#include "counter-setup.h"
#include "cpucycles/default-gettimeofday.h"
#include "cpucycles/default-monotonic.h"
#include "persecond.h"
#include "measure.h"
#include "tap.h"
#include <time.h>

#define CPUCYCLES_TOP_PERSECOND CPUCYCLES_PERSECOND_MAX

static int near(double a, double b) { return a - b < 1e-9 && b - a < 1e-9; }

/* The scale of a scaled counter at rate hz, stated by the OS or (timed)
 * found by timing, on a CPU at persecond, when its three timings come out
 * at hz times 1 + error, 1 - error and 1 + error/2 (error 10^-4 is what a
 * 5 ms timing gives on a busy machine). */
static double scale_of(double hz, int timed, long long persecond, double error)
{
  struct cpucycles_setup s;
  double timings[3];
  s.persecond = persecond;
  s.reason = 0;
  s.nominal_hz = hz;
  s.rate_timed = timed;
  timings[0] = hz * (1 + error);
  timings[1] = hz * (1 - error);
  timings[2] = hz * (1 + error / 2);
  return cpucycles_scale_for(CPUCYCLES_KIND_SCALED, &s, timings, 3);
}

/* The same with the three timings given. */
static double scale_timed_at(double hz, long long persecond, double t0, double t1, double t2)
{
  struct cpucycles_setup s = {0, 0, 0, 0, 0};
  double timings[3];
  s.persecond = persecond;
  s.nominal_hz = hz;
  timings[0] = t0;
  timings[1] = t1;
  timings[2] = t2;
  return cpucycles_scale_for(CPUCYCLES_KIND_SCALED, &s, timings, 3);
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

enum { STATED = 0, TIMED = 1 };

int main(void)
{
  double s;
  const struct cpucycles_counter ns_counter = {"simulated", CPUCYCLES_KIND_SCALED, 0, ns_setup,
                                               ns_read, 0};
  struct cpucycles_setup none = {2400000000LL, 0, 0, 0, 0};
  struct cpucycles_result r;
  int kept;
  tap_plan(23);

  tap_ok(cpucycles_scale_for(CPUCYCLES_KIND_ONCORE, &none, 0, 0) == 1,
         "an on-core counter is not scaled");
  tap_ok(cpucycles_scale_for(CPUCYCLES_KIND_OFFCORE, &none, 0, 0) == 1,
         "an off-core counter read as cycles (TSC) is not scaled");

  /* Stated rates that must pass: exact, whatever the ratio. */
  s = scale_of(100e6, STATED, 2400000000LL, 1e-4);
  tap_ok(near(s, 24), "a 100 MHz clock on a 2.4 GHz CPU: 24 cycles per tick (got %g)", s);
  /* qemu-aarch64 on this kind of host: 2596 MHz over a 62.5 MHz CNTVCT */
  s = scale_of(62.5e6, STATED, 2596118502LL, 1e-4);
  tap_ok(near(s, 2596118502.0 / 62.5e6), "41.54 cycles per tick is kept, exact (got %g)", s);
  /* qemu-system-aarch64: CNTFRQ 62.5 MHz, no frequency from the OS */
  s = scale_of(62.5e6, STATED, 2399987654LL, 1e-4);
  tap_ok(near(s, 2399987654.0 / 62.5e6), "62.5 MHz against libcpucycles' default 2399987654: 38.3998 (got %g)", s);
  s = scale_of(1e9, STATED, 2600000000LL, 1e-4);
  tap_ok(near(s, 2.6), "an ARMv8.6 1 GHz timer on a 2.6 GHz core (13/5, no power of two): 2.6 (got %g)", s);
  /* IBM z15: 5.2 GHz over the 4.096 GHz TOD clock is exactly 325/256 */
  s = scale_of(4096e6, STATED, 5200000000LL, 1e-4);
  tap_ok(near(s, 325.0 / 256), "z15's 5.2 GHz over 4.096 GHz (325/256) is kept (got %g)", s);

  /* Stated rates that must not pass. */
  s = scale_timed_at(100e6, 2400000000LL, 110e6, 110e6, 110e6);
  tap_ok(s == 0, "a clock that ticks 10%% faster than it states is thrown away (got %g)", s);
  s = scale_timed_at(100e6, 2400000000LL, 100e6, 98e6, 100e6);
  tap_ok(s == 0, "one that slows by 2%% in a timing is thrown away (got %g)", s);
  s = scale_timed_at(100e6, 2400000000LL, 100e6, 0, 100e6);
  tap_ok(s == 0, "one that stops during a timing is thrown away (got %g)", s);

  /* Rates found by timing that must pass: rounded to k/2^j. */
  s = scale_of(100e6, TIMED, 2400000000LL, 1e-4);
  tap_ok(near(s, 24), "timed 100 MHz on a 2.4 GHz CPU: 24 (got %g)", s);
  /* qemu-ppc64le here: its timebase is the host's 2.6 GHz TSC */
  s = scale_of(2600000000.0, TIMED, 2596118502LL, 1e-4);
  tap_ok(near(s, 1), "timed 2.6 GHz against 2596 MHz (0.9985): k/2^j = 1 (got %g)", s);
  s = scale_of(62.5e6, TIMED, 2596118502LL, 1e-4);
  tap_ok(near(s, 41.5), "timed 62.5 MHz against 2596 MHz (41.538): 83/2 (got %g)", s);

  /* Rates found by timing that must not pass. */
  s = scale_of(62.5e6, TIMED, 2606250000LL, 1e-4);
  tap_ok(s == 0, "timed, 41.7 cycles per tick is no steady k/2^j (got %g)", s);
  s = scale_of(100e6, TIMED, 730000000LL, 1e-4);
  tap_ok(s == 0, "timed, 7.3 cycles per tick is no steady k/2^j (got %g)", s);
  s = scale_of(100e6, TIMED, 2400000000LL, 0.02);
  tap_ok(s == 0, "timed, a rate that moves by 2%% between timings is thrown away (got %g)", s);

  s = scale_of(0, STATED, 2400000000LL, 0);
  tap_ok(s == 0, "a scaled counter with no known rate is thrown away (got %g)", s);
  {
    struct cpucycles_setup os = {2596118502LL, 0, 1e9, 0, 0};
    s = cpucycles_scale_for(CPUCYCLES_KIND_OSCLOCK, &os, 0, 0);
    tap_ok(near(s, 2.596118502), "an OS clock is always kept, scaled exactly (got %g)", s);
  }

  /* The measurement times the rate: a counter that states its true rate
   * (1 GHz, on a 3 GHz CPU) is kept, one that states 10% more is not. */
  stated_hz = 1e9;
  kept = cpucycles_measure(&ns_counter, 3000000000LL, &r);
  tap_ok(kept && near(r.scale, 3), "a simulated 1 GHz clock that states 1 GHz is kept at 3 cycles per tick (%s)",
         kept ? "kept" : r.reason);
  stated_hz = 1.1e9;
  kept = cpucycles_measure(&ns_counter, 3000000000LL, &r);
  tap_ok(!kept, "the same clock stating 1.1 GHz is thrown away (%s)", kept ? "kept" : r.reason);
  kept = cpucycles_measure_reads(&ns_counter, 3000000000LL, 100, 0, &r);
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
    struct cpucycles_setup st = {CPUCYCLES_TOP_PERSECOND, 0, 0, 0, 0};
    struct timespec ms = {0, 1000000};
    unsigned long long q;
    long long a, b;
    cpucycles_default_gettimeofday_setup(&st);
    q = CPUCYCLES_SCALE_Q32(cpucycles_scale_for(CPUCYCLES_KIND_OSCLOCK, &st, 0, 0));
    a = cpucycles_scale_ticks(cpucycles_default_gettimeofday_read(), q);
    nanosleep(&ms, 0);
    b = cpucycles_scale_ticks(cpucycles_default_gettimeofday_read(), q);
    tap_ok(a > 0 && b - a >= 100000000LL && b < (1LL << 62),
           "default-gettimeofday at 100 GHz: positive, far from overflow, 1 ms is >= 10^8 cycles (%lld, %lld)",
           a, b - a);
  }
  return tap_done();
}
