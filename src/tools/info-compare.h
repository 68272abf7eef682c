/* SPDX-License-Identifier: MIT */
/* info-compare.h - cpucycles-info --compare: saved cpucycles_bench()
 * results, OLD against NEW (info-compare.c). */
#ifndef CPUCYCLES_INFO_COMPARE_H
#define CPUCYCLES_INFO_COMPARE_H

/* --compare's exit statuses (also in cpucycles-info(1), --help and
 * examples/gate.sh). */
#define CPUCYCLES_INFO_SAME 0     /* none slower beyond the tolerance (nor faster, with
                                     exit_faster), each interval within it */
#define CPUCYCLES_INFO_SLOWER 1   /* some benchmark slower beyond the tolerance */
#define CPUCYCLES_INFO_REFUSED 2  /* a file unread or refused, or nothing to compare */
#define CPUCYCLES_INFO_FASTER 3   /* with exit_faster: none slower, some faster */
#define CPUCYCLES_INFO_CANNOT 4   /* none slower beyond the tolerance, and some result
                                     cannot be judged: disturbed, measured apart, one
                                     execution, or an interval across the tolerance */

/* Compares the results in the files old_path and new_path, matched by
 * name (the results of one name in a file are that many executions), and
 * prints a line for each on stdout (unflushed); tolerance in percent.
 * judge_anyway: judge what cannot be judged, with a warning.  Returns one
 * of the statuses above. */
int cpucycles_info_compare(const char *old_path, const char *new_path, double tolerance,
                           int exit_faster, int judge_anyway);

#endif
