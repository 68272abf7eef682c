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
 * 4. Threads that read the perf counter and exit leave nothing behind (no
 *    page, no descriptor), while another thread keeps reading.  riscv's
 *    pages of exited threads once stayed mapped, a page and an idle event
 *    per thread, because unmapping them took RDCYCLE from the readers
 *    (the 64 threads of t-firstcall 5 died of SIGILL); the event is now
 *    disabled before its page goes.
 * 5. A fork's child that execs at once takes nothing from another
 *    process either.  The library set the process's counter up again in
 *    the child, so the exec unmapped the page of an event on the cycle
 *    counter: the reader died of SIGILL in 7 runs of 7.  A per-thread
 *    event now opens at the child's first read (table.c).  (A child that
 *    reads and then execs still takes it away: the kernel's doing, which
 *    cpucycles(3) states.)
 *
 * Needs a kernel: on an x86 host, or one without such a PMU, they SKIP
 * with the reason.  The system-emulation tier runs it on arm64 and
 * riscv64 kernels. */
#include "decide.h"
#include "perf-util.h"
#include "table.h"
#include "tap.h"
#include "cpucycles.h"
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char *const pairs[][2] = {
    {"arm64-perfpmc", "arm64-pmc"},
    {"riscv64-perfrdcycle", "riscv64-rdcycle"},
    {"riscv32-perfrdcycle", "riscv32-rdcycle"},
};
enum { NPAIRS = sizeof pairs / sizeof pairs[0], RESCHEDULES = 100, ROUNDS = 200, EXITING = 32 };

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
    struct cpucycles_setup s = {persecond, 0, 0, 0, 0};
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

/* What this process does on CPU 1, then CPU 0, ROUNDS times, beside a
 * reader on CPU 1: opens the counter's event and releases it (3), or
 * forks a child that execs at once (5). */
enum beside { RELEASING, FORKING };

/* This program again, exec'd by case 5's children: it exits at once. */
static char exec_arg[] = "exec'd";

/* 3 and 5: a process reading the counter on CPU 1 while this one does
 * `beside` ROUNDS times. */
