/* tickrate.h - setup-time helpers for the scaled counters (ppc32-mftb,
 * ppc64-mftb, riscv64-rdtime, loong64-rdtime) to find the rate their clock
 * ticks at: from what the OS says (such as a "key : number" line of
 * /proc/cpuinfo), or, when it does not say, by timing the counter against
 * CLOCK_MONOTONIC.
 *
 * A timed rate is only as good as 10 ms of CLOCK_MONOTONIC (about 1e-4),
 * which is plenty for the selection: a scaled counter is kept only when the
 * CPU frequency is within 1% of a multiple of its rate. */
#ifndef CPUCYCLES_TICKRATE_H
#define CPUCYCLES_TICKRATE_H
#include "counter.h"
#if defined(CPUCYCLES_COUNTER_SETUP)
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#define CPUCYCLES_HAVE_TICKRATE 1

/* The number after "key<spaces or tabs>:" in /proc/cpuinfo, or 0. */
static inline double cpucycles_tickrate_cpuinfo(const char *key)
{
  char line[256];
  double value = 0;
  size_t n = strlen(key);
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (!f) return 0;
  while (value <= 0 && fgets(line, sizeof line, f)) {
    const char *colon = strchr(line, ':');
    if (!colon || strncmp(line, key, n) != 0) continue;
    if (strspn(line + n, " \t") != (size_t)(colon - line) - n) continue;
    value = strtod(colon + 1, 0);
  }
  fclose(f);
  return value > 0 ? value : 0;
}

/* Ticks per second of read(), timed over 10 ms of CLOCK_MONOTONIC, or 0
 * when there is no such clock or the counter did not move. */
static inline double cpucycles_tickrate_measure(long long (*read)(void))
{
#if defined(CLOCK_MONOTONIC)
  struct timespec t0, t1;
  long long ticks0, ticks1, ns;
  if (clock_gettime(CLOCK_MONOTONIC, &t0) != 0) return 0;
  ticks0 = read();
  do {
    if (clock_gettime(CLOCK_MONOTONIC, &t1) != 0) return 0;
    ns = (long long)(t1.tv_sec - t0.tv_sec) * 1000000000LL + (t1.tv_nsec - t0.tv_nsec);
  } while (ns < 10000000LL);
  ticks1 = read();
  if (ticks1 <= ticks0) return 0;
  return (double)(ticks1 - ticks0) * 1e9 / (double)ns;
#else
  (void)read;
  return 0;
#endif
}
/* The whole setup of a scaled counter whose rate the OS may state: uses
 * os_hz when it is known (> 0), else times the counter.  Returns 0, or -1
 * with s->reason set when neither gives a rate. */
static inline int cpucycles_tickrate_setup(struct cpucycles_setup *s, double os_hz,
                                           long long (*read)(void))
{
  s->nominal_hz = os_hz > 0 ? os_hz : cpucycles_tickrate_measure(read);
  if (s->nominal_hz > 0) return 0;
  s->reason = "tick rate unknown: the OS does not state it, "
              "and the counter did not move against CLOCK_MONOTONIC";
  return -1;
}
#endif /* CPUCYCLES_COUNTER_SETUP */
#endif
