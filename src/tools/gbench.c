/* SPDX-License-Identifier: MIT */
/* gbench.c - gbench.h's reader of Google Benchmark's JSON: the text split
 * into its documents, each document's "context" and each entry of its
 * "benchmarks" parsed in turn by json-read.c (which keeps a top-level
 * member's object or array as its text), each entry's members read as
 * GB's JSONReporter::PrintRunData() writes them. */
#include "gbench.h"
#include <math.h> /* isfinite, NAN: macros, no libm */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A name in a message: its first 60 bytes (whole characters), control
 * characters as '?', "..." when cut. */
static void clip(char *out, size_t size, const char *s, size_t n)
{
  size_t i, k = n < 60 ? n : 60;
  while (k < n && k > 0 && ((unsigned char)s[k] & 0xc0) == 0x80) k--;
  if (size == 0) return;
  for (i = 0; i < k && i + 4 < size; i++) {
    unsigned char c = (unsigned char)s[i];
    out[i] = c < 0x20 || c == 0x7f ? '?' : (char)c;
  }
  if (k < n && i + 4 < size) memcpy(out + i, "...", 3), i += 3;
  out[i] = 0;
}

/* What is being read, for a message: which document, which entry. */
struct place {
  char *why;
  size_t size;
  size_t document, documents; /* from 0; documents: how many */
  size_t line;                /* the line the document starts on */
  size_t entry;               /* from 1; 0: not in an entry */
  char name[80];              /* the entry's name, clipped; "" before it is known */
};

/* "document D (line L): benchmark N ("NAME"): what" into why; -1. */
static int refuse(const struct place *p, const char *format, ...)
{
  char what[200];
  size_t n = 0;
  va_list ap;
  if (p->size == 0) return -1;
  p->why[0] = 0;
  if (p->documents > 1)
    n = (size_t)snprintf(p->why, p->size, "document %zu (line %zu): ", p->document + 1, p->line);
  if (n < p->size && p->entry)
    n += (size_t)snprintf(p->why + n, p->size - n, p->name[0] ? "benchmark %zu (\"%s\"): " : "benchmark %zu: ",
                          p->entry, p->name);
  va_start(ap, format);
  vsnprintf(what, sizeof what, format, ap);
  va_end(ap);
  if (n < p->size) snprintf(p->why + n, p->size - n, "%s", what);
  return -1;
}

/* key's string in doc, "" when it has none (or not a string). */
static const char *text_of(const struct cpucycles_json *doc, const char *key, size_t *length)
{
  size_t n = 0;
  const char *s = cpucycles_json_string(doc, key, &n);
  if (length) *length = s ? n : 0;
  return s ? s : "";
}

/* 1 when key is true in doc */
static int is_true(const struct cpucycles_json *doc, const char *key)
{
  const struct cpucycles_json_member *m = cpucycles_json_find(doc, key);
  return m && m->type == CPUCYCLES_JSON_TRUE;
}

/* An optional count: *x (or fallback when missing); 0, or -1 refused when
 * it is there but no finite number at least low. */
static int count_of(const struct place *p, const struct cpucycles_json *doc, const char *key,
                    long long fallback, long long low, long long *x)
{
  double v;
  *x = fallback;
  if (!cpucycles_json_find(doc, key)) return 0;
  if (!cpucycles_json_number(doc, key, &v)) return refuse(p, "%s: not a number", key);
  if (!isfinite(v) || v < (double)low || v > 9e18) return refuse(p, "%s: %g is no count", key, v);
  *x = (long long)v;
  return 0;
}

/* The seconds of one unit of GB's time_unit; 0 when it is none. */
static double unit_seconds(const char *unit, size_t n)
{
  static const struct {
    const char *name;
    double seconds;
  } units[] = {{"ns", 1e-9}, {"us", 1e-6}, {"ms", 1e-3}, {"s", 1}};
  size_t i;
  for (i = 0; i < sizeof units / sizeof units[0]; i++)
    if (n == strlen(units[i].name) && memcmp(unit, units[i].name, n) == 0) return units[i].seconds;
  return 0;
}

