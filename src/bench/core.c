/* SPDX-License-Identifier: MIT */
/* core.c - see core.h. */
#include "core.h"
#include "private.h"
#include <stddef.h>

/* Weak: libcpucycles' own library has none of these (a reference left
 * unresolved by it is 0, not a loader error). */
#pragma weak cpucycles_private
#pragma weak cpucycles_unit
#pragma weak cpucycles_unit_name

#define UNKNOWN "unknown (the counter library is not cpucycles')"

/* The private interface, when the library has one the harness knows:
 * fields are only added at its end, so a larger one will do. */
static const struct cpucycles_private *core(void)
{
  const struct cpucycles_private *p;
  if (!cpucycles_private) return 0;
  p = cpucycles_private();
  if (!p || p->interface != CPUCYCLES_PRIVATE_INTERFACE || p->size < sizeof *p) return 0;
  return p;
}

int cpucycles_bench_core_known(void) { return core() != 0; }

int cpucycles_bench_core_unit(void) { return core() && cpucycles_unit ? cpucycles_unit() : -1; }

const char *cpucycles_bench_core_unit_name(void)
{
  return core() && cpucycles_unit_name ? cpucycles_unit_name() : "unknown";
}

const char *cpucycles_bench_core_persecond_source(void)
{
  return core() ? core()->persecond_source() : UNKNOWN;
}

const char *cpucycles_bench_core_host(void) { return core() ? core()->host_fingerprint() : UNKNOWN; }

int cpucycles_bench_core_guarded_call(void (*fn)(void *), void *arg)
{
  return core() ? core()->guarded_call(0, fn, arg) : -1;
}
