/* table.c - the counters compiled into the library.
 *
 * The order is configure.ac's order of CPUCYCLES_PROBE calls: a tie in
 * precision goes to the earlier counter, at configure time and at run time
 * alike (tests/t-choice checks the two orders agree).  Each counter file
 * compiles to nothing on other architectures, leaving its line out. */
#define CPUCYCLES_COUNTER_SETUP 1
#define CPUCYCLES_STATE_STORAGE /* the library owns the counters' state */
#include "cpucycles/amd64-pmc.h"
#include "cpucycles/amd64-perfpmc.h"
#include "cpucycles/amd64-tscp.h"
#include "cpucycles/amd64-tsc.h"
#include "cpucycles/default-perfevent.h"
#include "cpucycles/default-monotonic.h"
#include "cpucycles/default-gettimeofday.h"
#include "cpucycles/default-zero.h"
#include "table.h"
#include <string.h>

#define COUNTER(id, name) \
  {name, cpucycles_##id##_kind, cpucycles_##id##_setup, cpucycles_##id##_read},

const struct cpucycles_counter cpucycles_table[] = {
#ifdef CPUCYCLES_HAVE_AMD64_PMC
  COUNTER(amd64_pmc, "amd64-pmc")
#endif
#ifdef CPUCYCLES_HAVE_AMD64_PERFPMC
  COUNTER(amd64_perfpmc, "amd64-perfpmc")
#endif
#ifdef CPUCYCLES_HAVE_AMD64_TSCP
  COUNTER(amd64_tscp, "amd64-tscp")
#endif
#ifdef CPUCYCLES_HAVE_AMD64_TSC
  COUNTER(amd64_tsc, "amd64-tsc")
#endif
#ifdef CPUCYCLES_HAVE_DEFAULT_PERFEVENT
  COUNTER(default_perfevent, "default-perfevent")
#endif
#ifdef CPUCYCLES_HAVE_DEFAULT_MONOTONIC
  COUNTER(default_monotonic, "default-monotonic")
#endif
  COUNTER(default_gettimeofday, "default-gettimeofday")
  COUNTER(default_zero, "default-zero")
};

const int cpucycles_table_size = (int)(sizeof cpucycles_table / sizeof cpucycles_table[0]);

int cpucycles_table_find(const char *name)
{
  int i;
  for (i = 0; i < cpucycles_table_size; i++)
    if (strcmp(cpucycles_table[i].name, name) == 0) return i;
  return -1;
}
