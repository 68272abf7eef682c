/* SPDX-License-Identifier: MIT */
/* cpucycles-compare - is a new build of a function slower than the old one?
 *
 *   cpucycles-compare [options] OLD.so NEW.so
 *   cpucycles-compare [options] OLD-PROGRAM NEW-PROGRAM
 *   cpucycles-compare --git --build CMD --artifact PATH [options] OLD NEW
 *
 * Loads both shared objects, each in a link-map namespace of its own
 * (dlmopen: two versions of one soname coexist, and neither binds to the
 * other's symbols), and compares their `benchmark` functions (or those
 * --symbol names) with cpucycles_bench_compare(): NEW/OLD, an interval
 * and a verdict; or runs two Google Benchmark programs, a row per
 * benchmark (compare/programs.c).  The verdict and the exit status are
 * every comparison's (src/bench/verdict.h): 0 not slower beyond
 * --tolerance, 1 slower, 2 an error, 3 faster (--exit-faster), 4 cannot
 * judge.
 *
 * Why not one cpucycles_bench_compare() in this process: its interval is
 * this process's, and where the code happens to be placed (the addresses
 * ASLR chose for each object, the stack's, the physical pages under them,
 * and so the branch predictors' and caches' aliasing) moves a function by
 * about 0.1% from one process to the next; a within-process interval is
 * far narrower than that, so identical builds were called different half
 * of the time.  Placement is treated as a random effect: the measurement
 * is repeated in E executions, each a fresh process (this program exec'ed
 * again in an internal mode) that differs in layout:
 *   - exec: ASLR maps both objects, the harness and the stack anew;
 *   - a fresh copy of each file (new physical pages under the code), on
 *     x86-64 with its code moved to a random offset within its pages
 *     (compare/load.c says how, and what is loaded where it cannot be);
 *   - each function entered through a jump at a random address
 *     (compare/execution.c);
 *   - the environment padded by a variable of random length
 *     (compare/driver.c), and a random amount of stack taken before
 *     measuring (compare/execution.c);
 *   - the order in which the two objects are loaded alternates.
 * The executions' log-ratios make the interval (compare/combine.c).
 *
 * This file: the command line, and the run from the checks of the two
 * files to the report.  In compare/:
 *   driver.c     the parent's side: starts each execution, reads its
 *                report over a pipe, kills it on a timeout or when this
 *                program is ended (signals)
 *   execution.c  the internal mode: loads both builds, finds the symbols,
 *                measures, reports each step and result a line at a time
 *   load.c       the builds' files: the parent's check, and loading each
 *                (a fresh copy, moved with elf-shift.c, dlmopen, its own
 *                symbols)
 *   mirror.c     where the copies go: a directory that mirrors each
 *                build's, so that a copy finds what the build finds
 *   combine.c    the executions combined: the random-effects statistics
 *   report.c     the text and JSON output, and the messages
 *   channel.c    the executions' report channel (a line a write)
 *   programs.c   two Google Benchmark programs: pairs of fresh runs
 *                (gbench-run.c runs one), the host's speed beside each,
 *                a row per benchmark
 *   git.c        --git: two revisions of a git repository, each cloned
 *                into the cache and built there, their artifacts the
 *                files compared
 *   compare-tool.h  what they share */
