/* t-verify - on the build host the first call verifies configure's counter
 * and switches the inline path on; cpucycles() then counts with it. */
#include "cpucycles.h"
#include "decide.h"
#include "tap.h"
#include <string.h>

int main(void)
{
  long long a, b;
  const struct cpucycles_decision *d;

  tap_plan(5);
  tap_ok(cpucycles_fixed_verified == 0, "nothing is verified before the first call");
  a = cpucycles();
  b = cpucycles();
  d = cpucycles_decision();
  tap_diag("verdict: %s", d->why);
  tap_ok(b >= a, "two calls do not go backwards (%lld then %lld)", a, b);
  if (!CPUCYCLES_FIXED) {
    tap_skip("the inline path is verified", "built without a fixed counter");
    tap_skip("the implementation is configure's choice", "built without a fixed counter");
    tap_skip("no full selection was run on the build host", "built without a fixed counter");
    return tap_done();
  }
  if (!d->host_matches) {
    tap_ok(cpucycles_fixed_verified == 0, "not the build host: the inline path stays off");
    tap_skip("the implementation is configure's choice", "not the build host");
    tap_skip("no full selection was run on the build host", "not the build host");
    return tap_done();
  }
  tap_ok(cpucycles_fixed_verified == 1 && d->fixed_ok, "the inline path is verified");
  tap_ok(strcmp(cpucycles_implementation(), CPUCYCLES_CHOSEN) == 0,
         "the implementation is configure's choice (%s)", cpucycles_implementation());
  tap_ok(!d->reselected, "no full selection was run on the build host");
  return tap_done();
}
