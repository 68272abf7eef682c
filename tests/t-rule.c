/* SPDX-License-Identifier: MIT */
/* t-rule - libcpucycles' selection rule, pinned: each kind's
 * penalty under both sets of numbers (seeds/000's, libcpucycles up to
 * 20260105; and 20260901's), scaling and unit (cpucycles_unit()'s, too);
 * 20260901's term for a counter's place in the list; choices between
 * synthetic counters whose steps are known (a counter that moves s ticks a
 * read has precision s plus its kind's penalty), measured under the
 * build's numbers, and chosen from given precisions under each set (no
 * timing); and doc/counters.md's tables, whose "kind (penalty)" column must
 * say what seeds/000's numbers say for every counter compiled here (each
 * of which has its row), and whose table of kinds gives both sets.  Change
 * the rule in src/core/measure.c and this fails until the expectations
 * here and doc/counters.md follow. */
#include "cpucycles.h"
#include "cpucycles-config.h"
#include "library.h"
#include "measure.h"
#include "table.h"
#include "tap.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the table, as libcpucycles states it: each kind's penalty (added
 * to a counter's measured precision), whether its ticks are scaled to
 * cycles, and what its counts are ---- */
static const struct {
  int kind;
  const char *name;
  long long penalty, penalty_20260901;
  int scaled, unit, counts_time;
} rule[] = {
    {CPUCYCLES_KIND_ONCORE, "on-core", 0, 0, 0, CPUCYCLES_UNIT_CORE_CYCLES, 0},
    {CPUCYCLES_KIND_OFFCORE, "off-core", 100, 1000, 0, CPUCYCLES_UNIT_CONSTANT_RATE, 1},
    {CPUCYCLES_KIND_SCALED, "off-core scaled", 100, 1000, 1, CPUCYCLES_UNIT_CONSTANT_RATE, 1},
    {CPUCYCLES_KIND_SYSCALL, "system call", 100, 300, 0, CPUCYCLES_UNIT_CORE_CYCLES, 0},
    {CPUCYCLES_KIND_OSCLOCK, "OS clock", 200, 1000, 1, CPUCYCLES_UNIT_OS_CLOCK, 1},
    {CPUCYCLES_KIND_NONE, "none", 0, 0, 0, CPUCYCLES_UNIT_NONE, 0}};
#define NKINDS ((int)(sizeof rule / sizeof rule[0]))

/* The build's penalty for rule[i]'s kind, as this test expects it. */
static long long build_penalty(int kind)
{
  int i;
  for (i = 0; i < NKINDS && rule[i].kind != kind; i++) continue;
  return CPUCYCLES_SELECTION_RULE == CPUCYCLES_RULE_20260901 ? rule[i].penalty_20260901
                                                             : rule[i].penalty;
}

static void kinds(void)
{
  int i, wrong = 0, wrong_sets = 0;
  for (i = 0; i < NKINDS; i++) {
    int k = rule[i].kind;
    if (strcmp(cpucycles_kind_name(k), rule[i].name) || cpucycles_kind_scaled(k) != rule[i].scaled ||
        cpucycles_unit_of_kind(k) != rule[i].unit ||
        cpucycles_kind_counts_time(k) != rule[i].counts_time) {
      tap_diag("%s: scaled %d unit %d time %d", rule[i].name, cpucycles_kind_scaled(k),
               cpucycles_unit_of_kind(k), cpucycles_kind_counts_time(k));
      wrong++;
    }
    if (cpucycles_rule_kind_penalty(CPUCYCLES_RULE_SEED, k) != rule[i].penalty ||
        cpucycles_rule_kind_penalty(CPUCYCLES_RULE_20260901, k) != rule[i].penalty_20260901 ||
        cpucycles_kind_penalty(k) != build_penalty(k)) {
      tap_diag("%s: penalty %lld (seeds/000), %lld (20260901), %lld (this build's, rule %d)", rule[i].name,
               cpucycles_rule_kind_penalty(CPUCYCLES_RULE_SEED, k),
               cpucycles_rule_kind_penalty(CPUCYCLES_RULE_20260901, k), cpucycles_kind_penalty(k),
               CPUCYCLES_SELECTION_RULE);
      wrong_sets++;
    }
  }
  tap_ok(wrong == 0, "each kind's scaling and unit as libcpucycles' rule says (%d wrong)", wrong);
  tap_ok(wrong_sets == 0,
         "each kind's penalty under seeds/000's numbers (100, 200) and 20260901's (1000, 300), "
         "and the build's (rule %d) (%d wrong)", CPUCYCLES_SELECTION_RULE, wrong_sets);
}