static void beside_reader(const struct cpucycles_counter *perf, long long persecond, enum beside beside)
{
  const char *what = beside == RELEASING
                         ? "releasing the perf counter's event takes nothing from another process"
                         : "a fork's child that execs takes nothing from another process";
  struct cpucycles_result r;
  int i, status = 0, ready[2], *stop, exec_failed = 0;
  char set_up = 0;
  pid_t reader;
  volatile long spin;
  if (sysconf(_SC_NPROCESSORS_ONLN) < 2 || !on_cpu(1) || !on_cpu(0)) {
    tap_skip(what, "needs CPUs 0 and 1");
    return;
  }
  if (beside == FORKING && strcmp(cpucycles_implementation(), perf->name) != 0) {
    /* a fork's child sets up the process's counter, not this one */
    tap_skip(what, "the process's counter is another");
    return;
  }
  /* the reader's stop, shared: it then releases its own event and exits
   * (a process killed with its event on the counter could take RDCYCLE
   * from the other tests that make check runs beside this one) */
  stop = mmap(0, sizeof *stop, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (stop == MAP_FAILED || pipe(ready) != 0 || (reader = fork()) < 0) {
    tap_skip(what, "mmap, pipe or fork failed");
    return;
  }
  *stop = 0;
  if (reader == 0) {
    long long a, b;
    close(ready[0]);
    if (!on_cpu(1) || !cpucycles_measure(perf, persecond, &r)) _exit(3);
    if (write(ready[1], "1", 1) != 1) _exit(3);
    for (a = perf->read(); !__atomic_load_n(stop, __ATOMIC_ACQUIRE); a = b)
      if ((b = perf->read()) < a) _exit(4);
    release(perf);
    _exit(0);
  }
  close(ready[1]);
  if (read(ready[0], &set_up, 1) != 1) { /* the reader set up its event first */
    close(ready[0]);
    waitpid(reader, &status, 0);
    munmap(stop, sizeof *stop);
    tap_skip(what, "the reader could not set the counter up");
    return;
  }
  close(ready[0]);
  for (i = 0; i < ROUNDS; i++) {
    pid_t child = 0;
    int child_status = 0;
    if (beside == FORKING && (child = fork()) < 0) break;
    if (child != 0) { /* this process, case 5 */
      waitpid(child, &child_status, 0);
      exec_failed += WIFEXITED(child_status) && WEXITSTATUS(child_status) == 127;
      continue;
    }
    on_cpu(1);
    for (spin = 0; spin < 20000; spin++) {
    }
    on_cpu(0);
    if (beside == RELEASING) {
      cpucycles_measure(perf, persecond, &r);
      release(perf);
    } else { /* the child, case 5 */
      char *argv[] = {(char *)"t-grant", exec_arg, 0};
      execv("/proc/self/exe", argv);
      _exit(127);
    }
  }
  __atomic_store_n(stop, 1, __ATOMIC_RELEASE);
  waitpid(reader, &status, 0);
  munmap(stop, sizeof *stop);
  if (i < ROUNDS || exec_failed) {
    tap_skip(what, i < ROUNDS ? "fork failed" : "could not exec /proc/self/exe");
    return;
  }
  tap_ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
         beside == RELEASING
             ? "releasing its event %d times takes nothing from a process reading %s on another CPU "
               "(the reader %s %d)"
             : "%d children forked that exec at once take nothing from a process reading %s on "
               "another CPU (the reader %s %d)",
         ROUNDS, perf->name, WIFSIGNALED(status) ? "was killed by signal" : "exited with",
         WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
}

/* 4: threads that read the counter and exit, beside a reader. */
struct exiting {
  const struct cpucycles_counter *perf;
  int maps;       /* perf mappings an exiting thread saw after its reads */
  int went_back;  /* an exiting thread's count went back */
  int pinned;     /* the reader on CPU 1, the exiting threads on CPU 0 */
  int started;    /* the reader has its event (atomic) */
  int stop;       /* for the reader (atomic) */
  long backwards; /* the reader's count went back this many times */
};

static void *read_then_exit(void *arg)
{
  struct exiting *x = arg;
  long long a = x->perf->read(); /* the thread's first read opens its event */
  if (x->perf->read() < a) x->went_back++;
  x->maps = perf_maps();
  return 0;
}

static void *keep_reading(void *arg)
{
  struct exiting *x = arg;
  long long a, b;
  if (x->pinned) on_cpu(1); /* the exiting threads run on CPU 0 */
  a = x->perf->read();
  __atomic_store_n(&x->started, 1, __ATOMIC_RELEASE);
  while (!__atomic_load_n(&x->stop, __ATOMIC_ACQUIRE)) {
    b = x->perf->read();
    if (b < a) x->backwards++;
    a = b;
  }
  return 0;
}

static void exits_leave_nothing(const struct cpucycles_counter *perf, long long persecond)
{
  const char *what = "threads that read the perf counter and exit leave nothing behind";
  struct exiting x = {0, 0, 0, 0, 0, 0, 0};
  struct cpucycles_result r;
  pthread_t reader, t;
  int i, maps, fds, reader_maps, mapped = 0;
  x.perf = perf;
  if (!cpucycles_measure(perf, persecond, &r)) {
    tap_skip(what, r.reason);
    release(perf);
    return;
  }
  maps = perf_maps(); /* this thread's event's, and the program's others */
  fds = perf_fds();
  if (maps < 0 || fds < 0) {
    tap_skip(what, "no /proc/self/maps or /proc/self/fd");
    release(perf);
    return;
  }
  /* this thread, and so the exiting threads it creates, on CPU 0: the
   * driver's taking RDCYCLE away hurt readers on the other CPUs */
  x.pinned = sysconf(_SC_NPROCESSORS_ONLN) >= 2 && on_cpu(0);
  if (pthread_create(&reader, 0, keep_reading, &x) != 0) {
    tap_skip(what, "pthread_create failed");
    release(perf);
    return;
  }
  while (!__atomic_load_n(&x.started, __ATOMIC_ACQUIRE)) sched_yield();
  reader_maps = perf_maps();
  if (reader_maps != maps + 1) {
    __atomic_store_n(&x.stop, 1, __ATOMIC_RELEASE);
    pthread_join(reader, 0);
    tap_skip(what, "the reader thread's event did not open: it counts with the fallback");
    release(perf);
    return;
  }
  for (i = 0; i < EXITING; i++) {
    x.maps = 0;
    if (pthread_create(&t, 0, read_then_exit, &x) != 0 || pthread_join(t, 0) != 0) break;
    if (x.maps > reader_maps) mapped++; /* its event's page beside the reader's */
  }
  __atomic_store_n(&x.stop, 1, __ATOMIC_RELEASE);
  pthread_join(reader, 0);
  tap_ok(i == EXITING && mapped == EXITING && x.went_back + x.backwards == 0 && perf_maps() == maps &&
             perf_fds() == fds,
         "%d threads that read %s and exit, and a reader beside them%s, leave nothing behind "
         "(each mapped its event: %d; perf mappings %d, then %d; descriptors %d, then %d; "
         "counts that went back: %d in them, %ld in the reader)",
         EXITING, perf->name, x.pinned ? " on another CPU" : "", mapped, maps, perf_maps(), fds,
         perf_fds(), x.went_back, x.backwards);
  release(perf);
}

int main(int argc, char **argv)
{
  long long persecond;
  int i, found = 0;
  if (argc == 2 && strcmp(argv[1], exec_arg) == 0) return 0; /* case 5's child */
  persecond = cpucycles_persecond();
  for (i = 0; i < NPAIRS; i++) found += cpucycles_table_find(pairs[i][0]) >= 0;
  if (!found) {
    tap_plan(1);
    tap_skip("counters read under a perf event's grant",
             "this build has none (arm64-perfpmc, riscv64-perfrdcycle, riscv32-perfrdcycle)");
    return tap_done();
  }
  tap_plan(5 * found);
  for (i = 0; i < NPAIRS; i++) {
    int perf = cpucycles_table_find(pairs[i][0]), bare = cpucycles_table_find(pairs[i][1]);
    if (perf < 0) continue;
    if (bare < 0)
      tap_skip("the bare counter is not taken as working under a perf event's grant",
               "this build has no bare counter beside it");
    else
      bare_alone(&cpucycles_table[perf], &cpucycles_table[bare], persecond);
    beside_another(&cpucycles_table[perf], persecond);
    beside_reader(&cpucycles_table[perf], persecond, RELEASING);
    exits_leave_nothing(&cpucycles_table[perf], persecond);
    beside_reader(&cpucycles_table[perf], persecond, FORKING);
  }
  return tap_done();
}
