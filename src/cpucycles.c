/* cpucycles.c - the public functions and the first-call decision.
 *
 * The first call to cpucycles() (or any function here) runs the decision
 * once, under pthread_once, so callers need no lock around it.  After it:
 *   - verified: cpucycles_fixed_verified is 1 and the inline read in
 *     <cpucycles.h> is used; this library is not called again;
 *   - not verified: every cpucycles() calls cpucycles_slow(), which reads
 *     the counter chosen at run time through the table. */
#include "cpucycles.h"
#include "decide.h"
#include "table.h"
#include <pthread.h>
#include <stdlib.h>

int cpucycles_fixed_verified;

static struct cpucycles_decision decision;
static pthread_once_t decision_once = PTHREAD_ONCE_INIT;
static long long (*dispatch_read)(void);
static unsigned long long dispatch_scale_q32;
static int dispatch_scaled;

void cpucycles_build_plan(struct cpucycles_plan *plan)
{
  plan->fixed = CPUCYCLES_FIXED ? cpucycles_table_find(CPUCYCLES_CHOSEN) : -1;
  plan->fixed_precision = CPUCYCLES_FIXED_PRECISION;
  plan->fixed_scale = CPUCYCLES_FIXED_SCALE;
  plan->build_fingerprint = CPUCYCLES_BUILD_FINGERPRINT;
  plan->build_persecond = CPUCYCLES_BUILD_PERSECOND;
}

static void decide_once(void)
{
  struct cpucycles_plan plan;
  cpucycles_build_plan(&plan);
  cpucycles_decide(cpucycles_table, cpucycles_table_size, &plan, "/etc/cpucyclespersecond",
                   getenv("cpucyclespersecond"), &decision);
  dispatch_read = cpucycles_table[decision.index].read;
  dispatch_scale_q32 = CPUCYCLES_SCALE_Q32(decision.scale);
  dispatch_scaled = decision.scale != 1;
  if (decision.fixed_ok) __atomic_store_n(&cpucycles_fixed_verified, 1, __ATOMIC_RELEASE);
}

const struct cpucycles_decision *cpucycles_decision(void)
{
  pthread_once(&decision_once, decide_once);
  return &decision;
}

long long cpucycles_slow(void)
{
  long long ticks;
  pthread_once(&decision_once, decide_once);
  ticks = dispatch_read();
  if (dispatch_scaled) return cpucycles_scale_ticks(ticks, dispatch_scale_q32);
  return ticks;
}

long long cpucycles_function(void)
{
  return cpucycles();
}

long long cpucycles_persecond(void)
{
  return cpucycles_decision()->persecond;
}

const char *cpucycles_implementation(void)
{
  return cpucycles_table[cpucycles_decision()->index].name;
}

const char *cpucycles_version(void)
{
  return CPUCYCLES_VERSION;
}
