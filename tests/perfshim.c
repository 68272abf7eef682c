/* SPDX-License-Identifier: MIT */
/* perfshim - LD_PRELOAD shim: the machine has no PMU, so the library's
 * hardware CPU-cycles perf_event_open request is rewritten into a software
 * task-clock event (nanoseconds this thread ran) with the same pid, cpu,
 * group and flags.  Then every perf code path (open, per-thread events,
 * read(), release, close-on-exec) runs here for real. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <string.h>
#include <sys/syscall.h>

/* How many requests were rewritten (tests look it up with dlsym). */
long cpucycles_perfshim_rewrites;

long syscall(long number, ...)
{
  static long (*real)(long, ...);
  long a[6];
  va_list ap;
  int i;
  va_start(ap, number);
  for (i = 0; i < 6; i++) a[i] = va_arg(ap, long);
  va_end(ap);
  if (!real) real = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
  if (number == SYS_perf_event_open && a[0]) {
    const struct perf_event_attr *asked = (const struct perf_event_attr *)a[0];
    if (asked->type == PERF_TYPE_HARDWARE && asked->config == PERF_COUNT_HW_CPU_CYCLES) {
      struct perf_event_attr task_clock = *asked;
      task_clock.type = PERF_TYPE_SOFTWARE;
      task_clock.config = PERF_COUNT_SW_TASK_CLOCK;
      task_clock.config1 = 0; /* arm64's user-access bits mean nothing here */
      __atomic_add_fetch(&cpucycles_perfshim_rewrites, 1, __ATOMIC_RELAXED);
      return real(number, &task_clock, a[1], a[2], a[3], a[4]);
    }
  }
  return real(number, a[0], a[1], a[2], a[3], a[4], a[5]);
}
