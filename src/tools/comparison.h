/* SPDX-License-Identifier: MIT */
/* comparison.h - the comparison document (schema 2: JSON in
 * cpucycles_bench(3)) as the tools write it on standard output
 * (comparison.c): what was compared and how, then "rows", one object per
 * benchmark, each beginning with the members every comparison has; a
 * tool adds its own members after the common ones, with the json_*
 * helpers.  (The library's cpucycles_compare_format() writes the same
 * shape into a buffer, with its own writer: no stdio there.) */
#ifndef CPUCYCLES_COMPARISON_H
#define CPUCYCLES_COMPARISON_H
#include "verdict.h"
#include <stdio.h>

/* What every comparison document says before its rows. */
struct comparison_head {
  const char *tool;     /* "cpucycles-compare", "cpucycles-info --compare" */
  const char *old_name, *new_name; /* what was compared */
  const char *measured; /* "cycles per call", ... */
  double tolerance;     /* percent */
  int looks;            /* 1, or 2 with a second stage */
};

/* The common members of one row. */
struct comparison_row {
  const char *name;
  size_t name_length; /* of name, which may hold any byte */
  const struct cpucycles_judgement *j;
  double ratio, low, high; /* NaN: none */
  double old_figure, new_figure;
};

/* {"schema": 2, "type": "comparison", ... (members a tool adds next with
 * json_key(), then comparison_rows()) */
void comparison_begin(const struct comparison_head *h);
/* "rows": [ */
void comparison_rows(void);
/* a row's opening and its common members (first: is it the first row);
 * the tool's members follow with json_member(), then comparison_row_end() */
void comparison_row(const struct comparison_row *r, double tolerance, int first);
void comparison_row_end(void);
/* ] (more top-level members may follow, with json_key()) */
void comparison_rows_end(void);
/* "status" and the document's end */
void comparison_end(int status);

/* The comparison as Markdown, for a pull request's comment: a header line
 * (the command, and what was compared), then a table of the rows worst
 * first (slower, cannot judge, indistinguishable, faster; each by its
 * ratio, highest first), each name verbatim in backticks (a '|' escaped,
 * as a table cell needs), a row that cannot be judged or whose interval
 * is wide (over +-2%) marked; samples: how many (pairs, executions)
 * behind each row, what: their word.  unit_seconds: the figures are
 * seconds (shown as ns, us, ms), else cycles. */
void comparison_markdown(const struct comparison_head *h, const char *command, const struct comparison_row *rows,
                         size_t n, int unit_seconds, long samples, const char *what);

/* The rows as an SVG picture, in the Markdown's order: each one's ratio
 * (a dot) and interval (a bar) on one axis of new/old, with 1 and the
 * tolerance marked, its name on the left and its verdict on the right,
 * coloured by verdict; names as XML text (bytes that are not UTF-8 as
 * '?').  A file of cpucycles-compare's --plot. */
void comparison_svg(FILE *f, const struct comparison_head *h, const struct comparison_row *rows, size_t n);

/* "key": (a top-level member: first one of the document or not) */
void json_key(const char *key, int first);
/* , "key": (a member inside a row) */
void json_member(const char *key);
/* s as a JSON string (any bytes: control characters escaped, bytes that
 * are not UTF-8 as U+FFFD); 0: null */
void json_string(const char *s);
void json_text(const char *s, size_t n);
/* x, or null when not finite (JSON has no NaN) */
void json_number(double x);
/* [x0, x1, ...], each as json_number() */
void json_numbers(const double *x, long n);

#endif
