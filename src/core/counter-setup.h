/* SPDX-License-Identifier: MIT */
/* counter-setup.h - the one definition of CPUCYCLES_COUNTER_SETUP.  The
 * counter files (include/cpucycles/) keep their setup code (rate timing,
 * reading /proc and /sys, perf_event_open) behind it, so that a program
 * that inlines a read through <cpucycles.h> compiles none of it.  The
 * library, its probes, tools and tests include this first to get it. */
#ifndef CPUCYCLES_COUNTER_SETUP_H
#define CPUCYCLES_COUNTER_SETUP_H
#ifndef CPUCYCLES_COUNTER_SETUP
#define CPUCYCLES_COUNTER_SETUP 1
#endif
#endif
