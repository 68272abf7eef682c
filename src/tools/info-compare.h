/* SPDX-License-Identifier: MIT */
/* info-compare.h - cpucycles-info --compare: saved cpucycles_bench()
 * results, OLD against NEW (info-compare.c). */
#ifndef CPUCYCLES_INFO_COMPARE_H
#define CPUCYCLES_INFO_COMPARE_H

/* --compare's exit statuses (also in cpucycles-info(1) and --help). */
#define CPUCYCLES_INFO_SAME 0     /* no benchmark slower (nor faster, with exit_faster) */
#define CPUCYCLES_INFO_SLOWER 1   /* some benchmark slower beyond the tolerance */
#define CPUCYCLES_INFO_REFUSED 2  /* a file unread or refused, or nothing to compare */
#define CPUCYCLES_INFO_FASTER 3   /* with exit_faster: none slower, some faster */

/* Compares the results in the files old_path and new_path, matched by
 * name, and prints a line for each on stdout (unflushed); tolerance in
 * percent.  Returns one of the statuses above. */
int cpucycles_info_compare(const char *old_path, const char *new_path, double tolerance,
                           int exit_faster);

#endif
