/* SPDX-License-Identifier: MIT */
/* info-compare.c - cpucycles-info --compare OLD NEW: saved results (read
 * by saved.c), matched by name, judged by the verdict module every
 * comparison of cpucycles uses (src/bench/verdict.h).
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
 * Never a slower host for a slower code: a result saved with the
 * harness's reference (schema 2: a fixed chain timed between the
 * function's runs, on the same CPU) is divided by it, so that executions
 * that ran at another speed (a vCPU whose core another guest shares, a
 * frequency that changed between two saves) compare as the code does.
 * Where a side has no reference (saved before it), the figures are
 * compared as they are, and the output says that the host's speed is not
 * known.
 *
 * Nor is a result judged silently when its own statistics are doubtful
 * (flags drift, spread, below-resolution; few runs kept, or most
 * disturbed): such an execution is left out, and said, where each side
 * keeps at least two and half of its own; else it is a reason not to
 * judge.  Nor when the two files were measured apart (another counter,
 * unit, host, library or version): each says which file, which result,
 * and why.  And a verdict needs the whole interval on one side of the
 * tolerance.  All of these are "cannot judge" (exit 4), unless
 * judge_anyway (a warning is printed still; one execution a side then
 * gets the interval within the processes, from the results' standard
 * errors). */
#include "info-compare.h"
#include "comparison.h"
#include "format.h"
#include "saved.h"
#include "verdict.h"
#include "readfile.h"
#include <errno.h>
#include <stddef.h>
#include <math.h> /* isfinite, a macro: no libm */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A speed between two files that differs by more than this is said
 * (normalized or not). */
#define SPEED_SAID 0.02

struct context {
  const struct saved *old, *new;
  double tolerance; /* percent */
  int exit_faster, judge_anyway;
  int json;         /* the comparison document on stdout, not text */
  size_t rows;      /* written so far */
  int alone;        /* one name a file: its lines say old and new apart */
  int leaving_out;  /* the reasons being printed leave an execution out */
  int gb_said;      /* what Google Benchmark's JSON lacks, said */
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
  saved_put_text(stderr, g->name), fputs(c->leaving_out ? ": left out: " : ": ", stderr);
  return 1;
}

/* "OLD path, result V" */
static void put_where(const struct saved *r, const struct result *x)
{
  struct text path;
  path.s = r->path, path.n = strlen(r->path);
  fprintf(stderr, "%s ", r->label), saved_put_text(stderr, path);
  fprintf(stderr, ", result %zu", x->value);
}

/* The reasons x, a result of name g in r, cannot be judged on its own:
 * their count, each printed when print is set. */
