/* SPDX-License-Identifier: MIT */
/* foreign-scale.c - part of t-foreign: a program built against a build
 * that inlined this library's very counter, but with another scale (the
 * same counter name, measured elsewhere).  The real configuration gives
 * the id; the scale is made different. */
#include "cpucycles-config.h"
#undef CPUCYCLES_INLINE_SCALED
#undef CPUCYCLES_INLINE_SCALE
#define CPUCYCLES_INLINE_SCALED 1
#define CPUCYCLES_INLINE_SCALE 1.75
#include "cpucycles.h"

long long foreign_scale_read(void);
int foreign_scale_inlines(void);

long long foreign_scale_read(void) { return cpucycles(); }

/* 1 when this build would inline its read now */
int foreign_scale_inlines(void)
{
#if defined(CPUCYCLES_INLINE_READ)
  return CPUCYCLES_INLINE_VERIFIED();
#else
  return 0;
#endif
}
