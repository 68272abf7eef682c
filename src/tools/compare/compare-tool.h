/* SPDX-License-Identifier: MIT */
/* compare-tool.h - what the parts of cpucycles-compare share: its limits,
 * the options, what an execution reports and what the executions combine
 * into, and each part's entry points.  src/tools/cpucycles-compare.c says
 * how the parts fit. */
#ifndef CPUCYCLES_COMPARE_TOOL_H
#define CPUCYCLES_COMPARE_TOOL_H
#include "verdict.h"
#include <stddef.h>
#include <stdio.h>
#include <time.h>

#define PROGRAM "cpucycles-compare"
#define INTERNAL "--cpucycles-compare-execution" /* the executions' mode */
#define MAX_SYMBOLS 64
#define MAX_EXECUTIONS 1000
#define PAD_VARIABLE "CPUCYCLES_COMPARE_PAD"
#define PAD_MAX 4096   /* bytes of environment padding, at most */
#define STACK_MAX 4096 /* bytes of stack taken before measuring, at most */
#define SYMBOL_MAX 1024 /* bytes of a --symbol name: a line of the report holds it */
#define STR_(x) #x
#define STR(x) STR_(x)
/* a line of an execution's report: a path (PATH_MAX), a symbol and words */
#define LINE_MAX_ 8192
/* cpucycles-bench.h: a comparison whose time decides keeps at least 200
 * pairs; one with a count asked for takes at least 100 (2 blocks) */
#define HARNESS_MIN_PAIRS 200
#define HARNESS_FEWEST_PAIRS 100
/* calls the harness makes before its pairs, in pairs of calls: 8 pairs to
 * warm up, and choosing the calls per run times up to 8 runs of each */
#define SETUP_PAIRS 16

/* ---- what the executions report ---- */

/* How a build was loaded when its code was not moved, as a "placement"
 * line says it (load.c) and the report reads it (report.c). */
#define PLACEMENT_COPIED "copied, not moved"
#define PLACEMENT_FILE "loaded as it is"

struct measured {    /* one symbol in one execution */
  double ratio;      /* NEW/OLD; NaN when OLD measures nothing */
  double a, b;       /* cycles per call */
  double difference, difference_error;
  long long pairs, disturbed;
  unsigned int flags;
  double pair_seconds; /* a pair's, when its pairs were counted (slow calls); else 0 */
};

enum { FORMAT_TEXT, FORMAT_JSON, FORMAT_MARKDOWN };

struct options {
  const char *old_path, *new_path;   /* the files compared (--git: their artifacts) */
  const char *old_label, *new_label; /* how the report names them (--git: the revisions) */
  const char *command;               /* the command line, for the Markdown's header */
  const char *filter;                /* --filter: GB's regular expression, or 0 */
  const char *plot;                  /* --plot: the SVG picture's file, or 0 */
  int format;                        /* FORMAT_* (--format, --json) */
  int seconds_given;
  const char *symbols[MAX_SYMBOLS];
  int nsymbols;
  long executions;     /* the first stage */
  long max_executions; /* the bound of a second stage (tolerance > 0) */
  double seconds, tolerance, timeout;
  int json, progress, copy, exit_faster;
  /* --git: old_path and new_path are revisions until git_artifacts()
   * (git.h) gives their artifacts' paths */
  int git, rebuild;
  const char *build, *artifact;
  /* where each build's copy goes in each execution (mirror.c), or why
   * none is made */
  char copies[2][4096 + 256];
};

static inline const char *build_path(const struct options *o, int new)
{
  return new ? o->new_path : o->old_path;
}

/* One execution, as the parent took it from its report. */
struct outcome {
  struct measured *m; /* [symbol] of this execution */
  int got;            /* results received */
  long offset[2];     /* OLD's and NEW's code offset within its pages, or -1 */
  unsigned long step[2]; /* the steps those offsets were drawn in */
  char why[2][200];   /* why not moved, when -1 */
  unsigned long code_align[2], data_align[2]; /* a copy's sections' (0: unknown) */
};

/* A build's code kept its offsets within its cache lines in an execution
 * because of its data (copied, and its data aligned to 64 bytes or more,
 * above its code: moved in steps of 64, or not at all for a page-aligned
 * section).  Such a row's difference within PLACEMENT_ALLOWANCE may be
 * where the code lies alone: not called on that ground (combine.c). */
#define PLACEMENT_LINE 64
#define PLACEMENT_ALLOWANCE 0.05
static inline int placement_coarse_of(unsigned long code_align, unsigned long data_align, int moved,
                                      unsigned long step)
{
  return data_align >= PLACEMENT_LINE && data_align > code_align &&
         (moved ? step >= PLACEMENT_LINE : data_align >= 4096);
}
static inline int placement_coarse(const struct outcome *run, int j)
{
  return placement_coarse_of(run->code_align[j], run->data_align[j], run->offset[j] >= 0, run->step[j]);
}
/* A row of a coarse build, [low, high] its interval: whether the
 * allowance forbids calling it different (CPUCYCLES_REASON_PLACEMENT). */
static inline int placement_forbids(int coarse, double low, double high)
{
  return coarse && (low > 1 || high < 1) && low <= 1 + PLACEMENT_ALLOWANCE &&
         high >= 1 / (1 + PLACEMENT_ALLOWANCE);
}

