/* SPDX-License-Identifier: MIT */
/* info-compare.h - cpucycles-info --compare: saved cpucycles_bench()
 * results, OLD against NEW (info-compare.c). */
#ifndef CPUCYCLES_INFO_COMPARE_H
#define CPUCYCLES_INFO_COMPARE_H

/* Compares the results in the files old_path and new_path, matched by
 * name (the results of one name in a file are that many executions), and
 * prints a line for each on stdout (unflushed), or with json the
 * comparison document; tolerance in percent.
 * judge_anyway: judge what cannot be judged, with a warning.  Returns an
 * exit status every comparison shares (CPUCYCLES_EXIT_*, verdict.h). */
int cpucycles_info_compare(const char *old_path, const char *new_path, double tolerance,
                           int exit_faster, int judge_anyway, int json);
/* A comparison document in path (cpucycles-compare --json, --compare
 * --json) judged again at tolerance (or, not given, its own), each row
 * from its samples; text, or with json a comparison document.  The exit
 * status as above. */
int cpucycles_info_rejudge(const char *path, double tolerance, int tolerance_given, int exit_faster,
                           int judge_anyway, int json);

#endif
