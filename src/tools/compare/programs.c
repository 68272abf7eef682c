/* SPDX-License-Identifier: MIT */
/* programs.c - cpucycles-compare on two programs: Google Benchmark (GB)
 * programs as they are, or any program linked with libbenchmark, one row
 * per benchmark under GB's own name.
 *
 * A program cannot be loaded beside another (a position-independent
 * executable is no shared object), so each is run, many times, each run
 * a fresh process that runs every benchmark once (gbench-run.c: GB's JSON
 * on a pipe, ASLR kept under GB >= 1.9.3's attempt to turn it off).  The
 * runs come in pairs, OLD's and NEW's back to back on one CPU (a random
 * one of those allowed, pair by pair), in an order balanced between
 * OLD-first and NEW-first and shuffled; before, between and after the two
 * runs this process, pinned to that CPU, measures the harness's reference
 * (cpucycles_bench_speed_now()): the host's speed.
 *
 * What is measured: GB's time per iteration of each benchmark, the time
 * GB itself goes by (cpucycles_gbench_seconds(): its CPU time, or its
 * real time where the benchmark asks for that; GB times its own loop with
 * its own clock, and cpucycles cannot count inside it), divided by the
 * reference measured around that run, which makes it
 * a figure in the reference's cycles: a host that ran slower (a vCPU
 * whose core another guest shares, a frequency that changed) does not
 * measure as slower code.  Each pair gives each row a ratio NEW/OLD; a
 * run during which the speed changed by over 5% (its two references)
 * makes its pair disturbed: measured again (REMEASURE), else left out;
 * the pairs' ratios are judged as
 * cpucycles-compare's executions are (verdict.h: paired, trimmed, one or
 * two looks).  Each run also differs in layout: ASLR, the environment
 * padded, a fresh copy of the program in a directory that mirrors its
 * own (mirror.c: it finds its siblings), and on x86-64 that copy's code
 * moved to a random offset within its pages (elf-shift.c: a
 * position-independent executable moves as a shared object does), so
 * that where the linker happened to put a loop is drawn anew each run:
 * a change to one benchmark's code moves the others' (its revision's
 * unchanged BM_Sum measured 0.5% faster in every run, and was called
 * faster, before the copies moved).  A program that cannot be moved says
 * why, and a build whose data keeps its code on its cache-line offsets
 * is judged with the allowance .so builds get (compare-tool.h). */
#include "compare-tool.h"
#include "comparison.h"
#include "elf-shift.h"
#include "cpucycles-bench.h"
#include "format.h"
#include "gbench-run.h"
#include "rng.h"
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define SPEED_CHANGED 0.05 /* a run's two references further apart: disturbed */
/* A pair disturbed so is measured again in its place, up to REMEASURE
 * times a stage's pairs in all: a busy or two-speed host changes speed
 * within many runs (beside make check's own tests 4 of 6 pairs were left
 * out, and 3 times the work could not be judged), and a pair left out is
 * a verdict more measuring could give.  Whether a pair is disturbed is
 * the references' alone, whichever program is faster, so measuring it
 * again takes no side. */
#define REMEASURE 2

struct program_row {
  const char *name;
  size_t name_length;
  double *ratio;          /* [pair]: NEW/OLD, each divided by its reference; NaN: left out */
  double *old_seconds, *new_seconds; /* [pair]: GB's time per iteration, as measured */
  struct cpucycles_judgement j;
  double r, low, high;    /* NEW/OLD and its interval */
  double old_figure, new_figure; /* seconds per iteration (trimmed means) */
  long used, disturbed;   /* pairs judged, pairs left out */
  int looks;
};

struct program {
  const char *label, *path; /* "OLD", the program as given */
  char copy[4096 + 256];    /* where its fresh copy goes (mirror.c), or "" */
  unsigned char *bytes;     /* its file, for the copies */
  size_t size;
  unsigned long step;       /* its code moves within its pages in steps of this (elf-shift.h); 0: not */
  char unmoved[200];        /* why not, when step is 0 */
  unsigned long code_align, data_align; /* its sections' (0: unknown) */
  long *offsets;            /* [pair]: its copy's code offset in that pair's run, or -1 */
  struct cpucycles_gbench_names names;
};

/* Its code could not move within its cache lines (compare-tool.h). */
static int program_coarse(const struct program *p)
{
  return placement_coarse_of(p->code_align, p->data_align, p->step > 0, p->step);
}

