/* SPDX-License-Identifier: MIT */
/* default-zero: always 0.  Chosen only when no other counter works, so that
 * cpucycles() still returns instead of crashing ("failure is not allowed"). */
#ifndef CPUCYCLES_DEFAULT_ZERO_H
#define CPUCYCLES_DEFAULT_ZERO_H
#include "counter.h"
#define CPUCYCLES_HAVE_DEFAULT_ZERO 1

enum { cpucycles_default_zero_kind = CPUCYCLES_KIND_NONE };

CPUCYCLES_ALWAYS_INLINE long long cpucycles_default_zero_read(void) { return 0; }

#if defined(CPUCYCLES_COUNTER_SETUP)
/* reading 0 cannot fail */
CPUCYCLES_SETUP_NOTHING(default_zero)
#endif
#endif
