/* SPDX-License-Identifier: MIT */
/* decide.h - the library's first-call decision: keep the counter configure
 * chose (inline path), or choose again among the compiled counters.
 * Internal (hidden.h): cpucycles-info reaches it through info-abi.h, the
 * tests by linking the objects. */
#ifndef CPUCYCLES_DECIDE_H
#define CPUCYCLES_DECIDE_H
#include "fingerprint.h"
#include "persecond.h"
#include "measure.h"
#include "hidden.h"
CPUCYCLES_HIDDEN_BEGIN

/* What the build decided (from cpucycles-config.h). */
struct cpucycles_plan {
  int build_counter;             /* table index of configure's counter, or -1 */
  long long build_precision;     /* its precision on the build host, 0 unknown */
  double build_scale;            /* its cycles per tick on the build host */
  const char *build_fingerprint;
  long long build_persecond;     /* 0 unknown */
  int build_inline;              /* cpucycles() inlines that counter's read
                                    (not --disable-inline, not a counter only
                                    the library can read) */
};

struct cpucycles_decision {
  int build_verified;            /* the build's counter is used (inline,
                                    where the plan inlines it) */
  int index;                     /* table index of the counter in use */
  double scale;                  /* cycles per tick of that counter */
  char why[200];                 /* the verdict, for people */
  char host_fingerprint[CPUCYCLES_FINGERPRINT_MAX];
  int host_matches;              /* host fingerprint == build fingerprint */
  int persecond_resolved;        /* persecond and its report are filled */
  long long persecond;
  struct cpucycles_persecond_report persecond_report;
  struct cpucycles_result build_check; /* the recheck of the build's counter */
  int reselected;                /* results[] below are filled */
  struct cpucycles_result results[CPUCYCLES_MAX_COUNTERS];
};

/* Decides for table[0..n-1] under plan.  etc_path and env_name are the
 * persecond overrides' file and variable (normally
 * "/etc/cpucyclespersecond" and "cpucyclespersecond"; NULL: none), read
 * only when the frequency is needed (the verified path of a bare TSC or
 * cycle register reads neither: a getenv() may run libc code the program
 * has not run yet, a page fault).  Never fails. */
void cpucycles_decide(const struct cpucycles_counter *table, int n,
                      const struct cpucycles_plan *plan, const char *etc_path,
                      const char *env_name, struct cpucycles_decision *d);

/* Fills d->persecond and its report, once (cpucycles_decide leaves them
 * for later when the verified counter does not need them). */
void cpucycles_decide_persecond(const struct cpucycles_plan *plan, const char *etc_path,
                                const char *env_name, struct cpucycles_decision *d);
CPUCYCLES_HIDDEN_END

/* The process's decision and the build's plan live in cpucycles.c. */
#include "library.h"

#endif