/* The program's file, read once (a copy of it is written before each run). */
static int read_program(struct program *p)
{
  struct stat st;
  FILE *f = fopen(p->path, "rb");
  if (!f || fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0 ||
      (unsigned long long)st.st_size > (256ULL << 20)) {
    if (f) fclose(f);
    return -1;
  }
  p->size = (size_t)st.st_size;
  if (!(p->bytes = malloc(p->size)) || fread(p->bytes, 1, p->size, f) != p->size) {
    fclose(f);
    return -1;
  }
  fclose(f);
#if defined(__x86_64__)
  {
    const char *why = "";
    p->step = cpucycles_elf_shift_step(p->bytes, p->size, &why);
    if (!p->step) snprintf(p->unmoved, sizeof p->unmoved, "%s", why);
  }
#else
  snprintf(p->unmoved, sizeof p->unmoved, "not on x86-64 (only there is code moved within its pages)");
#endif
  if (cpucycles_elf_alignments(p->bytes, p->size, &p->code_align, &p->data_align) != 0)
    p->code_align = p->data_align = 0;
  return 0;
}

/* A fresh copy of p (new physical pages under its code) where mirror.c
 * placed it, its code moved to a random offset within its pages where it
 * can be (*offset, else -1, and p->unmoved says why), run from there: the
 * path to run, the copy or the file itself when no copy can be made. */
static const char *fresh(struct program *p, unsigned long long *rng, long *offset)
{
  unsigned long step;
  char why[200];
  *offset = -1;
  if (!p->copy[0] || !p->bytes) return p->path;
  if (mirror_copy(p->bytes, p->size, p->copy, rng, offset, &step, why, sizeof why) != 0) {
    snprintf(p->unmoved, sizeof p->unmoved, "%s", why);
    return p->path;
  }
  if (*offset < 0) snprintf(p->unmoved, sizeof p->unmoved, "%s", why);
  return p->copy;
}

/* The CPUs this process may run on, into cpus (their count). */
static int allowed_cpus(int *cpus, int most)
{
  int n = 0;
#if defined(__linux__)
  cpu_set_t set;
  int c;
  if (sched_getaffinity(0, sizeof set, &set) == 0)
    for (c = 0; c < CPU_SETSIZE && n < most; c++)
      if (CPU_ISSET(c, &set)) cpus[n++] = c;
#else
  (void)most;
#endif
  if (n == 0) cpus[n++] = -1;
  return n;
}

/* This process pinned to cpu (-1: left alone), its former mask in saved. */
#if defined(__linux__)
static void pin(int cpu, cpu_set_t *saved)
{
  cpu_set_t one;
  if (cpu < 0) return;
  sched_getaffinity(0, sizeof *saved, saved);
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  sched_setaffinity(0, sizeof one, &one);
}
static void unpin(int cpu, const cpu_set_t *saved)
{
  if (cpu >= 0) sched_setaffinity(0, sizeof *saved, saved);
}
#endif

/* The host's speed now, on this process's CPU: the reference's cycles,
 * or NaN. */
static double reference(void)
{
  struct cpucycles_bench_speed s;
  return cpucycles_bench_speed_now(&s) == 0 && s.reference > 0 ? s.reference : NAN;
}

/* row's time in a run's output: its iteration entries' seconds per
 * iteration (the mean of its repetitions, when its code asks for them);
 * -1 when the run has no such entry; -2 when one failed (its message in
 * *message). */
static double seconds_of(const struct cpucycles_gbench *gb, const struct program_row *row, const char **message)
{
  double sum = 0;
  size_t i, n = 0;
  for (i = 0; i < gb->count; i++) {
    const struct cpucycles_gbench_entry *e = &gb->entries[i];
    if (e->aggregate || e->name_length != row->name_length || memcmp(e->name, row->name, row->name_length))
      continue;
    if (e->failed) {
      *message = e->message;
      return -2;
    }
    sum += cpucycles_gbench_seconds(e), n++;
  }
  return n ? sum / (double)n : -1;
}

