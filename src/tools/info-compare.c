/* SPDX-License-Identifier: MIT */
/* info-compare.c - cpucycles-info --compare OLD NEW: cpucycles_bench()
 * results saved as JSON (cpucycles_bench_format()), each file one result
 * or several (a JSON array of them, or one after another, as `cat a.json
 * b.json` makes), matched by name.
 *
 * A gate must not give a verdict its data cannot support.  Two processes'
 * runs of the same code differ by more than either run's own interval
 * (placement, frequency, neighbours: 0.2% on a quiet machine, 7-22% here
 * beside other jobs), so an interval computed within one process says
 * nothing about the next one.  Placement is a random effect, as
 * cpucycles-compare treats it: the results of one name in a file are
 * executions of it, each a fresh process (save-json writes N of them), and
 * the interval of new/old is Yuen's t on the logs of the executions'
 * figures (Welch's on 20% trimmed means: a process or two that a busy
 * neighbour slowed, unflagged, does not decide it), whose spread between
 * executions holds the noise within each.  With one execution on a side
 * there is no such spread: cannot judge.
 *
 * Nor is a result judged silently when its own statistics are doubtful
 * (flags drift, spread, below-resolution; few runs kept, or most
 * disturbed): such an execution is left out, and said, where each side
 * keeps at least two and half of its own; else it is a reason not to
 * judge.  Nor when the two files were measured apart (another counter,
 * unit, host, library or version): each says which file, which result,
 * and why.  And a verdict needs the whole interval on one side of the
 * tolerance: one that reaches across it is no pass either.  All of these
 * are "cannot judge", a status of its own, unless judge_anyway (a
 * warning is printed still; one execution a side then gets the interval
 * within the processes, from the results' standard errors). */
#include "info-compare.h"
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

/* A string of a saved result, as read: UTF-8 that may hold any character. */
struct text {
  const char *s;
  size_t n;
};

struct result {
  struct cpucycles_json doc;
  double cycles, error;
  struct text name, counter, unit, host, version; /* "" when missing */
  unsigned int flags;     /* the FLAG_* below it carries */
  double kept, disturbed; /* "count" and "disturbed"; -1 when missing */
  size_t value;           /* its place in its file, from 1 */
};

/* The results of one name in a file: its executions, in file order. */
struct group {
  struct text name;
  struct result **x;
  size_t n;
  int matched; /* the other file has the name */
};