/* real_time or cpu_time (key) as seconds per iteration: 0, or -1 refused. */
static int time_of(const struct place *p, const struct cpucycles_json *doc, const char *key,
                   double unit, double *seconds)
{
  double v;
  if (!cpucycles_json_find(doc, key)) return refuse(p, "no %s", key);
  if (!cpucycles_json_number(doc, key, &v)) return refuse(p, "%s: not a number", key);
  if (!isfinite(v)) return refuse(p, "%s: not a finite number (beyond a double's range)", key);
  if (v < 0) return refuse(p, "%s: %g, negative", key, v);
  *seconds = v * unit;
  return 0;
}

/* The entry's document parsed, its members read into e: 0, or -1 refused. */
static int read_entry(struct place *p, struct cpucycles_gbench_entry *e, const char *text, size_t length)
{
  struct cpucycles_json *doc = &e->doc;
  const char *run_type, *unit_text;
  size_t run_type_length, unit_length;
  double unit = 0;
  char why[200];
  int time_kind; /* 1: its times are times; 0: none (failed, cv, BigO, RMS) */
  if (cpucycles_json_parse(doc, text, length, why, sizeof why) != 0) return refuse(p, "%s", why);
  if (doc->type != CPUCYCLES_JSON_OBJECT) return refuse(p, "not an object");
  if (!(e->name = cpucycles_json_string(doc, "name", &e->name_length)))
    return refuse(p, cpucycles_json_find(doc, "name") ? "its name is not a string" : "no name");
  clip(p->name, sizeof p->name, e->name, e->name_length);
  e->run_name = text_of(doc, "run_name", &e->run_name_length);
  if (!cpucycles_json_find(doc, "run_name")) e->run_name = e->name, e->run_name_length = e->name_length;
  run_type = text_of(doc, "run_type", &run_type_length);
  e->aggregate_name = text_of(doc, "aggregate_name", 0);
  if (cpucycles_json_find(doc, "run_type")) {
    /* (a run_type a newer GB may add is no repetition's run either) */
    e->aggregate = !(run_type_length == 9 && memcmp(run_type, "iteration", 9) == 0);
    if (e->aggregate && !e->aggregate_name[0]) e->aggregate_name = run_type;
  } else if (cpucycles_json_find(doc, "big_o") || cpucycles_json_find(doc, "cpu_coefficient")) {
    /* before run_type: the complexity entries, named BM_X_BigO and BM_X_RMS */
    e->aggregate = 1, e->aggregate_name = "BigO";
  } else if (cpucycles_json_find(doc, "rms")) {
    e->aggregate = 1, e->aggregate_name = "RMS";
  }
  if (!e->aggregate) e->aggregate_name = "";
  if (is_true(doc, "error_occurred")) e->failed = 1, e->message = text_of(doc, "error_message", 0);
  else if (is_true(doc, "skipped")) e->failed = e->skipped = 1, e->message = text_of(doc, "skip_message", 0);
  else e->message = "";
  e->label = text_of(doc, "label", 0);
  if (count_of(p, doc, "repetition_index", -1, 0, &e->repetition_index) != 0 ||
      count_of(p, doc, "repetitions", 0, 0, &e->repetitions) != 0 ||
      count_of(p, doc, "threads", 1, 1, &e->threads) != 0 ||
      count_of(p, doc, "family_index", -1, 0, &e->family_index) != 0 ||
      count_of(p, doc, "per_family_instance_index", -1, 0, &e->per_family_instance_index) != 0)
    return -1;
  e->iterations = -1;
  if (cpucycles_json_find(doc, "iterations")) {
    if (!cpucycles_json_number(doc, "iterations", &e->iterations) || !isfinite(e->iterations) ||
        e->iterations < 0)
      return refuse(p, "iterations: not a count");
  }
  e->real_seconds = e->cpu_seconds = NAN;
  /* An iteration run that did not fail has its times (a member named
   * big_o or rms there is a user counter's).  An aggregate has them but
   * for a percentage (cv: real_time and cpu_time are ratios) and the
   * complexity entries (BigO, RMS: coefficients, no real_time). */
  time_kind = !e->failed;
  if (time_kind && e->aggregate)
    time_kind = strcmp(text_of(doc, "aggregate_unit", 0), "percentage") != 0 &&
                cpucycles_json_find(doc, "real_time");
  if (!time_kind) return 0;
  unit_text = text_of(doc, "time_unit", &unit_length);
  if (!cpucycles_json_find(doc, "time_unit")) return refuse(p, "no time_unit");
  if (!(unit = unit_seconds(unit_text, unit_length))) {
    char shown[80];
    clip(shown, sizeof shown, unit_text, unit_length);
    return refuse(p, "time_unit \"%s\": not ns, us, ms or s", shown);
  }
  return time_of(p, doc, "real_time", unit, &e->real_seconds) != 0 ||
                 time_of(p, doc, "cpu_time", unit, &e->cpu_seconds) != 0
             ? -1
             : 0;
}

