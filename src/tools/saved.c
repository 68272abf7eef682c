/* SPDX-License-Identifier: MIT */
/* saved.c - the results cpucycles-info --compare judges, read from their
 * files (saved.h): cpucycles_bench() results saved as JSON
 * (cpucycles_bench_format()), each file one result or several (a JSON
 * array of them, or one after another, as `cat a.json b.json` makes),
 * grouped by name (the results of one name in a file are its
 * executions). */
#include "saved.h"
#include "json-read.h"
#include "stats.h"
#include <errno.h>
#include <stddef.h>
#include <math.h> /* isfinite, a macro: no libm */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A result is under 1 KiB, but its name may be long and a file may be
 * padded: the whole file is read, up to this many bytes (so that
 * /dev/zero or a wrong file ends with a message, not memory exhausted). */
#define SAVED_MAX (16L << 20)
#define SAVED_MAX_TEXT "16 MiB"

/* t on f with control bytes as '?' (text.h's rule for the library's
 * messages): a file's name, counter or host ("\u001b]0;...\u0007",
 * "\u001b[2J") must not drive the terminal. */
void saved_put_text(FILE *f, struct text t)
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
  saved_put_text(stderr, path);
  if (r->value) fprintf(stderr, ": value %zu (line %zu)", r->value, r->line);
  fprintf(stderr, ": %s%s\n", what, more);
  return -1;
}

/* The whole of r->path into r->text: 0, or -1 with a message (a read
 * error as the system says it: a directory is "Is a directory"). */
int saved_read(struct saved *r)
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
static struct text text_member(const struct result *x, const char *key)
{
  struct text t;
  if (!(t.s = cpucycles_json_string(&x->doc, key, &t.n))) t.s = "", t.n = 0;
  return t;
}


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

struct group *saved_find(const struct saved *r, struct text name)
{
  size_t low = 0, high = r->ngroups, mid;
  int c;
  while (low < high) {
    mid = low + (high - low) / 2;
    c = order_names(name, r->groups[mid].name);
    if (c == 0) return &r->groups[mid];
    if (c < 0) high = mid;
    else low = mid + 1;
  }
  return 0;
}

const struct saved_flag saved_flags[] = {
    {"drift", FLAG_DRIFT, "the first and second halves of its runs differ"},
    {"spread", FLAG_SPREAD, "the middle half of its runs is wide (two modes, or noise)"},
    {"below-resolution", FLAG_BELOW_RESOLUTION, "its runs are mostly the counter's grid"},
    {"other-library", FLAG_OTHER_LIBRARY, 0},
};
const size_t saved_flag_count = sizeof saved_flags / sizeof saved_flags[0];

/* x's "flags" (an array of names) into x->flags: 0, or -1 with a message. */
static int read_flags(const struct saved *r, struct result *x)
{
  const struct cpucycles_json_member *m = cpucycles_json_find(&x->doc, "flags");
  struct cpucycles_json_span *spans;
  size_t count, i, j;
  char why[256];
  x->flags = 0;
  if (!m) return 0;
  if (m->type != CPUCYCLES_JSON_ARRAY) return refuse(r, "flags: not an array", "");
  if (cpucycles_json_values(m->string, m->length, &spans, &count, why, sizeof why) != 0)
    return refuse(r, "flags: ", why);
  for (i = 0; i < count; i++) {
    const char *value = m->string + spans[i].offset; /* a checked JSON value */
    for (j = 0; j < saved_flag_count; j++)
      if (value[0] == '"' && spans[i].length == strlen(saved_flags[j].name) + 2 &&
          memcmp(value + 1, saved_flags[j].name, spans[i].length - 2) == 0)
        x->flags |= saved_flags[j].bit;
  }
  free(spans);
  return 0;
}

/* An optional count: -1 when missing; 0, or -1 with a message. */
static int optional_count(const struct saved *r, const struct result *x, const char *key, double *v)
{
  if (!cpucycles_json_find(&x->doc, key)) return *v = -1, 0;
  if (figure(r, x, key, v) != 0) return -1;
  if (*v < 0) return refuse(r, key, ": negative");
  return 0;
}

/* Whether a value is Google Benchmark's JSON: an object whose top level
 * has "benchmarks" (and "context"), which a result never has. */
static int is_gb(const char *text, size_t length)
{
  struct cpucycles_json doc;
  char why[256];
  int gb;
  if (cpucycles_json_parse(&doc, text, length, why, sizeof why) != 0) return 0;
  gb = cpucycles_json_find(&doc, "benchmarks") != 0 && cpucycles_json_find(&doc, "type") == 0;
  cpucycles_json_free(&doc);
  return gb;
}

