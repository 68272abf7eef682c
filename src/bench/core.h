/* SPDX-License-Identifier: MIT */
/* core.h - what the harness knows of the counter library under it
 * (core.c): its public API, and where the harness must know more,
 * cpucycles_private() (src/private.h).  On libcpucycles' own library
 * (djb's, the same soname) that is absent, and so is cpucycles_unit():
 * the answers then say "unknown", and the results carry
 * CPUCYCLES_BENCH_OTHER_LIBRARY. */
#ifndef CPUCYCLES_BENCH_CORE_H
#define CPUCYCLES_BENCH_CORE_H

/* 1 when the counter library is cpucycles' own, of an interface the
 * harness knows. */
int cpucycles_bench_core_known(void);

/* cpucycles_unit() and cpucycles_unit_name(), or -1 and "unknown" when
 * the library cannot say. */
int cpucycles_bench_core_unit(void);
const char *cpucycles_bench_core_unit_name(void);

/* Where cpucycles_persecond() came from, and this host's fingerprint:
 * "unknown (...)" when the library cannot say. */
const char *cpucycles_bench_core_persecond_source(void);
const char *cpucycles_bench_core_host(void);

/* fn(arg), surviving the fault it raises (the core's guard): 0, the
 * signal, or -1 without calling it (no guard here). */
int cpucycles_bench_core_guarded_call(void (*fn)(void *), void *arg);

#endif
