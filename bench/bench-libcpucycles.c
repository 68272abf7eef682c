/* SPDX-License-Identifier: MIT */
/* bench-libcpucycles.c - the peer "libcpucycles' read with a median" for
 * bench-compare: a program written for libcpucycles reads through the
 * data symbol cpucycles (a function pointer), which this library exports
 * for such programs (src/core/upstream.c).  A file of its own, because this
 * project's <cpucycles.h> names an inline function cpucycles. */

#include "bench-deltas.h"

extern long long (*cpucycles)(void);

void bench_libcpucycles_deltas(void (*fn)(void *), void *arg, long long *d, int n);
BENCH_DEFINE_DELTAS(bench_libcpucycles_deltas)