#include "compare/compare-tool.h"
#include "compare/git.h"
#include "cpucycles-bench.h"
#include "readfile.h"
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage[] =
    "usage: cpucycles-compare [options] OLD.so NEW.so\n"
    "       cpucycles-compare [options] OLD-PROGRAM NEW-PROGRAM\n"
    "       cpucycles-compare --git --build CMD --artifact PATH [options] OLD NEW\n"
    "  Is NEW slower than OLD?  Two shared objects: each one's benchmark (or\n"
    "  --symbol) loaded in a namespace of its own (dlmopen), interleaved, in\n"
    "  several executions that differ in layout (fresh processes: addresses,\n"
    "  copies of the files, environment size, stack offset).  Two Google\n"
    "  Benchmark programs: one row per benchmark, GB's time per iteration\n"
    "  (CPU time, or real time where the benchmark asks for it), from pairs\n"
    "  of runs on one CPU, each divided by the host's speed measured around\n"
    "  it.  The 99% interval covers code placement.\n"
    "  --symbol NAME      the function to compare, void NAME(void *) called\n"
    "                     with a null argument (default benchmark); repeat\n"
    "                     it for a suite: one row per symbol (each name\n"
    "                     once, at most 1024 bytes); shared objects only\n"
    "  --filter REGEX     programs: the benchmarks to compare (GB's\n"
    "                     --benchmark_filter; default all)\n"
    "  --executions N     executions (shared objects) or pairs of runs\n"
    "                     (programs) to measure in, 2 to 1000 (default 20):\n"
    "                     the first stage\n"
    "  --max-executions N with a tolerance above 0, the executions in all when\n"
    "                     the first stage leaves a row across the tolerance: a\n"
    "                     second stage is measured (default 3 times --executions)\n"
    "  --seconds S        shared objects: the time of each symbol's comparison\n"
    "                     in each execution (default 0.25; calls too slow for\n"
    "                     200 pairs in it get those that fit, at least 100);\n"
    "                     programs: GB's time for each benchmark in each run\n"
    "                     (--benchmark_min_time, default 0.05)\n"
    "  --tolerance P      exit 1 only when the whole interval is beyond +P%,\n"
    "                     0 only when it is all below; an interval across +P%\n"
    "                     is measured more, then cannot judge (default 0: an\n"
    "                     interval that contains 1 is indistinguishable)\n"
    "  --exit-faster      exit 3 when nothing is slower and a row is faster\n"
    "                     (beyond the tolerance)\n"
    "  --timeout S        the longest a benchmark's call may take, or its\n"
    "                     comparison beyond --seconds, before its execution\n"
    "                     is killed (default 60)\n"
    "  --no-copy          load (or run) the files themselves, not a fresh copy\n"
    "                     in each execution\n"
    "  --format F         text (default), json (one comparison document) or\n"
    "                     markdown (a table for a pull request's comment)\n"
    "  --json             --format json\n"
    "  --plot FILE        also an SVG picture of each row's ratio and interval\n"
    "                     in FILE (replaced only once it is written whole)\n"
    "  --progress         progress on stderr (default: on a terminal, for a\n"
    "                     run of over 2 s)\n"
    "  --git              OLD and NEW are revisions of the git repository here\n"
    "                     ('.': the working tree, uncommitted changes too),\n"
    "                     each cloned into the cache ($XDG_CACHE_HOME/cpucycles)\n"
    "                     and built there, unless built before with this CMD\n"
    "  --build CMD        with --git: the build, run by /bin/sh -c in each\n"
    "                     revision's checkout, its output to a log in the cache\n"
    "  --artifact PATH    with --git: the file the build makes, relative to the\n"
    "                     checkout, which is compared (a .so or a GB program)\n"
    "  --rebuild          with --git: build each revision again\n"
    "  --help             this text\n"
    "  --version          the version\n"
    "Exit 0 when NEW is not slower beyond the tolerance, 1 when it is, 2 on an\n"
    "error (a file that is missing or neither a shared object nor a program of\n"
    "this machine, a missing symbol or benchmark, a bad option, a benchmark\n"
    "that crashes, fails or does not return, one too slow for 100 pairs in\n"
    "--seconds; with --git, a revision that does not exist, a build that\n"
    "fails, an artifact missing after it, no git repository here), 3 with\n"
    "--exit-faster, 4 when a row cannot be judged.  cpucycles-compare(1).\n";

/* ---- the command line ---- */

static int bad(const char *what, const char *value, const char *why)
{
  fprintf(stderr, PROGRAM ": %s", what);
  if (value) fputs(" '", stderr), put_clean(stderr, value), fputc('\'', stderr);
  fprintf(stderr, ": %s\n", why);
  fputs(usage, stderr);
  return 2;
}

