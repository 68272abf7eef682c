/* SPDX-License-Identifier: MIT */
/* t-scale - which scaled counters are kept, and with which cycles per tick
 * (cpucycles_scale_for, the rule of seeds/000: the CPU frequency must be
 * near a multiple of the counter's rate, over a power-of-two denominator,
 * except for fixed-resolution OS clocks). */
#define CPUCYCLES_COUNTER_SETUP 1
#include "cpucycles/default-gettimeofday.h"
#include "persecond.h"
#include "measure.h"
#include "tap.h"
#include <time.h>

#define CPUCYCLES_TOP_PERSECOND CPUCYCLES_PERSECOND_MAX

static int near(double a, double b) { return a - b < 1e-9 && b - a < 1e-9; }

int main(void)
{
  double s;
  tap_plan(12);

  tap_ok(cpucycles_scale_for(CPUCYCLES_KIND_ONCORE, 0, 2000000000) == 1,
         "an on-core counter is not scaled");
  tap_ok(cpucycles_scale_for(CPUCYCLES_KIND_OFFCORE, 0, 2000000000) == 1,
         "an off-core counter read as cycles (TSC) is not scaled");

  s = cpucycles_scale_for(CPUCYCLES_KIND_SCALED, 100e6, 2400000000LL);
  tap_ok(near(s, 24), "a 100 MHz clock on a 2.4 GHz CPU: 24 cycles per tick (got %g)", s);

  /* qemu-aarch64 on this kind of host: 2596 MHz over a 62.5 MHz CNTVCT */
  s = cpucycles_scale_for(CPUCYCLES_KIND_SCALED, 62.5e6, 2596118502LL);
  tap_ok(near(s, 2596118502.0 / 62.5e6), "41.54 cycles per tick (near 83/2) is kept, exact (got %g)", s);

  /* IBM z15: 5.2 GHz over the 4.096 GHz TOD clock is exactly 325/256 */
  s = cpucycles_scale_for(CPUCYCLES_KIND_SCALED, 4096e6, 5200000000LL);
  tap_ok(near(s, 325.0 / 256), "z15's 5.2 GHz over 4.096 GHz (325/256) is kept (got %g)", s);

  /* s390x under qemu-user here: 2596 MHz over 4096 MHz = 0.6338 */
  s = cpucycles_scale_for(CPUCYCLES_KIND_SCALED, 4096e6, 2596118502LL);
  tap_ok(near(s, 2596118502.0 / 4096e6), "a ratio below 1 (0.6338, near 81/128) is kept (got %g)", s);

  s = cpucycles_scale_for(CPUCYCLES_KIND_SCALED, 1e9, 100000000LL);
  tap_ok(s == 0, "a clock 10 times faster than the CPU is thrown away (got %g)", s);

  s = cpucycles_scale_for(CPUCYCLES_KIND_SCALED, 1e9, 150000000LL);
  tap_ok(s == 0, "0.15 cycles per tick is over 1%% from any k/2^j, j <= 8 (got %g)", s);

  s = cpucycles_scale_for(CPUCYCLES_KIND_SCALED, 0, 2400000000LL);
  tap_ok(s == 0, "a scaled counter with no known rate is thrown away (got %g)", s);

  s = cpucycles_scale_for(CPUCYCLES_KIND_OSCLOCK, 1e9, 2596118502LL);
  tap_ok(near(s, 2.596118502), "an OS clock is always kept, scaled exactly (got %g)", s);

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
                                                CPUCYCLES_TOP_PERSECOND));
    a = cpucycles_scale_ticks(cpucycles_default_gettimeofday_read(), q);
    nanosleep(&ms, 0);
    b = cpucycles_scale_ticks(cpucycles_default_gettimeofday_read(), q);
    tap_ok(a > 0 && b - a >= 100000000LL && b < (1LL << 62),
           "default-gettimeofday at 100 GHz: positive, far from overflow, 1 ms is >= 10^8 cycles (%lld, %lld)",
           a, b - a);
  }
  return tap_done();
}
