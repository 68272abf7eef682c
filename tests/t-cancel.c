/* SPDX-License-Identifier: MIT */
/* t-cancel - a thread cancelled inside the function cpucycles_bench() or
 * cpucycles_bench_compare() measures (pthread_cancel() with a
 * cancellation point in it), or one that calls pthread_exit() there: the
 * harness gives back what it holds as the thread unwinds.  Over 1000
 * threads each way the process does not grow by the harness's 16 KiB working
 * memory each, and with pin set the thread's CPU affinity, read by its own
 * cleanup handler (which runs after the harness's), is the one it started
 * with. */
#include "cpucycles-bench.h"
#include "tap.h"
#include "unwind-check.h"
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* AddressSanitizer's runtime (GCC 12's) takes the stack a cancelled
 * thread unwinds for its own in __asan_handle_no_return() while the frames
 * left are still poisoned, and reports an overflow in its sigaltstack()
 * there (google/sanitizers#1399; any pthread_cleanup_push() and
 * pthread_cancel() do it): with the frames on its fake stack instead,
 * nothing is left poisoned. */
#if defined(__SANITIZE_ADDRESS__)
#define T_CANCEL_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define T_CANCEL_ASAN 1
#endif
#endif
#if defined(T_CANCEL_ASAN)
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "detect_stack_use_after_return=1"; }
#endif

enum how { CANCELLED, EXITED };

struct job {
  enum how how;
  int compare;           /* cpucycles_bench_compare(), else cpucycles_bench() */
  long long calls, at;   /* fn stops the thread on call `at` */
  int pinned;            /* the thread was pinned when it stopped */
  int unwound;           /* the thread's cleanup handler ran */
  cpu_set_t after;       /* the affinity that handler saw */
};

static void stopping(void *arg)
{
  struct job *j = arg;
  if (++j->calls != j->at) return;
  j->pinned = unwind_pinned();
  if (j->how == EXITED) pthread_exit(0);
  pthread_cancel(pthread_self());
  pthread_testcancel(); /* the cancellation point */
}

static void nothing(void *arg) { (void)arg; }

static void cleanup(void *arg)
{
  struct job *j = arg;
  j->unwound = 1;
  sched_getaffinity(0, sizeof j->after, &j->after);
}

static void *thread(void *arg)
{
  struct job *j = arg;
  pthread_cleanup_push(cleanup, j);
  if (j->compare) {
    struct cpucycles_compare_options o;
    struct cpucycles_compare_result r;
    memset(&o, 0, sizeof o);
    o.pin = 1, o.pairs = 100, o.calls = 1;
    cpucycles_bench_compare(nothing, 0, stopping, j, &o, &r);
  } else {
    struct cpucycles_bench_options o;
    struct cpucycles_bench_result r;
    memset(&o, 0, sizeof o);
    o.pin = 1, o.calls = 1;
    cpucycles_bench(stopping, j, &o, &r);
  }
  pthread_cleanup_pop(0);
  return arg; /* not stopped: the harness returned */
}

/* One thread whose fn stops it on call at: 1 when it stopped there. */
static int run_thread(struct job *j, pthread_attr_t *attr)
{
  pthread_t t;
  void *value = 0;
  j->calls = 0, j->pinned = 0, j->unwound = 0;
  if (pthread_create(&t, attr, thread, j) != 0) return 0;
  pthread_join(t, &value);
  return j->unwound && value == (j->how == CANCELLED ? PTHREAD_CANCELED : 0);
}

/* Threads per check: UNWIND_CALLS, a quarter of them under an emulator
 * (the runner the tests run through: a thread's creation is slow there,
 * 19 s of a row of the cross matrix under qemu-user), where a leak of
 * 16 KiB each is still 4 MiB, and the growth allowed a quarter of it. */
static int calls = UNWIND_CALLS;
#define GROWTH_MAX ((long)calls * UNWIND_GROWTH_MAX / UNWIND_CALLS)

static void check(enum how how, int compare, const cpu_set_t *initial, pthread_attr_t *attr)
{
  const char *name = compare ? "cpucycles_bench_compare()" : "cpucycles_bench()";
  const char *what = how == CANCELLED ? "cancelled" : "pthread_exit()ed";
  struct job j;
  long before, after;
  int stopped = 0, pinned = 0, restored = 0, i;
  memset(&j, 0, sizeof j);
  j.how = how, j.compare = compare;
  /* The first threads load the unwinder and fill the caches of stacks. */
  for (i = 0, j.at = 1; i < 10; i++) run_thread(&j, attr);
  before = unwind_vm_bytes();
  for (i = 0; i < calls; i++) {
    j.at = 1 + i % 24; /* from the first warm-up call through the measured runs */
    stopped += run_thread(&j, attr);
    pinned += j.pinned;
    restored += j.unwound && CPU_EQUAL(&j.after, initial);
  }
  after = unwind_vm_bytes();
  tap_ok(stopped == calls, "%s: %d of %d threads %s in the function unwind through "
         "it, their cleanup handlers run", name, stopped, calls, what);
#if defined(TAP_UNDER_TSAN)
  (void)before, (void)after;
  tap_skip("the process does not grow", "ThreadSanitizer keeps memory for each thread it has "
           "seen (14 MiB over the first 1000 here)");
#else
  if (before < 0 || after < 0)
    tap_skip("the process does not grow", "no /proc/self/maps");
  else
    tap_ok(after - before < GROWTH_MAX, "%s: %d threads %s in it grow the process by "
           "%ld KiB (16 KiB each would be %d KiB)", name, calls, what,
           (after - before) / 1024, 16 * calls);
#endif
  if (CPU_COUNT(initial) < 2)
    tap_skip("the CPU affinity is restored as the thread unwinds", "one CPU only");
  else
    tap_ok(pinned == calls && restored == calls,
           "%s with pin: pinned to one CPU when %s %d times of %d, the affinity (%d CPUs) "
           "restored before the thread's own cleanup handler %d times", name, what, pinned,
           calls, CPU_COUNT(initial), restored);
}

int main(void)
{
  cpu_set_t initial;
  pthread_attr_t attr;
  tap_plan(12);
  sched_getaffinity(0, sizeof initial, &initial);
  /* small stacks, so that one not yet reused is not taken for a leak */
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 256 * 1024);
  if (getenv("CPUCYCLES_PROBE_RUNNER") && *getenv("CPUCYCLES_PROBE_RUNNER")) calls = UNWIND_CALLS / 4;
  check(CANCELLED, 0, &initial, &attr);
  check(EXITED, 0, &initial, &attr);
  check(CANCELLED, 1, &initial, &attr);
  check(EXITED, 1, &initial, &attr);
  pthread_attr_destroy(&attr);
  return tap_done();
}
