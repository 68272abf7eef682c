/* SPDX-License-Identifier: MIT */
/* rng.h - the pseudo-random generator: Marsaglia's xorshift on 64 bits
 * (shifts 13, 7, 17; "Xorshift RNGs", J. Stat. Softw. 8(14), 2003), for
 * draws that must differ from one run to the next and need nothing more:
 * cpucycles-compare's layouts (an environment's padding, a stack offset,
 * a code offset, an entry address) and the order of each pair of
 * cpucycles_bench_compare()'s runs (src/bench/compare.c).  Its period is 2^64 - 1; a state of
 * 0 stays 0, so a seed must not be 0. */
#ifndef CPUCYCLES_RNG_H
#define CPUCYCLES_RNG_H

/* Steps *state and returns the new state, which is the number drawn. */
static inline unsigned long long cpucycles_xorshift(unsigned long long *state)
{
  unsigned long long x = *state;
  x ^= x << 13, x ^= x >> 7, x ^= x << 17;
  return *state = x;
}

#endif
