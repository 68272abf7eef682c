/* SPDX-License-Identifier: MIT */
/* perf-util.h - what the perf tests look at: the process's perf event
 * descriptors and mappings, and busy work that a cycle (or, under
 * tests/perfshim, task-clock) event counts. */
#ifndef CPUCYCLES_TEST_PERF_UTIL_H
#define CPUCYCLES_TEST_PERF_UTIL_H
#include "counter-setup.h"
#include "linux-perf.h"
#include <dirent.h>
#if defined(CPUCYCLES_HAVE_LINUX_PERF)
#include <sys/syscall.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Why a perf test SKIPs where the library has no perf events: the OS, or
 * (linux-perf.h's CPUCYCLES_HAVE_LINUX_PERF) the toolchain. */
#if defined(__linux__) && !defined(CPUCYCLES_HAVE_LINUX_PERF)
#define PERF_UTIL_NONE_REASON "no <linux/perf_event.h> in this toolchain"
#else
#define PERF_UTIL_NONE_REASON "no perf events on this OS"
#endif

/* Descriptors of perf events open in this process (-1: no /proc). */
static inline int perf_fds(void)
{
  DIR *d = opendir("/proc/self/fd");
  struct dirent *e;
  char path[300], link[64];
  int n = 0;
  if (!d) return -1;
  while ((e = readdir(d)) != 0) {
    ssize_t len;
    if (e->d_name[0] == '.') continue;
    snprintf(path, sizeof path, "/proc/self/fd/%s", e->d_name);
    len = readlink(path, link, sizeof link - 1);
    if (len <= 0) continue;
    link[len] = 0;
    if (strstr(link, "perf_event")) n++;
  }
  closedir(d);
  return n;
}

/* Mappings of perf event pages in this process (-1: no /proc). */
static inline int perf_maps(void)
{
  FILE *f = fopen("/proc/self/maps", "r");
  char line[512];
  int n = 0;
  if (!f) return -1;
  while (fgets(line, sizeof line, f))
    if (strstr(line, "perf_event")) n++;
  fclose(f);
  return n;
}

/* Spins for ms milliseconds of CLOCK_MONOTONIC. */
static inline void busy_ms(int ms)
{
  /* ms of this thread's own running (its CPU clock), not of the wall
   * clock: on a loaded machine (make -j2 check beside an emulator) a
   * thread may run a fraction of a wall-clock interval. */
  struct timespec a, b;
  volatile unsigned long spin = 0;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
  do {
    spin++;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
  } while ((b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000 < ms);
}

/* 1 when this thread can open a hardware cycles event: a real PMU (the
 * library's event, asked directly, not through the open path the tests
 * check). */
static inline int perf_util_real_pmu(void)
{
#if defined(CPUCYCLES_HAVE_LINUX_PERF)
  struct perf_event_attr attr;
  int fd;
  cpucycles_perf_cycles_attr(&attr, 0);
  fd = (int)syscall(SYS_perf_event_open, &attr, 0L, -1L, -1L, 0L);
  if (fd < 0) return 0;
  close(fd);
  return 1;
#else
  return 0;
#endif
}

/* Runs the calling test again with tests/perfshim preloaded, once, when
 * there is no PMU here (on a real one the tests meet the kernel's
 * driver), the shim is not loaded yet and was built (a shared build with
 * perf events: configure's CPUCYCLES_PERFSHIM). */
static inline void perf_util_preload_shim(char **argv)
{
  char path[4096];
  const char *top = getenv("top_builddir");
  if (getenv("CPUCYCLES_PERFSHIM_TRIED") || perf_util_real_pmu()) return;
  snprintf(path, sizeof path, "%s/tests/.libs/perfshim.so", top ? top : ".");
  if (access(path, R_OK) != 0) return;
  setenv("CPUCYCLES_PERFSHIM_TRIED", "1", 1);
  setenv("LD_PRELOAD", path, 1);
  execv("/proc/self/exe", argv);
}
#endif