/* One run of p on cpu: its JSON into run; 0, or 2 with a message. */
static int run_program(const struct options *o, struct program *p, long pair, int cpu, unsigned long long *rng,
                       struct cpucycles_gbench_run *run)
{
  struct cpucycles_gbench_options go;
  char why[512];
  cpucycles_gbench_default_options(&go);
  go.cpu = cpu;
  go.pad_length = (long)(cpucycles_xorshift(rng) % PAD_MAX);
  go.timeout = o->timeout + 10 * o->seconds * (double)p->names.count;
  if (cpucycles_gbench_run_once(fresh(p, rng, &p->offsets[pair]), o->filter, o->seconds, &go, run, why,
                                sizeof why) != 0) {
    complain("%s %s: %s", p->label, p->path, why);
    return 2;
  }
  return 0;
}

/* Pairs first to first + count - 1: each row's ratio in each. */
static int run_pairs(const struct options *o, struct program *pr, struct program_row *rows, size_t nrows,
                     long first, long count, const unsigned char *old_first, unsigned long long *rng,
                     int *aslr_kept, char *aslr_why, size_t why_size, long *remeasured)
{
  int cpus[1024], ncpus = allowed_cpus(cpus, 1024), tty = isatty(2);
  int show = o->progress || tty, again = 0;
  double started = now();
  long p, measured = 0, budget = REMEASURE * count;
  size_t r;
  for (p = first; p < first + count; p++, measured++) {
    struct cpucycles_gbench_run runs[2];
    double ref[3], seconds[2], changed = 0;
    int cpu = cpus[cpucycles_xorshift(rng) % (unsigned long long)ncpus], k, side[2], status = 0;
#if defined(__linux__)
    cpu_set_t saved;
#endif
    side[0] = old_first[p] ? 0 : 1, side[1] = !side[0];
    if (show) {
      double done = (double)measured, left = done > 0 ? (now() - started) / done * (double)(first + count - p) : 0;
      fprintf(stderr, PROGRAM ": pair %ld of %ld (%s first, CPU %d%s)", p + 1, first + count, side[0] ? "NEW" : "OLD",
              cpu, again ? ", again: the host's speed changed" : "");
      if (left > 0) fprintf(stderr, ", %.0f s left", left);
      fputs(tty ? "\033[K\r" : "\n", stderr);
    }
    memset(runs, 0, sizeof runs);
#if defined(__linux__)
    pin(cpu, &saved);
#endif
    ref[0] = reference();
    for (k = 0; k < 2 && status == 0; k++) {
      status = run_program(o, &pr[side[k]], p, cpu, rng, &runs[side[k]]);
      ref[k + 1] = reference();
    }
#if defined(__linux__)
    unpin(cpu, &saved);
#endif
    if (status != 0) {
      cpucycles_gbench_run_free(&runs[0]), cpucycles_gbench_run_free(&runs[1]);
      if (show && tty) fputs("\033[K", stderr);
      return status;
    }
    /* the speed during each run: its two references' ratio */
    for (k = 0; k < 2; k++)
      if (ref[k] > 0 && ref[k + 1] > 0 && fabs(log(ref[k + 1] / ref[k])) > changed)
        changed = fabs(log(ref[k + 1] / ref[k]));
    if ((again = changed > SPEED_CHANGED && budget > 0)) {
      budget--, (*remeasured)++, p--;
      cpucycles_gbench_run_free(&runs[0]), cpucycles_gbench_run_free(&runs[1]);
      continue;
    }
    for (k = 0; k < 2; k++)
      if (!runs[k].aslr_kept) {
        size_t len = strlen(runs[k].aslr_why);
        *aslr_kept = 0;
        if (len >= why_size) len = why_size - 1;
        memcpy(aslr_why, runs[k].aslr_why, len), aslr_why[len] = 0;
      }
    for (r = 0; r < nrows; r++) {
      struct program_row *row = &rows[r];
      /* each run's reference: the mean of the two around it */
      double ref_of[2];
      const char *message = "";
      for (k = 0; k < 2; k++) {
        seconds[side[k]] = seconds_of(&runs[side[k]].parsed, row, &message);
        if (seconds[side[k]] < 0) {
          complain("%s %s: its benchmark %.*s %s%s", pr[side[k]].label, pr[side[k]].path, (int)row->name_length,
                   row->name, seconds[side[k]] == -2 ? "failed: " : "did not run (its list named it)",
                   seconds[side[k]] == -2 ? message : "");
          cpucycles_gbench_run_free(&runs[0]), cpucycles_gbench_run_free(&runs[1]);
          return 2;
        }
        ref_of[side[k]] = (ref[k] + ref[k + 1]) / 2;
      }
      row->old_seconds[p] = seconds[0], row->new_seconds[p] = seconds[1];
      if (!(ref_of[0] > 0) || !(ref_of[1] > 0)) ref_of[0] = ref_of[1] = 1; /* no reference: as measured */
      row->ratio[p] = changed > SPEED_CHANGED ? NAN : (seconds[1] / ref_of[1]) / (seconds[0] / ref_of[0]);
    }
    cpucycles_gbench_run_free(&runs[0]), cpucycles_gbench_run_free(&runs[1]);
  }
  if (show && tty) fputs("\033[K", stderr);
  return 0;
}

