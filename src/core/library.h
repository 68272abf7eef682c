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

/* cpucycles_tracesetup() (upstream.c) before the decision arms it, and the
 * thread that makes the decision prints the lines once it is published:
 * cpucycles_trace_arm() is 1 when it armed them (or the decision's thread
 * has them), 0 when the caller prints them now; cpucycles_trace_print()
 * prints them. */
int cpucycles_trace_arm(void);
void cpucycles_trace_print(void);

CPUCYCLES_HIDDEN_END
#endif
