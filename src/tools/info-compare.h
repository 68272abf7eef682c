/* SPDX-License-Identifier: MIT */
/* info-compare.h - cpucycles-info --compare: saved cpucycles_bench()
 * results, OLD against NEW (info-compare.c). */
#ifndef CPUCYCLES_INFO_COMPARE_H
#define CPUCYCLES_INFO_COMPARE_H

/* Compares the results in the files old_path and new_path, matched by
 * name (the results of one name in a file are that many executions), and
 * prints a line for each on stdout (unflushed); tolerance in percent.
 * judge_anyway: judge what cannot be judged, with a warning.  Returns an
 * exit status every comparison shares (CPUCYCLES_EXIT_*, verdict.h). */
int cpucycles_info_compare(const char *old_path, const char *new_path, double tolerance,
                           int exit_faster, int judge_anyway);

#endif
