/* SPDX-License-Identifier: MIT */
/* info-compare.c - cpucycles-info --compare OLD NEW: cpucycles_bench()
 * results saved as JSON (cpucycles_bench_format()), each file one result
 * or several (a JSON array of them, or one after another, as `cat a.json
 * b.json` makes), matched by name.
 *
 * Two processes' runs of the same code differ by a few percent (placement,
 * frequency, neighbours), which no interval computed within one run can
 * know: hence the tolerance, and a verdict only when the whole interval is
 * beyond it.  For a comparison that sees a fraction of a percent, run both
 * in one process (cpucycles_bench_compare(), cpucycles-compare). */
#include "info-compare.h"
#include "json-read.h"
#include "stats.h"
#include <errno.h>
#include <math.h> /* isfinite, a macro: no libm */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A result is under 1 KiB, but its name may be long and a file may be
 * padded: the whole file is read, up to this many bytes (so that
 * /dev/zero or a wrong file ends with a message, not memory exhausted). */
#define SAVED_MAX (16L << 20)
#define SAVED_MAX_TEXT "16 MiB"

/* A string of a saved result, as read: UTF-8 that may hold any character. */
struct text {
  const char *s;
  size_t n;
};

struct result {
  struct cpucycles_json doc;
  double cycles, error;
  struct text name, counter, host; /* "" when missing */
  int matched;                     /* a result of the other file has its name */
};

struct saved {
  const char *label, *path; /* "OLD" or "NEW", and its file */
  char *text;               /* the file */
  size_t length;
  struct result *results;
  size_t count;
  struct result **by_name;  /* the results sorted by name: a suite of 100000 is matched in
                               n log n, where a search of one file for each of the other's
                               would take minutes */
  size_t value;  /* while loading: the value (from 1) being read, 0 when it is the only one */
  size_t line;   /* and the line it starts on */
};

/* t on f with control bytes as '?' (text.h's rule for the library's
 * messages): a file's name, counter or host ("\u001b]0;...\u0007",
 * "\u001b[2J") must not drive the terminal. */
static void put_text(FILE *f, struct text t)
{
  size_t i;
  for (i = 0; i < t.n; i++) {
    unsigned char c = (unsigned char)t.s[i];
    putc(c < 0x20 || c == 0x7f ? '?' : c, f);
  }
}

/* "cpucycles-info: OLD path: [value N, line L: ]what" (what in two parts)
 * on stderr; -1. */
static int refuse(const struct saved *r, const char *what, const char *more)
{
  struct text path;
  path.s = r->path, path.n = strlen(r->path);
  fprintf(stderr, "cpucycles-info: %s ", r->label);
  put_text(stderr, path);
  if (r->value) fprintf(stderr, ": value %zu (line %zu)", r->value, r->line);
  fprintf(stderr, ": %s%s\n", what, more);
  return -1;
}

/* The whole of r->path into r->text: 0, or -1 with a message (a read
 * error as the system says it: a directory is "Is a directory"). */
static int read_saved(struct saved *r)
{
  FILE *f = fopen(r->path, "rb");
  size_t room = 0;
  char *more;
  int error = 0;
  if (!f) return refuse(r, strerror(errno), "");
  do {
    if (r->length == room) {
      room = room ? 2 * room : 65536;
      if (room > SAVED_MAX + 1) room = SAVED_MAX + 1; /* one more byte says "too large" */
      if (!(more = realloc(r->text, room))) {
        error = ENOMEM;
        break;
      }
      r->text = more;
    }
    errno = 0;
    r->length += fread(r->text + r->length, 1, room - r->length, f);
    if (ferror(f)) error = errno ? errno : EIO;
  } while (!error && !feof(f) && r->length <= SAVED_MAX);
  fclose(f);
  if (error) return refuse(r, strerror(error), "");
  if (r->length > SAVED_MAX)
    return refuse(r, "too large (over " SAVED_MAX_TEXT "): not a cpucycles_bench() result", "");
  return 0;
}

/* A number of one result: 0, or -1 with a message.  A number beyond a
 * double's range (1e999) reads as inf, which would make every interval
 * [-nan, inf] and pass the gate: refused. */
static int figure(const struct saved *r, const struct result *x, const char *key, double *v)
{
  if (!cpucycles_json_number(&x->doc, key, v)) return refuse(r, key, ": missing, or not a number");
  if (!isfinite(*v)) return refuse(r, key, ": not a finite number (beyond a double's range)");
  return 0;
}

/* A string of one result, "" when it has none. */
static struct text field(const struct result *x, const char *key)
{
  struct text t;
  if (!(t.s = cpucycles_json_string(&x->doc, key, &t.n))) t.s = "", t.n = 0;
  return t;
}

static int same(struct text a, struct text b) { return a.n == b.n && memcmp(a.s, b.s, a.n) == 0; }

/* Names ordered as bytes, a name before a longer one it begins. */
static int order_names(struct text a, struct text b)
{
  int c = memcmp(a.s, b.s, a.n < b.n ? a.n : b.n);
  return c ? c : (a.n > b.n) - (a.n < b.n);
}

