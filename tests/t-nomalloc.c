/* SPDX-License-Identifier: MIT */
/* t-nomalloc - the first call allocates nothing (so it may run in a signal
 * handler that interrupted malloc(), and in a fork() child of a
 * multithreaded program): this program replaces malloc() and its kin with
 * counting wrappers around glibc's own, and counts the calls made during
 * the first call, on the verified path and on a full run-time selection.
 * Skipped under the sanitizers, which replace malloc() themselves. */
#include "cpucycles.h"
#include "decide.h"
#include "table.h"
#include "tap.h"
#include <stddef.h>
#include <stdlib.h>

#if defined(__SANITIZE_ADDRESS__) || defined(TAP_UNDER_TSAN)
#define NO_WRAPPERS "the sanitizer replaces malloc() itself"
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer)
#define NO_WRAPPERS "the sanitizer replaces malloc() itself"
#endif
#endif
#if !defined(NO_WRAPPERS) && !defined(__GLIBC__)
#define NO_WRAPPERS "not glibc (its __libc_malloc is what the wrappers call)"
#endif

#if !defined(NO_WRAPPERS)
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);
static volatile int allocations;
/* Weak: a static link takes the C library's own instead (its malloc.o
 * defines them all), and the test then says it cannot count. */
#define WRAPPER __attribute__((weak))
WRAPPER void *malloc(size_t n)
{
  allocations++;
  return __libc_malloc(n);
}
WRAPPER void *calloc(size_t n, size_t m)
{
  allocations++;
  return __libc_calloc(n, m);
}
WRAPPER void *realloc(void *p, size_t n)
{
  allocations++;
  return __libc_realloc(p, n);
}
WRAPPER void free(void *p) { __libc_free(p); }
#endif

int main(void)
{
  tap_plan(2);
#if defined(NO_WRAPPERS)
  tap_skip("the first call allocates nothing", NO_WRAPPERS);
  tap_skip("a full run-time selection allocates nothing", NO_WRAPPERS);
#else
  {
    static struct cpucycles_decision d;
    struct cpucycles_plan plan;
    int before;
    /* stdout's own buffer first, so that printing is not counted */
    tap_diag("counting allocations");
    before = allocations;
    free(malloc(16));
    if (allocations == before) {
      tap_skip("the first call allocates nothing", "malloc() cannot be replaced (a static link)");
      tap_skip("a full run-time selection allocates nothing", "malloc() cannot be replaced");
      return tap_done();
    }
    before = allocations;
    cpucycles();
    tap_ok(allocations == before, "the first call (%s) made %d allocations",
           cpucycles_implementation(), allocations - before);
    /* a broken variable too: its message is made without allocating */
    setenv("cpucyclespersecond", "not a number", 1);
    cpucycles_build_plan(&plan);
    plan.build_counter = -1;
    before = allocations;
    cpucycles_decide(cpucycles_table, cpucycles_table_size, &plan, "/etc/cpucyclespersecond",
                     "cpucyclespersecond", &d);
    tap_ok(allocations == before, "a full run-time selection made %d allocations (chose %s)",
           allocations - before, cpucycles_table[d.index].name);
  }
#endif
  return tap_done();
}
