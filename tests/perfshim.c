/* SPDX-License-Identifier: MIT */
/* perfshim - LD_PRELOAD shim: the machine has no PMU, so the library's
 * hardware CPU-cycles perf_event_open request is rewritten into a software
 * task-clock event (nanoseconds this thread ran) with the same pid, cpu,
 * group and flags.  Then every perf code path (open, per-thread events,
 * read(), release, close-on-exec) runs here for real.
 *
 * With CPUCYCLES_PERFSHIM_PMU=nofilter in the environment it plays a PMU
 * that cannot tell privilege modes apart (riscv's SBI PMU without
 * Sscofpmf): a cycles request that excludes the kernel or the hypervisor
 * is refused with EINVAL, as that kernel refuses it.  With =refuse, every
 * cycles request is refused with EINVAL. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <string.h>
#include <sys/syscall.h>

/* How many requests were rewritten, and how many of them counted every
 * privilege mode (tests look them up with dlsym). */
long cpucycles_perfshim_rewrites;
long cpucycles_perfshim_unfiltered;

/* Any other system call, forwarded with six arguments: the shim cannot
 * know how many the caller passed, and glibc's syscall() reads six
 * registers alike.  Reading past the caller's arguments is what ASan
 * would flag, hence the attribute. */
#if defined(__clang__) || defined(__GNUC__)
__attribute__((no_sanitize_address))
#endif
static long forward(long (*real)(long, ...), long number, va_list ap)
{
  long a[6];
  int i;
  for (i = 0; i < 6; i++) a[i] = va_arg(ap, long);
  return real(number, a[0], a[1], a[2], a[3], a[4], a[5]);
}

long syscall(long number, ...)
{
  static long (*real)(long, ...);
  va_list ap;
  long result;
  va_start(ap, number);
  if (!real) real = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
  if (number == SYS_perf_event_open) {
    /* perf_event_open(attr, pid, cpu, group_fd, flags), the integers
     * passed as long (src/core/setup/linux-perf.h, tests/perf-util.h) */
    const struct perf_event_attr *asked = va_arg(ap, const struct perf_event_attr *);
    long pid = va_arg(ap, long), cpu = va_arg(ap, long), group = va_arg(ap, long);
    long flags = va_arg(ap, long);
    struct perf_event_attr task_clock;
    va_end(ap);
    if (asked && asked->type == PERF_TYPE_HARDWARE && asked->config == PERF_COUNT_HW_CPU_CYCLES) {
      const char *pmu = getenv("CPUCYCLES_PERFSHIM_PMU");
      if (pmu && (strcmp(pmu, "refuse") == 0 ||
                  (strcmp(pmu, "nofilter") == 0 && (asked->exclude_kernel || asked->exclude_hv)))) {
        errno = EINVAL;
        return -1;
      }
      if (!asked->exclude_kernel && !asked->exclude_hv)
        __atomic_add_fetch(&cpucycles_perfshim_unfiltered, 1, __ATOMIC_RELAXED);
      task_clock = *asked;
      task_clock.type = PERF_TYPE_SOFTWARE;
      task_clock.config = PERF_COUNT_SW_TASK_CLOCK;
      task_clock.config1 = 0; /* arm64's user-access bits mean nothing here */
      __atomic_add_fetch(&cpucycles_perfshim_rewrites, 1, __ATOMIC_RELAXED);
      asked = &task_clock;
    }
    return real(number, asked, pid, cpu, group, flags);
  }
  result = forward(real, number, ap);
  va_end(ap);
  return result;
}