/* Each row judged on the first n pairs. */
static int judge_rows(const struct options *o, struct program_row *rows, size_t nrows, long n, int looks,
                      double *x, int coarse)
{
  struct cpucycles_estimate e;
  int status = CPUCYCLES_EXIT_NOT_SLOWER;
  double mean, se2, sd;
  size_t r;
  long p, k;
  for (r = 0; r < nrows; r++) {
    struct program_row *row = &rows[r];
    unsigned int reasons = 0;
    row->looks = looks, row->r = row->low = row->high = NAN;
    for (k = 0, p = 0; p < n; p++)
      if (isfinite(row->ratio[p]) && row->ratio[p] > 0) x[k++] = log(row->ratio[p]);
    row->used = k, row->disturbed = n - k;
    /* the speed changed during most runs: nothing left to judge by */
    if (2 * k < n || k < 2) reasons |= CPUCYCLES_REASON_SPEED;
    else if (cpucycles_estimate_paired(x, k, &e) != 0 || cpucycles_interval(&e, looks, &row->r, &row->low, &row->high) != 0)
      reasons |= CPUCYCLES_REASON_NO_FIGURE;
    /* a build whose code could not move within its cache lines: a
     * difference within the allowance may be that alone */
    if (!reasons && placement_forbids(coarse, row->low, row->high)) reasons |= CPUCYCLES_REASON_PLACEMENT;
    cpucycles_judge(row->low, row->high, o->tolerance / 100, reasons, o->exit_faster, &row->j);
    for (p = 0; p < n; p++) x[p] = row->old_seconds[p];
    row->old_figure = cpucycles_estimate_side(x, n, &mean, &se2, &sd) == 0 ? mean : NAN;
    for (p = 0; p < n; p++) x[p] = row->new_seconds[p];
    row->new_figure = cpucycles_estimate_side(x, n, &mean, &se2, &sd) == 0 ? mean : NAN;
    status = cpucycles_exit_combine(status, row->j.status);
  }
  return status;
}

/* seconds per iteration as text: "1.23 us" */
static const char *duration(double s, char *buf, size_t size)
{
  if (!isfinite(s)) snprintf(buf, size, "-");
  else if (s >= 1) snprintf(buf, size, "%.3g s", s);
  else if (s >= 1e-3) snprintf(buf, size, "%.3g ms", s * 1e3);
  else if (s >= 1e-6) snprintf(buf, size, "%.3g us", s * 1e6);
  else snprintf(buf, size, "%.3g ns", s * 1e9);
  return buf;
}

