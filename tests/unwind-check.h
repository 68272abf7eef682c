/* SPDX-License-Identifier: MIT */
/* unwind-check.h - what t-throw and t-cancel look at after the function
 * given to the harness left it by unwinding (a C++ exception, a thread's
 * cancellation or pthread_exit()): the process's mapped memory, since the
 * harness's working memory (16 KiB a call) is a private mapping that
 * malloc's statistics do not see, and the thread's CPU affinity, which
 * the harness narrows to one CPU while it runs with pin set.  C and C++. */
#ifndef CPUCYCLES_UNWIND_CHECK_H
#define CPUCYCLES_UNWIND_CHECK_H
#include <sched.h>
#include <stdio.h>
#include <unistd.h>

/* Calls per check: a leak of the 16 KiB each would be 16 MiB. */
#define UNWIND_CALLS 1000
/* What the process may grow by over them: a quarter of that leak, far
 * above what the exceptions' and threads' own bookkeeping leaves behind
 * once warmed up (none: their memory is reused). */
#define UNWIND_GROWTH_MAX (4L << 20)

/* The process's mapped memory in bytes, the sum of /proc/self/maps'
 * ranges, or -1 where it cannot be read.  (Not /proc/self/statm: under a
 * user-mode emulator that is the emulator's process, whose own caches
 * grew by 15 to 340 MiB over the calls; its /proc/self/maps is the
 * program's.) */
static long unwind_vm_bytes(void)
{
  FILE *f = fopen("/proc/self/maps", "r");
  unsigned long start, end;
  long total = 0;
  int c;
  if (!f) return -1;
  while (fscanf(f, "%lx-%lx", &start, &end) == 2) {
    total += (long)(end - start);
    while ((c = getc(f)) != EOF && c != '\n') {
    }
  }
  fclose(f);
  return total > 0 ? total : -1;
}

/* 1 when the calling thread may run on exactly one CPU (pinned). */
static int unwind_pinned(void)
{
  cpu_set_t now;
  return sched_getaffinity(0, sizeof now, &now) == 0 && CPU_COUNT(&now) == 1;
}

#endif