/* ---- choices from given precisions, under each set of numbers ---- */
struct given {
  const char *name;
  int kind;
  long long step; /* -1: not available */
};

/* The results of `n` counters whose steps are given, under `rule`'s
 * penalties; returns the name chosen by `rule`, and the scores in score[]. */
static const char *choose_given(int rule_set, const struct given *g, int n, long long *score)
{
  struct cpucycles_result results[CPUCYCLES_MAX_COUNTERS];
  int i;
  for (i = 0; i < n; i++) {
    memset(&results[i], 0, sizeof results[i]);
    results[i].available = g[i].step >= 0;
    results[i].precision = g[i].step + cpucycles_rule_kind_penalty(rule_set, g[i].kind);
  }
  for (i = 0; i < n; i++) score[i] = results[i].available ? cpucycles_rule_score(rule_set, results, i) : -1;
  return g[cpucycles_rule_choose(rule_set, results, n)].name;
}

static void given_choices(void)
{
  /* 20260901's list and this machine's steps (no PMU): its tracesetup said
   * 1001, 1011, 1071 and 3626; seeds/000's numbers give 101, 101, 251, 2796. */
  static const struct given here[] = {
      {"amd64-perfpmcff", CPUCYCLES_KIND_ONCORE, -1}, {"amd64-perfpmc", CPUCYCLES_KIND_ONCORE, -1},
      {"amd64-pmcff", CPUCYCLES_KIND_ONCORE, -1},     {"amd64-tsc", CPUCYCLES_KIND_OFFCORE, 1},
      {"amd64-tscasm", CPUCYCLES_KIND_OFFCORE, 1},    {"default-perfevent", CPUCYCLES_KIND_SYSCALL, -1},
      {"default-monotonic", CPUCYCLES_KIND_OSCLOCK, 51},
      {"default-gettimeofday", CPUCYCLES_KIND_OSCLOCK, 2596},
      {"default-zero", CPUCYCLES_KIND_NONE, -1}};
  /* A tie in step between two off-core counters, the later one smaller by
   * less than 10: seeds/000 takes the later, 20260901's place term the
   * earlier. */
  static const struct given close[] = {{"amd64-tsc", CPUCYCLES_KIND_OFFCORE, 25},
                                       {"amd64-tscasm", CPUCYCLES_KIND_OFFCORE, 20},
                                       {"default-zero", CPUCYCLES_KIND_NONE, -1}};
  /* off-core 60 before a system call of 60: a tie under seeds/000 (the
   * earlier), the system call under 20260901 (300 against 1000). */
  static const struct given sys[] = {{"off-core 60", CPUCYCLES_KIND_OFFCORE, 60},
                                     {"syscall 60", CPUCYCLES_KIND_SYSCALL, 60},
                                     {"default-zero", CPUCYCLES_KIND_NONE, -1}};
  long long s[16];
  const char *c;
  int n = (int)(sizeof here / sizeof here[0]);

  c = choose_given(CPUCYCLES_RULE_20260901, here, n, s);
  tap_ok(!strcmp(c, "amd64-tsc") && s[3] == 1001 && s[4] == 1011 && s[6] == 1071 && s[7] == 3626,
         "20260901's numbers give its tracesetup here (1001, 1011, 1071, 3626: %lld, %lld, %lld, %lld) "
         "and choose amd64-tsc: %s", s[3], s[4], s[6], s[7], c);
  c = choose_given(CPUCYCLES_RULE_SEED, here, n, s);
  tap_ok(!strcmp(c, "amd64-tsc") && s[3] == 101 && s[4] == 101 && s[6] == 251 && s[7] == 2796,
         "seeds/000's give 101, 101, 251, 2796 (%lld, %lld, %lld, %lld) and choose amd64-tsc too: %s",
         s[3], s[4], s[6], s[7], c);
  c = choose_given(CPUCYCLES_RULE_SEED, close, 3, s);
  tap_ok(!strcmp(c, "amd64-tscasm") && s[0] == 125 && s[1] == 120,
         "steps 25 then 20, off-core: seeds/000 chooses the later (%lld, %lld): %s", s[0], s[1], c);
  c = choose_given(CPUCYCLES_RULE_20260901, close, 3, s);
  tap_ok(!strcmp(c, "amd64-tsc") && s[0] == 1025 && s[1] == 1030,
         "and 20260901 the earlier, 10 behind for its place (%lld, %lld): %s", s[0], s[1], c);
  c = choose_given(CPUCYCLES_RULE_SEED, sys, 3, s);
  tap_ok(!strcmp(c, "off-core 60"), "off-core 60 then syscall 60: seeds/000 ties, the earlier: %s", c);
  c = choose_given(CPUCYCLES_RULE_20260901, sys, 3, s);
  tap_ok(!strcmp(c, "syscall 60") && s[1] == 370,
         "and 20260901 takes the system call (300 + 60 + 10 against 1060): %s (%lld)", c, s[1]);
}

