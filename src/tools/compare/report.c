/* SPDX-License-Identifier: MIT */
/* report.c - what cpucycles-compare prints: the result as text or as one
 * JSON object (its strings and numbers written by the project's writer,
 * src/bench/out.c), what its intervals cover, and its messages. */
#include "compare-tool.h"
#include "cpucycles-bench.h"
#include "comparison.h"
#include "format.h"
#include "verdict.h"
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define COVERS "placement: each execution a fresh process (ASLR), with its own copy of each file, entry addresses, environment size and stack offset"
#define COVERS_NO_COPY "placement: each execution a fresh process (ASLR), with its own entry addresses, environment size and stack offset"

/* How a build was loaded in one execution, from its "placement" line:
 * MOVED (a copy, its code moved), COPIED (a copy as it is), FILE (the
 * file itself); *why says why not moved or not copied. */
enum { MOVED, COPIED, FILE_ITSELF };
#define SAID_COPIED PLACEMENT_COPIED ": "
#define SAID_FILE PLACEMENT_FILE ": "
static int loaded_how(const struct outcome *run, int j, const char **why)
{
  const char *w = run->why[j];
  *why = 0;
  if (run->offset[j] >= 0) return MOVED;
  if (!strncmp(w, SAID_COPIED, strlen(SAID_COPIED))) {
    *why = w + strlen(SAID_COPIED);
    return COPIED;
  }
  *why = !strncmp(w, SAID_FILE, strlen(SAID_FILE)) ? w + strlen(SAID_FILE) : w[0] ? w : "not reported";
  return FILE_ITSELF;
}

/* One build's part of why the code's offset is not covered: "OLD: why"
 * for copies not moved, "OLD loaded as it is: why" for the file itself,
 * each with "in k of E executions" when not in all; "" when moved in
 * every execution. */
static void not_moved(const struct outcome *runs, long n, int j, char *text, size_t size)
{
  const char *why, *first[3] = {0, 0, 0}, *who = j ? "NEW" : "OLD";
  long e, count[3] = {0, 0, 0};
  size_t used = 0;
  int how;
  text[0] = 0;
  for (e = 0; e < n; e++) {
    how = loaded_how(&runs[e], j, &why);
    if (!count[how]++) first[how] = why;
  }
  for (how = FILE_ITSELF; how >= COPIED && used < size; how--) {
    char times[64] = "";
    if (!count[how]) continue;
    if (count[how] < n) snprintf(times, sizeof times, " in %ld of %ld executions", count[how], n);
    used += (size_t)snprintf(text + used, size - used, "%s%s%s%s: %s", used ? "; " : "", who,
                             how == FILE_ITSELF ? " loaded as it is" : "", times, first[how]);
  }
}

/* What the intervals cover: COVERS, and the code's offset within its
 * pages where both builds were moved in every execution, or why not: a
 * copy of each file only where each was copied in every execution. */
static void covers(const struct options *o, const struct outcome *runs, long n, char *text, size_t size)
{
  char why[2][300];
  const char *unused;
  long e;
  int j, all_copied = 1;
  if (!o->copy) {
    snprintf(text, size, "%s; not the code's offset within its pages (--no-copy)", COVERS_NO_COPY);
    return;
  }
  for (e = 0; e < n; e++)
    for (j = 0; j < 2; j++)
      if (loaded_how(&runs[e], j, &unused) == FILE_ITSELF) all_copied = 0;
  not_moved(runs, n, 0, why[0], sizeof why[0]);
  not_moved(runs, n, 1, why[1], sizeof why[1]);
  if (!why[0][0] && !why[1][0])
    snprintf(text, size, "%s, and the code's offset within its pages", COVERS);
  else
    snprintf(text, size, "%s; not %sthe code's offset within its pages (%s%s%s)",
             all_copied ? COVERS : COVERS_NO_COPY, all_copied ? "" : "a fresh copy of each file or ",
             why[0], why[0][0] && why[1][0] ? "; " : "", why[1]);
}

/* "old_code_offsets": [...] (null where not moved), "old_code_step": N
 * (0 when never moved), "old_loaded": ["moved copy" | "copy" | "file"...],
 * "old_loaded_why": [null | why not moved or not copied...], and NEW's. */
static void json_code(const struct outcome *runs, long n, int j, const char *who)
{
  char key[32];
  unsigned long step = 0;
  long e;
  snprintf(key, sizeof key, "%s_code_offsets", who);
  json_key(key, 0), fputs("[", stdout);
  for (e = 0; e < n; e++) {
    if (e) fputs(", ", stdout);
    if (runs[e].offset[j] >= 0)
      printf("%ld", runs[e].offset[j]), step = runs[e].step[j];
    else
      fputs("null", stdout);
  }
  fputs("]", stdout);
  snprintf(key, sizeof key, "%s_code_step", who);
  json_key(key, 0), printf("%lu", step);
  /* how it was loaded in each execution, and why not moved or copied */
  snprintf(key, sizeof key, "%s_loaded", who);
  json_key(key, 0), fputs("[", stdout);
  for (e = 0; e < n; e++) {
    const char *why;
    int how = loaded_how(&runs[e], j, &why);
    printf("%s\"%s\"", e ? ", " : "", how == MOVED ? "moved copy" : how == COPIED ? "copy" : "file");
  }
  fputs("]", stdout);
  snprintf(key, sizeof key, "%s_loaded_why", who);
  json_key(key, 0), fputs("[", stdout);
  for (e = 0; e < n; e++) {
    const char *why;
    if (e) fputs(", ", stdout);
    loaded_how(&runs[e], j, &why);
    if (why) json_string(why);
    else fputs("null", stdout);
  }
  fputs("]", stdout);
}

