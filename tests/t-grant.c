/* SPDX-License-Identifier: MIT */
/* t-grant - a counter that user space may read only under a perf event's
 * grant.  arm64's PMCCNTR_EL0 and riscv's cycle CSR become readable while
 * a perf event of the thread's own is open (arm64-perfpmc's,
 * riscv64-perfrdcycle's): the kernel grants the read for that event.
 *
 * 1. The bare counter (arm64-pmc, riscv64-rdcycle) must not be taken as
 *    working because the perf counter's event happens to be open (the
 *    selection measures it right after the perf counter): whatever it is
 *    measured to do under the grant, it must do alone too.  On Debian's
 *    riscv64 kernel, RDCYCLE measured under the grant had a better
 *    precision than riscv64-perfrdcycle, and died of SIGILL once the
 *    event was gone.
 * 2. The perf counter keeps counting beside another cycles event of the
 *    thread (default-perfevent's, which the selection also opens) after
 *    the thread is descheduled again and again.  riscv's read needs its
 *    event on the cycle CSR itself; when the kernel put the other event
 *    there on a reschedule, the count stood still (tracesetup's second
 *    selection measured riscv64-perfrdcycle as not working in most runs),
 *    and a read between the page's index and RDCYCLE could die of SIGILL.
 *
 * 3. Releasing the perf counter's event takes nothing from another
 *    process.  riscv's SBI PMU driver, when the page of an event that is
 *    on a counter is unmapped, clears that counter's user access on every
 *    CPU the unmapping process has run on: another process reading the
 *    counter there died of SIGILL (3 runs of 3), unless the event was
 *    disabled before its page went (linux-perf.h's cpucycles_perf_unplace).
 *
 * Needs a kernel: on an x86 host, or one without such a PMU, they SKIP
 * with the reason.  The system-emulation tier runs it on arm64 and
 * riscv64 kernels. */
#include "decide.h"
#include "table.h"
#include "tap.h"
#include "cpucycles.h"
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char *const pairs[][2] = {
    {"arm64-perfpmc", "arm64-pmc"},
    {"riscv64-perfrdcycle", "riscv64-rdcycle"},
    {"riscv32-perfrdcycle", "riscv32-rdcycle"},
};
enum { NPAIRS = sizeof pairs / sizeof pairs[0], RESCHEDULES = 100, RELEASES = 200 };

static void release(const struct cpucycles_counter *c)
{
  if (c->release) c->release(0);
}

/* 1: the bare counter under the perf counter's grant, then alone. */
static void bare_alone(const struct cpucycles_counter *perf, const struct cpucycles_counter *bare,
                       long long persecond)
{
  struct cpucycles_result r, under, alone;
  if (!cpucycles_measure(perf, persecond, &r)) {
    tap_skip("the bare counter is not taken as working under a perf event's grant", r.reason);
    release(perf);
    return;
  }
  cpucycles_measure(bare, persecond, &under);
  release(bare);
  release(perf);
  cpucycles_measure(bare, persecond, &alone);
  release(bare);
  tap_ok(!under.available || alone.available,
         "%s is not taken as working under %s's grant: under it %s (%s), alone %s (%s)", bare->name,
         perf->name, under.available ? "available" : "refused", under.reason ? under.reason : "",
         alone.available ? "available" : "refused", alone.reason ? alone.reason : "");
}