struct saved {
  const char *label, *path; /* "OLD" or "NEW", and its file */
  char *text;               /* the file */
  size_t length;
  struct result *results;
  size_t count;
  struct result **by_name;  /* the results sorted by name, then place: a suite of 100000 is
                               matched in n log n, where a search of one file for each of the
                               other's would take minutes */
  struct group *groups;     /* each name's results (a run of by_name), in name order */
  size_t ngroups;
  struct group **in_order;  /* the groups in the order their names first appear */
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

/* r's results named name, or 0. */
static struct group *find_name(const struct saved *r, struct text name)
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

/* The flags of a result that judge() reads, named as
 * cpucycles_bench_format() writes them (cpucycles_bench(3) says what each
 * means, and where its threshold lies); a name not here is no concern of
 * the gate's. */
#define FLAG_DRIFT 0x1u
#define FLAG_SPREAD 0x2u
#define FLAG_BELOW_RESOLUTION 0x4u
#define FLAG_OTHER_LIBRARY 0x8u
static const struct {
  const char *name;
  unsigned int bit;
  const char *why; /* what it says of the statistics; 0: not a disturbance */
} flag_names[] = {
    {"drift", FLAG_DRIFT, "the first and second halves of its runs differ"},
    {"spread", FLAG_SPREAD, "the middle half of its runs is wide (two modes, or noise)"},
    {"below-resolution", FLAG_BELOW_RESOLUTION, "its runs are mostly the counter's grid"},
    {"other-library", FLAG_OTHER_LIBRARY, 0},
};
#define FLAG_NAMES (sizeof flag_names / sizeof flag_names[0])

/* Fewer kept runs than the harness needs to test drift and spread
 * (cpucycles_bench_statistics()) leave a result unchecked; and a result
 * that lost more runs to migrations and switches than it kept was taken
 * on a machine too busy to trust what is left. */
#define FEWEST_KEPT 8

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
    for (j = 0; j < FLAG_NAMES; j++)
      if (value[0] == '"' && spans[i].length == strlen(flag_names[j].name) + 2 &&
          memcmp(value + 1, flag_names[j].name, spans[i].length - 2) == 0)
        x->flags |= flag_names[j].bit;
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
  if (optional_count(r, x, "count", &x->kept) != 0 ||
      optional_count(r, x, "disturbed", &x->disturbed) != 0 || read_flags(r, x) != 0)
    return -1;
  x->name = field(x, "name"), x->counter = field(x, "counter"), x->host = field(x, "host");
  x->unit = field(x, "unit"), x->version = field(x, "version");
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
static int load_saved(struct saved *r)
{
  char why[256];
  struct cpucycles_json_span *spans = 0;
  size_t i, count;
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
    r->results[i].value = i + 1;
    if (load_result(r, &r->results[i], r->text + spans[i].offset, spans[i].length) != 0) {
      cpucycles_json_free(&r->results[i].doc);
      free(spans);
      return -1;
    }
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
    if (i == 0 || !same(r->by_name[i - 1]->name, r->by_name[i]->name)) {
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

static void free_saved(struct saved *r)
{
  size_t i;
  for (i = 0; i < r->count; i++) cpucycles_json_free(&r->results[i].doc);
  free(r->results);
  free(r->by_name);
  free(r->groups);
  free(r->in_order);
  free(r->text);
}

/* ---- judging one name ---- */

struct context {
  const struct saved *old, *new;
  double tolerance; /* percent */
  int exit_faster, judge_anyway;
  int alone;        /* one name a file: its lines say old and new apart */
  int leaving_out;  /* the reasons being printed leave an execution out */
  size_t reasons;   /* printed so far: a suite's are bounded */
};

/* Reasons printed at most, and the line that says how many more: a suite
 * of 100000 results of one execution each must not print 100000 lines. */
#define REASONS_MAX 20

/* "cpucycles-info: cannot judge NAME: " or "cpucycles-info: warning:
 * NAME: " on stderr, for a reason the caller then prints; 0 when the
 * bound has been reached (print nothing). */
static int reason(struct context *c, const struct group *g)
{
  if (c->reasons++ >= REASONS_MAX) return 0;
  fputs(c->leaving_out    ? "cpucycles-info: "
        : c->judge_anyway ? "cpucycles-info: warning: "
                          : "cpucycles-info: cannot judge ",
        stderr);
  put_text(stderr, g->name), fputs(c->leaving_out ? ": left out: " : ": ", stderr);
  return 1;
}

/* "OLD path, result V" */
static void put_where(const struct saved *r, const struct result *x)
{
  struct text path;
  path.s = r->path, path.n = strlen(r->path);
  fprintf(stderr, "%s ", r->label), put_text(stderr, path);
  fprintf(stderr, ", result %zu", x->value);
}

/* The reasons x, a result of name g in r, cannot be judged on its own:
 * their count, each printed when print is set. */
static int doubtful(struct context *c, const struct group *g, const struct saved *r,
                    const struct result *x, int print)
{
  size_t j;
  int n = 0;
  for (j = 0; j < FLAG_NAMES; j++)
    if ((x->flags & flag_names[j].bit) && flag_names[j].why) {
      n++;
      if (print && reason(c, g))
        put_where(r, x),
            fprintf(stderr, " is flagged %s: %s\n", flag_names[j].name, flag_names[j].why);
    }
  if (x->kept >= 0 && x->kept < FEWEST_KEPT) {
    n++;
    if (print && reason(c, g))
      put_where(r, x), fprintf(stderr, " kept %.0f runs: too few (fewer than %d: its drift and "
                               "spread were not tested)\n", x->kept, FEWEST_KEPT);
  } else if (x->kept >= 0 && x->disturbed > x->kept) {
    n++;
    if (print && reason(c, g))
      put_where(r, x), fprintf(stderr, " kept %.0f runs: too few (%.0f of its runs were "
                               "disturbed: the machine was busy)\n", x->kept, x->disturbed);
  }
  return n;
}

static const char *library(const struct result *x)
{
  return x->flags & FLAG_OTHER_LIBRARY ? "libcpucycles' own" : "cpucycles'";
}

/* x measured apart from base (OLD's first result of the name): the count
 * of differences, each printed. */
static int apart(struct context *c, const struct group *g, const struct result *base,
                 const struct saved *r, const struct result *x)
{
  static const struct {
    const char *what;
    size_t offset;
  } texts[] = {{"counter", offsetof(struct result, counter)},
               {"unit", offsetof(struct result, unit)},
               {"host", offsetof(struct result, host)},
               {"library version", offsetof(struct result, version)}};
  size_t j;
  int n = 0;
  for (j = 0; j < sizeof texts / sizeof texts[0]; j++) {
    struct text a = *(const struct text *)((const char *)base + texts[j].offset);
    struct text b = *(const struct text *)((const char *)x + texts[j].offset);
    if (same(a, b)) continue;
    n++;
    if (reason(c, g)) {
      put_where(r, x), fprintf(stderr, " was measured with %s ", texts[j].what);
      put_text(stderr, b);
      fputs(", ", stderr), put_where(c->old, base), fputs(" with ", stderr), put_text(stderr, a);
      fputs("\n", stderr);
    }
  }
  if ((base->flags ^ x->flags) & FLAG_OTHER_LIBRARY) {
    n++;
    if (reason(c, g))
      put_where(r, x), fprintf(stderr, " was measured with %s counter library, ", library(x)),
          put_where(c->old, base), fprintf(stderr, " with %s\n", library(base));
  }
  return n;
}

/* One side of a comparison: the 20% trimmed mean of the executions' log
 * figures (stats.h's cpucycles_trim), and the squared standard error of that mean with its degrees
 * of freedom (Yuen's, from the winsorized variance: an execution or two
 * that a busy neighbour slowed without a flag, 1.9 times the others here,
 * weigh no more than the trimmed ones; below 5 executions nothing is
 * trimmed, and it is Welch's); 0 degrees with one execution: then the
 * variance is the result's own, within its process.  sd is the
 * winsorized standard deviation between the executions; total, the
 * executions of the name, of which g holds those judged. */
struct side {
  double mean, variance, df, cycles, sd;
  size_t total;
};

/* -1 when out of memory */
static int summarize(const struct group *g, size_t total, struct side *s)
{
  size_t i, n = g->n;
  double *v, d;
  struct cpucycles_trimmed t;
  s->total = total;
  if (n == 1) {
    d = g->x[0]->error / g->x[0]->cycles; /* the delta method: log's error */
    s->mean = log(g->x[0]->cycles), s->variance = d * d, s->df = 0, s->sd = 0;
    s->cycles = g->x[0]->cycles;
    return 0;
  }
  if (!(v = malloc(n * sizeof *v))) return -1;
  for (i = 0; i < n; i++) v[i] = log(g->x[i]->cycles);
  cpucycles_trim(v, (long long)n, &t);
  free(v);
  s->sd = sqrt(t.variance);
  s->mean = t.mean, s->variance = t.se2, s->df = (double)t.df;
  s->cycles = exp(t.mean);
  return 0;
}

/* "5 executions, +- 0.42% between them", "8 executions of 10, ..." (the
 * others left out) or "one execution, +- 2.00 within it" */
static void put_side(const struct group *g, const struct side *s)
{
  if (g->n == 1)
    printf("%.2f cycles per call (one execution, +- %.2f within it)", g->x[0]->cycles,
           g->x[0]->error);
  else if (s->total > g->n)
    printf("%.2f cycles per call (%zu executions of %zu, +- %.2f%% between them)", s->cycles,
           g->n, s->total, 100 * s->sd);
  else
    printf("%.2f cycles per call (%zu executions, +- %.2f%% between them)", s->cycles, g->n,
           100 * s->sd);
}

/* The executions of g judged: those no reason casts doubt on, into kept
 * (its x an array of g's size), when each side keeps at least two and at
 * least half of its own; each left out is said, on stderr.  Else kept is
 * g whole.  The count of g's doubtful executions, and *enough. */
static size_t keep_undoubted(struct context *c, const struct group *names, const struct saved *r,
                             const struct group *g, struct group *kept, int enough)
{
  size_t i, doubted = 0;
  kept->name = g->name, kept->matched = g->matched, kept->n = 0;
  for (i = 0; i < g->n; i++)
    if (doubtful(c, names, r, g->x[i], 0)) doubted++;
    else kept->x[kept->n++] = g->x[i];
  if (!enough || doubted == 0) {
    memcpy(kept->x, g->x, g->n * sizeof *g->x), kept->n = g->n;
    return doubted;
  }
  c->leaving_out = 1;
  for (i = 0; i < g->n; i++) doubtful(c, names, r, g->x[i], 1);
  c->leaving_out = 0;
  return doubted;
}

/* 1 when g keeps enough executions without doubt to be judged on them. */
static int enough_undoubted(struct context *c, const struct group *names, const struct saved *r,
                            const struct group *g)
{
  size_t i, doubted = 0;
  for (i = 0; i < g->n; i++) doubted += doubtful(c, names, r, g->x[i], 0) != 0;
  return g->n - doubted >= 2 && 2 * (g->n - doubted) >= g->n;
}

/* The verdicts, and their words (each with the tolerance's %g). */
enum { SLOWER_BEYOND, SLOWER_WITHIN, SLOWER_UNDECIDED, SAME_WITHIN, SAME_UNDECIDED,
       FASTER_WITHIN, FASTER_BEYOND, FASTER_UNDECIDED, NOT_JUDGED };
static const char *const verdict_words[NOT_JUDGED] = {
    "NEW slower, beyond the tolerance of %g%%",
    "NEW slower, within the tolerance of %g%%",
    "NEW slower, perhaps beyond the tolerance of %g%%: the interval reaches across it",
    "indistinguishable, within the tolerance of %g%%",
    "indistinguishable, but the interval reaches beyond the tolerance of %g%%",
    "NEW faster, within the tolerance of %g%%",
    "NEW faster, beyond the tolerance of %g%%",
    "NEW faster, perhaps beyond the tolerance of %g%%"};

/* The verdict on one name, printed; its status (CPUCYCLES_INFO_CANNOT when
 * it cannot be judged), or CPUCYCLES_INFO_REFUSED when the figures are
 * too far apart to compare.  *verdict is one of the enum's. */
static int judge(struct context *c, struct group *all_old, struct group *all_new, int *verdict)
{
  const double tol = c->tolerance / 100;
  struct side so, sn;
  struct group kept_old, kept_new, *go = &kept_old, *gn = &kept_new;
  double ratio, low, high, se, t, denominator;
  int problems = 0, single, enough;
  size_t i, doubted;
  const char *tail = "";
  char says[160];
  kept_old.x = malloc(all_old->n * sizeof *kept_old.x);
  kept_new.x = malloc(all_new->n * sizeof *kept_new.x);
  if (!kept_old.x || !kept_new.x) {
    free(kept_old.x), free(kept_new.x);
    fputs("cpucycles-info: out of memory\n", stderr);
    return CPUCYCLES_INFO_REFUSED;
  }
  /* what stands in the way of a verdict: executions a reason casts doubt
   * on are left out, said, where each side keeps enough others (a busy
   * moment disturbs some processes, not the code); else each is a reason */
  enough = enough_undoubted(c, all_old, c->old, all_old) && enough_undoubted(c, all_old, c->new, all_new);
  doubted = keep_undoubted(c, all_old, c->old, all_old, go, enough);
  doubted += keep_undoubted(c, all_old, c->new, all_new, gn, enough);
  if (!enough && doubted)
    for (i = 0; i < all_old->n + all_new->n; i++)
      problems += doubtful(c, all_old, i < all_old->n ? c->old : c->new,
                           i < all_old->n ? all_old->x[i] : all_new->x[i - all_old->n], 1);
  for (i = 1; i < all_old->n; i++) problems += apart(c, all_old, all_old->x[0], c->old, all_old->x[i]);
  for (i = 0; i < all_new->n; i++) problems += apart(c, all_old, all_old->x[0], c->new, all_new->x[i]);
  single = go->n == 1 || gn->n == 1;
  if (single) {
    problems++;
    if (reason(c, go)) {
      const struct saved *r = go->n == 1 ? c->old : c->new;
      struct text path;
      path.s = r->path, path.n = strlen(r->path);
      fprintf(stderr, "%s ", r->label), put_text(stderr, path);
      fprintf(stderr, " holds one execution of it%s: how two processes differ is not known (save "
                      "several executions, separate processes, in each file)\n",
              go->n == 1 && gn->n == 1 ? ", and so does NEW" : "");
    }
  }
  if (summarize(go, all_old->n, &so) != 0 || summarize(gn, all_new->n, &sn) != 0) {
    free(kept_old.x), free(kept_new.x);
    fputs("cpucycles-info: out of memory\n", stderr);
    return CPUCYCLES_INFO_REFUSED;
  }
  ratio = exp(sn.mean - so.mean);
  /* Yuen's t on the logs (Welch's on the trimmed means); a side of one
   * execution (judged anyway) counts its own error as known */
  se = sqrt(so.variance + sn.variance);
  denominator = (so.df > 0 ? so.variance * so.variance / so.df : 0) +
                (sn.df > 0 ? sn.variance * sn.variance / sn.df : 0);
  if (denominator > 0) {
    /* the degrees of freedom, rounded down (a whole 4 may come out as
     * 3.9999999) */
    double df = se * se * se * se / denominator + 1e-6;
    t = cpucycles_t99(df < 1 ? 1 : (long long)df);
  } else {
    t = CPUCYCLES_Z99;
  }
  low = exp(sn.mean - so.mean - t * se), high = exp(sn.mean - so.mean + t * se);
  if (!isfinite(ratio) || !isfinite(low) || !isfinite(high) || !(ratio > 0)) {
    fputs("cpucycles-info: ", stderr), put_text(stderr, go->name);
    fputs(": the figures are too far apart to compare (the ratio or its interval is not "
          "finite)\n", stderr);
    free(kept_old.x), free(kept_new.x);
    return CPUCYCLES_INFO_REFUSED;
  }
  if (low > 1 + tol) *verdict = SLOWER_BEYOND;
  else if (low > 1) *verdict = high <= 1 + tol ? SLOWER_WITHIN : SLOWER_UNDECIDED;
  else if (high < 1 - tol) *verdict = FASTER_BEYOND;
  else if (high < 1) *verdict = low >= 1 - tol ? FASTER_WITHIN : FASTER_UNDECIDED;
  else *verdict = high <= 1 + tol && low >= 1 - tol ? SAME_WITHIN : SAME_UNDECIDED;
  snprintf(says, sizeof says, verdict_words[*verdict], c->tolerance);
  if (c->alone) {
    fputs("old ", stdout), put_text(stdout, go->name), fputs(": ", stdout), put_side(go, &so);
    fputs("\nnew ", stdout), put_text(stdout, gn->name), fputs(": ", stdout), put_side(gn, &sn);
    putchar('\n');
  } else {
    put_text(stdout, go->name), fputs(": old ", stdout), put_side(go, &so);
    fputs(", new ", stdout), put_side(gn, &sn), fputs(", ", stdout);
  }
  /* a slower result whose interval reaches across the tolerance, or one
   * an interval within a process stands behind, is no pass */
  if (*verdict == SLOWER_UNDECIDED || *verdict == SAME_UNDECIDED) problems++;
  if (problems) tail = c->judge_anyway ? " (judged anyway)" : ": cannot judge";
  printf("new/old %.4f, 99%% interval [%.4f, %.4f] %s: %s%s\n", ratio, low, high,
         !single ? "between processes"
         : go->n == gn->n ? "within each process"
         : go->n == 1 ? "between NEW's processes, within OLD's"
                      : "between OLD's processes, within NEW's",
         says, tail);
  free(kept_old.x), free(kept_new.x);
  if (problems && !c->judge_anyway) {
    *verdict = NOT_JUDGED;
    return CPUCYCLES_INFO_CANNOT;
  }
  switch (*verdict) {
  case SLOWER_BEYOND: return CPUCYCLES_INFO_SLOWER;
  case FASTER_BEYOND: return CPUCYCLES_INFO_FASTER;
  default: return CPUCYCLES_INFO_SAME;
  }
}

static int compare_loaded(struct saved *old, struct saved *new, double tolerance, int exit_faster,
                          int judge_anyway)
{
  size_t i, j, compared = 0, counts[NOT_JUDGED + 1];
  int status, verdict;
  struct context c;
  memset(&c, 0, sizeof c), memset(counts, 0, sizeof counts);
  c.old = old, c.new = new, c.tolerance = tolerance, c.exit_faster = exit_faster;
  c.judge_anyway = judge_anyway;
  if (old->ngroups == 1 && new->ngroups == 1) { /* one name each: whatever the names */
    c.alone = 1;
    status = judge(&c, &old->groups[0], &new->groups[0], &verdict);
    if (c.reasons > REASONS_MAX)
      fprintf(stderr, "cpucycles-info: (and %zu more reasons)\n", c.reasons - REASONS_MAX);
    if (status == CPUCYCLES_INFO_FASTER && !exit_faster) status = CPUCYCLES_INFO_SAME;
    return status;
  }
  /* in OLD's order */
  for (i = 0; i < old->ngroups; i++) {
    struct group *g = old->in_order[i], *match = find_name(new, g->name);
    if (!match) continue;
    g->matched = match->matched = 1;
    status = judge(&c, g, match, &verdict);
    if (status == CPUCYCLES_INFO_REFUSED) return status;
    compared++, counts[verdict]++;
  }
  if (c.reasons > REASONS_MAX)
    fprintf(stderr, "cpucycles-info: (and %zu more reasons)\n", c.reasons - REASONS_MAX);
  for (i = 0; i < old->ngroups; i++)
    if (!old->in_order[i]->matched)
      put_text(stdout, old->in_order[i]->name), fputs(": only in OLD\n", stdout);
  for (j = 0; j < new->ngroups; j++)
    if (!new->in_order[j]->matched)
      put_text(stdout, new->in_order[j]->name), fputs(": only in NEW\n", stdout);
  if (compared == 0) {
    fputs("cpucycles-info: no result of OLD has a name that one of NEW has: nothing to compare\n",
          stderr);
    return CPUCYCLES_INFO_REFUSED;
  }
  printf("%zu compared: %zu slower beyond the tolerance, %zu faster beyond it, %zu within it, "
         "%zu not judged (tolerance %g%%)\n", compared, counts[SLOWER_BEYOND],
         counts[FASTER_BEYOND],
         compared - counts[SLOWER_BEYOND] - counts[FASTER_BEYOND] - counts[NOT_JUDGED],
         counts[NOT_JUDGED], tolerance);
  return counts[SLOWER_BEYOND]                ? CPUCYCLES_INFO_SLOWER
         : counts[NOT_JUDGED]                 ? CPUCYCLES_INFO_CANNOT
         : counts[FASTER_BEYOND] && exit_faster ? CPUCYCLES_INFO_FASTER
                                              : CPUCYCLES_INFO_SAME;
}

int cpucycles_info_compare(const char *old_path, const char *new_path, double tolerance,
                           int exit_faster, int judge_anyway)
{
  struct saved old, new;
  int status;
  memset(&old, 0, sizeof old), memset(&new, 0, sizeof new);
  old.label = "OLD", old.path = old_path, new.label = "NEW", new.path = new_path;
  status = load_saved(&old) == 0 && load_saved(&new) == 0
               ? compare_loaded(&old, &new, tolerance, exit_faster, judge_anyway)
               : CPUCYCLES_INFO_REFUSED;
  free_saved(&old), free_saved(&new);
  return status;
}
