/* bench - what a read costs, as ratios against the bare counter
 * instruction timed in the same run (the machine is shared and noisy, so
 * only same-run ratios mean anything).  Not a test: `make bench` runs it.
 *
 *   first call        the one-time verification, in microseconds
 *   cpucycles()       the inline path, per call, / the bare read
 *   cpucycles_function()  the out-of-line entry, / the bare read */
#include "cpucycles.h"
#include "cpucycles/default-monotonic.h"
#include <stdio.h>

#define CALLS 2000000
#define ROUNDS 7

static volatile long long sink;

#if defined(CPUCYCLES_FIXED_READ)
static long long bare(void) { return CPUCYCLES_FIXED_READ(); }
#endif

/* Nanoseconds per call of f, best of ROUNDS: the least disturbed round. */
#define TIME_PER_CALL(expr, out)                                            \
  do {                                                                      \
    int round_, i_;                                                         \
    double best_ = 1e30;                                                    \
    for (round_ = 0; round_ < ROUNDS; round_++) {                           \
      long long t0_ = cpucycles_default_monotonic_read(), t1_;              \
      for (i_ = 0; i_ < CALLS; i_++) sink = (expr);                         \
      t1_ = cpucycles_default_monotonic_read();                             \
      if ((double)(t1_ - t0_) / CALLS < best_) best_ = (double)(t1_ - t0_) / CALLS; \
    }                                                                       \
    (out) = best_;                                                          \
  } while (0)

int main(void)
{
  long long t0 = cpucycles_default_monotonic_read();
  double inline_ns, function_ns;
  sink = cpucycles();
  printf("first call (verification): %.1f us, %s\n",
         (double)(cpucycles_default_monotonic_read() - t0) / 1e3, cpucycles_implementation());

  TIME_PER_CALL(cpucycles(), inline_ns);
  TIME_PER_CALL(cpucycles_function(), function_ns);
#if defined(CPUCYCLES_FIXED_READ)
  {
    double bare_ns;
    TIME_PER_CALL(bare(), bare_ns);
    printf("bare %s read:         %.2f ns  ratio 1.00\n", CPUCYCLES_CHOSEN, bare_ns);
    printf("cpucycles() inline:        %.2f ns  ratio %.2f\n", inline_ns, inline_ns / bare_ns);
    printf("cpucycles_function():      %.2f ns  ratio %.2f\n", function_ns, function_ns / bare_ns);
  }
#else
  printf("cpucycles() (no inline path in this build): %.2f ns\n", inline_ns);
  printf("cpucycles_function():      %.2f ns  ratio %.2f to cpucycles()\n", function_ns,
         function_ns / inline_ns);
#endif
  return 0;
}
