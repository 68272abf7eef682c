/* SPDX-License-Identifier: MIT */
/* saved.h - saved results, read for cpucycles-info --compare (saved.c):
 * each file's results, grouped by name, a name's results its executions
 * (separate processes). */
#ifndef CPUCYCLES_SAVED_H
#define CPUCYCLES_SAVED_H
#include "gbench.h"
#include "json-read.h"
#include <stddef.h>
#include <stdio.h>

/* A string of a saved result, as read: UTF-8 that may hold any character. */
struct text {
  const char *s;
  size_t n;
};

/* The flags of a result the gate reads, named as cpucycles_bench_format()
 * writes them (cpucycles_bench(3) says what each means); a name not here
 * is no concern of the gate's.  why: what it says of the statistics (0:
 * not a disturbance). */
#define FLAG_DRIFT 0x1u
#define FLAG_SPREAD 0x2u
#define FLAG_BELOW_RESOLUTION 0x4u
#define FLAG_OTHER_LIBRARY 0x8u
struct saved_flag {
  const char *name;
  unsigned int bit;
  const char *why;
};
extern const struct saved_flag saved_flags[];
extern const size_t saved_flag_count;

/* Fewer kept runs than the harness needs to test drift and spread
 * (cpucycles_bench_statistics()) leave a result unchecked; and a result
 * that lost more runs to migrations and switches than it kept was taken
 * on a machine too busy to trust what is left. */
#define FEWEST_KEPT 8

struct result {
  struct cpucycles_json doc;
  double cycles, error;
  double reference; /* the harness's reference chain beside it (schema 2), -1 when missing */
  struct text name, counter, unit, host, version; /* "" when missing */
  unsigned int flags;     /* the FLAG_* above it carries */
  double kept, disturbed; /* "count" and "disturbed"; -1 when missing */
  size_t value;           /* its place in its file, from 1 */
  int gb;                 /* read from Google Benchmark's JSON (one benchmark of one run) */
};

/* The results of one name in a file: its executions, in file order. */
struct group {
  struct text name;
  struct result **x;
  size_t n;
  int matched; /* the other file has the name */
};

struct saved {
  const char *label, *path; /* "OLD" or "NEW", and its file */
  char *text;               /* the file */
  size_t length;
  struct result *results;
  size_t count;
  struct result **by_name;  /* the results sorted by name, then place: a suite of 100000 is
                               matched in n log n, where a search of one file for each of the
                               other's would take minutes */
  struct group *groups;     /* each name's results (a run of by_name), in name order */
  size_t ngroups;
  struct group **in_order;  /* the groups in the order their names first appear */
  struct cpucycles_gbench *gb; /* the Google Benchmark documents read (their text the names') */
  size_t ngb;
  size_t value;  /* while loading: the value (from 1) being read, 0 when it is the only one */
  size_t line;   /* and the line it starts on */
};

/* Every result in r->path (label and path set, the rest zero), grouped by
 * name: 0, or -1 with a message on stderr naming the file and what is
 * wrong.  A value of the file may also be Google Benchmark's JSON
 * (--benchmark_out_format=json): one run of a GB program, each of its
 * benchmarks one execution (its repetitions runs within it, their mean
 * the figure and their spread its error), in seconds per iteration (the
 * time GB goes by: CPU time, or real time where the benchmark asks); GB says nothing of a counter, a host fingerprint or the
 * host's speed, and none is made up (the host is its context's name). */
int saved_load(struct saved *r);
/* The whole of r->path into r->text and r->length (up to 16 MiB): 0, or
 * -1 with a message. */
int saved_read(struct saved *r);
void saved_free(struct saved *r);
/* r's results named name, or 0. */
struct group *saved_find(const struct saved *r, struct text name);
/* t on f with control bytes as '?' */
void saved_put_text(FILE *f, struct text t);
static inline int saved_same(struct text a, struct text b)
{
  return a.n == b.n && (a.n == 0 || __builtin_memcmp(a.s, b.s, a.n) == 0);
}

#endif
