/* SPDX-License-Identifier: MIT */
/* info-abi.h - what cpucycles-info reads from the shared library it runs
 * with, so that it reports that library's decision, not a copy of its own
 * (defined in cpucycles.c): cpucycles_private()->info (src/private.h),
 * valid only for a cpucycles-info of the same version (the struct layouts
 * behind it are internal); cpucycles-info checks the version and the
 * decision's size, and refuses anything else with a message. */
#ifndef CPUCYCLES_INFO_ABI_H
#define CPUCYCLES_INFO_ABI_H
#include "decide.h"
#include "table.h"

struct cpucycles_info_abi {
  const char *version;          /* the library's CPUCYCLES_VERSION */
  unsigned long decision_size;  /* sizeof(struct cpucycles_decision) */
  const struct cpucycles_decision *(*decision)(void);
  const struct cpucycles_counter *table;
  const int *table_size;
  const char *(*kind_name)(int kind);
  int (*is_cycle_counter)(int kind);
  int (*choose)(const struct cpucycles_result *results, int n);
  /* cpucycles_rule_score: the score the rule compares (measure.h) */
  long long (*score)(int rule, const struct cpucycles_result *results, int i);
};


#endif