static int doubtful(struct context *c, const struct group *g, const struct saved *r,
                    const struct result *x, int print)
{
  size_t j;
  int n = 0;
  for (j = 0; j < saved_flag_count; j++)
    if ((x->flags & saved_flags[j].bit) && saved_flags[j].why) {
      n++;
      if (print && reason(c, g))
        put_where(r, x),
            fprintf(stderr, " is flagged %s: %s\n", saved_flags[j].name, saved_flags[j].why);
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
    if (saved_same(a, b)) continue;
    n++;
    if (reason(c, g)) {
      put_where(r, x), fprintf(stderr, " was measured with %s ", texts[j].what);
      saved_put_text(stderr, b);
      fputs(", ", stderr), put_where(c->old, base), fputs(" with ", stderr), saved_put_text(stderr, a);
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

/* The executions of g judged: those no reason casts doubt on, into kept
 * (its x an array of g's size), when each side keeps at least two and at
 * least half of its own; each left out is said, on stderr.  Else kept is
 * g whole.  The count of g's doubtful executions. */
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

/* 1 when every result of g carries the harness's reference. */
static int referenced(const struct group *g)
{
  size_t i;
  for (i = 0; i < g->n; i++)
    if (!(g->x[i]->reference > 0)) return 0;
  return 1;
}

/* One side, as the estimate takes it: the logs of its executions'
 * figures (each divided by its reference when normalized) in v, and for
 * the text its cycles (the trimmed mean of the figures as saved), their
 * spread between executions, and its reference's (log, trimmed mean). */
struct side {
  double cycles, sd, log_reference;
  size_t total; /* the executions of the name, of which the group holds those judged */
};
static void side_of(const struct group *g, size_t total, int normalized, double *v, struct side *s)
{
  double mean, se2, sd;
  size_t i;
  s->total = total;
  for (i = 0; i < g->n; i++) v[i] = cpucycles_log(g->x[i]->cycles);
  cpucycles_estimate_side(v, (long long)g->n, &mean, &se2, &s->sd);
  s->cycles = cpucycles_exp(mean);
  s->log_reference = 0;
  if (referenced(g)) {
    for (i = 0; i < g->n; i++) v[i] = cpucycles_log(g->x[i]->reference);
    cpucycles_estimate_side(v, (long long)g->n, &s->log_reference, &se2, &sd);
  }
  /* what the estimate takes (and the spread the text shows is its) */
  for (i = 0; i < g->n; i++)
    v[i] = cpucycles_log(g->x[i]->cycles) - (normalized ? cpucycles_log(g->x[i]->reference) : 0);
  if (normalized) {
    cpucycles_estimate_side(v, (long long)g->n, &mean, &se2, &s->sd);
    for (i = 0; i < g->n; i++) v[i] = cpucycles_log(g->x[i]->cycles) - cpucycles_log(g->x[i]->reference);
  }
}

/* "5 executions, +- 0.42% between them", "8 executions of 10, ..." (the
 * others left out) or "one execution, +- 2.00 within it" */
static void put_side(const struct group *g, const struct side *s)
{
  /* (Google Benchmark's: seconds per iteration, in ns) */
  double unit = g->x[0]->gb ? 1e9 : 1;
  const char *per = g->x[0]->gb ? "ns per iteration" : "cycles per call";
  if (g->n == 1)
    printf("%.2f %s (one execution, +- %.2f within it)", unit * g->x[0]->cycles, per, unit * g->x[0]->error);
  else if (s->total > g->n)
    printf("%.2f %s (%zu executions of %zu, +- %.2f%% between them)", unit * s->cycles, per, g->n, s->total,
           100 * s->sd);
  else
    printf("%.2f %s (%zu executions, +- %.2f%% between them)", unit * s->cycles, per, g->n, 100 * s->sd);
}

/* The verdict on one name, printed; *j its judgement, or -1 (out of
 * memory, or figures too far apart to compare: said). */
static int judge(struct context *c, struct group *all_old, struct group *all_new,
                 struct cpucycles_judgement *j)
{
  struct side so, sn;
  struct group kept_old, kept_new, *go = &kept_old, *gn = &kept_new;
  struct cpucycles_estimate e;
  double ratio, low, high, *vo, *vn, speed;
  unsigned int reasons = 0;
  int single, enough, normalized, status = 0;
  size_t i, doubted;
  char says[512];
  struct cpucycles_out out;
  kept_old.x = malloc(all_old->n * sizeof *kept_old.x);
  kept_new.x = malloc(all_new->n * sizeof *kept_new.x);
  vo = malloc(all_old->n * sizeof *vo);
  vn = malloc(all_new->n * sizeof *vn);
  if (!kept_old.x || !kept_new.x || !vo || !vn) {
    fputs("cpucycles-info: out of memory\n", stderr);
    status = -1;
    goto done;
  }
  /* what stands in the way of a verdict: executions a reason casts doubt
   * on are left out, said, where each side keeps enough others (a busy
   * moment disturbs some processes, not the code); else each is a reason */
  enough = enough_undoubted(c, all_old, c->old, all_old) && enough_undoubted(c, all_old, c->new, all_new);
  doubted = keep_undoubted(c, all_old, c->old, all_old, go, enough);
  doubted += keep_undoubted(c, all_old, c->new, all_new, gn, enough);
  if (!enough && doubted) {
    reasons |= CPUCYCLES_REASON_DISTURBED;
    for (i = 0; i < all_old->n + all_new->n; i++)
      doubtful(c, all_old, i < all_old->n ? c->old : c->new,
               i < all_old->n ? all_old->x[i] : all_new->x[i - all_old->n], 1);
  }
  for (i = 1; i < all_old->n; i++)
    if (apart(c, all_old, all_old->x[0], c->old, all_old->x[i])) reasons |= CPUCYCLES_REASON_APART;
  for (i = 0; i < all_new->n; i++)
    if (apart(c, all_old, all_old->x[0], c->new, all_new->x[i])) reasons |= CPUCYCLES_REASON_APART;
  single = go->n == 1 || gn->n == 1;
  if (single) {
    reasons |= CPUCYCLES_REASON_ONE;
    if (reason(c, go)) {
      const struct saved *r = go->n == 1 ? c->old : c->new;
      struct text path;
      path.s = r->path, path.n = strlen(r->path);
      fprintf(stderr, "%s ", r->label), saved_put_text(stderr, path);
      fprintf(stderr, " holds one execution of it%s: how two processes differ is not known (save "
                      "several executions, separate processes, in each file)\n",
              go->n == 1 && gn->n == 1 ? ", and so does NEW" : "");
    }
  }
  normalized = referenced(go) && referenced(gn);
  side_of(go, all_old->n, normalized, vo, &so);
  side_of(gn, all_new->n, normalized, vn, &sn);
  /* a side of one execution counts its own error as known (the delta
   * method: the log's error is the relative error) */
  if (cpucycles_estimate_unpaired(vo, (long long)go->n, go->x[0]->error * go->x[0]->error /
                                                            (go->x[0]->cycles * go->x[0]->cycles),
                                  vn, (long long)gn->n,
                                  gn->x[0]->error * gn->x[0]->error / (gn->x[0]->cycles * gn->x[0]->cycles),
                                  &e) != 0 ||
      cpucycles_interval(&e, 1, &ratio, &low, &high) != 0) {
    fputs("cpucycles-info: ", stderr), saved_put_text(stderr, go->name);
    fputs(": the figures are too far apart to compare (the ratio or its interval is not "
          "finite)\n", stderr);
    status = -1;
    goto done;
  }
  cpucycles_judge(low, high, c->tolerance / 100, c->judge_anyway ? 0 : reasons, c->exit_faster, j);
  if (c->judge_anyway && j->verdict == CPUCYCLES_VERDICT_CANNOT_JUDGE) {
    /* across the tolerance, judged anyway: no failure, by its interval's word */
    j->verdict = low > 1 ? CPUCYCLES_VERDICT_SLOWER : high < 1 ? CPUCYCLES_VERDICT_FASTER
                                                               : CPUCYCLES_VERDICT_INDISTINGUISHABLE;
    j->status = CPUCYCLES_EXIT_NOT_SLOWER;
  }
  cpucycles_out_start(&out, says, sizeof says);
  cpucycles_verdict_phrase(&out, j, c->tolerance);
  speed = cpucycles_exp(sn.log_reference - so.log_reference);
  if (c->json) {
    struct comparison_row row;
    row.name = go->name.s, row.name_length = go->name.n, row.j = j;
    row.ratio = ratio, row.low = low, row.high = high, row.old_figure = so.cycles, row.new_figure = sn.cycles;
    comparison_row(&row, c->tolerance, c->rows++ == 0);
    json_member("interval");
    json_string(!single ? "between processes" : go->n == gn->n ? "within each process" : "between one side's processes");
    json_member("normalized"), fputs(normalized ? "true" : "false", stdout);
    json_member("speed"), json_number(normalized ? speed : NAN);
    printf(",\n     \"old_executions\": %zu, \"new_executions\": %zu", go->n, gn->n);
    /* what the estimate took, as figures (each divided by its reference
     * when normalized): enough to judge this row again */
    for (i = 0; i < go->n; i++) vo[i] = go->x[i]->cycles / (normalized ? go->x[i]->reference : 1);
    for (i = 0; i < gn->n; i++) vn[i] = gn->x[i]->cycles / (normalized ? gn->x[i]->reference : 1);
    fputs(",\n     \"old_samples\": ", stdout), json_numbers(vo, (long)go->n);
    fputs(",\n     \"new_samples\": ", stdout), json_numbers(vn, (long)gn->n);
    if (single) {
      json_member("old_one_error"), json_number(go->n == 1 ? go->x[0]->error / go->x[0]->cycles : NAN);
      json_member("new_one_error"), json_number(gn->n == 1 ? gn->x[0]->error / gn->x[0]->cycles : NAN);
    }
    comparison_row_end();
    goto done;
  }
  if (c->alone) {
    fputs("old ", stdout), saved_put_text(stdout, go->name), fputs(": ", stdout), put_side(go, &so);
    fputs("\nnew ", stdout), saved_put_text(stdout, gn->name), fputs(": ", stdout), put_side(gn, &sn);
    putchar('\n');
  } else {
    saved_put_text(stdout, go->name), fputs(": old ", stdout), put_side(go, &so);
    fputs(", new ", stdout), put_side(gn, &sn), fputs(", ", stdout);
  }
  printf("new/old %.4f, 99%% interval [%.4f, %.4f] %s: %s%s\n", ratio, low, high,
         !single ? "between processes"
         : go->n == gn->n ? "within each process"
         : go->n == 1 ? "between NEW's processes, within OLD's"
                      : "between OLD's processes, within NEW's",
         says, c->judge_anyway && (reasons || j->undecided) ? " (judged anyway)" : "");
  /* the host's speed: the references of both sides, or that of neither */
  if (normalized && (speed > 1 + SPEED_SAID || speed < 1 - SPEED_SAID)) {
    if (!c->alone) saved_put_text(stdout, go->name), fputs(": ", stdout);
    printf("(the harness's reference took %.3f times the cycles in NEW's executions as in OLD's: "
           "the host ran at another speed, and each figure is divided by its reference)\n", speed);
  } else if ((go->x[0]->gb || gn->x[0]->gb) && !c->gb_said++) {
    /* what GB's JSON lacks is said (once), not made up */
    printf("(Google Benchmark's JSON: its time per iteration (CPU time, or real time where the benchmark asks "
           "for it), each run of the program an execution; it "
           "names no counter, no host fingerprint (its host's name only) and not the host's speed, so a slower "
           "host measures as slower code)\n");
  } else if (!normalized && (referenced(go) || referenced(gn))) {
    if (!c->alone) saved_put_text(stdout, go->name), fputs(": ", stdout);
    printf("(%s's results carry no reference (saved before schema 2): the host's speed is not "
           "known, and a slower host measures as slower code)\n", referenced(go) ? "NEW" : "OLD");
  }
done:
  free(kept_old.x), free(kept_new.x), free(vo), free(vn);
  return status;
}

/* The names only one side has, as a JSON array (after the rows). */
static void json_only(const char *key, const struct saved *r)
{
  size_t i;
  int n = 0;
  json_key(key, 0), fputs("[", stdout);
  for (i = 0; i < r->ngroups; i++)
    if (!r->in_order[i]->matched) {
      if (n++) fputs(", ", stdout);
      json_text(r->in_order[i]->name.s, r->in_order[i]->name.n);
    }
  fputs("]", stdout);
}

static int compare_loaded(struct saved *old, struct saved *new, double tolerance, int exit_faster,
                          int judge_anyway, int json)
{
  size_t i, k, compared = 0, counts[4] = {0, 0, 0, 0}, beyond = 0, faster_beyond = 0;
  int status = CPUCYCLES_EXIT_NOT_SLOWER;
  struct cpucycles_judgement j;
  struct comparison_head h;
  struct context c;
  memset(&c, 0, sizeof c);
  c.old = old, c.new = new, c.tolerance = tolerance, c.exit_faster = exit_faster;
  c.judge_anyway = judge_anyway, c.json = json;
  if (json) {
    h.tool = "cpucycles-info --compare", h.old_name = old->path, h.new_name = new->path;
    h.measured = "cycles per call", h.tolerance = tolerance, h.looks = 1;
    comparison_begin(&h);
    comparison_rows();
  }
  if (old->ngroups == 1 && new->ngroups == 1) { /* one name each: whatever the names */
    c.alone = !json;
    if (judge(&c, &old->groups[0], &new->groups[0], &j) != 0) return CPUCYCLES_EXIT_ERROR;
    if (c.reasons > REASONS_MAX)
      fprintf(stderr, "cpucycles-info: (and %zu more reasons)\n", c.reasons - REASONS_MAX);
    old->groups[0].matched = new->groups[0].matched = 1;
    if (json) comparison_rows_end(), comparison_end(j.status);
    return j.status;
  }
  /* in OLD's order */
  for (i = 0; i < old->ngroups; i++) {
    struct group *g = old->in_order[i], *match = saved_find(new, g->name);
    if (!match) continue;
    g->matched = match->matched = 1;
    if (judge(&c, g, match, &j) != 0) return CPUCYCLES_EXIT_ERROR;
    compared++, counts[j.verdict]++, beyond += j.beyond != 0, faster_beyond += j.faster_beyond != 0;
    status = cpucycles_exit_combine(status, j.status);
  }
  if (c.reasons > REASONS_MAX)
    fprintf(stderr, "cpucycles-info: (and %zu more reasons)\n", c.reasons - REASONS_MAX);
  if (json) {
    comparison_rows_end();
    json_only("only_in_old", old), json_only("only_in_new", new);
    comparison_end(compared ? status : CPUCYCLES_EXIT_ERROR);
  }
  for (i = 0; !json && i < old->ngroups; i++)
    if (!old->in_order[i]->matched)
      saved_put_text(stdout, old->in_order[i]->name), fputs(": only in OLD\n", stdout);
  for (k = 0; !json && k < new->ngroups; k++)
    if (!new->in_order[k]->matched)
      saved_put_text(stdout, new->in_order[k]->name), fputs(": only in NEW\n", stdout);
  if (compared == 0) {
    fputs("cpucycles-info: no result of OLD has a name that one of NEW has: nothing to compare\n",
          stderr);
    return CPUCYCLES_EXIT_ERROR;
  }
  if (!json)
    printf("%zu compared (tolerance %g%%): %zu slower (%zu beyond the tolerance), %zu faster (%zu "
         "beyond it), %zu indistinguishable, %zu cannot judge\n",
         compared, tolerance, counts[CPUCYCLES_VERDICT_SLOWER], beyond, counts[CPUCYCLES_VERDICT_FASTER],
         faster_beyond, counts[CPUCYCLES_VERDICT_INDISTINGUISHABLE], counts[CPUCYCLES_VERDICT_CANNOT_JUDGE]);
  return status;
}

int cpucycles_info_compare(const char *old_path, const char *new_path, double tolerance,
                           int exit_faster, int judge_anyway, int json)
{
  struct saved old, new;
  int status;
  memset(&old, 0, sizeof old), memset(&new, 0, sizeof new);
  old.label = "OLD", old.path = old_path, new.label = "NEW", new.path = new_path;
  status = saved_load(&old) == 0 && saved_load(&new) == 0
               ? compare_loaded(&old, &new, tolerance, exit_faster, judge_anyway, json)
               : CPUCYCLES_EXIT_ERROR;
  saved_free(&old), saved_free(&new);
  return status;
}

/* ---- a comparison judged again ----
 * A comparison document (cpucycles-compare --json, --compare --json)
 * holds what its verdicts were made of: each execution's ratio (paired),
 * each side's figures (unpaired), or at least the interval.  Judged again
 * by the same rule, at another tolerance: the reasons it gave that are
 * not the tolerance's (disturbed, measured apart) stand. */

/* The numbers of a JSON array member: a malloc()ed array (of *n), 0 with
 * *n 0 when there is none; NaN for a null. */
static double *numbers(const struct cpucycles_json *row, const char *key, size_t *n)
{
  const struct cpucycles_json_member *m = cpucycles_json_find(row, key);
  struct cpucycles_json_span *spans;
  char why[256];
  double *v;
  size_t i;
  *n = 0;
  if (!m || m->type != CPUCYCLES_JSON_ARRAY ||
      cpucycles_json_values(m->string, m->length, &spans, n, why, sizeof why) != 0)
    return 0;
  if (!(v = malloc((*n ? *n : 1) * sizeof *v))) {
    free(spans);
    *n = 0;
    return 0;
  }
  for (i = 0; i < *n; i++) {
    const char *text = m->string + spans[i].offset, *end;
    v[i] = text[0] == 'n' ? NAN : cpucycles_parse_decimal(text, &end);
  }
  free(spans);
  return v;
}

/* The reasons a row gave, by name (verdict.h's), but the tolerance's. */
static unsigned int stored_reasons(const struct cpucycles_json *row)
{
  const struct cpucycles_json_member *m = cpucycles_json_find(row, "reasons");
  struct cpucycles_json_span *spans;
  unsigned int bit, reasons = 0;
  char why[256];
  size_t i, n;
  if (!m || m->type != CPUCYCLES_JSON_ARRAY ||
      cpucycles_json_values(m->string, m->length, &spans, &n, why, sizeof why) != 0)
    return 0;
  for (i = 0; i < n; i++)
    for (bit = 1; bit; bit <<= 1) {
      const char *name = cpucycles_verdict_reason_name(bit);
      if (name && bit != CPUCYCLES_REASON_ACROSS && spans[i].length == strlen(name) + 2 &&
          !memcmp(m->string + spans[i].offset + 1, name, strlen(name)))
        reasons |= bit;
    }
  free(spans);
  return reasons;
}

/* One row judged again: its interval from its samples or as stored. */
static void rejudge_row(const struct cpucycles_json *row, int looks, double tolerance, int exit_faster,
                        int judge_anyway, double *ratio, double *low, double *high,
                        struct cpucycles_judgement *j)
{
  struct cpucycles_estimate e;
  double *paired, *olds, *news, old_error = NAN, new_error = NAN;
  size_t np, no, nn, i;
  unsigned int reasons = stored_reasons(row);
  int ok = 0;
  *ratio = *low = *high = NAN;
  paired = numbers(row, "ratio_samples", &np);
  olds = numbers(row, "old_samples", &no);
  news = numbers(row, "new_samples", &nn);
  cpucycles_json_number(row, "old_one_error", &old_error);
  cpucycles_json_number(row, "new_one_error", &new_error);
  if (np >= 2) {
    for (i = 0; i < np; i++) paired[i] = paired[i] > 0 ? cpucycles_log(paired[i]) : NAN;
    ok = cpucycles_estimate_paired(paired, (long long)np, &e) == 0 &&
         cpucycles_interval(&e, looks, ratio, low, high) == 0;
  } else if (no >= 1 && nn >= 1) {
    for (i = 0; i < no; i++) olds[i] = olds[i] > 0 ? cpucycles_log(olds[i]) : NAN;
    for (i = 0; i < nn; i++) news[i] = news[i] > 0 ? cpucycles_log(news[i]) : NAN;
    ok = cpucycles_estimate_unpaired(olds, (long long)no, isfinite(old_error) ? old_error * old_error : 0, news,
                                     (long long)nn, isfinite(new_error) ? new_error * new_error : 0, &e) == 0 &&
         cpucycles_interval(&e, 1, ratio, low, high) == 0;
    if (no == 1 || nn == 1) reasons |= CPUCYCLES_REASON_ONE;
  } else if (cpucycles_json_number(row, "ratio_low", low) && cpucycles_json_number(row, "ratio_high", high)) {
    ok = 1;
    if (!cpucycles_json_number(row, "ratio", ratio)) *ratio = NAN;
  }
  if (!ok) *ratio = *low = *high = NAN;
  cpucycles_judge(*low, *high, tolerance / 100, judge_anyway ? 0 : reasons, exit_faster, j);
  if (judge_anyway && j->verdict == CPUCYCLES_VERDICT_CANNOT_JUDGE && ok) {
    j->verdict = *low > 1 ? CPUCYCLES_VERDICT_SLOWER : *high < 1 ? CPUCYCLES_VERDICT_FASTER
                                                                 : CPUCYCLES_VERDICT_INDISTINGUISHABLE;
    j->status = CPUCYCLES_EXIT_NOT_SLOWER;
  }
  free(paired), free(olds), free(news);
}

int cpucycles_info_rejudge(const char *path, double tolerance, int tolerance_given, int exit_faster,
                           int judge_anyway, int json)
{
  struct saved file;
  struct cpucycles_json doc, row;
  struct cpucycles_json_span *spans = 0;
  const struct cpucycles_json_member *rows;
  struct comparison_head h;
  struct cpucycles_judgement j;
  const char *type, *name;
  char why[256], says[512];
  size_t n, i, length, counts[4] = {0, 0, 0, 0};
  double looks = 1, stored = 0, ratio, low, high, old_figure, new_figure;
  int status = CPUCYCLES_EXIT_NOT_SLOWER;
  memset(&file, 0, sizeof file);
  file.label = "FILE", file.path = path;
  if (saved_read(&file) != 0) return CPUCYCLES_EXIT_ERROR;
  if (cpucycles_json_parse(&doc, file.text, file.length, why, sizeof why) != 0) {
    fprintf(stderr, "cpucycles-info: %s: not a comparison (not one JSON object: %s): to compare saved "
                    "results, give two files, --compare OLD NEW\n", path, why);
    free(file.text);
    return CPUCYCLES_EXIT_ERROR;
  }
  type = cpucycles_json_string(&doc, "type", &length);
  rows = cpucycles_json_find(&doc, "rows");
  if (!type || strcmp(type, "comparison") != 0 || !rows || rows->type != CPUCYCLES_JSON_ARRAY ||
      cpucycles_json_values(rows->string, rows->length, &spans, &n, why, sizeof why) != 0) {
    fprintf(stderr, "cpucycles-info: %s: not a comparison (no \"type\": \"comparison\" with its "
                    "\"rows\"): to compare saved results, give two files, --compare OLD NEW\n", path);
    cpucycles_json_free(&doc), free(file.text);
    return CPUCYCLES_EXIT_ERROR;
  }
  cpucycles_json_number(&doc, "looks", &looks);
  if (!tolerance_given && cpucycles_json_number(&doc, "tolerance", &stored) && stored >= 0 && stored < 100)
    tolerance = stored;
  if (json) {
    h.tool = "cpucycles-info --compare", h.old_name = cpucycles_json_string(&doc, "old", &length);
    h.new_name = cpucycles_json_string(&doc, "new", &length);
    h.measured = cpucycles_json_string(&doc, "measured", &length);
    h.tolerance = tolerance, h.looks = looks >= 2 ? 2 : 1;
    comparison_begin(&h);
    json_key("judged_again", 0), json_string(path);
    comparison_rows();
  }
  for (i = 0; i < n; i++) {
    struct cpucycles_out out;
    if (cpucycles_json_parse(&row, rows->string + spans[i].offset, spans[i].length, why, sizeof why) != 0)
      continue;
    name = cpucycles_json_string(&row, "name", &length);
    if (!name) name = "", length = 0;
    rejudge_row(&row, looks >= 2 ? 2 : 1, tolerance, exit_faster, judge_anyway, &ratio, &low, &high, &j);
    counts[j.verdict]++;
    status = cpucycles_exit_combine(status, j.status);
    if (json) {
      struct comparison_row c;
      if (!cpucycles_json_number(&row, "old", &old_figure)) old_figure = NAN;
      if (!cpucycles_json_number(&row, "new", &new_figure)) new_figure = NAN;
      c.name = name, c.name_length = length, c.j = &j, c.ratio = ratio, c.low = low, c.high = high;
      c.old_figure = old_figure, c.new_figure = new_figure;
      comparison_row(&c, tolerance, i == 0);
      comparison_row_end();
    } else {
      struct text t;
      cpucycles_out_start(&out, says, sizeof says);
      cpucycles_verdict_phrase(&out, &j, tolerance);
      t.s = name, t.n = length;
      saved_put_text(stdout, t);
      printf(": new/old %.4f, %g%% interval [%.4f, %.4f]: %s%s\n", ratio,
             100 * cpucycles_verdict_confidence(looks >= 2 ? 2 : 1), low, high, says,
             judge_anyway && j.reasons ? " (judged anyway)" : "");
    }
    cpucycles_json_free(&row);
  }
  if (json) comparison_rows_end(), comparison_end(status);
  else
    printf("%zu judged again (tolerance %g%%): %zu slower, %zu faster, %zu indistinguishable, %zu cannot "
           "judge\n", n, tolerance, counts[CPUCYCLES_VERDICT_SLOWER], counts[CPUCYCLES_VERDICT_FASTER],
           counts[CPUCYCLES_VERDICT_INDISTINGUISHABLE], counts[CPUCYCLES_VERDICT_CANNOT_JUDGE]);
  free(spans);
  cpucycles_json_free(&doc), free(file.text);
  return status;
}