static void programs_text(const struct options *o, const struct program *pr, struct program_row *rows,
                       size_t nrows, long n, long remeasured, int aslr_kept, const char *aslr_why, int coarse)
{
  size_t r, width = 9;
  int k;
  long moved[2], p;
  char old_t[32], new_t[32], says[512], interval[64];
  struct cpucycles_out out;
  for (r = 0; r < nrows; r++)
    if (rows[r].name_length > width) width = rows[r].name_length;
  fputs("NEW ", stdout), put_clean(stdout, o->new_label), fputs(" against OLD ", stdout), put_clean(stdout, o->old_label);
  printf(": %ld pairs of runs, GB's time per iteration\n"
         "(its CPU time, or real time where a benchmark asks for it; --seconds %g of each benchmark a run)", n,
         o->seconds);
  if (n > o->executions) printf(" (%ld, then %ld more: the first left a row across the tolerance)", o->executions, n - o->executions);
  printf("\nthe %s%% intervals cover each run a fresh process (ASLR%s), environment size,\n"
         "the host's speed (each run divided by the harness's reference around it)",
         nrows && rows[0].looks > 1 ? "99.5" : "99", aslr_kept ? ", GB's attempt to turn it off refused" : "");
  if (pr[0].copy[0] && pr[1].copy[0]) printf(", a fresh copy of each program");
  /* the runs whose copy moved, by the offsets drawn */
  for (k = 0; k < 2; k++)
    for (moved[k] = 0, p = 0; p < n; p++) moved[k] += pr[k].offsets[p] >= 0;
  if (moved[0] == n && moved[1] == n && pr[0].step == pr[1].step)
    printf(",\nand its code's offset within its pages (each copy moved, in steps of %lu bytes)\n", pr[0].step);
  else if (moved[0] == n && moved[1] == n)
    printf(",\nand its code's offset within its pages (each copy moved: OLD's in steps of %lu bytes, NEW's of %lu)\n",
           pr[0].step, pr[1].step);
  else {
    printf(";\nnot the code's offset within its pages for");
    for (k = 0; k < 2; k++)
      if (moved[k] < n) {
        printf("%s %s", k && moved[0] < n ? " nor" : "", pr[k].label);
        if (moved[k]) printf(" in %ld of %ld runs", n - moved[k], n);
        printf(" (%s)", pr[k].unmoved);
      }
    putchar('\n');
  }
  printf("%-*s  %9s  %-21s  %10s  %10s  %s\n", (int)width, "benchmark", "new/old",
         nrows && rows[0].looks > 1 ? "99.5% interval" : "99% interval", "old", "new", "verdict");
  for (r = 0; r < nrows; r++) {
    struct program_row *row = &rows[r];
    size_t i;
    for (i = 0; i < row->name_length; i++) putchar(clean_char(row->name[i]));
    if (isfinite(row->r)) snprintf(interval, sizeof interval, "[%.4f, %.4f]", row->low, row->high);
    else snprintf(interval, sizeof interval, "-");
    cpucycles_out_start(&out, says, sizeof says);
    cpucycles_verdict_phrase(&out, &row->j, o->tolerance);
    printf("%*s  %9.4f  %-21s  %10s  %10s  %s\n", (int)(width - row->name_length), "", row->r, interval,
           duration(row->old_figure, old_t, sizeof old_t), duration(row->new_figure, new_t, sizeof new_t), says);
  }
  if (remeasured)
    printf("(pairs measured again: the host's speed changed by over %.0f%% during a run of theirs: %ld)\n",
           100 * SPEED_CHANGED, remeasured);
  for (r = 0; r < nrows; r++)
    if (rows[r].disturbed) {
      printf("(pairs left out: the host's speed changed during a run of theirs once the pairs measured again,\n"
             " %d times a stage's, were used up: %ld of %ld)\n", REMEASURE, rows[r].disturbed, n);
      break;
    }
  if (!aslr_kept) printf("(address-space layout randomization: %s)\n", aslr_why);
  if (coarse) {
    fputs("(placement: ", stdout);
    for (k = 0; k < 2; k++)
      if (program_coarse(&pr[k]))
        printf("%s%s's data is aligned to %lu bytes, above its code's %lu: its code moved %s", k && program_coarse(&pr[0]) ? "; " : "",
               pr[k].label, pr[k].data_align, pr[k].code_align, pr[k].step ? "in 64-byte steps or more" : "not at all");
    printf(";\n each function kept its offset within its cache lines, and a row is not called different\n"
           " by under %.0f%% on that ground alone: cannot judge)\n", 100 * PLACEMENT_ALLOWANCE);
  }
  if (pr[0].names.count > nrows || pr[1].names.count > nrows)
    printf("(benchmarks only one program has are not compared: %zu in OLD, %zu in NEW, %zu in both)\n",
           pr[0].names.count, pr[1].names.count, nrows);
}

/* A program's copies' code offsets, one per pair (null: not moved). */
static void json_offsets(const struct program *p, long n)
{
  long i;
  fputs("[", stdout);
  for (i = 0; i < n; i++) {
    if (i) fputs(", ", stdout);
    if (p->offsets[i] >= 0) printf("%ld", p->offsets[i]);
    else fputs("null", stdout);
  }
  fputs("]", stdout);
}

