/* SPDX-License-Identifier: MIT */
/* default-monotonic-syscall: CLOCK_MONOTONIC through the clock_gettime
 * system call itself, never through the vDSO.
 *
 * The vDSO's clock_gettime() and gettimeofday() read the TSC in user mode
 * on x86, so a process that forbade the TSC (prctl(PR_SET_TSC,
 * PR_TSC_SIGSEGV), or a sandbox that does it for it) faults in them as it
 * does in RDTSC.  The system call reads the same clock in the kernel,
 * where the TSC is allowed: slower (a few hundred ns), but a real,
 * increasing count where nothing else is.  An OS clock in nanoseconds,
 * scaled to cycles like default-monotonic, after which it is tried, and
 * counted from an origin as it is (origin.h).  Read through the library:
 * syscall() is not declared in strict ISO C, and the origin is the
 * library's. */
#ifndef CPUCYCLES_DEFAULT_MONOTONIC_SYSCALL_H
#define CPUCYCLES_DEFAULT_MONOTONIC_SYSCALL_H
#include "counter.h"
#if defined(__linux__)
#include <time.h>
#if defined(CLOCK_MONOTONIC)
#define CPUCYCLES_HAVE_DEFAULT_MONOTONIC_SYSCALL 1
#define CPUCYCLES_DEFAULT_MONOTONIC_SYSCALL_LIBRARY_READ 1 /* needs syscall() */

enum { cpucycles_default_monotonic_syscall_kind = CPUCYCLES_KIND_OSCLOCK };

#if defined(CPUCYCLES_COUNTER_SETUP)
#include "origin.h"
#include "seccomp.h"
#include <sys/syscall.h>
#include <unistd.h>

/* The kernel's 64-bit timespec.  32-bit targets whose C library has a
 * 64-bit time_t need clock_gettime64 (Linux 5.1); 64-bit targets' plain
 * clock_gettime takes the same layout. */
struct cpucycles_kernel_timespec {
  long long sec, nsec;
};
#if defined(SYS_clock_gettime64)
#define CPUCYCLES_SYS_CLOCK_GETTIME SYS_clock_gettime64
#elif defined(__LP64__) || defined(_LP64)
#define CPUCYCLES_SYS_CLOCK_GETTIME SYS_clock_gettime
#endif

/* One copy per program that sets counters up: the library, or a probe. */
static long long cpucycles_default_monotonic_syscall_origin_ns;

static inline long long cpucycles_default_monotonic_syscall_now_ns(void)
{
#if defined(CPUCYCLES_SYS_CLOCK_GETTIME)
  struct cpucycles_kernel_timespec t;
  if (syscall(CPUCYCLES_SYS_CLOCK_GETTIME, CLOCK_MONOTONIC, &t) != 0) return 0;
  return t.sec * 1000000000LL + t.nsec;
#else
  return 0;
#endif
}

CPUCYCLES_ALWAYS_INLINE long long cpucycles_default_monotonic_syscall_read(void)
{
  return cpucycles_default_monotonic_syscall_now_ns() -
         CPUCYCLES_ORIGIN(cpucycles_default_monotonic_syscall_origin_ns);
}

static inline int cpucycles_default_monotonic_syscall_setup(struct cpucycles_setup *s)
{
#if defined(CPUCYCLES_SYS_CLOCK_GETTIME)
  struct cpucycles_kernel_timespec t;
  s->nominal_hz = 1e9;
  if (!cpucycles_seccomp_allows(CPUCYCLES_SYS_CLOCK_GETTIME, CLOCK_MONOTONIC, (long)&t, 0, 0, 0)) {
    s->reason = CPUCYCLES_SECCOMP_REASON;
    return -1;
  }
  if (cpucycles_default_monotonic_syscall_now_ns() == 0) {
    s->reason = "the clock_gettime system call failed";
    return -1;
  }
  cpucycles_origin_start(&cpucycles_default_monotonic_syscall_origin_ns,
                         cpucycles_default_monotonic_syscall_now_ns(), 1000000000);
  return 0;
#else
  s->nominal_hz = 1e9;
  s->reason = "no 64-bit clock_gettime system call on this target";
  return -1;
#endif
}
#endif
#endif
#endif
#endif
