/* SPDX-License-Identifier: MIT */
/* t-foreign - a program built against another build's headers (another
 * counter, or the same counter with another scale) and run with this
 * library, as happens when a distribution rebuilds the library under
 * existing programs: its cpucycles() must not mix its inlined counter with
 * the library's, so its counts and the library's, interleaved, never go
 * backwards.
 *
 * This file stands for a build that inlined CLOCK_MONOTONIC in
 * nanoseconds, unscaled, under an id no configure gives (ids are 1 to
 * 2^31 - 1); foreign-scale.c for one with this build's counter and
 * another scale. */
#define CPUCYCLES_CONFIG_H /* instead of this build's cpucycles-config.h: */
#include "cpucycles/counter.h"
#include "cpucycles/default-monotonic.h"
#define CPUCYCLES_VERSION "foreign"
#define CPUCYCLES_CHOSEN "default-monotonic"
#define CPUCYCLES_BUILD_CHOICE 1
#define CPUCYCLES_INLINE_ID 0x80000001U
#define CPUCYCLES_INLINE_SCALED 0
#define CPUCYCLES_INLINE_SCALE 1
#define CPUCYCLES_INLINE_READ() cpucycles_default_monotonic_now_ns()
#include "cpucycles.h"
#include "tap.h"

long long foreign_scale_read(void);
int foreign_scale_inlines(void);

/* Backwards steps in n rounds of read() then the library's count. */
static int interleaved_backwards(long long (*read)(void), int n)
{
  long long prev = read(), now;
  int i, backwards = 0;
  for (i = 0; i < n; i++) {
    now = cpucycles_function();
    backwards += now < prev;
    prev = read();
    backwards += prev < now;
  }
  return backwards;
}

static long long foreign_counter_read(void) { return cpucycles(); }

int main(void)
{
  int backwards;
  tap_plan(4);
  cpucycles_function(); /* the library's first call: it verifies its own counter */
  tap_ok(!CPUCYCLES_INLINE_VERIFIED(), "a program that inlined another counter does not inline it here");
  backwards = interleaved_backwards(foreign_counter_read, 10000);
  tap_ok(backwards == 0, "its counts and the library's never go backwards (%d backwards steps)",
         backwards);
  tap_ok(!foreign_scale_inlines(), "a program that inlined this counter with another scale does not inline it");
  backwards = interleaved_backwards(foreign_scale_read, 10000);
  tap_ok(backwards == 0, "its counts and the library's never go backwards (%d backwards steps)",
         backwards);
  return tap_done();
}
