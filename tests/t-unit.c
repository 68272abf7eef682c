/* SPDX-License-Identifier: MIT */
/* t-unit - cpucycles_unit() says what the counts of the counter in use
 * here are: the unit of its kind (t-rule pins each kind's unit), and a
 * name for each unit. */
#include "cpucycles.h"
#include "decide.h"
#include "table.h"
#include "tap.h"
#include <string.h>

int main(void)
{
  int kind_here, unit;
  const char *names[4] = {"none", "core cycles", "constant-rate cycles", "OS clock cycles"};
  tap_plan(2);
  kind_here = cpucycles_table[cpucycles_decision()->index].kind;
  unit = cpucycles_unit();
  tap_ok(unit == cpucycles_unit_of_kind(kind_here) && unit != CPUCYCLES_UNIT_NONE,
         "here %s (%s) counts %s", cpucycles_implementation(), cpucycles_kind_name(kind_here),
         cpucycles_unit_name());
  tap_ok(unit >= 0 && unit < 4 && !strcmp(cpucycles_unit_name(), names[unit]),
         "its name is the unit's: %s", cpucycles_unit_name());
  return tap_done();
}