/* qsort()'s order for by_name: by name, then by place in the file (the
 * pointers are into one array), so that the first of two of one name
 * comes first. */
static int order_results(const void *a, const void *b)
{
  const struct result *x = *(const struct result *const *)a, *y = *(const struct result *const *)b;
  int c = order_names(x->name, y->name);
  return c ? c : (x > y) - (x < y);
}

/* r's result named name, or 0 (by_name's names are each there once). */
static struct result *find_name(const struct saved *r, struct text name)
{
  size_t low = 0, high = r->count, mid;
  int c;
  while (low < high) {
    mid = low + (high - low) / 2;
    c = order_names(name, r->by_name[mid]->name);
    if (c == 0) return r->by_name[mid];
    if (c < 0) high = mid;
    else low = mid + 1;
  }
  return 0;
}

/* text[0..length-1] as one cpucycles_bench() result, into x (its document
 * kept): 0, or -1 with a message. */
static int load_result(const struct saved *r, struct result *x, const char *text, size_t length)
{
  char why[256];
  struct text type;
  if (cpucycles_json_parse(&x->doc, text, length, why, sizeof why) != 0)
    return refuse(r, "not JSON: ", why);
  type = field(x, "type");
  if (type.n != 5 || strcmp(type.s, "bench") != 0)
    return refuse(r, "not a cpucycles_bench() result in JSON (no \"type\": \"bench\" at its top level)", "");
  if (figure(r, x, "interquartile_mean", &x->cycles) != 0 ||
      figure(r, x, "interquartile_mean_error", &x->error) != 0)
    return -1;
  if (x->cycles <= 0) return refuse(r, "interquartile_mean: not positive", "");
  if (x->error < 0) return refuse(r, "interquartile_mean_error: negative", "");
  x->name = field(x, "name"), x->counter = field(x, "counter"), x->host = field(x, "host");
  return 0;
}

/* Every result in r->path (json-read.h reads it strictly: only each
 * result's own top-level members count).  0, or -1 with a message. */
static int load_saved(struct saved *r)
{
  char why[256];
  struct cpucycles_json_span *spans = 0;
  size_t i, j, count, first;
  const char *p;
  if (read_saved(r) != 0) return -1;
  if (cpucycles_json_values(r->text, r->length, &spans, &count, why, sizeof why) != 0)
    return refuse(r, "not JSON: ", why);
  if (count == 0) return refuse(r, "no cpucycles_bench() result in it (an empty array)", "");
  if (!(r->results = calloc(count, sizeof r->results[0]))) {
    free(spans);
    return refuse(r, strerror(ENOMEM), "");
  }
  /* One value: the whole text, so that a message's line and column are
   * the file's. */
  if (count == 1) spans[0].offset = 0, spans[0].length = r->length;
  /* each value's line counted on from the one before's (spans are in
   * order): counting from the file's start each time is quadratic */
  p = r->text, r->line = 1;
  for (i = 0; i < count; i++, r->count++) {
    if (count > 1) {
      r->value = i + 1;
      for (; p < r->text + spans[i].offset; p++) r->line += *p == '\n';
    }
    if (load_result(r, &r->results[i], r->text + spans[i].offset, spans[i].length) != 0) {
      cpucycles_json_free(&r->results[i].doc);
      free(spans);
      return -1;
    }
  }
  free(spans);
  r->value = 0;
  if (!(r->by_name = malloc(r->count * sizeof r->by_name[0]))) return refuse(r, strerror(ENOMEM), "");
  for (i = 0; i < r->count; i++) r->by_name[i] = &r->results[i];
  qsort(r->by_name, r->count, sizeof r->by_name[0], order_results);
  /* Results are matched by name: two of one name would be a guess.  The
   * one named is the name whose first result comes first in the file,
   * with the next result of that name. */
  for (first = r->count, j = 0, i = 1; i < r->count; i++)
    if (same(r->by_name[i - 1]->name, r->by_name[i]->name) &&
        (i < 2 || !same(r->by_name[i - 2]->name, r->by_name[i]->name)) &&
        (size_t)(r->by_name[i - 1] - r->results) < first)
      first = (size_t)(r->by_name[i - 1] - r->results), j = (size_t)(r->by_name[i] - r->results);
  if (first < r->count) {
    struct text path;
    path.s = r->path, path.n = strlen(r->path);
    fprintf(stderr, "cpucycles-info: %s ", r->label);
    put_text(stderr, path);
    fputs(": two results are named \"", stderr);
    put_text(stderr, r->results[first].name);
    fprintf(stderr, "\" (values %zu and %zu): results are matched by name\n", first + 1, j + 1);
    return -1;
  }
  return 0;
}

static void free_saved(struct saved *r)
{
  size_t i;
  for (i = 0; i < r->count; i++) cpucycles_json_free(&r->results[i].doc);
  free(r->results);
  free(r->by_name);
  free(r->text);
}

/* The verdict on one pair, printed; one of the statuses, or 2 when the
 * figures are too far apart to compare. */