static int number(const char *option, const char *text, double low, double high, int whole,
                  double *x)
{
  const char *end;
  *x = cpucycles_parse_decimal(text, &end);
  if (end == text || *end || !(*x >= low && *x <= high) || (whole && *x != (double)(long)*x)) {
    char why[128];
    snprintf(why, sizeof why, "not %s from %g to %g", whole ? "a whole number" : "a number", low,
             high);
    return bad(option, text, why);
  }
  return 0;
}

/* a symbol goes into a line of the report: a C identifier's characters
 * (and those of versioned or mangled names), nothing else */
static int symbol_ok(const char *s)
{
  if (!*s) return 0;
  for (; *s; s++)
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
          *s == '_' || *s == '$' || *s == '.' || *s == '@'))
      return 0;
  return 1;
}

static int finish(int status)
{
  if (fflush(stdout) != 0 || ferror(stdout)) {
    fprintf(stderr, PROGRAM ": cannot write the output: %s\n", strerror(errno));
    return 2;
  }
  return status;
}

/* Descriptors 0, 1 and 2 open (on /dev/null where closed): a pipe given
 * one of them would carry a benchmark's output, or the report would
 * reach the terminal.  0, or -1. */
static int standard_fds(void)
{
  int fd, got;
  for (fd = 0; fd <= 2; fd++)
    if (fcntl(fd, F_GETFD) < 0 && errno == EBADF) {
      if ((got = open("/dev/null", fd ? O_WRONLY : O_RDONLY)) < 0) return -1;
      if (got != fd) { /* (the lowest free number: fd, but for a race) */
        if (dup2(got, fd) < 0) return -1;
        close(got);
      }
    }
  return 0;
}

/* The command line as one line, each argument that needs it quoted for
 * a shell (the Markdown report's header says how it was made). */
static const char *command_text(int argc, char **argv)
{
  static char text[4096];
  size_t n = 0;
  int i;
  const char *a, *c;
  text[0] = 0;
  for (i = 0; i < argc && n + 8 < sizeof text; i++) {
    a = i ? argv[i] : PROGRAM;
    for (c = a; *c && (isalnum((unsigned char)*c) || strchr("-_./=:,+@%", *c)); c++) continue;
    n += (size_t)snprintf(text + n, sizeof text - n, *c || !*a ? "%s'" : "%s", i ? " " : "");
    for (c = a; *c && n + 6 < sizeof text; c++)
      if (*c == '\'') n += (size_t)snprintf(text + n, sizeof text - n, "'\\''");
      else text[n++] = clean_char(*c), text[n] = 0;
    for (c = a; *c && (isalnum((unsigned char)*c) || strchr("-_./=:,+@%", *c)); c++) continue;
    if (*c || !*a) n += (size_t)snprintf(text + n, sizeof text - n, "'");
  }
  return text;
}

/* The command line into *o: -1 to go on, else the exit status (--help,
 * --version, or 2 after a message). */