/* ---- choices on synthetic counters ---- */
static long long ticks;
static long long step60(void) { return ticks += 60; }
static long long step110(void) { return ticks += 110; }
static long long step150(void) { return ticks += 150; }
static long long step170(void) { return ticks += 170; }
static long long zero(void) { return 0; }
static int no_setup(struct cpucycles_setup *s)
{
  (void)s;
  return 0;
}
/* an OS clock whose rate is the CPU's: one tick a cycle */
static int os_setup(struct cpucycles_setup *s)
{
  s->nominal_hz = (double)s->persecond;
  return 0;
}

static const char *choose(const struct cpucycles_counter *a, const struct cpucycles_counter *b,
                          long long *pa, long long *pb)
{
  struct cpucycles_counter table[3];
  struct cpucycles_result results[3];
  struct cpucycles_counter last = {"zero", CPUCYCLES_KIND_NONE, 0, no_setup, zero, 0};
  int chosen;
  table[0] = *a, table[1] = *b, table[2] = last;
  chosen = cpucycles_select(table, 3, 1000000000, -1, results);
  *pa = results[0].available ? results[0].precision : -1;
  *pb = results[1].available ? results[1].precision : -1;
  return table[chosen].name;
}

/* Measured (cpucycles_select) under the build's numbers: the expected
 * choice is given for each set (seeds/000's, 20260901's). */
static void choices(void)
{
  struct cpucycles_counter on150 = {"on-core 150", CPUCYCLES_KIND_ONCORE, 0, no_setup, step150, 0};
  struct cpucycles_counter on170 = {"on-core 170", CPUCYCLES_KIND_ONCORE, 0, no_setup, step170, 0};
  struct cpucycles_counter off60 = {"off-core 60", CPUCYCLES_KIND_OFFCORE, 0, no_setup, step60, 0};
  struct cpucycles_counter off110 = {"off-core 110", CPUCYCLES_KIND_OFFCORE, 0, no_setup, step110, 0};
  struct cpucycles_counter sys60 = {"syscall 60", CPUCYCLES_KIND_SYSCALL, 0, no_setup, step60, 0};
  struct cpucycles_counter os60 = {"os 60", CPUCYCLES_KIND_OSCLOCK, 0, os_setup, step60, 0};
  int late = CPUCYCLES_SELECTION_RULE == CPUCYCLES_RULE_20260901;
  long long pa, pb, off = build_penalty(CPUCYCLES_KIND_OFFCORE), sys = build_penalty(CPUCYCLES_KIND_SYSCALL),
                    os = build_penalty(CPUCYCLES_KIND_OSCLOCK);
  const char *c;

  c = choose(&on150, &off60, &pa, &pb);
  tap_ok(!strcmp(c, "on-core 150") && pa == 150 && pb == 60 + off,
         "on-core 150 against off-core 60 + %lld: %s (%lld, %lld)", off, c, pa, pb);
  c = choose(&on170, &off60, &pa, &pb);
  tap_ok(!strcmp(c, late ? "on-core 170" : "off-core 60") && pa == 170 && pb == 60 + off,
         "on-core 170 against off-core 60 + %lld: %s (%lld, %lld)", off, c, pa, pb);
  c = choose(&off60, &sys60, &pa, &pb);
  tap_ok(!strcmp(c, late ? "syscall 60" : "off-core 60") && pa == 60 + off && pb == 60 + sys,
         "off-core 60 + %lld against a system call 60 + %lld (a tie goes to the earlier): %s", off, sys, c);
  c = choose(&sys60, &off60, &pa, &pb);
  tap_ok(!strcmp(c, "syscall 60"), "and the other way round: %s", c);
  c = choose(&os60, &off110, &pa, &pb);
  tap_ok(!strcmp(c, late ? "os 60" : "off-core 110") && pa == 60 + os && pb == 110 + off,
         "an OS clock pays %lld: 60 + %lld against off-core 110 + %lld: %s (%lld, %lld)", os, os, off, c,
         pa, pb);
}