/* 2: the perf counter beside another cycles event of the thread. */
static void beside_another(const struct cpucycles_counter *perf, long long persecond)
{
  int other = cpucycles_table_find("default-perfevent"), i, stalled = 0;
  struct cpucycles_result r;
  const char *why = other < 0 ? "no default-perfevent in this build" : 0;
  struct timespec nap = {0, 1000000};
  long long a, b;
  volatile int spin;
  if (!cpucycles_measure(perf, persecond, &r)) {
    tap_skip("the perf counter keeps counting beside another cycles event", r.reason);
    release(perf);
    return;
  }
  /* its event open is what counts here, not whether it counts (qemu's
   * riscv64 counters other than the cycle CSR do not) */
  if (other >= 0) {
    struct cpucycles_setup s = {persecond, 0, 0, 0};
    if (cpucycles_table[other].setup(&s) != 0) why = s.reason;
  }
  if (other < 0 || why) {
    tap_skip("the perf counter keeps counting beside another cycles event", why);
    release(perf);
    return;
  }
  for (i = 0; i < RESCHEDULES; i++) {
    nanosleep(&nap, 0); /* off the CPU, and back: the kernel places both events again */
    a = perf->read();
    for (spin = 0; spin < 1000; spin++) {
    }
    b = perf->read();
    if (b <= a) stalled++;
  }
  release(&cpucycles_table[other]);
  release(perf);
  tap_ok(stalled == 0, "%s keeps counting beside default-perfevent's event: stood still after %d "
         "of %d reschedules", perf->name, stalled, RESCHEDULES);
}

static int on_cpu(int cpu)
{
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return sched_setaffinity(0, sizeof set, &set) == 0;
}

/* 3: a process reading the counter on CPU 1 while this one, RELEASES
 * times, runs on CPU 1, then on CPU 0 opens the counter's event and
 * releases it. */
static void release_beside_reader(const struct cpucycles_counter *perf, long long persecond)
{
  const char *what = "releasing the perf counter's event takes nothing from another process";
  struct cpucycles_result r;
  int i, status = 0, ready[2];
  char set_up = 0;
  pid_t reader;
  volatile long spin;
  if (sysconf(_SC_NPROCESSORS_ONLN) < 2 || !on_cpu(1) || !on_cpu(0)) {
    tap_skip(what, "needs CPUs 0 and 1");
    return;
  }
  if (pipe(ready) != 0 || (reader = fork()) < 0) {
    tap_skip(what, "pipe or fork failed");
    return;
  }
  if (reader == 0) {
    long long a, b;
    close(ready[0]);
    if (!on_cpu(1) || !cpucycles_measure(perf, persecond, &r)) _exit(3);
    if (write(ready[1], "1", 1) != 1) _exit(3);
    for (a = perf->read();; a = b)
      if ((b = perf->read()) < a) _exit(4); /* until the parent's SIGUSR1 */
  }
  close(ready[1]);
  if (read(ready[0], &set_up, 1) != 1) { /* the reader set up its event first */
    close(ready[0]);
    waitpid(reader, &status, 0);
    tap_skip(what, "the reader could not set the counter up");
    return;
  }
  close(ready[0]);
  for (i = 0; i < RELEASES; i++) {
    on_cpu(1);
    for (spin = 0; spin < 20000; spin++) {
    }
    on_cpu(0);
    cpucycles_measure(perf, persecond, &r);
    release(perf);
  }
  kill(reader, SIGUSR1);
  waitpid(reader, &status, 0);
  tap_ok(WIFSIGNALED(status) && WTERMSIG(status) == SIGUSR1,
         "releasing %s's event %d times takes nothing from a process reading it on another CPU "
         "(the reader %s %d)",
         perf->name, RELEASES, WIFSIGNALED(status) ? "ended by signal" : "exited with",
         WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
}

int main(void)
{
  long long persecond = cpucycles_persecond();
  int i, found = 0;
  for (i = 0; i < NPAIRS; i++) found += cpucycles_table_find(pairs[i][0]) >= 0;
  if (!found) {
    tap_plan(1);
    tap_skip("counters read under a perf event's grant",
             "this build has none (arm64-perfpmc, riscv64-perfrdcycle, riscv32-perfrdcycle)");
    return tap_done();
  }
  tap_plan(3 * found);
  for (i = 0; i < NPAIRS; i++) {
    int perf = cpucycles_table_find(pairs[i][0]), bare = cpucycles_table_find(pairs[i][1]);
    if (perf < 0) continue;
    if (bare < 0)
      tap_skip("the bare counter is not taken as working under a perf event's grant",
               "this build has no bare counter beside it");
    else
      bare_alone(&cpucycles_table[perf], &cpucycles_table[bare], persecond);
    beside_another(&cpucycles_table[perf], persecond);
    release_beside_reader(&cpucycles_table[perf], persecond);
  }
  return tap_done();
}