static int parse_options(int argc, char **argv, struct options *o)
{
  const char *files[2];
  double x;
  int i, s, nfiles = 0;
  memset(o, 0, sizeof *o);
  /* 20 executions of 0.25 s, not 10 of 0.5: the same 5 s a symbol, and
   * twice the draws of placement, which is most of the spread between
   * executions (+0.5% on builds that find their libwork by $ORIGIN:
   * called slower in 58 of 60 comparisons, 51 of 60 with 10 of 0.5 s;
   * doc/measuring.md) */
  o->executions = 20, o->seconds = 0.25, o->tolerance = 0, o->timeout = 60, o->copy = 1;
  o->max_executions = 0; /* 3 times --executions, once that is known */
  for (i = 1; i < argc; i++) {
    const char *a = argv[i];
    int takes = !strcmp(a, "--symbol") || !strcmp(a, "--executions") || !strcmp(a, "--seconds") ||
                !strcmp(a, "--tolerance") || !strcmp(a, "--timeout") || !strcmp(a, "--max-executions") ||
                !strcmp(a, "--build") || !strcmp(a, "--artifact") || !strcmp(a, "--format") ||
                !strcmp(a, "--filter") || !strcmp(a, "--plot");
    if (takes && i + 1 >= argc) return bad(a, 0, "needs a value");
    if (!strcmp(a, "--help")) {
      fputs(usage, stdout);
      return finish(0);
    } else if (!strcmp(a, "--version")) {
      printf(PROGRAM " %s\n", CPUCYCLES_VERSION);
      return finish(0);
    } else if (!strcmp(a, "--symbol")) {
      if (!symbol_ok(argv[++i])) return bad(a, argv[i], "not a symbol's name");
      if (strlen(argv[i]) > SYMBOL_MAX) return bad(a, 0, "a name over " STR(SYMBOL_MAX) " bytes");
      for (s = 0; s < o->nsymbols; s++)
        if (!strcmp(o->symbols[s], argv[i])) return bad(a, argv[i], "named twice");
      if (o->nsymbols == MAX_SYMBOLS) return bad(a, argv[i], "more than 64 symbols");
      o->symbols[o->nsymbols++] = argv[i];
    } else if (!strcmp(a, "--executions")) {
      if (number(a, argv[++i], 2, MAX_EXECUTIONS, 1, &x)) return 2;
      o->executions = (long)x;
    } else if (!strcmp(a, "--max-executions")) {
      if (number(a, argv[++i], 2, MAX_EXECUTIONS, 1, &x)) return 2;
      o->max_executions = (long)x;
    } else if (!strcmp(a, "--exit-faster")) {
      o->exit_faster = 1;
    } else if (!strcmp(a, "--seconds")) {
      if (number(a, argv[++i], 0.001, 3600, 0, &x)) return 2;
      o->seconds = x, o->seconds_given = 1;
    } else if (!strcmp(a, "--tolerance")) {
      if (number(a, argv[++i], 0, 99.999, 0, &x)) return 2;
      o->tolerance = x;
    } else if (!strcmp(a, "--timeout")) {
      if (number(a, argv[++i], 0.001, 86400, 0, &x)) return 2;
      o->timeout = x;
    } else if (!strcmp(a, "--json")) {
      o->format = FORMAT_JSON;
    } else if (!strcmp(a, "--format")) {
      a = argv[++i];
      if (!strcmp(a, "text")) o->format = FORMAT_TEXT;
      else if (!strcmp(a, "json")) o->format = FORMAT_JSON;
      else if (!strcmp(a, "markdown")) o->format = FORMAT_MARKDOWN;
      else return bad("--format", a, "not text, json or markdown");
    } else if (!strcmp(a, "--filter")) {
      if (!argv[++i][0]) return bad("--filter", 0, "an empty regular expression");
      o->filter = argv[i];
    } else if (!strcmp(a, "--plot")) {
      char why[4096 + 128];
      if (plot_check(argv[++i], why, sizeof why) != 0) {
        complain("%s", why);
        return 2;
      }
      o->plot = argv[i];
    } else if (!strcmp(a, "--progress")) {
      o->progress = 1;
    } else if (!strcmp(a, "--no-copy")) {
      o->copy = 0;
    } else if (!strcmp(a, "--git")) {
      o->git = 1;
    } else if (!strcmp(a, "--build")) {
      o->build = argv[++i];
    } else if (!strcmp(a, "--artifact")) {
      if (!argv[++i][0] || argv[i][0] == '/') return bad(a, argv[i], "not a path relative to the checkout");
      o->artifact = argv[i];
    } else if (!strcmp(a, "--rebuild")) {
      o->rebuild = 1;
    } else if (a[0] == '-' && a[1]) {
      return bad("unknown option", a, "see --help");
    } else if (nfiles < 2) {
      files[nfiles++] = a;
    } else {
      return bad("unexpected argument", a, o->git ? "give two revisions, OLD and NEW" : "give two files, OLD and NEW");
    }
  }
  if (o->git && !o->build) return bad("--git", 0, "needs --build CMD, the command that builds a revision");
  if (o->git && !o->artifact) return bad("--git", 0, "needs --artifact PATH, the file its build makes");
  if (!o->git && (o->build || o->artifact || o->rebuild))
    return bad(o->build ? "--build" : o->artifact ? "--artifact" : "--rebuild", 0, "only with --git");
  if (nfiles < 2 && o->git) return bad("missing", 0, nfiles ? "NEW, a revision" : "OLD and NEW, two revisions");
  if (nfiles < 2) return bad("missing", 0, nfiles ? "NEW.so" : "OLD.so and NEW.so");
  if (!o->max_executions)
    o->max_executions = 3 * o->executions < MAX_EXECUTIONS ? 3 * o->executions : MAX_EXECUTIONS;
  if (o->max_executions < o->executions)
    return bad("--max-executions", 0, "fewer than --executions (the first stage)");
  o->old_path = o->old_label = files[0], o->new_path = o->new_label = files[1];
  if (!o->nsymbols) o->symbols[o->nsymbols++] = "benchmark";
  o->json = o->format == FORMAT_JSON;
  o->command = command_text(argc, argv);
  return -1;
}