static int compare_pair(const struct result *old, const struct result *new, double tolerance,
                        int alone)
{
  double ratio, error, low, high, rel_old, rel_new;
  const char *verdict = "indistinguishable";
  int status = CPUCYCLES_INFO_SAME;
  ratio = new->cycles / old->cycles;
  /* the delta method: relative errors add in quadrature */
  rel_old = old->error / old->cycles, rel_new = new->error / new->cycles;
  error = ratio * cpucycles_sqrt(rel_old * rel_old + rel_new * rel_new);
  low = ratio - CPUCYCLES_Z99 * error, high = ratio + CPUCYCLES_Z99 * error;
  if (!isfinite(low) || !isfinite(high)) { /* finite figures can still overflow: 1e300 / 1e-300 */
    fputs("cpucycles-info: ", stderr), put_text(stderr, old->name);
    fputs(": the figures are too far apart to compare (the ratio or its interval is not "
          "finite)\n", stderr);
    return CPUCYCLES_INFO_REFUSED;
  }
  /* a verdict only when the whole interval is beyond the tolerance */
  if (low > 1 + tolerance / 100) verdict = "NEW slower", status = CPUCYCLES_INFO_SLOWER;
  if (high < 1 - tolerance / 100) verdict = "NEW faster", status = CPUCYCLES_INFO_FASTER;
  if (alone) {
    fputs("old ", stdout), put_text(stdout, old->name);
    printf(": %.2f cycles per call (+- %.2f)\n", old->cycles, old->error);
    fputs("new ", stdout), put_text(stdout, new->name);
    printf(": %.2f cycles per call (+- %.2f)\n", new->cycles, new->error);
  } else {
    put_text(stdout, old->name);
    printf(": old %.2f (+- %.2f), new %.2f (+- %.2f) cycles per call, ", old->cycles, old->error,
           new->cycles, new->error);
  }
  printf("new/old %.4f, 99%% interval [%.4f, %.4f]: %s (tolerance %g%%)\n", ratio, low, high,
         verdict, tolerance);
  return status;
}

/* The first pair whose counters or hosts differ gets a warning. */
static void warn_if_apart(const struct result *old, const struct result *new, int *warned)
{
  if (*warned || (same(old->counter, new->counter) && same(old->host, new->host))) return;
  *warned = 1;
  fputs("cpucycles-info: warning: measured with ", stderr), put_text(stderr, old->counter);
  fputs(" on ", stderr), put_text(stderr, old->host);
  fputs(", then ", stderr), put_text(stderr, new->counter);
  fputs(" on ", stderr), put_text(stderr, new->host), fputs("\n", stderr);
}

static int compare_loaded(struct saved *old, struct saved *new, double tolerance, int exit_faster)
{
  size_t i, j, compared = 0, slower = 0, faster = 0;
  int warned = 0, status;
  if (old->count == 1 && new->count == 1) { /* one each: whatever their names */
    warn_if_apart(&old->results[0], &new->results[0], &warned);
    status = compare_pair(&old->results[0], &new->results[0], tolerance, 1);
    if (status == CPUCYCLES_INFO_FASTER && !exit_faster) status = CPUCYCLES_INFO_SAME;
    return status;
  }
  /* in OLD's order */
  for (i = 0; i < old->count; i++) {
    struct result *match = find_name(new, old->results[i].name);
    if (!match) continue;
    old->results[i].matched = match->matched = 1;
    warn_if_apart(&old->results[i], match, &warned);
    status = compare_pair(&old->results[i], match, tolerance, 0);
    if (status == CPUCYCLES_INFO_REFUSED) return status;
    compared++;
    slower += status == CPUCYCLES_INFO_SLOWER, faster += status == CPUCYCLES_INFO_FASTER;
  }
  for (i = 0; i < old->count; i++)
    if (!old->results[i].matched)
      put_text(stdout, old->results[i].name), fputs(": only in OLD\n", stdout);
  for (j = 0; j < new->count; j++)
    if (!new->results[j].matched)
      put_text(stdout, new->results[j].name), fputs(": only in NEW\n", stdout);
  if (compared == 0) {
    fputs("cpucycles-info: no result of OLD has a name that one of NEW has: nothing to compare\n",
          stderr);
    return CPUCYCLES_INFO_REFUSED;
  }
  printf("%zu compared: %zu slower, %zu faster, %zu indistinguishable (tolerance %g%%)\n", compared,
         slower, faster, compared - slower - faster, tolerance);
  status = slower ? CPUCYCLES_INFO_SLOWER
                  : faster && exit_faster ? CPUCYCLES_INFO_FASTER : CPUCYCLES_INFO_SAME;
  return status;
}

int cpucycles_info_compare(const char *old_path, const char *new_path, double tolerance,
                           int exit_faster)
{
  struct saved old, new;
  int status;
  memset(&old, 0, sizeof old), memset(&new, 0, sizeof new);
  old.label = "OLD", old.path = old_path, new.label = "NEW", new.path = new_path;
  status = load_saved(&old) == 0 && load_saved(&new) == 0
               ? compare_loaded(&old, &new, tolerance, exit_faster)
               : CPUCYCLES_INFO_REFUSED;
  free_saved(&old), free_saved(&new);
  return status;
}