/* A row's verdict in words (verdict.h's phrase), into buf. */
static const char *phrase(const struct options *o, const struct row *r, char *buf, size_t size)
{
  struct cpucycles_out out;
  cpucycles_out_start(&out, buf, size);
  cpucycles_verdict_phrase(&out, &r->j, o->tolerance);
  return buf;
}

/* The comparison document every comparison of cpucycles writes (schema
 * 2: comparison.h), with this tool's own members after the common ones. */
void print_json(const struct options *o, const struct row *rows, struct outcome *runs, long n, int status)
{
  struct comparison_head h;
  struct comparison_row c;
  char covered[2048];
  double *samples = calloc(n > 0 ? (size_t)n : 1, sizeof *samples);
  int s;
  long e;
  covers(o, runs, n, covered, sizeof covered);
  h.tool = PROGRAM, h.old_name = o->old_label, h.new_name = o->new_label, h.measured = "cycles per call";
  h.tolerance = o->tolerance, h.looks = o->nsymbols ? rows[0].looks : 1;
  comparison_begin(&h);
  json_key("executions", 0), printf("%ld", n);
  json_key("first_stage", 0), printf("%ld", o->executions);
  json_key("max_executions", 0), printf("%ld", o->tolerance > 0 ? o->max_executions : o->executions);
  json_key("seconds", 0), json_number(o->seconds);
  json_key("interval_covers", 0), json_string(covered);
  json_code(runs, n, 0, "old"), json_code(runs, n, 1, "new");
  json_key("old_alignments", 0), printf("{\"code\": %lu, \"data\": %lu}", n ? runs[0].code_align[0] : 0,
                                        n ? runs[0].data_align[0] : 0);
  json_key("new_alignments", 0), printf("{\"code\": %lu, \"data\": %lu}", n ? runs[0].code_align[1] : 0,
                                        n ? runs[0].data_align[1] : 0);
  comparison_rows();
  for (s = 0; s < o->nsymbols; s++) {
    const struct row *r = &rows[s];
    c.name = r->symbol, c.name_length = strlen(r->symbol), c.j = &r->j;
    c.ratio = r->ratio, c.low = r->low, c.high = r->high;
    c.old_figure = r->old_cycles, c.new_figure = r->new_cycles;
    comparison_row(&c, o->tolerance, s == 0);
    fputs(",\n     \"difference\": ", stdout), json_number(r->difference);
    json_member("difference_low"), json_number(r->difference_low);
    json_member("difference_high"), json_number(r->difference_high);
    printf(",\n     \"executions\": %ld, \"pairs\": %lld", r->executions, r->pairs);
    json_member("placement_sd"), json_number(r->placement_sd);
    json_member("placement_share"), json_number(r->placement_share);
    json_member("within_sd"), json_number(r->within_sd);
    json_member("placement_coarse"), fputs(r->coarse ? "true" : "false", stdout);
    for (e = 0; samples && e < n; e++) samples[e] = runs[e].m[s].ratio;
    fputs(",\n     \"ratio_samples\": ", stdout), json_numbers(samples, samples ? n : 0);
    comparison_row_end();
  }
  comparison_rows_end();
  comparison_end(status);
  free(samples);
}

/* The rows in comparison.c's form, for its Markdown and SVG */
static void as_comparison(const struct options *o, const struct row *rows, struct comparison_head *h,
                          struct comparison_row *c)
{
  int s;
  h->tool = PROGRAM, h->old_name = o->old_label, h->new_name = o->new_label, h->measured = "cycles per call";
  h->tolerance = o->tolerance, h->looks = o->nsymbols ? rows[0].looks : 1;
  for (s = 0; s < o->nsymbols; s++) {
    c[s].name = rows[s].symbol, c[s].name_length = strlen(rows[s].symbol), c[s].j = &rows[s].j;
    c[s].ratio = rows[s].ratio, c[s].low = rows[s].low, c[s].high = rows[s].high;
    c[s].old_figure = rows[s].old_cycles, c[s].new_figure = rows[s].new_cycles;
  }
}

/* The rows as Markdown (comparison.c), for a pull request's comment. */
void print_markdown(const struct options *o, const struct row *rows, long n)
{
  struct comparison_head h;
  struct comparison_row c[MAX_SYMBOLS];
  as_comparison(o, rows, &h, c);
  comparison_markdown(&h, o->command, c, (size_t)o->nsymbols, 0, n, "executions");
}

