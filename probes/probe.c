/* SPDX-License-Identifier: MIT */
/* probes/probe.c - configure's probe of counters.
 *
 * configure (m4/cpucycles_probe.m4) compiles this once for all the
 * counters of the target: its source includes their files, defines
 * PROBE_INLINE_<id> (0 when the file defines CPUCYCLES_<ID>_LIBRARY_READ,
 * else 1) for each and
 *   CPUCYCLES_PROBE_LIST(X)  X(id, "name") for each counter
 * and then includes this file.  It runs the program once per counter,
 * with the counter's name as the only argument, so that one counter's
 * crash takes no other down.  When that program does not compile, it
 * falls back to one program per counter, compiled with
 *   CPUCYCLES_PROBE_HEADER  "cpucycles/NAME.h"
 *   CPUCYCLES_PROBE_ID      NAME with '-' as '_'
 *   CPUCYCLES_PROBE_UID     the same in capitals
 * which probes that counter whatever the argument says.  It measures the counter with the library's own measuring
 * code (src/core/measure.c) and prints one line (standard output only, so that
 * a probe runner may run it elsewhere, e.g. on a board over ssh) with
 * every fact configure records about the counter:
 *   yes precision=P hz=H kind=K scale=C persecond=S scaled=B inline=B kindname=NAME
 *   no REASON
 * P: precision in cycles, penalty included; H: ticks per second, timed
 * against CLOCK_MONOTONIC; K: its kind (enum cpucycles_kind); C: cycles
 * per tick; S: the CPU frequency estimate it was scaled by (0 when that
 * was only the library's default, which measured nothing); scaled: 1
 * when the kind is scaled to cycles; inline: 0 when the counter file
 * defines CPUCYCLES_<ID>_LIBRARY_READ (cpucycles() cannot inline its
 * read); NAME: the kind for people (cpucycles_kind_name), last because it
 * may hold spaces.
 * The library is not built yet, so its few sources are included whole. */
#include "counter-setup.h"
#ifndef CPUCYCLES_STATE_STORAGE
#define CPUCYCLES_STATE_STORAGE /* this program owns the counters' state */
#endif
#ifdef CPUCYCLES_PROBE_HEADER
#include CPUCYCLES_PROBE_HEADER
#endif
#include "measure.c"
#include "guard.c"
#include "persecond.c"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROBE_PASTE3(a, b, c) a##b##c
#define PROBE_FN(id, what) PROBE_PASTE3(cpucycles_, id, what)

#ifdef CPUCYCLES_PROBE_HEADER
/* One counter: CPUCYCLES_<ID>_LIBRARY_READ, which is 1 when the file
 * defines it and, as an undefined name in #if, 0 when it does not. */
#define PROBE_LIBRARY_READ(uid) PROBE_PASTE3(CPUCYCLES_, uid, _LIBRARY_READ)
#if PROBE_LIBRARY_READ(CPUCYCLES_PROBE_UID)
#define PROBE_INLINE_ONE 0
#else
#define PROBE_INLINE_ONE 1
#endif
#define PROBE_INLINE(id) PROBE_INLINE_ONE
#define CPUCYCLES_PROBE_LIST(X) X(CPUCYCLES_PROBE_ID, 0)
#else
#define PROBE_INLINE(id) PROBE_INLINE_##id
#endif

struct probe_counter {
  const char *name; /* 0: the only counter, whatever the argument */
  int kind;
  int (*setup)(struct cpucycles_setup *);
  long long (*read)(void);
  int inline_read;
};

#define PROBE_ENTRY(id, name) \
  {name, PROBE_FN(id, _kind), PROBE_FN(id, _setup), PROBE_FN(id, _read), PROBE_INLINE(id)},
static const struct probe_counter probe_counters[] = {CPUCYCLES_PROBE_LIST(PROBE_ENTRY)};
#define PROBE_COUNT ((int)(sizeof probe_counters / sizeof probe_counters[0]))

int main(int argc, char **argv)
{
  struct cpucycles_counter c;
  struct cpucycles_result r;
  struct cpucycles_persecond_report report;
  long long persecond;
  const struct probe_counter *p = 0;
  FILE *out = stdout;
  int i;

  for (i = 0; i < PROBE_COUNT && !p; i++)
    if (!probe_counters[i].name || (argc > 1 && strcmp(probe_counters[i].name, argv[1]) == 0))
      p = &probe_counters[i];
  if (!p) {
    fprintf(stderr, "probe: no counter '%s' in this program\n", argc > 1 ? argv[1] : "");
    return 2;
  }
  c.name = "probe";
  c.kind = p->kind;
  c.faults = 0; /* every fault signal caught: configure trusts no counter file's list */
  c.release = 0;
  c.setup = p->setup;
  c.read = p->read;
  persecond = cpucycles_persecond_resolve("/etc/cpucyclespersecond", getenv("cpucyclespersecond"),
                                          0, &report);
  if (cpucycles_measure(&c, persecond, &r) && cpucycles_measure_rate(&c, &r))
    fprintf(out,
            "yes precision=%lld hz=%.0f kind=%d scale=%.17g persecond=%lld scaled=%d "
            "inline=%d kindname=%s\n",
            r.precision, r.measured_hz, c.kind, r.scale,
            /* the library's default is no measurement: record none, so that
             * the run-time chain does not call it configure's figure */
            strcmp(report.source, "default") == 0 ? 0LL : persecond,
            cpucycles_kind_scaled(c.kind), p->inline_read, cpucycles_kind_name(c.kind));
  else
    fprintf(out, "no %s\n", r.reason);
  if (report.problems[0]) fprintf(stderr, "probe: ignored %s\n", report.problems);
  return fflush(out) != 0;
}
