/* SPDX-License-Identifier: MIT */
/* tickrate.h - setup-time helpers for the scaled counters (ppc32-mftb,
 * ppc64-mftb, riscv64-rdtime, loong64-rdtime) to find the rate their clock
 * ticks at: from what the OS says (such as a "key : number" line of
 * /proc/cpuinfo), or, when it does not say, by timing the counter against
 * CLOCK_MONOTONIC.
 *
 * A timed rate is only as good as its window of CLOCK_MONOTONIC (a few
 * 1e-4 over 10 ms on a busy machine); the selection times a scaled counter
 * three more times to check its rate (cpucycles_scale_for in measure.c). */
#ifndef CPUCYCLES_TICKRATE_H
#define CPUCYCLES_TICKRATE_H
#include "cpucycles/counter.h"
#if defined(CPUCYCLES_COUNTER_SETUP)
#include "readfile.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The rate a "key<spaces or tabs>: number" line of /proc/cpuinfo states,
 * or 0 for another line or an implausible rate (below 1 kHz or above
 * 100 GHz, where the scale to cycles would be absurd). */
CPUCYCLES_COLD static inline double cpucycles_tickrate_cpuinfo_line(const char *line,
                                                                    const char *key)
{
  const char *text = cpucycles_cpuinfo_value(line, key), *end;
  double value;
  if (!text) return 0;
  value = cpucycles_parse_decimal(text, &end);
  return value >= 1e3 && value <= 1e11 ? value : 0;
}

struct cpucycles_tickrate_search {
  const char *key;
  double value;
};

CPUCYCLES_COLD static inline int cpucycles_tickrate_found(void *ctx, const char *line, size_t len)
{
  struct cpucycles_tickrate_search *s = (struct cpucycles_tickrate_search *)ctx;
  (void)len;
  s->value = cpucycles_tickrate_cpuinfo_line(line, s->key);
  return s->value > 0;
}

/* The number of the first "key : number" line of /proc/cpuinfo with a
 * plausible rate, or 0.  Read with open/read (readfile.h), lines cut at
 * 511 bytes: the lines sought are short. */
CPUCYCLES_COLD static inline double cpucycles_tickrate_cpuinfo(const char *key)
{
  char buf[512];
  struct cpucycles_tickrate_search s;
  s.key = key;
  s.value = 0;
  cpucycles_readfile_lines("/proc/cpuinfo", buf, sizeof buf, cpucycles_tickrate_found, &s);
  return s.value;
}

#if defined(CLOCK_MONOTONIC)
/* The counter read between two CLOCK_MONOTONIC reads, the tightest of five
 * tries: a try that was interrupted (preempted, or a page fault) has a wide
 * bracket and is dropped.  Sets *ns to the bracket's middle; returns 0, or
 * -1 without a clock. */
CPUCYCLES_COLD static inline int cpucycles_tickrate_sample(long long (*read)(void), long long *ns,
                                                           long long *ticks)
{
  struct timespec a, b;
  long long width, best = -1, t;
  int i;
  *ns = *ticks = 0;
  for (i = 0; i < 5; i++) {
    if (clock_gettime(CLOCK_MONOTONIC, &a) != 0) return -1;
    t = read();
    if (clock_gettime(CLOCK_MONOTONIC, &b) != 0) return -1;
    width = (long long)(b.tv_sec - a.tv_sec) * 1000000000LL + (b.tv_nsec - a.tv_nsec);
    if (best < 0 || width < best) {
      best = width;
      *ticks = t;
      *ns = (long long)a.tv_sec * 1000000000LL + a.tv_nsec + width / 2;
    }
  }
  return 0;
}
#endif

/* Ticks per second of read(), timed over window_ns of CLOCK_MONOTONIC, or
 * 0 when there is no such clock or the counter did not move.  Good to a
 * few parts in 10^5 natively and 10^4 on a busy machine or an emulator
 * (the brackets' width over 10 ms). */
CPUCYCLES_COLD static inline double cpucycles_tickrate_measure_over(long long (*read)(void),
                                                                    long long window_ns)
{
#if defined(CLOCK_MONOTONIC)
  long long ns0 = 0, ns1 = 0, ticks0 = 0, ticks1 = 0, now = 0, t;
  if (cpucycles_tickrate_sample(read, &ns0, &ticks0) != 0) return 0;
  do {
    if (cpucycles_tickrate_sample(read, &now, &t) != 0) return 0;
  } while (now - ns0 < window_ns);
  if (cpucycles_tickrate_sample(read, &ns1, &ticks1) != 0) return 0;
  if (ticks1 <= ticks0 || ns1 <= ns0) return 0;
  return (double)(ticks1 - ticks0) * 1e9 / (double)(ns1 - ns0);
#else
  (void)read;
  (void)window_ns;
  return 0;
#endif
}

/* The same over 10 ms. */
CPUCYCLES_COLD static inline double cpucycles_tickrate_measure(long long (*read)(void))
{
  return cpucycles_tickrate_measure_over(read, 10000000LL);
}

/* The whole setup of a scaled counter whose rate the OS may state: uses
 * os_hz when it is known (> 0), else times the counter.  Returns 0, or -1
 * with s->reason set when neither gives a rate. */
CPUCYCLES_COLD static inline int cpucycles_tickrate_setup(struct cpucycles_setup *s, double os_hz,
                                                          long long (*read)(void))
{
  s->rate_timed = os_hz <= 0;
  s->nominal_hz = os_hz > 0 ? os_hz : cpucycles_tickrate_measure(read);
  if (s->nominal_hz > 0) return 0;
  s->reason = "tick rate unknown: the OS does not state it, "
              "and the counter did not move against CLOCK_MONOTONIC";
  return -1;
}
#endif /* CPUCYCLES_COUNTER_SETUP */
#endif
