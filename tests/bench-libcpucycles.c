/* SPDX-License-Identifier: MIT */
/* bench-libcpucycles.c - the peer "libcpucycles' read with a median" for
 * bench-compare: a program written for libcpucycles reads through the
 * data symbol cpucycles (a function pointer), which this library exports
 * for such programs (src/upstream.c).  A file of its own, because this
 * project's <cpucycles.h> names an inline function cpucycles. */

extern long long (*cpucycles)(void);

/* n runs of fn(arg), each between two reads: their differences in d. */
void bench_libcpucycles_deltas(void (*fn)(void *), void *arg, long long *d, int n)
{
  long long t0, t1;
  int i;
  for (i = 0; i < n; i++) {
    t0 = cpucycles();
    fn(arg);
    t1 = cpucycles();
    d[i] = t1 - t0;
  }
}
