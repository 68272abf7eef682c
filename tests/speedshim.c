/* SPDX-License-Identifier: MIT */
/* speedshim - LD_PRELOAD shim: a host that runs at another speed, for the
 * saved-baseline gate's tests.  A virtual CPU whose core another guest
 * shares runs the same code 1.6 times slower by the TSC (this project's
 * development VM: a fixed chain at 5,600 or 9,300 ticks, by vCPU and
 * minute); here every clock the process reads runs CPUCYCLES_SPEEDSHIM
 * times faster instead, which is the same to a measurement: the code and
 * the harness's reference both take that many times the cycles.
 *
 * The TSC cannot be scaled (the library reads it inline), so the shim
 * forbids it (prctl(PR_SET_TSC, PR_TSC_SIGSEGV)).  Then the vDSO, which
 * reads the TSC, faults too: the library's first call counts with the
 * clock_gettime system call (default-monotonic-syscall), and every clock
 * the C library gives (clock_gettime(), gettimeofday(), time()) is taken
 * from the system call here.  Each returns the time since its first read,
 * times the factor, from where that first read was.  CPUCYCLES_SPEEDSHIM
 * unset or 1: the clocks as they are (the TSC still forbidden, so that
 * both sides of a test count alike).  The TSC is allowed again for an
 * exec (glibc's dynamic loader reads it first thing in a new program),
 * whose own copy of the shim forbids it once more. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static long (*real_syscall)(long, ...);
static double factor = 1;
#define CLOCKS 16
static struct timespec origin[CLOCKS];
static int have_origin[CLOCKS];

__attribute__((constructor)) static void speedshim_start(void)
{
  const char *f = getenv("CPUCYCLES_SPEEDSHIM");
  real_syscall = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
  if (f && atof(f) > 0) factor = atof(f);
#if defined(PR_SET_TSC)
  prctl(PR_SET_TSC, PR_TSC_SIGSEGV, 0, 0, 0);
#endif
}

/* The clock id's time from the system call (never the vDSO), scaled. */
static int scaled_now(clockid_t id, struct timespec *t)
{
  long long ns, at;
  if (!real_syscall) real_syscall = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
  if (!real_syscall || real_syscall(SYS_clock_gettime, (long)id, t) != 0) return -1;
  if (factor == 1 || id < 0 || id >= CLOCKS) return 0;
  if (!__atomic_load_n(&have_origin[id], __ATOMIC_ACQUIRE)) {
    origin[id] = *t;
    __atomic_store_n(&have_origin[id], 1, __ATOMIC_RELEASE);
  }
  ns = (long long)(t->tv_sec - origin[id].tv_sec) * 1000000000LL + (t->tv_nsec - origin[id].tv_nsec);
  at = (long long)origin[id].tv_nsec + (long long)((double)ns * factor);
  t->tv_sec = origin[id].tv_sec + at / 1000000000LL;
  t->tv_nsec = at % 1000000000LL;
  return 0;
}

int clock_gettime(clockid_t id, struct timespec *t) { return scaled_now(id, t); }

int gettimeofday(struct timeval *tv, void *tz)
{
  /* glibc declares tv nonnull, so that a test of tv itself is warned
   * about (clang -Werror); the vDSO's accepts NULL, and so does this */
  struct timeval *volatile out = tv;
  struct timespec t;
  (void)tz;
  if (scaled_now(CLOCK_REALTIME, &t) != 0) return -1;
  if (out) out->tv_sec = t.tv_sec, out->tv_usec = t.tv_nsec / 1000;
  return 0;
}

time_t time(time_t *out)
{
  struct timespec t;
  if (scaled_now(CLOCK_REALTIME, &t) != 0) return (time_t)-1;
  if (out) *out = t.tv_sec;
  return t.tv_sec;
}

/* syscall(): clock_gettime scaled (the library's default-monotonic-syscall
 * reads it so), anything else forwarded with six arguments (glibc's
 * syscall() reads six registers alike; hence no_sanitize_address, as in
 * perfshim.c). */
#if defined(__clang__) || defined(__GNUC__)
__attribute__((no_sanitize_address))
#endif
long syscall(long number, ...)
{
  va_list ap;
  long a[6];
  int i;
  va_start(ap, number);
  for (i = 0; i < 6; i++) a[i] = va_arg(ap, long);
  va_end(ap);
  if (number == SYS_clock_gettime) return scaled_now((clockid_t)a[0], (struct timespec *)a[1]);
  if (!real_syscall) real_syscall = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
  return real_syscall(number, a[0], a[1], a[2], a[3], a[4], a[5]);
}

/* An exec: the TSC allowed for the new program's loader, forbidden again
 * here when the exec fails. */
static void tsc(int allowed)
{
#if defined(PR_SET_TSC)
  prctl(PR_SET_TSC, allowed ? PR_TSC_ENABLE : PR_TSC_SIGSEGV, 0, 0, 0);
#else
  (void)allowed;
#endif
}

int execve(const char *path, char *const argv[], char *const envp[])
{
  static int (*real)(const char *, char *const[], char *const[]);
  int rc;
  if (!real) real = (int (*)(const char *, char *const[], char *const[]))dlsym(RTLD_NEXT, "execve");
  tsc(1);
  rc = real(path, argv, envp);
  tsc(0);
  return rc;
}

int execvp(const char *file, char *const argv[])
{
  static int (*real)(const char *, char *const[]);
  int rc;
  if (!real) real = (int (*)(const char *, char *const[]))dlsym(RTLD_NEXT, "execvp");
  tsc(1);
  rc = real(file, argv);
  tsc(0);
  return rc;
}

int execv(const char *path, char *const argv[])
{
  static int (*real)(const char *, char *const[]);
  int rc;
  if (!real) real = (int (*)(const char *, char *const[]))dlsym(RTLD_NEXT, "execv");
  tsc(1);
  rc = real(path, argv);
  tsc(0);
  return rc;
}
