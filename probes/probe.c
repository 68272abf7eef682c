/* probes/probe.c - configure's probe of one counter.
 *
 * configure (m4/cpucycles_probe.m4) compiles this with
 *   CPUCYCLES_PROBE_HEADER  "cpucycles/NAME.h"
 *   CPUCYCLES_PROBE_ID      NAME with '-' as '_'
 *   CPUCYCLES_PROBE_UID     the same in capitals
 * and runs it.  It measures the counter with the library's own measuring
 * code (src/measure.c) and prints one line (standard output only, so that
 * a probe runner may run it elsewhere, e.g. on a board over ssh) with
 * every fact configure records about the counter:
 *   yes precision=P hz=H kind=K nominal=N scale=C persecond=S penalty=Y scaled=B inline=B kindname=NAME
 *   no REASON
 * P: precision in cycles, penalty included; H: ticks per second, timed
 * against CLOCK_MONOTONIC; K: its kind (enum cpucycles_kind); N: the rate
 * a scaled counter claims (else 0); C: cycles per tick; S: the CPU
 * frequency estimate it was scaled by; Y: the kind's penalty in cycles;
 * scaled: 1 when the kind is scaled to cycles; inline: 0 when the counter
 * file defines CPUCYCLES_<ID>_LIBRARY_READ (cpucycles() cannot inline its
 * read); NAME: the kind for people (cpucycles_kind_name), last because it
 * may hold spaces.
 * The library is not built yet, so its few sources are included whole. */
#define CPUCYCLES_COUNTER_SETUP 1
#define CPUCYCLES_STATE_STORAGE /* this program owns the counter's state */
#include CPUCYCLES_PROBE_HEADER
#include "measure.c"
#include "guard.c"
#include "persecond.c"
#include <stdio.h>
#include <stdlib.h>

#define PROBE_PASTE3(a, b, c) a##b##c
#define PROBE_FN(id, what) PROBE_PASTE3(cpucycles_, id, what)
/* CPUCYCLES_<ID>_LIBRARY_READ, which is 1 when the file defines it and,
 * as an undefined name in #if, 0 when it does not. */
#define PROBE_LIBRARY_READ(uid) PROBE_PASTE3(CPUCYCLES_, uid, _LIBRARY_READ)
#if PROBE_LIBRARY_READ(CPUCYCLES_PROBE_UID)
#define PROBE_INLINE 0
#else
#define PROBE_INLINE 1
#endif

int main(void)
{
  struct cpucycles_counter c;
  struct cpucycles_result r;
  struct cpucycles_persecond_report report;
  long long persecond;
  FILE *out = stdout;

  c.name = "probe";
  c.kind = PROBE_FN(CPUCYCLES_PROBE_ID, _kind);
  c.setup = PROBE_FN(CPUCYCLES_PROBE_ID, _setup);
  c.read = PROBE_FN(CPUCYCLES_PROBE_ID, _read);
  persecond = cpucycles_persecond_resolve("/etc/cpucyclespersecond", getenv("cpucyclespersecond"),
                                          0, &report);
  if (cpucycles_measure(&c, persecond, 1, &r))
    fprintf(out,
            "yes precision=%lld hz=%.0f kind=%d nominal=%.0f scale=%.17g persecond=%lld "
            "penalty=%lld scaled=%d inline=%d kindname=%s\n",
            r.precision, r.measured_hz, c.kind, r.nominal_hz, r.scale, persecond,
            cpucycles_kind_penalty(c.kind), cpucycles_kind_scaled(c.kind), PROBE_INLINE,
            cpucycles_kind_name(c.kind));
  else
    fprintf(out, "no %s\n", r.reason);
  if (report.problems[0]) fprintf(stderr, "probe: ignored %s\n", report.problems);
  return fflush(out) != 0;
}
