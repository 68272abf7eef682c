/* SPDX-License-Identifier: MIT */
/* table.c - the counters compiled into the library.
 *
 * Which counters, and in which order, is configure's: it generates
 * cpucycles-counters.h from the one list of counters
 * (m4/cpucycles_counters.m4), keeping those whose file compiles for this
 * target.  A tie in precision goes to the earlier counter, at configure
 * time and at run time alike (tests/t-choice checks the two orders agree). */
#include "counter-setup.h"
#define CPUCYCLES_STATE_STORAGE /* the library owns the counters' state */
#include "cpucycles-counters.h"
#include "table.h"
#include "text.h"

/* A counter whose setup takes descriptors or mappings (has_state 1) gives
 * them back with its release function. */
#define CPUCYCLES_RELEASE_0(id) 0
#define CPUCYCLES_RELEASE_1(id) cpucycles_##id##_release
#define COUNTER(id, name, has_state)                                                   \
  {name,                  cpucycles_##id##_kind, CPUCYCLES_COUNTER_FAULTS_##id, \
   cpucycles_##id##_setup, cpucycles_##id##_read, CPUCYCLES_RELEASE_##has_state(id)},

const struct cpucycles_counter cpucycles_table[] = {CPUCYCLES_COUNTERS(COUNTER)};

/* Every array of results holds CPUCYCLES_MAX_COUNTERS: a longer list of
 * counters must not compile (C99 has no _Static_assert: a negative array
 * size is the error). */
typedef char cpucycles_table_fits[(sizeof cpucycles_table / sizeof cpucycles_table[0] <=
                                   CPUCYCLES_MAX_COUNTERS)
                                      ? 1
                                      : -1];

const int cpucycles_table_size = (int)(sizeof cpucycles_table / sizeof cpucycles_table[0]);

CPUCYCLES_COLD int cpucycles_table_find(const char *name)
{
  int i;
  for (i = 0; i < cpucycles_table_size; i++)
    if (cpucycles_same_text(cpucycles_table[i].name, name)) return i;
  return -1;
}

CPUCYCLES_COLD void cpucycles_table_release_others(int keep, int zero_page)
{
  int i;
  for (i = 0; i < cpucycles_table_size; i++)
    if (i != keep && cpucycles_table[i].release) cpucycles_table[i].release(zero_page);
}

CPUCYCLES_COLD void cpucycles_table_fork_prepare(void)
{
#if defined(CPUCYCLES_HAVE_LINUX_PERF)
  cpucycles_perf_fork_prepare();
#endif
}

CPUCYCLES_COLD void cpucycles_table_fork_parent(void)
{
#if defined(CPUCYCLES_HAVE_LINUX_PERF)
  cpucycles_perf_fork_parent();
#endif
}

CPUCYCLES_COLD void cpucycles_table_after_fork(int chosen, long long persecond)
{
  struct cpucycles_setup s;
#if defined(CPUCYCLES_HAVE_LINUX_PERF)
  cpucycles_perf_forget_after_fork();
#endif
  if (chosen < 0 || chosen >= cpucycles_table_size || !cpucycles_table[chosen].release) return;
  /* Set the chosen counter up again in the child (amd64-pmcff's RDPMC is
   * allowed only while the process has an event mapped).  A per-thread
   * event waits for the child's first read: a child that execs at once
   * (fork, then exec) then opens none.  On riscv, an exec that unmaps the
   * page of an event on the cycle counter takes RDCYCLE away on every CPU
   * the child ran on, from other processes' threads reading it there
   * (t-grant 5: a reader on the other CPU died of SIGILL in 7 runs of 7
   * while children of a process that read riscv64-perfrdcycle forked and
   * exec'd beside it). */
  s.persecond = persecond;
  s.reason = 0;
  s.nominal_hz = 0;
  s.rate_timed = 0;
  s.defer_open = 1;
  cpucycles_table[chosen].setup(&s);
}
