/* SPDX-License-Identifier: MIT */
/* report.c - what cpucycles-compare prints: the result as text or as one
 * JSON object (its strings and numbers written by the project's writer,
 * src/bench/out.c), what its intervals cover, and its messages. */
#include "compare-tool.h"
#include "cpucycles-bench.h"
#include "format.h"
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *verdict_word(int verdict)
{
  return verdict == CPUCYCLES_COMPARE_B_SLOWER   ? "slower"
         : verdict == CPUCYCLES_COMPARE_B_FASTER ? "faster"
                                                 : "indistinguishable";
}

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
static void not_moved(const struct options *o, const struct outcome *runs, int j, char *text, size_t size)
{
  const char *why, *first[3] = {0, 0, 0}, *who = j ? "NEW" : "OLD";
  long e, count[3] = {0, 0, 0};
  size_t n = 0;
  int how;
  text[0] = 0;
  for (e = 0; e < o->executions; e++) {
    how = loaded_how(&runs[e], j, &why);
    if (!count[how]++) first[how] = why;
  }
  for (how = FILE_ITSELF; how >= COPIED && n < size; how--) {
    char times[64] = "";
    if (!count[how]) continue;
    if (count[how] < o->executions)
      snprintf(times, sizeof times, " in %ld of %ld executions", count[how], o->executions);
    n += (size_t)snprintf(text + n, size - n, "%s%s%s%s: %s", n ? "; " : "", who,
                          how == FILE_ITSELF ? " loaded as it is" : "", times, first[how]);
  }
}

/* What the intervals cover: COVERS, and the code's offset within its
 * pages where both builds were moved in every execution, or why not: a
 * copy of each file only where each was copied in every execution. */
static void covers(const struct options *o, const struct outcome *runs, char *text, size_t size)
{
  char why[2][300];
  const char *unused;
  long e;
  int j, all_copied = 1;
  if (!o->copy) {
    snprintf(text, size, "%s; not the code's offset within its pages (--no-copy)", COVERS_NO_COPY);
    return;
  }
  for (e = 0; e < o->executions; e++)
    for (j = 0; j < 2; j++)
      if (loaded_how(&runs[e], j, &unused) == FILE_ITSELF) all_copied = 0;
  not_moved(o, runs, 0, why[0], sizeof why[0]);
  not_moved(o, runs, 1, why[1], sizeof why[1]);
  if (!why[0][0] && !why[1][0])
    snprintf(text, size, "%s, and the code's offset within its pages", COVERS);
  else
    snprintf(text, size, "%s; not %sthe code's offset within its pages (%s%s%s)",
             all_copied ? COVERS : COVERS_NO_COPY, all_copied ? "" : "a fresh copy of each file or ",
             why[0], why[0][0] && why[1][0] ? "; " : "", why[1]);
}

static void json_string(const char *s)
{
  struct cpucycles_out out;
  size_t size = 6 * strlen(s) + 3;
  char *buf = malloc(size);
  if (!buf) {
    fputs("null", stdout);
    return;
  }
  cpucycles_out_start(&out, buf, size);
  cpucycles_out_json_string(&out, s);
  fputs(buf, stdout);
  free(buf);
}

static void json_number(double x)
{
  struct cpucycles_out out;
  char buf[64];
  if (!isfinite(x)) {
    fputs("null", stdout); /* JSON has no NaN */
    return;
  }
  cpucycles_out_start(&out, buf, sizeof buf);
  cpucycles_out_double(&out, x);
  fputs(buf, stdout);
}

static void json_key(const char *key, int first)
{
  printf("%s\n  \"%s\": ", first ? "{" : ",", key);
}

/* "old_code_offsets": [...] (null where not moved), "old_code_step": N
 * (0 when never moved), "old_loaded": ["moved copy" | "copy" | "file"...],
 * "old_loaded_why": [null | why not moved or not copied...], and NEW's. */