int plot_builds(const struct options *o, const struct row *rows)
{
  struct comparison_head h;
  struct comparison_row c[MAX_SYMBOLS];
  char why[4096 + 128];
  as_comparison(o, rows, &h, c);
  if (plot_write(o->plot, &h, c, (size_t)o->nsymbols, why, sizeof why) == 0) return 0;
  complain("%s", why);
  return 2;
}

/* a printable form of a path or name: control bytes as '?' */
void put_clean(FILE *f, const char *s)
{
  for (; *s; s++) putc(clean_char(*s), f);
}

void print_text(const struct options *o, const struct row *rows, const struct outcome *runs, long n)
{
  char covered[2048], words[512];
  int s, width = 6;
  covers(o, runs, n, covered, sizeof covered);
  for (s = 0; s < o->nsymbols; s++)
    if ((int)strlen(o->symbols[s]) > width) width = (int)strlen(o->symbols[s]);
  fputs("NEW ", stdout), put_clean(stdout, o->new_label);
  fputs(" against OLD ", stdout), put_clean(stdout, o->old_label);
  printf(": %ld executions of %g s per symbol", n, o->seconds);
  if (n > o->executions)
    printf(" (%ld, then %ld more: the first left a row across the tolerance)", o->executions,
           n - o->executions);
  printf("\nthe %s%% intervals cover the noise within each execution and %s\n",
         o->nsymbols && rows[0].looks > 1 ? "99.5" : "99", covered);
  printf("%-*s  %9s  %-21s  %10s  %10s  %9s  %5s  %s\n", width, "symbol", "new/old",
         o->nsymbols && rows[0].looks > 1 ? "99.5% interval" : "99% interval", "old cycles",
         "new cycles", "placement", "share", "verdict");
  for (s = 0; s < o->nsymbols; s++) {
    const struct row *r = &rows[s];
    char interval[64], sd[32], share[16];
    if (isfinite(r->ratio))
      snprintf(interval, sizeof interval, "[%.4f, %.4f]", r->low, r->high);
    else
      snprintf(interval, sizeof interval, "(no ratio: OLD ~0)");
    if (isfinite(r->placement_sd)) {
      snprintf(sd, sizeof sd, "%.3f%%", 100 * r->placement_sd);
      snprintf(share, sizeof share, "%.0f%%", 100 * r->placement_share);
    } else {
      snprintf(sd, sizeof sd, "-"), snprintf(share, sizeof share, "-");
    }
    put_clean(stdout, r->symbol);
    printf("%*s  %9.4f  %-21s  %10.1f  %10.1f  %9s  %5s  %s\n", width - (int)strlen(r->symbol), "",
           r->ratio, interval, r->old_cycles, r->new_cycles, sd, share, phrase(o, r, words, sizeof words));
  }
  puts("(placement: the standard deviation of NEW/OLD between executions beyond the noise\n"
       " within them; share: its part of the variance between executions)");
  for (s = 0; s < o->nsymbols; s++)
    if (rows[s].coarse) {
      int j, k = 0;
      fputs("(placement: ", stdout);
      for (j = 0; j < 2; j++)
        if (n && placement_coarse(&runs[0], j))
          printf("%s%s's data is aligned to %lu bytes, above its code's %lu", k++ ? "; " : "", j ? "NEW" : "OLD",
                 runs[0].data_align[j], runs[0].code_align[j]);
      printf(": its code moved %s, and each function kept its offset within its cache lines;\n"
             " a row is not called different by under %.0f%% on that ground alone: cannot judge)\n",
             n && runs[0].offset[0] < 0 && runs[0].offset[1] < 0 ? "not at all" : "in 64-byte steps or more",
             100 * PLACEMENT_ALLOWANCE);
      break;
    }
  for (s = 0; s < o->nsymbols; s++)
    if (rows[s].j.undecided) {
      printf("(across the tolerance still after %ld executions, the most --max-executions allows:\n"
             " more executions, --seconds, or a quieter machine may decide it)\n", n);
      break;
    }
  for (s = 0; s < o->nsymbols; s++)
    if (rows[s].pair_seconds > 0) {
      fputc('(', stdout), put_clean(stdout, rows[s].symbol);
      printf(": %lld pairs in an execution, fewer than the %d kept when --seconds allows: a pair\n"
             " of calls takes %.3g s; --seconds %.3g for %d)\n",
             rows[s].pairs, HARNESS_MIN_PAIRS, rows[s].pair_seconds,
             1.05 * rows[s].pair_seconds * (HARNESS_MIN_PAIRS + SETUP_PAIRS), HARNESS_MIN_PAIRS);
    }
}

/* A message on stderr, its paths and names cleaned as the output's are. */
void complain(const char *format, ...)
{
  char text[3 * LINE_MAX_];
  va_list ap;
  va_start(ap, format);
  vsnprintf(text, sizeof text, format, ap);
  va_end(ap);
  fputs(PROGRAM ": ", stderr), put_clean(stderr, text), fputc('\n', stderr);
}
