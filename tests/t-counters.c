/* t-counters - every counter compiled into the library, re-validated on the
 * machine the tests run on: when it works, 1000 reads never decrease and
 * increase, and its precision is sane; when it does not, SKIP with why. */
#include "decide.h"
#include "table.h"
#include "tap.h"
#include "cpucycles.h"

int main(void)
{
  int i;
  long long persecond = cpucycles_persecond();
  tap_plan(cpucycles_table_size);
  for (i = 0; i < cpucycles_table_size; i++) {
    const struct cpucycles_counter *c = &cpucycles_table[i];
    struct cpucycles_result r;
    if (c->kind == CPUCYCLES_KIND_NONE) {
      tap_ok(c->read() == 0 && c->read() == 0, "%s always reads 0", c->name);
      continue;
    }
    if (!cpucycles_measure(c, persecond, 1, &r)) {
      char what[64];
      snprintf(what, sizeof what, "%s works", c->name);
      tap_skip(what, r.reason);
      continue;
    }
    tap_diag("%s: precision %lld, %.0f ticks/s, scale %g", c->name, r.precision, r.measured_hz,
             r.scale);
    tap_ok(r.precision > 0 && r.precision < 100000 && r.measured_hz > 0,
           "%s never decreases, increases, precision %lld is sane", c->name, r.precision);
  }
  return tap_done();
}
