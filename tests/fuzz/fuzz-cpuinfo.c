/* SPDX-License-Identifier: MIT */
/* fuzz-cpuinfo - libFuzzer harness for the readers of /proc/cpuinfo: the
 * chunked line splitter they share (src/core/setup/readfile.h), persecond.c's
 * "cpu MHz"-style line, fingerprint.c's identity line and tickrate.h's
 * "key : number" line.  Build and run: tests/fuzz/run.sh.
 *
 * The input is the text of a /proc/cpuinfo.  It is split three ways: as
 * the library does (a 512-byte buffer, reads of 4 KiB), and with a buffer
 * and read sizes taken from a hash of the input, down to 2 and 1 bytes.
 * Checked besides the sanitizers: every line comes out once, in order,
 * equal to the input's line cut to the buffer; every parser's result is 0
 * or plausible, and fits its buffer. */
#define CPUCYCLES_FINGERPRINT_CPUINFO 1 /* fingerprint.c's cpuinfo reader on x86 too */
#include "persecond.c"
#include "fingerprint.c"
#include "tickrate.h"
#include <stdint.h>
#include <stdlib.h>

struct fuzz_expect {
  const uint8_t *data;
  size_t size;
  size_t pos;    /* where the next line starts in data */
  size_t cut;    /* the longest line the splitter hands over */
  size_t idsize; /* the identity buffer's size */
};

static void fuzz_parsers(const char *line, size_t idsize)
{
  char *identity = malloc(idsize);
  long long hz = cpucycles_parse_cpuinfo_mhz(line);
  double rate;
  const char *value;
  if (!identity) return;
  if (hz != 0 && (hz < CPUCYCLES_PERSECOND_MIN || hz > CPUCYCLES_PERSECOND_MAX)) abort();
  struct cpucycles_cpuinfo_identity id;
  identity[0] = 0;
  id.buf = identity, id.len = idsize, id.seen = 0;
  cpucycles_fingerprint_cpuinfo_line(&id, line, strlen(line));
  /* something written exactly when a key was found (a 1-byte buffer holds only the NUL) */
  if (strlen(identity) >= idsize || (id.seen ? identity[0] == 0 && idsize > 1 : identity[0] != 0))
    abort();
  rate = cpucycles_tickrate_cpuinfo_line(line, "timebase");
  if (rate != 0 && !(rate >= 1e3 && rate <= 1e11)) abort();
  rate = cpucycles_tickrate_cpuinfo_line(line, "cpu MHz");
  if (rate != 0 && !(rate >= 1e3 && rate <= 1e11)) abort();
  value = cpucycles_cpuinfo_value(line, "cpu");
  if (value && (value <= line || value > line + strlen(line))) abort();
  free(identity);
}

/* Each line handed over must be the input's next line, cut to the buffer. */
static int fuzz_line(void *ctx, const char *line, size_t len)
{
  struct fuzz_expect *e = (struct fuzz_expect *)ctx;
  const uint8_t *start = e->data + e->pos;
  const uint8_t *nl;
  size_t full;
  if (e->pos >= e->size) abort(); /* a line beyond the input */
  nl = memchr(start, '\n', e->size - e->pos);
  full = nl ? (size_t)(nl - start) : e->size - e->pos;
  if (len != (full < e->cut ? full : e->cut) || memcmp(line, start, len) != 0 || line[len])
    abort();
  e->pos += full + (nl != 0);
  fuzz_parsers(line, e->idsize);
  return 0;
}

/* The input through the splitter, in reads of at most chunk bytes. */
static void fuzz_split(const uint8_t *data, size_t size, size_t bufsize, size_t chunk,
                       size_t idsize)
{
  struct cpucycles_lines l;
  struct fuzz_expect e;
  size_t pos = 0, room, n;
  char *at;
  e.data = data;
  e.size = size;
  e.pos = 0;
  e.cut = bufsize - 1;
  e.idsize = idsize;
  l.buf = malloc(bufsize); /* exactly: ASan sees a byte too far */
  l.size = bufsize;
  l.used = 0;
  l.cut = 0;
  l.line = fuzz_line;
  l.ctx = &e;
  if (!l.buf) return;
  while (pos < size) {
    at = cpucycles_lines_room(&l, &room);
    if (room == 0) abort();
    n = room < chunk ? room : chunk;
    if (n > size - pos) n = size - pos;
    memcpy(at, data + pos, n);
    pos += n;
    if (cpucycles_lines_feed(&l, n)) abort(); /* fuzz_line never stops it */
  }
  if (cpucycles_lines_feed(&l, 0)) abort();
  if (e.pos != size) abort(); /* a line was lost */
  free(l.buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  uint32_t h = 2166136261u; /* FNV-1a */
  size_t i;
  for (i = 0; i < size; i++) h = (h ^ data[i]) * 16777619u;
  fuzz_split(data, size, 512, 4096, 96);
  fuzz_split(data, size, 2 + h % 64, 1 + (h >> 6) % 97, 1 + (h >> 13) % 96);
  fuzz_split(data, size, 2 + (h >> 3) % 700, 1 + (h >> 17) % 300, 96);
  return 0;
}
