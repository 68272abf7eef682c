/* SPDX-License-Identifier: MIT */
/* probes/choose.c - configure's choice among the probed counters, made by
 * the library's own rule (cpucycles_choose in src/core/measure.c).
 *
 * Reads standard input, one line per counter in the table's order:
 *   NAME PRECISION     (available)
 *   NAME no            (not available)
 * and prints the chosen NAME.  Standard input and output only, so that a
 * probe runner may run it elsewhere (an emulator, a board over ssh). */
#include "measure.c"
#include "guard.c"
#include <stdio.h>
#include <string.h>

int main(void)
{
  static char names[CPUCYCLES_MAX_COUNTERS][64];
  struct cpucycles_result results[CPUCYCLES_MAX_COUNTERS];
  char precision[32];
  int n = 0;

  while (n < CPUCYCLES_MAX_COUNTERS && scanf("%63s %31s", names[n], precision) == 2) {
    memset(&results[n], 0, sizeof results[n]);
    results[n].available = strcmp(precision, "no") != 0;
    if (results[n].available && sscanf(precision, "%lld", &results[n].precision) != 1) return 3;
    n++;
  }
  if (n == 0) return 4;
  /* more counters than fit: fail (configure says so) rather than drop some */
  if (n == CPUCYCLES_MAX_COUNTERS && scanf("%63s", names[0]) == 1) return 5;
  printf("%s\n", names[cpucycles_choose(results, n)]);
  return fflush(stdout) != 0;
}
