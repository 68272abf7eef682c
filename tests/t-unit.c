/* SPDX-License-Identifier: MIT */
/* t-unit - cpucycles_unit() says what the counts are: every counter kind
 * maps to its unit, and the counter in use here gives the unit of its
 * kind, with a name. */
#include "cpucycles.h"
#include "decide.h"
#include "table.h"
#include "tap.h"
#include <string.h>

int main(void)
{
  int kind_here;
  tap_plan(4);
  tap_ok(cpucycles_unit_of_kind(CPUCYCLES_KIND_ONCORE) == CPUCYCLES_UNIT_CORE_CYCLES &&
             cpucycles_unit_of_kind(CPUCYCLES_KIND_SYSCALL) == CPUCYCLES_UNIT_CORE_CYCLES,
         "on-core counters and the kernel's perf count are core cycles");
  tap_ok(cpucycles_unit_of_kind(CPUCYCLES_KIND_OFFCORE) == CPUCYCLES_UNIT_CONSTANT_RATE &&
             cpucycles_unit_of_kind(CPUCYCLES_KIND_SCALED) == CPUCYCLES_UNIT_CONSTANT_RATE,
         "the TSC and scaled timers are constant-rate cycles");
  tap_ok(cpucycles_unit_of_kind(CPUCYCLES_KIND_OSCLOCK) == CPUCYCLES_UNIT_OS_CLOCK &&
             cpucycles_unit_of_kind(CPUCYCLES_KIND_NONE) == CPUCYCLES_UNIT_NONE,
         "OS clocks are OS clock cycles, default-zero none");
  kind_here = cpucycles_table[cpucycles_decision()->index].kind;
  tap_ok(cpucycles_unit() == cpucycles_unit_of_kind(kind_here) && strlen(cpucycles_unit_name()) > 0 &&
             strcmp(cpucycles_unit_name(), "none") != 0,
         "here %s counts %s", cpucycles_implementation(), cpucycles_unit_name());
  return tap_done();
}