static void json_code(const struct options *o, const struct outcome *runs, int j, const char *who)
{
  char key[32];
  unsigned long step = 0;
  long e;
  snprintf(key, sizeof key, "%s_code_offsets", who);
  json_key(key, 0), fputs("[", stdout);
  for (e = 0; e < o->executions; e++) {
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
  for (e = 0; e < o->executions; e++) {
    const char *why;
    int how = loaded_how(&runs[e], j, &why);
    printf("%s\"%s\"", e ? ", " : "", how == MOVED ? "moved copy" : how == COPIED ? "copy" : "file");
  }
  fputs("]", stdout);
  snprintf(key, sizeof key, "%s_loaded_why", who);
  json_key(key, 0), fputs("[", stdout);
  for (e = 0; e < o->executions; e++) {
    const char *why;
    if (e) fputs(", ", stdout);
    loaded_how(&runs[e], j, &why);
    if (why) json_string(why);
    else fputs("null", stdout);
  }
  fputs("]", stdout);
}

void print_json(const struct options *o, const struct row *rows, struct outcome *runs,
                       int status)
{
  char covered[2048];
  int s;
  long e;
  covers(o, runs, covered, sizeof covered);
  json_key("type", 1), json_string("cpucycles-compare");
  json_key("version", 0), json_string(CPUCYCLES_VERSION);
  json_key("old", 0), json_string(o->old_path);
  json_key("new", 0), json_string(o->new_path);
  json_key("executions", 0), printf("%ld", o->executions);
  json_key("seconds", 0), json_number(o->seconds);
  json_key("tolerance", 0), json_number(o->tolerance);
  json_key("confidence", 0), json_number(0.99);
  json_key("interval_covers", 0), json_string(covered);
  json_code(o, runs, 0, "old"), json_code(o, runs, 1, "new");
  json_key("results", 0), fputs("[", stdout);
  for (s = 0; s < o->nsymbols; s++) {
    const struct row *r = &rows[s];
    printf("%s\n    {\"symbol\": ", s ? "," : "");
    json_string(r->symbol);
    printf(", \"verdict\": \"%s\", \"beyond_tolerance\": %s", verdict_word(r->verdict),
           r->beyond ? "true" : "false");
    fputs(",\n     \"ratio\": ", stdout), json_number(r->ratio);
    fputs(", \"ratio_low\": ", stdout), json_number(r->low);
    fputs(", \"ratio_high\": ", stdout), json_number(r->high);
    fputs(",\n     \"old_cycles\": ", stdout), json_number(r->old_cycles);
    fputs(", \"new_cycles\": ", stdout), json_number(r->new_cycles);
    fputs(", \"difference\": ", stdout), json_number(r->difference);
    fputs(", \"difference_low\": ", stdout), json_number(r->difference_low);
    fputs(", \"difference_high\": ", stdout), json_number(r->difference_high);
    printf(",\n     \"pairs\": %lld", r->pairs);
    fputs(", \"placement_sd\": ", stdout), json_number(r->placement_sd);
    fputs(", \"placement_share\": ", stdout), json_number(r->placement_share);
    fputs(", \"within_sd\": ", stdout), json_number(r->within_sd);
    fputs(",\n     \"execution_ratios\": [", stdout);
    for (e = 0; e < o->executions; e++) {
      if (e) fputs(", ", stdout);
      json_number(runs[e].m[s].ratio);
    }
    fputs("]}", stdout);
  }
  fputs("\n  ]", stdout);
  json_key("status", 0), printf("%d", status);
  fputs("\n}\n", stdout);
}

/* The verdict's word on the tolerance, in the words cpucycles-info
 * --compare uses: within only when the whole interval is; one that
 * reaches across the tolerance exits 0 too, but has not shown NEW within
 * it, and says so. */
static void tolerance_note(const struct row *r, double tolerance)
{
  int across = r->high > 1 + tolerance / 100;
  if (r->verdict == CPUCYCLES_COMPARE_B_SLOWER)
    printf(!isfinite(r->high) ? " (no ratio: not judged against %g%%)"
           : r->beyond        ? " (beyond %g%%)"
           : across           ? " (perhaps beyond %g%%: the interval reaches across it)"
                              : " (within the tolerance of %g%%)",
           tolerance);
  else if (r->verdict == CPUCYCLES_COMPARE_INDISTINGUISHABLE && across)
    printf(" (the interval reaches beyond the tolerance of %g%%)", tolerance);
}

/* a printable form of a path or name: control bytes as '?' */
void put_clean(FILE *f, const char *s)
{
  for (; *s; s++) putc(clean_char(*s), f);
}

void print_text(const struct options *o, const struct row *rows, const struct outcome *runs)
{
  char covered[2048];
  int s, width = 6;
  covers(o, runs, covered, sizeof covered);
  for (s = 0; s < o->nsymbols; s++)
    if ((int)strlen(o->symbols[s]) > width) width = (int)strlen(o->symbols[s]);
  fputs("NEW ", stdout), put_clean(stdout, o->new_path);
  fputs(" against OLD ", stdout), put_clean(stdout, o->old_path);
  printf(": %ld executions of %g s per symbol\n", o->executions, o->seconds);
  printf("the 99%% intervals cover the noise within each execution and %s\n", covered);
  printf("%-*s  %9s  %-21s  %10s  %10s  %9s  %5s  %s\n", width, "symbol", "new/old",
         "99% interval", "old cycles", "new cycles", "placement", "share", "verdict");
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
    printf("%*s  %9.4f  %-21s  %10.1f  %10.1f  %9s  %5s  %s", width - (int)strlen(r->symbol), "",
           r->ratio, interval, r->old_cycles, r->new_cycles, sd, share, verdict_word(r->verdict));
    if (o->tolerance > 0) tolerance_note(r, o->tolerance);
    putchar('\n');
  }
  puts("(placement: the standard deviation of NEW/OLD between executions beyond the noise\n"
       " within them; share: its part of the variance between executions)");
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
