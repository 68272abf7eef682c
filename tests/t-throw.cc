// SPDX-License-Identifier: MIT
// t-throw - a C++ exception thrown by the function cpucycles_bench() or
// cpucycles_bench_compare() measures passes through the harness, which
// gives back what it holds on the way: over 1000 throws, from a warm-up
// or a measured run, the process does not grow by the harness's 16 KiB
// working memory each, and with pin set the thread's CPU affinity is the
// one it had before each call.  Built where configure finds a C++
// compiler whose programs run.
#include <cpucycles-bench.h>
#include "tap.h"
#include "unwind-check.h"
#include <cstring>
#include <stdexcept>

namespace {

struct thrower {
  long long calls, at; // throws on call `at`
  int pinned;          // pinned when it threw
};

void throwing(void *arg)
{
  thrower *t = static_cast<thrower *>(arg);
  if (++t->calls != t->at) return;
  t->pinned = unwind_pinned();
  throw std::runtime_error("from fn");
}

void nothing(void *) {}

// One call of cpucycles_bench(), or of cpucycles_bench_compare() with the
// throwing function as b, whose function throws on call `at`: 1 when the
// exception came out of it, the thread pinned when it was thrown.
bool throw_through(bool compare, long long at, int *pinned)
{
  thrower t = {0, at, 0};
  try {
    if (compare) {
      cpucycles_compare_options o;
      cpucycles_compare_result r;
      std::memset(&o, 0, sizeof o);
      o.pin = 1, o.pairs = 100, o.calls = 1;
      cpucycles_bench_compare(nothing, 0, throwing, &t, &o, &r);
    } else {
      cpucycles_bench_options o;
      cpucycles_bench_result r;
      std::memset(&o, 0, sizeof o);
      o.pin = 1, o.calls = 1;
      cpucycles_bench(throwing, &t, &o, &r);
    }
  } catch (const std::runtime_error &) {
    *pinned = t.pinned;
    return true;
  }
  return false;
}

void check(bool compare, const cpu_set_t &initial)
{
  const char *name = compare ? "cpucycles_bench_compare()" : "cpucycles_bench()";
  long before, after;
  int caught = 0, pinned = 0, restored = 0, i, p;
  cpu_set_t now;
  // The first throws load the unwinder and fill its caches.
  for (i = 0; i < 10; i++) throw_through(compare, 1, &p);
  before = unwind_vm_bytes();
  for (i = 0; i < UNWIND_CALLS; i++) {
    // from the first warm-up call through the measured runs (2 warm-ups
    // with cpucycles_bench(), 8 warm-up pairs with the comparison)
    caught += throw_through(compare, 1 + i % 24, &p);
    pinned += p;
    restored += sched_getaffinity(0, sizeof now, &now) == 0 && CPU_EQUAL(&now, &initial);
  }
  after = unwind_vm_bytes();
  tap_ok(caught == UNWIND_CALLS, "%s: %d of %d exceptions thrown by the function are caught by "
         "its caller", name, caught, UNWIND_CALLS);
  if (before < 0 || after < 0)
    tap_skip("the process does not grow", "no /proc/self/maps");
  else
    tap_ok(after - before < UNWIND_GROWTH_MAX, "%s: %d exceptions through it grow the process by "
           "%ld KiB (16 KiB each would be %d KiB)", name, UNWIND_CALLS, (after - before) / 1024,
           16 * UNWIND_CALLS);
  if (CPU_COUNT(&initial) < 2)
    tap_skip("the CPU affinity is restored after each exception", "one CPU only");
  else
    tap_ok(pinned == UNWIND_CALLS && restored == UNWIND_CALLS, "%s with pin: pinned to one CPU "
           "when the function threw %d times of %d, the thread's affinity (%d CPUs) as before "
           "after %d", name, pinned, UNWIND_CALLS, CPU_COUNT(&initial), restored);
}

} // namespace

int main()
{
  cpu_set_t initial;
  cpucycles_bench_result r;
  tap_plan(7);
  sched_getaffinity(0, sizeof initial, &initial);
  check(false, initial);
  check(true, initial);
  // and the harness still works
  int rc = cpucycles_bench(nothing, 0, 0, &r);
  tap_ok(rc == 0 && r.count > 0, "cpucycles_bench() measures after them: %lld runs kept",
         rc == 0 ? r.count : 0);
  return tap_done();
}