/* The document's "context" object into c: 0, or -1 refused. */
static int read_context(struct place *p, struct cpucycles_gbench_context *c,
                        const struct cpucycles_json *top)
{
  const struct cpucycles_json_member *m = cpucycles_json_find(top, "context");
  struct cpucycles_json *doc = &c->doc;
  char why[200];
  c->executable = c->host_name = c->date = c->library_build_type = c->library_version = "";
  c->num_cpus = c->mhz_per_cpu = -1;
  c->cpu_scaling_enabled = -1;
  if (!m) return 0;
  if (m->type != CPUCYCLES_JSON_OBJECT) return refuse(p, "its \"context\" is not an object");
  if (cpucycles_json_parse(doc, m->string, m->length, why, sizeof why) != 0)
    return refuse(p, "its \"context\": %s", why);
  c->executable = text_of(doc, "executable", 0);
  c->host_name = text_of(doc, "host_name", 0);
  c->date = text_of(doc, "date", 0);
  c->library_build_type = text_of(doc, "library_build_type", 0);
  c->library_version = text_of(doc, "library_version", 0);
  c->debug = strcmp(c->library_build_type, "debug") == 0;
  if (!cpucycles_json_number(doc, "num_cpus", &c->num_cpus) || !isfinite(c->num_cpus)) c->num_cpus = -1;
  if (!cpucycles_json_number(doc, "mhz_per_cpu", &c->mhz_per_cpu) || !isfinite(c->mhz_per_cpu))
    c->mhz_per_cpu = -1;
  if ((m = cpucycles_json_find(doc, "cpu_scaling_enabled")) != 0)
    c->cpu_scaling_enabled = m->type == CPUCYCLES_JSON_TRUE ? 1 : m->type == CPUCYCLES_JSON_FALSE ? 0 : -1;
  return 0;
}

/* One document, text[0..length-1], its entries appended to gb: 0, or -1
 * refused. */
static int read_document(struct place *p, struct cpucycles_gbench *gb, const char *text, size_t length)
{
  struct cpucycles_json top;
  const struct cpucycles_json_member *list;
  struct cpucycles_json_span *spans = 0;
  struct cpucycles_gbench_entry *more;
  size_t count = 0, i;
  char why[200];
  int r = -1;
  if (cpucycles_json_parse(&top, text, length, why, sizeof why) != 0)
    return refuse(p, "not JSON: %s", why);
  list = cpucycles_json_find(&top, "benchmarks");
  if (top.type != CPUCYCLES_JSON_OBJECT || !list || list->type != CPUCYCLES_JSON_ARRAY) {
    refuse(p, "no \"benchmarks\" array: not Google Benchmark's JSON (--benchmark_format=json)");
    goto done;
  }
  if (read_context(p, &gb->contexts[gb->documents++], &top) != 0) goto done;
  if (cpucycles_json_values(list->string, list->length, &spans, &count, why, sizeof why) != 0) {
    refuse(p, "its \"benchmarks\": %s", why);
    goto done;
  }
  if (count && !(more = realloc(gb->entries, (gb->count + count) * sizeof *more))) {
    refuse(p, "out of memory");
    goto done;
  }
  if (count) gb->entries = more;
  for (i = 0; i < count; i++) {
    struct cpucycles_gbench_entry *e = &gb->entries[gb->count];
    memset(e, 0, sizeof *e);
    e->document = p->document;
    p->entry = i + 1, p->name[0] = 0;
    gb->count++; /* (freed with the others, whether it is read or not) */
    if (read_entry(p, e, list->string + spans[i].offset, spans[i].length) != 0) goto done;
  }
  p->entry = 0;
  r = 0;
done:
  free(spans);
  cpucycles_json_free(&top);
  return r;
}