/* --git: the two revisions built (or found built) in the cache, and the
 * comparison's files their artifacts: 0, or 2 with a message. */
static int from_git(struct options *o)
{
  static char paths[2][GIT_PATH_MAX];
  static struct git_request r; /* (its names are the report's) */
  int status;
  memset(&r, 0, sizeof r);
  r.revisions[0] = o->old_path, r.revisions[1] = o->new_path;
  r.build = o->build, r.artifact = o->artifact, r.rebuild = o->rebuild, r.progress = o->progress;
  if ((status = git_artifacts(&r, paths)) != 0) return status;
  o->old_path = paths[0], o->new_path = paths[1];
  o->old_label = r.names[0], o->new_label = r.names[1];
  return 0;
}

/* Where each build's copy goes in the executions (mirror.c: a directory
 * of the run's own, root, which mirrors the build's), or why none is made
 * (then the file itself is loaded, and the output says why). */
static void place_copies(struct options *o, char *root, size_t size)
{
  char why[300];
  int j;
  if (!o->copy) {
    snprintf(o->copies[0], sizeof o->copies[0], "--no-copy");
    snprintf(o->copies[1], sizeof o->copies[1], "--no-copy");
    return;
  }
  if (mirror_root(root, size, why, sizeof why) != 0) {
    root[0] = 0;
    snprintf(o->copies[0], sizeof o->copies[0], "%s", why);
    snprintf(o->copies[1], sizeof o->copies[1], "%s", why);
    return;
  }
  for (j = 0; j < 2; j++)
    if (mirror_make(root, j ? "new" : "old", build_path(o, j), o->copies[j], sizeof o->copies[j], why,
                    sizeof why) != 0)
      snprintf(o->copies[j], sizeof o->copies[j], "%s", why);
}

/* What the executions need, checked before the first: both files
 * loadable in principle, this program's own file, the signals' handlers,
 * where the copies go.  0, or 2 with a message. */
static int ready(struct options *o, const char *argv0, struct self *self, char *root, size_t size)
{
  char why[300];
  if (find_self(argv0, self, why, sizeof why) != 0) {
    complain("%s", why);
    return 2;
  }
  root[0] = 0;
  if (catch_signals(root) != 0) {
    complain("signals: %s", strerror(errno));
    return 2;
  }
  place_copies(o, root, size);
  return 0;
}

/* The first n executions combined, one row per symbol, each judged
 * (combine.c); their suite's status. */
static int judge_all(const struct options *o, struct outcome *runs, long n, int looks, struct row *rows,
                     double *scratch)
{
  int s, status = CPUCYCLES_EXIT_NOT_SLOWER;
  for (s = 0; s < o->nsymbols; s++) {
    combine(o, runs, n, looks, s, &rows[s], scratch);
    status = cpucycles_exit_combine(status, rows[s].j.status);
  }
  return status;
}

/* The executions, in one stage or two, judged and printed: the exit
 * status.  At tolerance 0 one look (99%): an interval that contains 1 is
 * an answer.  Above 0 an interval across 1 + tolerance is none: a second
 * stage, fixed in advance (up to --max-executions in all), is run when
 * the first leaves a row there, and each of the two looks takes a 99.5%
 * interval (verdict.h: the chance that either errs stays under 1%). */
