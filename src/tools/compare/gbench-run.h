/* SPDX-License-Identifier: MIT */
/* gbench-run.h - running a Google Benchmark (GB) program for
 * cpucycles-compare: its list of benchmarks, and one run of it (a fresh
 * process) read back as gbench.h's entries.  gbench-run.c says how each
 * child is set up; in short, each is a process of its own group, pinned
 * if asked, with its environment padded if asked and GB's BENCHMARK_*
 * variables taken out (GB reads its flags' defaults from them: the
 * command line alone says what it runs), stdin from /dev/null, stdout
 * read whole through a pipe, nothing written anywhere else (no
 * --benchmark_out), killed with its group at the timeout, and under a
 * seccomp filter that keeps GB >= 1.9.3 from turning address-space
 * randomization off (below).  No global state: two programs can be run
 * alternately, any number of times.
 *
 * Address-space layout randomization is kept.  GB >= 1.9.3's
 * BENCHMARK_MAIN() first calls MaybeReenterWithoutASLR(): it reads its
 * personality (personality(0xffffffff)), and unless ADDR_NO_RANDOMIZE is
 * set, sets it and exec()s itself again, so that every run of it has the
 * same layout; when setting fails it carries on as it is.  There is no
 * switch to stop it.  A comparison of two builds that holds placement
 * fixed measures one layout of each, and calls a difference that a
 * layout makes (alignment, aliasing) a difference of the code: each run
 * must have a layout of its own, as cpucycles-compare's executions do.
 * So the child gets a seccomp filter before it execs the program that
 * answers personality(x) with EPERM for every x but 0xffffffff (the
 * query): GB then keeps randomization and does not exec itself again.
 * The filter is inherited by whatever the program starts, and cannot be
 * removed; it needs PR_SET_NO_NEW_PRIVS, which means the program cannot
 * gain privileges by exec()ing a set-user-ID file.  Where the filter
 * cannot be installed (an architecture this file has no system-call
 * number for, a kernel without seccomp filters) the run goes on without
 * it, and says so in aslr_kept and aslr_why, for the caller to report. */
#ifndef CPUCYCLES_GBENCH_RUN_H
#define CPUCYCLES_GBENCH_RUN_H
#include "gbench.h"
#include <stddef.h>

/* How a child is started.  cpucycles_gbench_default_options() fills in
 * the defaults (each "none"); an options pointer of 0 means those. */
struct cpucycles_gbench_options {
  int cpu;                /* the CPU the child runs on (sched_setaffinity() before exec);
                             -1: not pinned */
  const char *pad_name;   /* the environment variable that pads the environment, so that
                             the stack starts elsewhere; 0: CPUCYCLES_COMPARE_PAD */
  long pad_length;        /* its value's length in bytes; -1: no such variable */
  int stderr_fd;          /* where the child's stderr goes (a log); -1: nowhere (read by
                             this process for a message, then dropped) */
  double timeout;         /* seconds after which the child and its process group are
                             killed (SIGKILL); <= 0: none */
  const char *directory;  /* the child's working directory; 0: this process's */
};

void cpucycles_gbench_default_options(struct cpucycles_gbench_options *o);

/* The names a program lists, each exactly as it printed it. */
struct cpucycles_gbench_names {
  char **names; /* [count], each NUL-terminated; in the program's order */
  size_t count;
  char *text;   /* (where they are kept) */
};

/* PROGRAM --benchmark_list_tests=true [--benchmark_filter=FILTER] (filter
 * 0: none), one name a line: 0 with names filled, or -1 with why (one
 * line, the program's name and output cleaned): a program that cannot be
 * run, that ends in failure (its exit status or signal, and the first
 * line of its stderr or output), or whose output is no list of names
 * (empty, as when the filter matches nothing; a usage text, control
 * characters, an argument echoed).  Its stderr is read for that message
 * (o->stderr_fd is not used).  Free names with
 * cpucycles_gbench_names_free(). */
int cpucycles_gbench_list(const char *program, const char *filter,
                          const struct cpucycles_gbench_options *o,
                          struct cpucycles_gbench_names *names, char *why, size_t size);
void cpucycles_gbench_names_free(struct cpucycles_gbench_names *names);

/* What one run gave. */
struct cpucycles_gbench_run {
  struct cpucycles_gbench parsed; /* its JSON, read (gbench.h) */
  double wall_seconds;            /* from fork() to the child's end, as this process saw it */
  int aslr_kept;      /* 1: the personality filter was installed: GB could not turn
                         randomization off; 0: it was not, for aslr_why */
  char aslr_why[160]; /* why not ("" when it was) */
};

/* PROGRAM --benchmark_format=json --benchmark_filter=FILTER
 * --benchmark_min_time=MIN_TIME --benchmark_repetitions=1, once, in a
 * fresh process (filter 0: every benchmark, "."; min_time in seconds,
 * from 1e-9 to 1e6, written as a plain number: gbench-run.c says why).  A
 * benchmark that sets its own Repetitions() in its code runs them all
 * the same, and GB adds their aggregates (gbench.h marks them).  The
 * program's stdout must be GB's JSON and nothing else (a program that
 * prints on stdout itself is not read).  0 with run filled,
 * or -1 with why (one line: the program cannot be run, was killed by a
 * signal, ended with an exit status (and the last line of its stderr
 * where it can be read), ran past the timeout, or wrote something that
 * is not GB's JSON, its first bytes shown cleaned).  run->aslr_kept and
 * aslr_why are set either way once the child was started.  Free run
 * with cpucycles_gbench_run_free(). */
int cpucycles_gbench_run_once(const char *program, const char *filter, double min_time,
                              const struct cpucycles_gbench_options *o,
                              struct cpucycles_gbench_run *run, char *why, size_t size);
void cpucycles_gbench_run_free(struct cpucycles_gbench_run *run);

#endif
