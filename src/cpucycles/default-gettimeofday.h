/* default-gettimeofday: gettimeofday(), in microseconds.  The portable
 * last clock before default-zero; scaled to cycles by persecond / 1e6. */
#ifndef CPUCYCLES_DEFAULT_GETTIMEOFDAY_H
#define CPUCYCLES_DEFAULT_GETTIMEOFDAY_H
#include "counter.h"
#include <stddef.h>
#include <sys/time.h>
#define CPUCYCLES_HAVE_DEFAULT_GETTIMEOFDAY 1

enum { cpucycles_default_gettimeofday_kind = CPUCYCLES_KIND_OSCLOCK };

static inline long long cpucycles_default_gettimeofday_read(void)
{
  struct timeval t;
  if (gettimeofday(&t, NULL) != 0) return 0;
  return (long long)t.tv_sec * 1000000LL + t.tv_usec;
}

#if defined(CPUCYCLES_COUNTER_SETUP)
static inline int cpucycles_default_gettimeofday_setup(struct cpucycles_setup *s)
{
  s->nominal_hz = 1e6;
  return 0;
}
#endif
#endif
