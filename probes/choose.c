/* probes/choose.c - configure's choice among the probed counters, made by
 * the library's own rule (cpucycles_choose in src/measure.c).
 *
 * Reads conftest.in, one line per counter in the table's order:
 *   NAME PRECISION     (available)
 *   NAME no            (not available)
 * and writes the chosen NAME to conftest.out. */
#include "measure.c"
#include "guard.c"
#include <stdio.h>
#include <string.h>

#define MAX_COUNTERS 64

int main(void)
{
  static char names[MAX_COUNTERS][64];
  struct cpucycles_result results[MAX_COUNTERS];
  char precision[32];
  int n = 0;
  FILE *in = fopen("conftest.in", "r"), *out;

  if (!in) return 2;
  while (n < MAX_COUNTERS && fscanf(in, "%63s %31s", names[n], precision) == 2) {
    memset(&results[n], 0, sizeof results[n]);
    results[n].available = strcmp(precision, "no") != 0;
    if (results[n].available && sscanf(precision, "%lld", &results[n].precision) != 1) return 3;
    n++;
  }
  fclose(in);
  if (n == 0) return 4;
  out = fopen("conftest.out", "w");
  if (!out) return 2;
  fprintf(out, "%s\n", names[cpucycles_choose(results, n)]);
  return fclose(out) != 0;
}
