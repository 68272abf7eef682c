/* SPDX-License-Identifier: MIT */
/* gbench.h - Google Benchmark's JSON output, read: what a program writes
 * with --benchmark_format=json (or --benchmark_out=F
 * --benchmark_out_format=json), one object {"context": {...},
 * "benchmarks": [...]}; or several such objects, one after another (as
 * `cat a.json b.json` makes) or in a JSON array, each a document of its
 * own.  Read by json-read.h's strict reader, so that what is accepted is
 * JSON; for cpucycles-compare's runs of GB programs and for
 * cpucycles-info --compare's saved results.  gbench.c.
 *
 * Each entry of "benchmarks" is kept, in file order, under its name
 * exactly as GB wrote it ("BM_Crc/4096", "BM_X/threads:2", any UTF-8).
 * An aggregate (GB's "run_type": "aggregate": BM_X_mean, _median,
 * _stddev, _cv, and the complexity entries _BigO and _RMS) is kept too,
 * marked, with its aggregate_name and its run_name (BM_X), so that a
 * caller that wants each repetition's own run skips it; a GB older than
 * run_type (before 1.4) wrote no such mark, and its every entry is an
 * iteration run (but its _BigO and _RMS, which have no time).  An entry
 * whose benchmark failed (error_occurred, error_message) or was skipped
 * (newer GB's skipped, skip_message) is marked failed with its message and
 * has no time: GB writes 0 there, which is no measurement.
 *
 * Refused, with a one-line reason (control characters as '?'): text that
 * is not JSON, a document without a "benchmarks" array, an entry without
 * a name, a time (real_time, cpu_time) missing, not finite or negative,
 * an unknown time_unit.  No global state. */
#ifndef CPUCYCLES_GBENCH_H
#define CPUCYCLES_GBENCH_H
#include "json-read.h"
#include <stddef.h>

/* What one document's "context" says; text "" and numbers -1 where it
 * says nothing (or has no context). */
struct cpucycles_gbench_context {
  const char *executable, *host_name, *date;
  const char *library_build_type; /* "release", "debug" */
  const char *library_version;    /* newer GB's, "v1.9.1" */
  double num_cpus, mhz_per_cpu;
  int cpu_scaling_enabled; /* 1 when GB found CPU frequency scaling on, 0 off, -1 not said */
  int debug;               /* 1 when library_build_type is "debug": GB itself was built
                              without optimization, its timing loop too (warn) */
  struct cpucycles_json doc; /* (where its text is kept) */
};

/* One entry of "benchmarks".  Text is UTF-8 with JSON's escapes undone,
 * NUL-terminated after its length; a "\u0000" in it is a NUL too, and any
 * character may be in it: print it cleaned (control characters as '?'). */
struct cpucycles_gbench_entry {
  const char *name; /* exactly GB's name */
  size_t name_length;
  const char *run_name; /* the name without an aggregate's suffix (GB's run_name; the
                           name itself when GB wrote none) */
  size_t run_name_length;
  int aggregate;              /* 1: an aggregate, not one repetition's run */
  const char *aggregate_name; /* "mean", "median", "stddev", "cv", "BigO", "RMS", another
                                 aggregate of the program's own; "" for an iteration run */
  int failed;                 /* 1: error_occurred or skipped: no time */
  int skipped;                /* 1: skipped (GB >= 1.8's SkipWithMessage), not an error */
  const char *message;        /* error_message or skip_message; "" */
  const char *label;          /* the benchmark's label (SetLabel()); "" */
  /* Seconds per iteration, from real_time and cpu_time in time_unit (GB's
   * times are already per iteration; with threads, GB divides the
   * threads' mean wall-clock time, and their summed CPU time, by the
   * iterations of all of them).  NaN when failed, and for an aggregate
   * that is no time (cv, BigO, RMS). */
  double real_seconds, cpu_seconds;
  double iterations;          /* -1 when not said */
  long long repetition_index; /* -1 when not said (aggregates) */
  long long repetitions;      /* 0 when not said */
  long long threads;          /* 1 when not said */
  long long family_index, per_family_instance_index; /* -1 when not said */
  size_t document;            /* which document of the text (from 0) it is in */
  struct cpucycles_json doc;  /* (where its text is kept; its other members, user
                                 counters among them, can be read from it) */
};

struct cpucycles_gbench {
  struct cpucycles_gbench_entry *entries; /* in file order */
  size_t count;
  struct cpucycles_gbench_context *contexts; /* one per document */
  size_t documents;
};

/* Parses text[0..length-1] (need not be NUL-terminated) into gb: 0, or -1
 * with gb empty and why[0..size-1] saying what and where (one line).
 * Free a parsed gb with cpucycles_gbench_free(). */
int cpucycles_gbench_parse(struct cpucycles_gbench *gb, const char *text, size_t length, char *why,
                           size_t size);
void cpucycles_gbench_free(struct cpucycles_gbench *gb);

/* The time GB itself goes by for an entry, seconds per iteration: its CPU
 * time (GB's default: it also decides the iterations by it), or its real
 * time where the benchmark asked for that (UseRealTime(), or
 * UseManualTime(), whose time GB reports as real_time: GB then names it
 * ".../real_time" or ".../manual_time").  CPU time is what a busy
 * neighbour on the CPU leaves alone: the process is not charged while the
 * neighbour runs, and the wall clock is (beside a busy loop the same
 * program's real time per iteration varied by 40% between runs). */
double cpucycles_gbench_seconds(const struct cpucycles_gbench_entry *e);

/* A --benchmark_filter that selects the benchmark named name[0..length-1]
 * and no other: "^name$", each character a POSIX extended regular
 * expression (or std::regex, which GB may use instead) would read as an
 * operator escaped with '\'.  0, or -1 when buf[size] is too small or the
 * name holds a NUL or a newline (no filter can say it). */
int cpucycles_gbench_filter(char *buf, size_t size, const char *name, size_t length);

#endif
