/* SPDX-License-Identifier: MIT */
/* t-extend32 - the 64-bit extension of 32-bit counters (extend32.h, used by
 * arm32-cortex and mips64-cc), on a simulated 32-bit counter that ticks 500
 * times a nanosecond of CLOCK_MONOTONIC and so wraps every 8.6 ms.  Over
 * many wraps, with gaps of up to 30 ms between reads, the extended
 * count never goes backwards and stays within 1% of CLOCK_MONOTONIC, even
 * when the expected rate is 5% off; the counter also passes the
 * selection's own checks. */
#include "counter-setup.h"
#define CPUCYCLES_STATE_STORAGE
#include "extend32.h"
#include "cpucycles/default-monotonic.h"
#include "measure.h"
#include "tap.h"
#include <time.h>

/* 2^32 ticks = 8.6 ms.  The wraps are counted right as long as the time
 * estimate is off by less than 2^31 ticks, 4.3 ms here (a second for a real
 * 2 GHz counter): enough for a preemption between a read and its clock. */
#define TICKS_PER_NS 500

static struct cpucycles_extend32_anchor anchor;
static __thread struct cpucycles_extend32 thread_state;

static unsigned int simulated_read32(void)
{
  return (unsigned int)((unsigned long long)cpucycles_default_monotonic_now_ns() * TICKS_PER_NS);
}

static long long simulated_read(void)
{
  return cpucycles_extend32_read(&anchor, &thread_state, simulated_read32());
}

static int simulated_setup(struct cpucycles_setup *s)
{
  (void)s;
  cpucycles_extend32_start(&anchor, simulated_read32(), TICKS_PER_NS * 1000.0);
  return 0;
}

static void sleep_us(long us)
{
  struct timespec t;
  t.tv_sec = 0;
  t.tv_nsec = us * 1000;
  nanosleep(&t, 0);
}

/* Reads for about 1.5 s with gaps of 0 to 30 ms; returns the number of
 * backwards steps and sets *error to |extended/TICKS_PER_NS - ns| / ns. */
static int run(double rate_factor, double *error, long long *wraps)
{
  long long ns0, ns1, t0, prev, now;
  int i, backwards = 0;
  thread_state.started = 0;
  cpucycles_extend32_start(&anchor, simulated_read32(), TICKS_PER_NS * 1000.0 * rate_factor);
  ns0 = cpucycles_default_monotonic_now_ns();
  t0 = prev = simulated_read();
  for (i = 0; i < 400; i++) {
    if (i % 4 == 1) sleep_us((i * 7919L) % 30000); /* up to 3 wraps */
    now = simulated_read();
    if (now < prev) backwards++;
    prev = now;
  }
  ns1 = cpucycles_default_monotonic_now_ns();
  *error = ((double)(prev - t0) / TICKS_PER_NS - (double)(ns1 - ns0)) / (double)(ns1 - ns0);
  if (*error < 0) *error = -*error;
  *wraps = (prev - t0) >> 32;
  return backwards;
}

int main(void)
{
  struct cpucycles_counter c = {"simulated-32-bit", CPUCYCLES_KIND_ONCORE, 0, simulated_setup,
                                simulated_read, 0};
  struct cpucycles_result r;
  double error;
  long long wraps;
  int backwards, available;

  tap_plan(6);
  backwards = run(1, &error, &wraps);
  tap_ok(wraps >= 30, "the simulated counter wrapped many times (%lld)", wraps);
  tap_ok(backwards == 0, "no backwards step across the wraps (%d)", backwards);
  tap_ok(error < 0.01, "extended count within 1%% of CLOCK_MONOTONIC (off by %.4f%%)",
         error * 100);

  backwards = run(1.05, &error, &wraps);
  tap_ok(backwards == 0 && error < 0.01,
         "with the expected rate 5%% off: %d backwards steps, off by %.4f%% over %lld wraps",
         backwards, error * 100, wraps);

  /* A wrap between two reads right next to each other. */
  {
    struct cpucycles_extend32 e = {0, 0, 0xfffffff0u, 1};
    long long a = cpucycles_extend32_step(&e, 0xfffffff0u, 0, 1000);
    long long b = cpucycles_extend32_step(&e, 0x10u, 0, 1000);
    tap_ok(b - a == 0x20, "a wrap from 0xfffffff0 to 0x10 is a step of 32 (got %lld)", b - a);
  }

  available = cpucycles_measure(&c, 1000000000000LL, &r);
  tap_ok(available, "the extended counter passes the selection's checks (%s)",
         available ? "available" : r.reason);
  return tap_done();
}