/* The unit of a result read from GB's JSON: the harness's figures are
 * cycles per call, GB's seconds per iteration (they must not be compared
 * with each other: apart() sees the units differ). */
#define GB_UNIT "seconds per iteration (Google Benchmark's CPU or real time)"

/* One Google Benchmark document (text[0..length), a run of a GB program):
 * appended to r->results, one result per benchmark (its run_name), the
 * mean of its repetitions' times per iteration (cpucycles_gbench_seconds():
 * the time GB goes by, CPU or real), their standard error
 * its error.  0, or -1 with a message. */
static int load_gb(struct saved *r, const char *text, size_t length, size_t *room)
{
  struct cpucycles_gbench *gb, *more;
  char why[256];
  size_t i, k;
  if (!(more = realloc(r->gb, (r->ngb + 1) * sizeof *r->gb))) return refuse(r, strerror(ENOMEM), "");
  r->gb = more, gb = &r->gb[r->ngb];
  memset(gb, 0, sizeof *gb);
  if (cpucycles_gbench_parse(gb, text, length, why, sizeof why) != 0) return refuse(r, "Google Benchmark's JSON: ", why);
  r->ngb++;
  for (i = 0; i < gb->count; i++) {
    const struct cpucycles_gbench_entry *e = &gb->entries[i];
    double sum = 0, sum2 = 0, n = 0;
    struct result *x;
    int seen = 0;
    if (e->aggregate) continue;
    if (e->failed) return refuse(r, "Google Benchmark's JSON: a benchmark failed: ", e->message);
    /* the first repetition of its name: the others are gathered here */
    for (k = 0; k < i && !seen; k++)
      seen = !gb->entries[k].aggregate && gb->entries[k].run_name_length == e->run_name_length &&
             !memcmp(gb->entries[k].run_name, e->run_name, e->run_name_length);
    if (seen) continue;
    for (k = i; k < gb->count; k++) {
      const struct cpucycles_gbench_entry *f = &gb->entries[k];
      if (f->aggregate || f->failed || f->run_name_length != e->run_name_length ||
          memcmp(f->run_name, e->run_name, e->run_name_length))
        continue;
      double t = cpucycles_gbench_seconds(f);
      sum += t, sum2 += t * t, n++;
    }
    if (r->count == *room) {
      struct result *grown = realloc(r->results, 2 * *room * sizeof *grown);
      if (!grown) return refuse(r, strerror(ENOMEM), "");
      memset(grown + *room, 0, *room * sizeof *grown);
      r->results = grown, *room *= 2;
    }
    x = &r->results[r->count++];
    memset(x, 0, sizeof *x);
    x->gb = 1, x->value = r->value ? r->value : 1;
    x->cycles = sum / n;
    x->error = n > 1 && sum2 / n > x->cycles * x->cycles ? cpucycles_sqrt((sum2 / n - x->cycles * x->cycles) / (n - 1)) : 0;
    if (!(x->cycles > 0)) return refuse(r, "Google Benchmark's JSON: a time that is not positive", "");
    x->reference = -1, x->kept = -1, x->disturbed = -1;
    x->name.s = e->run_name, x->name.n = e->run_name_length;
    x->unit.s = GB_UNIT, x->unit.n = strlen(GB_UNIT);
    x->host.s = gb->contexts[e->document].host_name ? gb->contexts[e->document].host_name : "";
    x->host.n = strlen(x->host.s);
    x->version.s = gb->contexts[e->document].library_version ? gb->contexts[e->document].library_version : "";
    x->version.n = strlen(x->version.s);
    x->counter.s = "", x->counter.n = 0;
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
  type = text_member(x, "type");
  if (type.n == 10 && !strcmp(type.s, "comparison"))
    return refuse(r, "a comparison (cpucycles-compare --json, cpucycles-info --compare --json), not "
                     "results: give it alone, --compare FILE, to judge it again", "");
  if (type.n != 5 || strcmp(type.s, "bench") != 0)
    return refuse(r, "not a cpucycles_bench() result in JSON (no \"type\": \"bench\" at its top level)", "");
  if (figure(r, x, "interquartile_mean", &x->cycles) != 0 ||
      figure(r, x, "interquartile_mean_error", &x->error) != 0)
    return -1;
  if (x->cycles <= 0) return refuse(r, "interquartile_mean: not positive", "");
  if (x->error < 0) return refuse(r, "interquartile_mean_error: negative", "");
  if (optional_count(r, x, "count", &x->kept) != 0 ||
      optional_count(r, x, "disturbed", &x->disturbed) != 0 || read_flags(r, x) != 0)
    return -1;
  /* the harness's reference beside it, when the file has one (schema 2) */
  if (cpucycles_json_find(&x->doc, "reference") &&
      cpucycles_json_find(&x->doc, "reference")->type != CPUCYCLES_JSON_NULL) {
    if (figure(r, x, "reference", &x->reference) != 0) return -1;
    if (!(x->reference > 0)) return refuse(r, "reference: not positive", "");
  } else
    x->reference = -1;
  x->name = text_member(x, "name"), x->counter = text_member(x, "counter"), x->host = text_member(x, "host");
  x->unit = text_member(x, "unit"), x->version = text_member(x, "version");
  return 0;
}

/* qsort()'s order for in_order: by the place of a group's first result. */
static int order_groups(const void *a, const void *b)
{
  const struct group *x = *(const struct group *const *)a, *y = *(const struct group *const *)b;
  return (x->x[0] > y->x[0]) - (x->x[0] < y->x[0]);
}

/* Every result in r->path (json-read.h reads it strictly: only each
 * result's own top-level members count), grouped by name.  0, or -1 with
 * a message. */
int saved_load(struct saved *r)
{
  char why[256];
  struct cpucycles_json_span *spans = 0;
  size_t i, count, room;
  const char *p;
  if (saved_read(r) != 0) return -1;
  if (cpucycles_json_values(r->text, r->length, &spans, &count, why, sizeof why) != 0)
    return refuse(r, "not JSON: ", why);
  if (count == 0) return refuse(r, "no cpucycles_bench() result in it (an empty array)", "");
  room = count;
  if (!(r->results = calloc(room, sizeof r->results[0]))) {
    free(spans);
    return refuse(r, strerror(ENOMEM), "");
  }
  /* One value: the whole text, so that a message's line and column are
   * the file's. */
  if (count == 1) spans[0].offset = 0, spans[0].length = r->length;
  /* each value's line counted on from the one before's (spans are in
   * order): counting from the file's start each time is quadratic */
  p = r->text, r->line = 1;
  for (i = 0; i < count; i++) {
    const char *value = r->text + spans[i].offset;
    if (count > 1) {
      r->value = i + 1;
      for (; p < value; p++) r->line += *p == '\n';
    }
    /* Google Benchmark's document: its benchmarks, results of their own */
    if (is_gb(value, spans[i].length)) {
      if (load_gb(r, value, spans[i].length, &room) != 0) {
        free(spans);
        return -1;
      }
      continue;
    }
    if (r->count == room) {
      struct result *grown = realloc(r->results, 2 * room * sizeof *grown);
      if (!grown) {
        free(spans);
        return refuse(r, strerror(ENOMEM), "");
      }
      memset(grown + room, 0, room * sizeof *grown);
      r->results = grown, room *= 2;
    }
    r->results[r->count].value = i + 1;
    if (load_result(r, &r->results[r->count], value, spans[i].length) != 0) {
      cpucycles_json_free(&r->results[r->count].doc);
      free(spans);
      return -1;
    }
    r->count++;
  }
  if (r->count == 0) {
    free(spans);
    return refuse(r, "no result in it (Google Benchmark's JSON with no benchmark)", "");
  }
  free(spans);
  r->value = 0;
  if (!(r->by_name = malloc(r->count * sizeof r->by_name[0])) ||
      !(r->groups = calloc(r->count, sizeof r->groups[0])) ||
      !(r->in_order = malloc(r->count * sizeof r->in_order[0])))
    return refuse(r, strerror(ENOMEM), "");
  for (i = 0; i < r->count; i++) r->by_name[i] = &r->results[i];
  qsort(r->by_name, r->count, sizeof r->by_name[0], order_results);
  for (i = 0; i < r->count; i++) {
    if (i == 0 || !saved_same(r->by_name[i - 1]->name, r->by_name[i]->name)) {
      r->groups[r->ngroups].name = r->by_name[i]->name;
      r->groups[r->ngroups].x = &r->by_name[i];
      r->in_order[r->ngroups] = &r->groups[r->ngroups];
      r->ngroups++;
    }
    r->groups[r->ngroups - 1].n++;
  }
  qsort(r->in_order, r->ngroups, sizeof r->in_order[0], order_groups);
  return 0;
}

void saved_free(struct saved *r)
{
  size_t i;
  for (i = 0; i < r->count; i++) cpucycles_json_free(&r->results[i].doc);
  for (i = 0; i < r->ngb; i++) cpucycles_gbench_free(&r->gb[i]);
  free(r->gb);
  free(r->results);
  free(r->by_name);
  free(r->groups);
  free(r->in_order);
  free(r->text);
}

