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
#include "format.h"
#include "saved.h"
#include "verdict.h"
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
  speed = cpucycles_exp(sn.log_reference - so.log_reference);
  if (normalized && (speed > 1 + SPEED_SAID || speed < 1 - SPEED_SAID)) {
    if (!c->alone) saved_put_text(stdout, go->name), fputs(": ", stdout);
    printf("(the harness's reference took %.3f times the cycles in NEW's executions as in OLD's: "
           "the host ran at another speed, and each figure is divided by its reference)\n", speed);
  } else if (!normalized && (referenced(go) || referenced(gn))) {
    if (!c->alone) saved_put_text(stdout, go->name), fputs(": ", stdout);
    printf("(%s's results carry no reference (saved before schema 2): the host's speed is not "
           "known, and a slower host measures as slower code)\n", referenced(go) ? "NEW" : "OLD");
  }
done:
  free(kept_old.x), free(kept_new.x), free(vo), free(vn);
  return status;
}

static int compare_loaded(struct saved *old, struct saved *new, double tolerance, int exit_faster,
                          int judge_anyway)
{
  size_t i, k, compared = 0, counts[4] = {0, 0, 0, 0}, beyond = 0, faster_beyond = 0;
  int status = CPUCYCLES_EXIT_NOT_SLOWER;
  struct cpucycles_judgement j;
  struct context c;
  memset(&c, 0, sizeof c);
  c.old = old, c.new = new, c.tolerance = tolerance, c.exit_faster = exit_faster;
  c.judge_anyway = judge_anyway;
  if (old->ngroups == 1 && new->ngroups == 1) { /* one name each: whatever the names */
    c.alone = 1;
    if (judge(&c, &old->groups[0], &new->groups[0], &j) != 0) return CPUCYCLES_EXIT_ERROR;
    if (c.reasons > REASONS_MAX)
      fprintf(stderr, "cpucycles-info: (and %zu more reasons)\n", c.reasons - REASONS_MAX);
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
  for (i = 0; i < old->ngroups; i++)
    if (!old->in_order[i]->matched)
      saved_put_text(stdout, old->in_order[i]->name), fputs(": only in OLD\n", stdout);
  for (k = 0; k < new->ngroups; k++)
    if (!new->in_order[k]->matched)
      saved_put_text(stdout, new->in_order[k]->name), fputs(": only in NEW\n", stdout);
  if (compared == 0) {
    fputs("cpucycles-info: no result of OLD has a name that one of NEW has: nothing to compare\n",
          stderr);
    return CPUCYCLES_EXIT_ERROR;
  }
  printf("%zu compared (tolerance %g%%): %zu slower (%zu beyond the tolerance), %zu faster (%zu "
         "beyond it), %zu indistinguishable, %zu cannot judge\n",
         compared, tolerance, counts[CPUCYCLES_VERDICT_SLOWER], beyond, counts[CPUCYCLES_VERDICT_FASTER],
         faster_beyond, counts[CPUCYCLES_VERDICT_INDISTINGUISHABLE], counts[CPUCYCLES_VERDICT_CANNOT_JUDGE]);
  return status;
}

int cpucycles_info_compare(const char *old_path, const char *new_path, double tolerance,
                           int exit_faster, int judge_anyway)
{
  struct saved old, new;
  int status;
  memset(&old, 0, sizeof old), memset(&new, 0, sizeof new);
  old.label = "OLD", old.path = old_path, new.label = "NEW", new.path = new_path;
  status = saved_load(&old) == 0 && saved_load(&new) == 0
               ? compare_loaded(&old, &new, tolerance, exit_faster, judge_anyway)
               : CPUCYCLES_EXIT_ERROR;
  saved_free(&old), saved_free(&new);
  return status;
}
