/* SPDX-License-Identifier: MIT */
/* seccomp.h - setup-time check: is this thread under a seccomp filter?
 *
 * A filter may answer a system call it does not allow by killing the
 * process (SECCOMP_RET_KILL_PROCESS) or with SIGSYS (SECCOMP_RET_TRAP),
 * and there is no way to ask it beforehand whether it allows a call.  So
 * the counters that need system calls a program does not usually make
 * (perf_event_open, a raw clock_gettime) are not tried under a filter.
 * Filters belong to threads (a thread inherits its creator's), hence
 * /proc/thread-self.  Read with open/read: no stdio, no allocation. */
#ifndef CPUCYCLES_SECCOMP_H
#define CPUCYCLES_SECCOMP_H
#if defined(CPUCYCLES_COUNTER_SETUP) && defined(__linux__)
#include "readfile.h"

#define CPUCYCLES_SECCOMP_REASON "skipped: a seccomp filter is active (the system call could kill the process)"

/* For cpucycles_readfile_lines: the "Seccomp:" line, into *(int *)ctx. */
static inline int cpucycles_seccomp_line(void *ctx, const char *line, size_t len)
{
  (void)len;
  if (strncmp(line, "Seccomp:", 8) != 0) return 0;
  line += 8;
  while (*line == ' ' || *line == '\t') line++;
  *(int *)ctx = *line == '1' || *line == '2';
  return 1;
}

/* 1 when this thread is in seccomp filter (2) or strict (1) mode, else 0
 * (also when /proc does not say). */
static inline int cpucycles_seccomp_active(void)
{
  char buf[256];
  int active = 0;
  if (cpucycles_readfile_lines("/proc/thread-self/status", buf, sizeof buf, cpucycles_seccomp_line,
                               &active) < 0)
    cpucycles_readfile_lines("/proc/self/status", buf, sizeof buf, cpucycles_seccomp_line, &active);
  return active;
}
#endif
#endif
