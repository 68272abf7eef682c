/* cpucycles-info - what cpucycles knows about this machine's counters:
 * the build host's table, whether this host is the build host, the
 * run-time verdict, the frequency and its source, and a few back-to-back
 * readings of the counter in use. */
#include "cpucycles.h"
#include "decide.h"
#include "table.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DELTAS 1000
#define DELTAS_SHOWN 16

static int compare_ll(const void *a, const void *b)
{
  long long x = *(const long long *)a, y = *(const long long *)b;
  return (x > y) - (x < y);
}

static void print_result(const char *name, const struct cpucycles_result *r, int kind)
{
  if (r->available)
    printf("  %-26s yes  precision %lld, %s\n", name, r->precision, cpucycles_kind_name(kind));
  else
    printf("  %-26s no   (%s)\n", name, r->reason ? r->reason : "unavailable");
}

static void print_build_table(void)
{
#define X(name, available, precision, hz, kind, reason)                                  \
  if ((available) == 1)                                                                  \
    printf("  %-26s yes  precision %d, %.0f MHz, %s\n", name, precision, (hz) / 1e6,     \
           cpucycles_kind_name(kind));                                                   \
  else                                                                                   \
    printf("  %-26s %s  (%s)\n", name, (available) == 0 ? "no " : "?  ", reason);
  CPUCYCLES_BUILD_COUNTERS(X)
#undef X
}

/* How cpucycles() reads the build's counter once it is verified. */
static const char *build_path(void)
{
  if (!CPUCYCLES_FIXED) return ", not inlined (run-time choice)";
#if defined(CPUCYCLES_FIXED_READ)
  return ", inlined in cpucycles()";
#else
  return ", read through the library (a 32-bit counter extended to 64 bits, per-thread perf events, "
         "state only the library has, or a counter configure could not probe)";
#endif
}

int main(void)
{
  const struct cpucycles_decision *d = cpucycles_decision();
  long long t[DELTAS + 1], deltas[DELTAS];
  int i;

  printf("cpucycles version %s\n", cpucycles_version());
  printf("cpucycles build counters (measured by configure on the build host):\n");
  print_build_table();
  if (CPUCYCLES_CHOSEN[0])
    printf("cpucycles build chose %s%s\n", CPUCYCLES_CHOSEN, build_path());
  else
    printf("cpucycles build chose nothing: no probe could run (the choice is made at run time)\n");
  printf("cpucycles build fingerprint: %s\n", CPUCYCLES_BUILD_FINGERPRINT);
  printf("cpucycles host fingerprint:  %s (%s)\n", d->host_fingerprint,
         d->host_matches ? "matches the build host" : "differs from the build host");
  printf("cpucycles verdict: %s\n", d->why);
  if (d->reselected) {
    printf("cpucycles run-time counters (measured now):\n");
    for (i = 0; i < cpucycles_table_size && i < CPUCYCLES_MAX_COUNTERS; i++)
      print_result(cpucycles_table[i].name, &d->results[i], cpucycles_table[i].kind);
  }
  printf("cpucycles implementation: %s\n", cpucycles_implementation());
  printf("cpucycles persecond: %lld (from %s)\n", cpucycles_persecond(),
         d->persecond_report.source);
  if (d->persecond_report.problems[0])
    printf("cpucycles persecond ignored: %s\n", d->persecond_report.problems);

  for (i = 0; i <= DELTAS; i++) t[i] = cpucycles();
  for (i = 0; i < DELTAS; i++) deltas[i] = t[i + 1] - t[i];
  printf("cpucycles deltas:");
  for (i = 0; i < DELTAS_SHOWN; i++) printf(" %lld", deltas[i]);
  qsort(deltas, DELTAS, sizeof deltas[0], compare_ll);
  printf(" ... median %lld of %d\n", deltas[DELTAS / 2], DELTAS);
  /* a full disk or a closed pipe must not look like success to a script */
  if (fflush(stdout) != 0 || ferror(stdout)) {
    fprintf(stderr, "cpucycles-info: cannot write the output: %s\n", strerror(errno));
    return 1;
  }
  return 0;
}
