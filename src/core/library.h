/* SPDX-License-Identifier: MIT */
/* library.h - what cpucycles.c (the public functions and the first call)
 * offers the rest of the library, cpucycles-info and the tests. */
#ifndef CPUCYCLES_LIBRARY_H
#define CPUCYCLES_LIBRARY_H
#include "hidden.h"
CPUCYCLES_HIDDEN_BEGIN

struct cpucycles_decision;
struct cpucycles_plan;

/* The process's decision, made on first use, with its persecond. */
const struct cpucycles_decision *cpucycles_decision(void);

/* The plan compiled into the library from cpucycles-config.h. */
void cpucycles_build_plan(struct cpucycles_plan *plan);

/* What counts of a counter of this kind (enum cpucycles_kind) are, as
 * cpucycles_unit() says it (CPUCYCLES_UNIT_*). */
int cpucycles_unit_of_kind(int kind);

/* cpucycles_tracesetup() (upstream.c) before the decision arms its
 * printer, and the thread that makes the decision calls it once the
 * decision is published: cpucycles_trace_arm() is 1 when it armed it (or
 * the decision's thread has it), 0 when the caller prints now.  (The
 * printer is given, not named: the first call's code depends on nothing
 * above it.) */
int cpucycles_trace_arm(void (*print)(void));

CPUCYCLES_HIDDEN_END
#endif
