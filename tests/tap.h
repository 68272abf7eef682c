/* SPDX-License-Identifier: MIT */
/* tap.h - the few lines of TAP (Test Anything Protocol) the tests print,
 * read by automake's tap-driver.sh.  Not a framework: plan, ok, skip. */
#ifndef CPUCYCLES_TAP_H
#define CPUCYCLES_TAP_H
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>

/* ThreadSanitizer defers asynchronous signals to points of its choosing
 * and reads the TSC itself: the few cases that depend on when a signal
 * lands are skipped under it (TAP_TSAN_REASON).  The TSC-forbidding case
 * is skipped under any sanitizer (TAP_UNDER_SANITIZER): their runtimes read
 * the TSC too, and fault in their own code when it is forbidden. */
#if defined(__SANITIZE_THREAD__)
#define TAP_UNDER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define TAP_UNDER_TSAN 1
#endif
#endif
#define TAP_TSAN_REASON "ThreadSanitizer defers asynchronous signals and uses the TSC itself"
#if defined(TAP_UNDER_TSAN) || defined(__SANITIZE_ADDRESS__)
#define TAP_UNDER_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TAP_UNDER_SANITIZER 1
#endif
#endif

/* qemu-user 7.2 enters x86-64 signal handlers with the stack 8 bytes off
 * the ABI's 16-byte alignment, so SSE code in a handler faults there
 * (hardware does not): the tests' handlers that do real work realign. */
#if defined(__x86_64__) || defined(__i386__)
#define HANDLER_ALIGN __attribute__((force_align_arg_pointer))
#else
#define HANDLER_ALIGN
#endif

/* 1 when the tests run under qemu-user (make check's runner for another
 * architecture): its /proc/self/pagemap is qemu's, and some of its
 * signal handling is not a kernel's. */
static inline int tap_under_qemu_user(void)
{
  const char *runner = getenv("CPUCYCLES_PROBE_RUNNER");
  return runner && strstr(runner, "qemu-") != 0;
}

static int tap_count;
static int tap_failures;

static inline void tap_plan(int n)
{
  printf("1..%d\n", n);
  fflush(stdout);
}

/* ok N - what, or not ok N - what; returns cond. */
static inline int tap_ok(int cond, const char *fmt, ...)
{
  va_list ap;
  if (!cond) tap_failures++;
  printf("%sok %d - ", cond ? "" : "not ", ++tap_count);
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  printf("\n");
  fflush(stdout);
  return cond;
}

/* ok N - what # SKIP reason: the check could not be made here. */
static inline void tap_skip(const char *what, const char *reason)
{
  printf("ok %d - %s # SKIP %s\n", ++tap_count, what, reason);
  fflush(stdout);
}

/* A diagnostic line, shown in the test's log. */
static inline void tap_diag(const char *fmt, ...)
{
  va_list ap;
  printf("# ");
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  printf("\n");
}

/* main's exit status: 1 when a check failed (a harness that reads only
 * the exit status sees it too), else 0. */
static inline int tap_done(void)
{
  fflush(stdout);
  return tap_failures ? 1 : 0;
}
#endif
