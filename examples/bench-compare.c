/* SPDX-License-Identifier: MIT */
/* bench-compare.c - "is B faster than A?" with cpucycles_bench_compare().
 *
 *   cc -O2 bench-compare.c $(pkg-config --cflags --libs cpucycles-bench) -o bench-compare
 *
 * Timing A, then B, then comparing the two medians is at the mercy of
 * what the machine did in between.  cpucycles_bench_compare() runs A and
 * B interleaved in one thread (0.25 s by default) and answers with a 99%
 * interval and a verdict: "faster", "slower" or "indistinguishable" (B
 * against A). */
#include <cpucycles-bench.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

struct buffer {
  unsigned char bytes[4096];
  unsigned char table[256]; /* the set bits of each byte value, for B */
  unsigned bits;
};

/* A: the set bits of the buffer, counted one bit at a time. */
static void bits_one_by_one(void *arg)
{
  struct buffer *b = arg;
  unsigned bits = 0, bit;
  size_t i;
  for (i = 0; i < sizeof b->bytes; i++)
    for (bit = 0; bit < 8; bit++) bits += (b->bytes[i] >> bit) & 1;
  b->bits = bits; /* stored, so that the compiler keeps the work */
}

/* B: the same count, one table lookup per byte. */
static void bits_by_table(void *arg)
{
  struct buffer *b = arg;
  unsigned bits = 0;
  size_t i;
  for (i = 0; i < sizeof b->bytes; i++) bits += b->table[b->bytes[i]];
  b->bits = bits;
}

int main(void)
{
  static struct buffer data;
  struct cpucycles_compare_result r;
  char csv[2048];
  size_t i;
  int tries = 0, status;

  for (i = 0; i < sizeof data.bytes; i++) data.bytes[i] = (unsigned char)(i * 7);
  for (i = 0; i < 256; i++) data.table[i] = (unsigned char)((i & 1) + data.table[i / 2]);

  /* EAGAIN: too many pairs were disturbed this time (a busy machine);
   * another try may do. */
  do status = cpucycles_bench_compare(bits_one_by_one, &data, bits_by_table, &data, 0, &r);
  while (status != 0 && errno == EAGAIN && ++tries < 3);
  if (status != 0) {
    fprintf(stderr, "cpucycles_bench_compare: %s\n", strerror(errno));
    return 1;
  }

  printf("verdict: %s\n", cpucycles_compare_verdict_name(r.verdict));
  /* The verdict is this process's: where the two functions lie in memory
   * counts too, and another process places them elsewhere.  Whether a
   * change to the code is faster is cpucycles-compare's question. */
  if (r.flags & CPUCYCLES_BENCH_PLACEMENT_NOT_COVERED)
    printf("(this interval covers one process's placement; cpucycles-compare covers placement "
           "across processes)\n");
  /* The ratio is NaN (printed "nan") when A measured 0 or less. */
  printf("bits_by_table/bits_one_by_one %.3f, 99%% interval [%.3f, %.3f]\n", r.ratio, r.ratio_low, r.ratio_high);
  printf("%.1f and %.1f cycles a call, %lld pairs kept (%lld disturbed)\n", r.a, r.b, r.pairs, r.disturbed);

  /* The same as one CSV row, with what it means beside (counter, unit,
   * frequency, host): cpucycles_compare_format() writes it as snprintf()
   * would, and CPUCYCLES_FORMAT_CSV_HEADER the header line. */
  cpucycles_compare_format(csv, sizeof csv, CPUCYCLES_FORMAT_CSV_HEADER, 0, 0, &r);
  fputs(csv, stdout);
  cpucycles_compare_format(csv, sizeof csv, CPUCYCLES_FORMAT_CSV, "bits_one_by_one", "bits_by_table", &r);
  fputs(csv, stdout);
  return 0;
}