/* ---- doc/counters.md's tables against the rule ---- */
static void readme(void)
{
  const char *srcdir = getenv("top_srcdir");
  char path[4096], line[2048], want[64], names[512], *cell[6], *p;
  int checked = 0, wrong = 0, i, k, rowless = 0, kinds_checked = 0, kinds_wrong = 0;
  int has_row[CPUCYCLES_MAX_COUNTERS] = {0};
  FILE *f;
  snprintf(path, sizeof path, "%s/doc/counters.md", srcdir ? srcdir : ".");
  f = fopen(path, "r");
  if (!f) {
    tap_ok(0, "doc/counters.md's table says each counter's kind and penalty (cannot open %s)", path);
    tap_ok(0, "doc/counters.md's table of kinds (cannot open %s)", path);
    return;
  }
  while (fgets(line, sizeof line, f)) {
    long long seed, late;
    char kind[64];
    /* | kind | seeds/000's penalty | 20260901's penalty | */
    if (sscanf(line, "| %63[A-Za-z -] | %lld | %lld |", kind, &seed, &late) == 3) {
      size_t len = strlen(kind);
      while (len > 0 && kind[len - 1] == ' ') kind[--len] = 0;
      for (i = 0; i < NKINDS; i++) {
        if (strcmp(kind, rule[i].name) != 0) continue;
        kinds_checked++;
        if (seed != cpucycles_rule_kind_penalty(CPUCYCLES_RULE_SEED, rule[i].kind) ||
            late != cpucycles_rule_kind_penalty(CPUCYCLES_RULE_20260901, rule[i].kind)) {
          tap_diag("doc/counters.md gives %s %lld and %lld", kind, seed, late);
          kinds_wrong++;
        }
      }
      continue;
    }
    if (strncmp(line, "| `", 3) != 0) continue;
    /* | names | target | what | kind (penalty) | last ran | */
    for (i = 0, p = line; i < 6 && (p = strchr(p, '|')) != 0; i++) cell[i] = ++p;
    if (i < 6) continue;
    snprintf(names, sizeof names, "%.*s", (int)(cell[1] - cell[0] - 1), cell[0]);
    for (k = 0; k < cpucycles_table_size; k++) {
      const struct cpucycles_counter *c = &cpucycles_table[k];
      char quoted[64];
      snprintf(quoted, sizeof quoted, "`%s`", c->name);
      if (!strstr(names, quoted)) continue;
      has_row[k] = 1;
      if (c->kind == CPUCYCLES_KIND_NONE) continue;
      /* the column gives seeds/000's numbers, the default */
      snprintf(want, sizeof want, " %s (%lld) |", cpucycles_kind_name(c->kind),
               cpucycles_rule_kind_penalty(CPUCYCLES_RULE_SEED, c->kind));
      checked++;
      if (strncmp(cell[3], want, strlen(want)) != 0) {
        tap_diag("doc/counters.md says %.*s for %s; the rule: %s", (int)(cell[4] - cell[3] - 1), cell[3],
                 c->name, want);
        wrong++;
      }
    }
  }
  fclose(f);
  for (k = 0; k < cpucycles_table_size; k++)
    if (!has_row[k]) tap_diag("doc/counters.md has no row for %s", cpucycles_table[k].name), rowless++;
  tap_ok(checked > 0 && wrong == 0 && rowless == 0,
         "doc/counters.md's table has a row for each of the %d counters compiled here (%d without) "
         "and gives seeds/000's kind and penalty for the %d it checked (%d wrong)",
         cpucycles_table_size, rowless, checked, wrong);
  tap_ok(kinds_checked == NKINDS && kinds_wrong == 0,
         "doc/counters.md's table of kinds gives both sets of penalties (%d of %d kinds, %d wrong)",
         kinds_checked, NKINDS, kinds_wrong);
}

int main(void)
{
  tap_plan(15);
  kinds();
  given_choices();
  choices();
  readme();
  return tap_done();
}