static void programs_json(const struct options *o, const struct program *pr, struct program_row *rows,
                          size_t nrows, long n, long remeasured, int status, int aslr_kept, int coarse)
{
  struct comparison_head h;
  struct comparison_row c;
  size_t r;
  h.tool = PROGRAM, h.old_name = o->old_label, h.new_name = o->new_label;
  h.measured = "seconds per iteration (Google Benchmark's CPU time, or real time where the benchmark asks "
               "for it), divided by the host's speed";
  h.tolerance = o->tolerance, h.looks = nrows ? rows[0].looks : 1;
  comparison_begin(&h);
  json_key("old_program", 0), json_string(o->old_path);
  json_key("new_program", 0), json_string(o->new_path);
  json_key("pairs", 0), printf("%ld", n);
  json_key("remeasured_pairs", 0), printf("%ld", remeasured);
  json_key("first_stage", 0), printf("%ld", o->executions);
  json_key("max_pairs", 0), printf("%ld", o->tolerance > 0 ? o->max_executions : o->executions);
  json_key("seconds", 0), json_number(o->seconds);
  json_key("aslr_kept", 0), fputs(aslr_kept ? "true" : "false", stdout);
  json_key("old_code_offsets", 0), json_offsets(&pr[0], n);
  json_key("new_code_offsets", 0), json_offsets(&pr[1], n);
  json_key("old_code_step", 0), printf("%lu", pr[0].step);
  json_key("new_code_step", 0), printf("%lu", pr[1].step);
  json_key("old_not_moved_why", 0), pr[0].step ? (void)fputs("null", stdout) : json_string(pr[0].unmoved);
  json_key("new_not_moved_why", 0), pr[1].step ? (void)fputs("null", stdout) : json_string(pr[1].unmoved);
  comparison_rows();
  for (r = 0; r < nrows; r++) {
    struct program_row *row = &rows[r];
    c.name = row->name, c.name_length = row->name_length, c.j = &row->j;
    c.ratio = row->r, c.low = row->low, c.high = row->high;
    c.old_figure = row->old_figure, c.new_figure = row->new_figure;
    comparison_row(&c, o->tolerance, r == 0);
    printf(",\n     \"pairs\": %ld, \"left_out\": %ld, \"placement_coarse\": %s", row->used, row->disturbed,
           coarse ? "true" : "false");
    fputs(",\n     \"ratio_samples\": ", stdout), json_numbers(row->ratio, n);
    comparison_row_end();
  }
  comparison_rows_end();
  comparison_end(status);
}