int cpucycles_gbench_parse(struct cpucycles_gbench *gb, const char *text, size_t length, char *why,
                           size_t size)
{
  struct cpucycles_json_span *spans = 0;
  struct place p;
  size_t count = 0, i;
  const char *q = text;
  char what[200];
  memset(gb, 0, sizeof *gb);
  memset(&p, 0, sizeof p);
  p.why = why, p.size = size, p.line = 1;
  if (cpucycles_json_values(text, length, &spans, &count, what, sizeof what) != 0)
    return refuse(&p, "not JSON: %s", what);
  if (count == 0) {
    free(spans);
    return refuse(&p, "no Google Benchmark JSON in it (an empty array)");
  }
  if (!(gb->contexts = calloc(count, sizeof *gb->contexts))) {
    free(spans);
    return refuse(&p, "out of memory");
  }
  /* one document: the whole text, so that a message's line and column
   * are the text's */
  if (count == 1) spans[0].offset = 0, spans[0].length = length;
  p.documents = count;
  for (i = 0; i < count; i++) {
    p.document = i;
    for (; q < text + spans[i].offset; q++) p.line += *q == '\n';
    if (read_document(&p, gb, text + spans[i].offset, spans[i].length) != 0) {
      free(spans);
      cpucycles_gbench_free(gb);
      return -1;
    }
  }
  free(spans);
  return 0;
}

void cpucycles_gbench_free(struct cpucycles_gbench *gb)
{
  size_t i;
  for (i = 0; i < gb->count; i++) cpucycles_json_free(&gb->entries[i].doc);
  for (i = 0; i < gb->documents; i++) cpucycles_json_free(&gb->contexts[i].doc);
  free(gb->entries);
  free(gb->contexts);
  memset(gb, 0, sizeof *gb);
}

/* Whether a component of the run's name after its first (GB appends
 * "/real_time" to a family's name and arguments) is word. */
static int has_component(const char *name, size_t length, const char *word)
{
  size_t n = strlen(word), i;
  for (i = 1; i + n <= length; i++)
    if (name[i - 1] == '/' && !memcmp(name + i, word, n) && (i + n == length || name[i + n] == '/')) return 1;
  return 0;
}

static int uses_real_time(const struct cpucycles_gbench_entry *e)
{
  return has_component(e->run_name, e->run_name_length, "real_time") ||
         has_component(e->run_name, e->run_name_length, "manual_time");
}

double cpucycles_gbench_seconds(const struct cpucycles_gbench_entry *e)
{
  return uses_real_time(e) ? e->real_seconds : e->cpu_seconds;
}

int cpucycles_gbench_filter(char *buf, size_t size, const char *name, size_t length)
{
  static const char operators[] = ".[]()*+?{}|^$\\";
  size_t i, n = 0;
  if (size == 0) return -1;
  buf[n++] = '^';
  for (i = 0; i < length; i++) {
    if (name[i] == 0 || name[i] == '\n') return buf[0] = 0, -1;
    if (strchr(operators, name[i])) {
      if (n + 1 >= size) return buf[0] = 0, -1;
      buf[n++] = '\\';
    }
    if (n + 1 >= size) return buf[0] = 0, -1;
    buf[n++] = name[i];
  }
  if (n + 2 > size) return buf[0] = 0, -1;
  buf[n++] = '$', buf[n] = 0;
  return 0;
}