static int measure_and_judge(const struct options *o, const struct self *self, struct outcome *runs)
{
  struct row rows[MAX_SYMBOLS];
  double *scratch = calloc((size_t)o->max_executions, sizeof *scratch);
  int s, status, looks = o->tolerance > 0 && o->max_executions > o->executions ? 2 : 1, undecided = 0;
  long n = o->executions;
  if (!scratch) return bad("out of memory", 0, "the statistics");
  if ((status = run_executions(o, self, runs, 0, n)) != 0) goto done;
  status = judge_all(o, runs, n, looks, rows, scratch);
  for (s = 0; s < o->nsymbols; s++) undecided |= rows[s].j.undecided;
  if (looks == 2 && undecided && status != CPUCYCLES_EXIT_SLOWER) {
    if ((status = run_executions(o, self, runs, n, o->max_executions - n)) != 0) goto done;
    n = o->max_executions;
    status = judge_all(o, runs, n, looks, rows, scratch);
  }
  if (o->format == FORMAT_JSON) print_json(o, rows, runs, n, status);
  else if (o->format == FORMAT_MARKDOWN) print_markdown(o, rows, n);
  else print_text(o, rows, runs, n);
  status = finish(status);
  if (o->plot && plot_builds(o, rows) != 0) status = CPUCYCLES_EXIT_ERROR;
done:
  free(scratch);
  return status;
}

int main(int argc, char **argv)
{
  static struct self self; /* (large) */
  static struct options o;  /* (large) */
  char root[4096];
  struct outcome *runs;
  long e;
  int status, kind[2];

  if (standard_fds() != 0) {
    /* (stderr may be the closed one: the status says it all then) */
    fprintf(stderr, PROGRAM ": a closed standard descriptor, and /dev/null: %s\n", strerror(errno));
    return 2;
  }
  if (argc >= 2 && !strcmp(argv[1], INTERNAL)) return execution(argc, argv);
  if ((status = parse_options(argc, argv, &o)) >= 0) return status;
  if (o.git && (status = from_git(&o)) != 0) return status;
  if ((kind[0] = file_kind("OLD", o.old_path)) < 0 || (kind[1] = file_kind("NEW", o.new_path)) < 0) return 2;
  if (kind[0] != kind[1]) {
    complain("OLD %s is %s, NEW %s %s: compare two shared objects, or two programs", o.old_path,
             kind[0] == KIND_PROGRAM ? "a program" : "a shared object", o.new_path,
             kind[1] == KIND_PROGRAM ? "a program" : "a shared object");
    return 2;
  }
  root[0] = 0;
  if (kind[0] == KIND_PROGRAM) {
    /* Google Benchmark programs: its --seconds is GB's time for each
     * benchmark in each run (every benchmark runs in each) */
    if (!o.seconds_given) o.seconds = 0.05;
    if (o.nsymbols != 1 || strcmp(o.symbols[0], "benchmark")) return bad("--symbol", 0, "for shared objects: a program's benchmarks are chosen by --filter");
    if (catch_signals(root) != 0) {
      complain("signals: %s", strerror(errno));
      return 2;
    }
    place_copies(&o, root, sizeof root);
    status = programs_compare(&o, root);
    status = finish(status);
    mirror_remove(root);
    return status;
  }
  if (o.filter) return bad("--filter", 0, "for programs (Google Benchmark's): a shared object's functions are named by --symbol");
  if (ready(&o, argv[0], &self, root, sizeof root) != 0) {
    mirror_remove(root);
    return 2;
  }

  runs = calloc((size_t)o.max_executions, sizeof *runs);
  if (!runs) return bad("out of memory", 0, "the executions' results");
  status = 0;
  for (e = 0; e < o.max_executions; e++)
    if (!(runs[e].m = calloc((size_t)o.nsymbols, sizeof *runs[e].m))) {
      status = bad("out of memory", 0, "the executions' results");
      break;
    }
  if (status == 0) status = measure_and_judge(&o, &self, runs);
  for (e = 0; e < o.max_executions; e++) free(runs[e].m);
  free(runs);
  mirror_remove(root);
  return status;
}