int programs_compare(const struct options *o, const char *root)
{
  struct program pr[2];
  struct program_row *rows = 0;
  size_t nrows = 0, i, k;
  unsigned char *old_first = 0;
  double *x = 0;
  char why[512], aslr_why[160] = "";
  unsigned long long rng = (unsigned long long)time(0) * 0x9e3779b97f4a7c15ULL ^ (unsigned long long)getpid() << 20;
  int status = CPUCYCLES_EXIT_ERROR, j, looks = o->tolerance > 0 && o->max_executions > o->executions ? 2 : 1;
  int aslr_kept = 1, undecided = 0, coarse = 0, plot_failed = 0;
  long n = o->executions, p, remeasured = 0;
  struct cpucycles_gbench_options go;
  struct comparison_head h;
  struct comparison_row *c = 0;

  if (!rng) rng = 1;
  memset(pr, 0, sizeof pr);
  cpucycles_gbench_default_options(&go);
  for (j = 0; j < 2; j++) {
    pr[j].label = j ? "NEW" : "OLD", pr[j].path = build_path(o, j);
    if (root && root[0] && o->copies[j][0] == '/') snprintf(pr[j].copy, sizeof pr[j].copy, "%s", o->copies[j]);
    if (!pr[j].copy[0])
      snprintf(pr[j].unmoved, sizeof pr[j].unmoved, "not copied: --no-copy, or no directory for the copies");
    else if (read_program(&pr[j]) != 0)
      pr[j].copy[0] = 0, pr[j].step = 0,
      snprintf(pr[j].unmoved, sizeof pr[j].unmoved, "not copied: it cannot be read whole (at most 256 MiB)");
    if (!(pr[j].offsets = malloc((size_t)o->max_executions * sizeof *pr[j].offsets))) goto oom;
    if (cpucycles_gbench_list(pr[j].path, o->filter, &go, &pr[j].names, why, sizeof why) != 0) {
      complain("%s %s: %s", pr[j].label, pr[j].path, why);
      goto end;
    }
  }
  /* the rows: OLD's benchmarks NEW has too, in OLD's order */
  if (!(rows = calloc(pr[0].names.count + 1, sizeof *rows))) goto oom;
  for (i = 0; i < pr[0].names.count; i++)
    for (k = 0; k < pr[1].names.count; k++)
      if (!strcmp(pr[0].names.names[i], pr[1].names.names[k])) {
        rows[nrows].name = pr[0].names.names[i], rows[nrows].name_length = strlen(pr[0].names.names[i]);
        nrows++;
        break;
      }
  if (!nrows) {
    complain("OLD %s and NEW %s have no benchmark in common%s%s", pr[0].path, pr[1].path, o->filter ? " that --filter " : "",
             o->filter ? o->filter : "");
    goto end;
  }
  for (i = 0; i < nrows; i++)
    if (!(rows[i].ratio = calloc((size_t)o->max_executions, sizeof(double))) ||
        !(rows[i].old_seconds = calloc((size_t)o->max_executions, sizeof(double))) ||
        !(rows[i].new_seconds = calloc((size_t)o->max_executions, sizeof(double))))
      goto oom;
  /* OLD first in half the pairs of each stage (the odd one drawn),
   * shuffled (Fisher-Yates) */
  if (!(old_first = malloc((size_t)o->max_executions)) || !(x = malloc((size_t)o->max_executions * sizeof *x))) goto oom;
  for (j = 0; j < 2; j++) {
    long from = j ? o->executions : 0, to = j ? o->max_executions : o->executions, len = to - from;
    for (p = from; p < to; p++)
      old_first[p] = (unsigned char)(2 * (p - from) + 1 < len || (2 * (p - from) + 1 == len && (cpucycles_xorshift(&rng) & 1)));
    for (p = to - 1; p > from; p--) {
      long q = from + (long)(cpucycles_xorshift(&rng) % (unsigned long long)(p - from + 1));
      unsigned char t = old_first[p];
      old_first[p] = old_first[q], old_first[q] = t;
    }
  }
  if ((status = run_pairs(o, pr, rows, nrows, 0, n, old_first, &rng, &aslr_kept, aslr_why, sizeof aslr_why,
                          &remeasured)) != 0)
    goto end;
  coarse = program_coarse(&pr[0]) || program_coarse(&pr[1]);
  status = judge_rows(o, rows, nrows, n, looks, x, coarse);
  for (i = 0; i < nrows; i++) undecided |= rows[i].j.undecided;
  if (looks == 2 && undecided && status != CPUCYCLES_EXIT_SLOWER) {
    if ((status = run_pairs(o, pr, rows, nrows, n, o->max_executions - n, old_first, &rng, &aslr_kept, aslr_why,
                            sizeof aslr_why, &remeasured)) != 0)
      goto end;
    n = o->max_executions;
    status = judge_rows(o, rows, nrows, n, looks, x, coarse);
  }
  if (o->format == FORMAT_MARKDOWN || o->plot) {
    h.tool = PROGRAM, h.old_name = o->old_label, h.new_name = o->new_label;
    h.measured = "Google Benchmark's time per iteration (CPU time, or real time where the benchmark asks for "
                 "it), divided by the host's speed";
    h.tolerance = o->tolerance, h.looks = looks;
    if (!(c = calloc(nrows, sizeof *c))) goto oom;
    for (i = 0; i < nrows; i++) {
      c[i].name = rows[i].name, c[i].name_length = rows[i].name_length, c[i].j = &rows[i].j;
      c[i].ratio = rows[i].r, c[i].low = rows[i].low, c[i].high = rows[i].high;
      c[i].old_figure = rows[i].old_figure, c[i].new_figure = rows[i].new_figure;
    }
  }
  if (o->format == FORMAT_JSON) programs_json(o, pr, rows, nrows, n, remeasured, status, aslr_kept, coarse);
  else if (o->format == FORMAT_MARKDOWN) comparison_markdown(&h, o->command, c, nrows, 1, n, "pairs of runs");
  else programs_text(o, pr, rows, nrows, n, remeasured, aslr_kept, aslr_why, coarse);
  if (o->plot && plot_write(o->plot, &h, c, nrows, why, sizeof why) != 0) complain("%s", why), plot_failed = 1;
  goto end;
oom:
  complain("out of memory");
  status = CPUCYCLES_EXIT_ERROR;
end:
  for (i = 0; rows && i < nrows; i++) free(rows[i].ratio), free(rows[i].old_seconds), free(rows[i].new_seconds);
  free(rows), free(old_first), free(x), free(c);
  for (j = 0; j < 2; j++) cpucycles_gbench_names_free(&pr[j].names), free(pr[j].bytes), free(pr[j].offsets);
  return plot_failed ? CPUCYCLES_EXIT_ERROR : status;
}
