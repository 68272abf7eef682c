/* SPDX-License-Identifier: MIT */
/* t-rule - libcpucycles' selection rule, pinned: each kind's
 * penalty, scaling and unit (cpucycles_unit()'s, too); choices between synthetic counters whose
 * steps are known (a counter that moves s ticks a read has precision s
 * plus its kind's penalty); and doc/counters.md's table, whose "kind
 * (penalty)" column must say what the rule says for every counter compiled
 * here.  Change the rule in src/core/measure.c and this fails until the
 * expectations here and doc/counters.md follow. */
#include "cpucycles.h"
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
static void kinds(void)
{
  static const struct {
    int kind;
    const char *name;
    long long penalty;
    int scaled, unit, counts_time;
  } rule[] = {
      {CPUCYCLES_KIND_ONCORE, "on-core", 0, 0, CPUCYCLES_UNIT_CORE_CYCLES, 0},
      {CPUCYCLES_KIND_OFFCORE, "off-core", 100, 0, CPUCYCLES_UNIT_CONSTANT_RATE, 1},
      {CPUCYCLES_KIND_SCALED, "off-core scaled", 100, 1, CPUCYCLES_UNIT_CONSTANT_RATE, 1},
      {CPUCYCLES_KIND_SYSCALL, "system call", 100, 0, CPUCYCLES_UNIT_CORE_CYCLES, 0},
      {CPUCYCLES_KIND_OSCLOCK, "OS clock", 200, 1, CPUCYCLES_UNIT_OS_CLOCK, 1},
      {CPUCYCLES_KIND_NONE, "none", 0, 0, CPUCYCLES_UNIT_NONE, 0}};
  int i, n = (int)(sizeof rule / sizeof rule[0]), wrong = 0;
  for (i = 0; i < n; i++) {
    int k = rule[i].kind;
    if (cpucycles_kind_penalty(k) != rule[i].penalty || strcmp(cpucycles_kind_name(k), rule[i].name) ||
        cpucycles_kind_scaled(k) != rule[i].scaled || cpucycles_unit_of_kind(k) != rule[i].unit ||
        cpucycles_kind_counts_time(k) != rule[i].counts_time) {
      tap_diag("%s: penalty %lld scaled %d unit %d time %d", rule[i].name, cpucycles_kind_penalty(k),
               cpucycles_kind_scaled(k), cpucycles_unit_of_kind(k), cpucycles_kind_counts_time(k));
      wrong++;
    }
  }
  tap_ok(wrong == 0, "each kind's penalty, scaling and unit as libcpucycles' rule says (%d wrong)", wrong);
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
  struct cpucycles_counter last = {"zero", CPUCYCLES_KIND_NONE, no_setup, zero, 0};
  int chosen;
  table[0] = *a, table[1] = *b, table[2] = last;
  chosen = cpucycles_select(table, 3, 1000000000, -1, results);
  *pa = results[0].available ? results[0].precision : -1;
  *pb = results[1].available ? results[1].precision : -1;
  return table[chosen].name;
}

static void choices(void)
{
  struct cpucycles_counter on150 = {"on-core 150", CPUCYCLES_KIND_ONCORE, no_setup, step150, 0};
  struct cpucycles_counter on170 = {"on-core 170", CPUCYCLES_KIND_ONCORE, no_setup, step170, 0};
  struct cpucycles_counter off60 = {"off-core 60", CPUCYCLES_KIND_OFFCORE, no_setup, step60, 0};
  struct cpucycles_counter off110 = {"off-core 110", CPUCYCLES_KIND_OFFCORE, no_setup, step110, 0};
  struct cpucycles_counter sys60 = {"syscall 60", CPUCYCLES_KIND_SYSCALL, no_setup, step60, 0};
  struct cpucycles_counter os60 = {"os 60", CPUCYCLES_KIND_OSCLOCK, os_setup, step60, 0};
  long long pa, pb;
  const char *c;

  c = choose(&on150, &off60, &pa, &pb);
  tap_ok(!strcmp(c, "on-core 150") && pa == 150 && pb == 160,
         "on-core 150 against off-core 60 + 100: %s (%lld, %lld)", c, pa, pb);
  c = choose(&on170, &off60, &pa, &pb);
  tap_ok(!strcmp(c, "off-core 60") && pa == 170 && pb == 160,
         "on-core 170 against off-core 60 + 100: %s (%lld, %lld)", c, pa, pb);
  c = choose(&off60, &sys60, &pa, &pb);
  tap_ok(!strcmp(c, "off-core 60") && pa == 160 && pb == 160,
         "a tie (off-core and system call, both 160) goes to the earlier: %s", c);
  c = choose(&sys60, &off60, &pa, &pb);
  tap_ok(!strcmp(c, "syscall 60"), "and the other way round: %s", c);
  c = choose(&os60, &off110, &pa, &pb);
  tap_ok(!strcmp(c, "off-core 110") && pa == 260 && pb == 210,
         "an OS clock pays 200: 60 + 200 against off-core 110 + 100: %s (%lld, %lld)", c, pa, pb);
}

/* ---- doc/counters.md's table against the rule ---- */
static void readme(void)
{
  const char *srcdir = getenv("top_srcdir");
  char path[4096], line[2048], want[64], names[512], *cell[6], *p;
  int checked = 0, wrong = 0, i, k;
  FILE *f;
  snprintf(path, sizeof path, "%s/doc/counters.md", srcdir ? srcdir : ".");
  f = fopen(path, "r");
  if (!f) {
    tap_ok(0, "doc/counters.md's table says each counter's kind and penalty (cannot open %s)", path);
    return;
  }
  while (fgets(line, sizeof line, f)) {
    if (strncmp(line, "| `", 3) != 0) continue;
    /* | names | target | what | kind (penalty) | last ran | */
    for (i = 0, p = line; i < 6 && (p = strchr(p, '|')) != 0; i++) cell[i] = ++p;
    if (i < 6) continue;
    snprintf(names, sizeof names, "%.*s", (int)(cell[1] - cell[0] - 1), cell[0]);
    for (k = 0; k < cpucycles_table_size; k++) {
      const struct cpucycles_counter *c = &cpucycles_table[k];
      char quoted[64];
      snprintf(quoted, sizeof quoted, "`%s`", c->name);
      if (!strstr(names, quoted) || c->kind == CPUCYCLES_KIND_NONE) continue;
      snprintf(want, sizeof want, " %s (%lld) |", cpucycles_kind_name(c->kind),
               cpucycles_kind_penalty(c->kind));
      checked++;
      if (strncmp(cell[3], want, strlen(want)) != 0) {
        tap_diag("doc/counters.md says %.*s for %s; the rule: %s", (int)(cell[4] - cell[3] - 1), cell[3],
                 c->name, want);
        wrong++;
      }
    }
  }
  fclose(f);
  tap_ok(checked > 0 && wrong == 0,
         "doc/counters.md's table gives the rule's kind and penalty for the %d counters compiled "
         "here (%d wrong)", checked, wrong);
}

int main(void)
{
  tap_plan(7);
  kinds();
  choices();
  readme();
  return tap_done();
}
