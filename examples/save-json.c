/* SPDX-License-Identifier: MIT */
/* save-json.c - measure a function and save the result as JSON, for a
 * later build to be checked against (gate.sh).
 *
 *   cc -O2 save-json.c $(pkg-config --cflags --libs cpucycles-bench) -o save-json
 *   ./save-json baseline.json        # on the old code, once
 *   ./save-json new.json             # on the new code
 *   sh gate.sh baseline.json new.json
 *
 * save-json FILE [BYTES]: times summing BYTES bytes (default 4096, at most
 * 65536) and writes the result to FILE with cpucycles_bench_format(),
 * with what it means beside (the counter, its unit, the frequency, the
 * host, the version). */
#include <cpucycles-bench.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct work {
  size_t n;
  unsigned char bytes[65536];
  unsigned sum;
};

static void sum_bytes(void *arg)
{
  struct work *w = arg;
  unsigned sum = 0;
  size_t i;
  for (i = 0; i < w->n; i++) sum += w->bytes[i];
  w->sum = sum;
}

int main(int argc, char **argv)
{
  static struct work w;
  struct cpucycles_bench_result r;
  char json[4096], name[64];
  long length;
  FILE *f;
  size_t i;

  if (argc < 2 || argc > 3) {
    fprintf(stderr, "usage: save-json FILE [BYTES]\n");
    return 2;
  }
  w.n = argc == 3 ? strtoul(argv[2], 0, 10) : 4096;
  if (w.n < 1 || w.n > sizeof w.bytes) {
    fprintf(stderr, "save-json: BYTES from 1 to %lu\n", (unsigned long)sizeof w.bytes);
    return 2;
  }
  for (i = 0; i < w.n; i++) w.bytes[i] = (unsigned char)i;

  if (cpucycles_bench(sum_bytes, &w, 0, &r) != 0) {
    fprintf(stderr, "cpucycles_bench: %s\n", strerror(errno));
    return 1;
  }

  /* The name labels the result: cpucycles-info --compare prints it. */
  snprintf(name, sizeof name, "sum of %lu bytes", (unsigned long)w.n);
  /* As snprintf(): the length of the whole text, which must fit. */
  length = cpucycles_bench_format(json, sizeof json, CPUCYCLES_FORMAT_JSON, name, &r);
  if (length < 0 || (unsigned long)length >= sizeof json) {
    fprintf(stderr, "save-json: the result does not fit in %lu bytes\n", (unsigned long)sizeof json);
    return 1;
  }
  if (!(f = fopen(argv[1], "w")) || fputs(json, f) == EOF || fclose(f) != 0) {
    fprintf(stderr, "save-json: %s: %s\n", argv[1], strerror(errno));
    return 1;
  }
  printf("saved %s: %s, %.1f cycles a call\n", argv[1], name, r.interquartile_mean);
  return 0;
}