/* One symbol, its executions combined (combine.c). */
struct row {
  const char *symbol;
  double ratio, low, high; /* NEW/OLD and its 99% interval; NaN without a ratio */
  double old_cycles, new_cycles; /* 20% trimmed means over the executions */
  double difference, difference_low, difference_high; /* cycles per call */
  double placement_sd;    /* between executions beyond the noise within
                             them: relative (0.001 is 0.1%) */
  double placement_share; /* of the variance between executions */
  double within_sd;       /* the noise within an execution, relative */
  struct cpucycles_judgement j; /* the verdict (verdict.h) */
  long executions;        /* behind it */
  int looks;              /* 2 when a second stage could follow (99.5% each) */
  int coarse;             /* placement_coarse() in some execution, for a build */
  long long pairs;        /* kept, in the execution that kept the fewest */
  double pair_seconds;    /* the slowest pair of calls, where the pairs were
                             counted (too slow for 200 in --seconds); else 0 */
};

/* This program's own file, which the executions run (driver.c). */
struct self {
  char path[4096];   /* this program */
  char loader[4096]; /* the dynamic loader it was started through by name, or "" */
};

/* How a path or name is printed: control bytes as '?' (a newline would
 * cut a report line or a message, an escape sequence reach a terminal). */
static inline char clean_char(char c) { return (unsigned char)c < 0x20 || c == 0x7f ? '?' : c; }

/* seconds on the monotonic clock */
static inline double now(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* ---- execution.c: the internal mode, one execution ---- */

/* argv: INTERNAL fd index stack copy seconds old new symbol...; the exit
 * status */
int execution(int argc, char **argv);
/* ---- channel.c: an execution's lines to the parent ---- */

/* The pipe they go to. */
void say_to(int fd);
/* A line of the execution's report to the parent (cleaned). */
void say(const char *format, ...) __attribute__((format(printf, 1, 2)));

/* ---- load.c: the builds' files, and loading them ---- */
/* (file_kind(), below with programs.c) */

/* In an execution: the build loaded, or the execution ended with a
 * message; copy is where its copy goes (mirror.c), or why none is made. */
void *load_build(const char *label, const char *path, const char *copy, unsigned long long *seed);
/* Whether p, which dlsym() found for handle, is the build's own. */
int defined_by(void *handle, void *p, const char **elsewhere);
/* 1 when p lies in memory that may not be executed (data, not callable). */
int is_data(void *p);

/* ---- mirror.c: where a build's copy goes ---- */

/* A fresh directory for the run's mirrors: 0, or -1 with why. */
int mirror_root(char *root, size_t size, char *why, size_t why_size);
/* The mirror of path's directory under root/label, and where the copy
 * goes in copy: 0, or -1 with why. */
int mirror_make(const char *root, const char *label, const char *path, char *copy, size_t size, char *why,
                size_t why_size);
/* root and everything in it (links, never what they lead to). */
void mirror_remove(const char *root);
/* A fresh file at copy (mirror_make()'s place, which earlier runs may
 * have used: a new file, so new physical pages under the code) holding
 * image; on x86-64 with its code moved to a random offset within its
 * pages, a multiple of the step its alignment allows (elf-shift.h):
 * *offset and *step, or *offset -1 with why saying why it was not moved
 * (the copy is then the file as it is).  0, or -1 with why (no copy). */
int mirror_copy(const unsigned char *image, size_t image_size, const char *copy, unsigned long long *seed,
                long *offset, unsigned long *step, char *why, size_t why_size);

/* ---- driver.c: the parent's side ---- */

int find_self(const char *argv0, struct self *self, char *why, size_t size);
/* 0, or -1 with errno; root (the copies' directory, or "") is removed
 * when a signal ends the run */
int catch_signals(const char *root);
/* Executions first to first + count - 1 in turn, runs[e] filled: 0, or 2
 * with a message. */
int run_executions(const struct options *o, const struct self *self, struct outcome *runs, long first,
                   long count);

/* ---- programs.c: two Google Benchmark programs ---- */

/* Their benchmarks compared in pairs of runs and reported: the exit
 * status.  root: the run's directory of copies (mirror.c), "" for none. */
int programs_compare(const struct options *o, const char *root);
/* What a file is (load.c): a shared object (dlmopen), a program (an
 * executable, run), or neither (-1, with a message naming it and why). */
enum { KIND_SHARED_OBJECT, KIND_PROGRAM };
int file_kind(const char *label, const char *path);

/* ---- combine.c ---- */

/* Symbol s's row from the first n executions (x: room for n doubles). */
void combine(const struct options *o, struct outcome *runs, long n, int looks, int s, struct row *r,
             double *x);

/* ---- report.c: what the tool prints ---- */

/* n: the executions run */
void print_text(const struct options *o, const struct row *rows, const struct outcome *runs, long n);
void print_json(const struct options *o, const struct row *rows, struct outcome *runs, long n, int status);
void print_markdown(const struct options *o, const struct row *rows, long n);
struct comparison_head;
struct comparison_row;
/* --plot's picture of the rows (report.c): 0, or 2 with a message */
int plot_builds(const struct options *o, const struct row *rows);
/* plot.c: --plot FILE's directory can take it (before measuring); the
 * picture written beside FILE and renamed over it.  0, or 2 with why in
 * why. */
int plot_check(const char *path, char *why, size_t why_size);
int plot_write(const char *path, const struct comparison_head *h, const struct comparison_row *rows, size_t n,
               char *why, size_t why_size);
/* a printable form of a path or name: control bytes as '?' */
void put_clean(FILE *f, const char *s);
/* A message on stderr, its paths and names cleaned as the output's are. */
void complain(const char *format, ...) __attribute__((format(printf, 1, 2)));

#endif
