/* SPDX-License-Identifier: MIT */
/* t-hostile - the process's first call in patterns real programs use,
 * each in a fresh process (a child of this one, which never calls the
 * library) that must neither die nor hang (it is killed after 10 s):
 *   blocked      a worker thread that blocks every signal makes it, with
 *                the TSC forbidden where that can be done (x86): the
 *                probe's fault would be blocked, which kills
 *   fullmask     from a handler installed with a full sa_mask: the same
 *   pending      a thread that blocks every signal with a SIGTRAP pending:
 *                unblocked, its default action would kill
 *   cancel       a thread cancelled (deferred) during the first
 *                cpucycles_persecond(), at its open() of
 *                /etc/cpucyclespersecond (made, in a mount namespace)
 *   cancel-trace a thread with a cancellation pending calls
 *                cpucycles_tracesetup(), then cpucycles() (the first
 *                call, which prints the lines it armed), then
 *                cpucycles_tracesetup() again (which prints them itself):
 *                their measurements sleep and their printf() writes; the
 *                library's code has no unwind tables (configure.ac), so
 *                none of those may act
 *   sigsys       a seccomp trap on a call it makes, whose SIGSYS handler
 *                calls cpucycles(): it re-enters the first call
 *   fork         a signal whose handler makes it, delivered to a forking
 *                thread after the fork handlers took their locks
 *   persecond    a timer's handler calls cpucycles_persecond() while the
 *                same thread's first cpucycles_persecond() runs (timing:
 *                many processes)
 * and the CLOCK_MONOTONIC counters in a time namespace a century ahead.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "cpucycles.h"
#include "guard.h"
#include "table.h"
#include "fault.h"
#include "seccomp-filter.h"
#include "tap.h"
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#if defined(__linux__)
#include <sched.h>
#include <stdio.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#endif

#define PERSECOND_RUNS 100

/* ---- What each case checks ---- */

/* 1 when two first-call-era reads increase and are real counts. */
static int counts(void)
{
  struct timespec ms = {0, 1000000};
  long long a = cpucycles(), b;
  nanosleep(&ms, 0);
  b = cpucycles();
  return b > a && a > 0;
}

static long long probe_fault_result;
static void probe_fault(void *arg)
{
  (void)arg;
  probe_fault_result = test_fault();
}

/* The guard catches a fault (portable: no TSC to forbid needed), then the
 * first call counts, with the TSC forbidden where possible. */
static int guarded_then_first_call(void)
{
  if (cpucycles_guarded_call(0, probe_fault, 0) != SIGSEGV) return 10;
#if defined(PR_SET_TSC) && !defined(TAP_UNDER_SANITIZER)
  prctl(PR_SET_TSC, PR_TSC_SIGSEGV, 0, 0, 0);
#endif
  return counts() ? 0 : 11;
}

static void *blocked_worker(void *arg)
{
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, 0);
  *(int *)arg = guarded_then_first_call();
  return 0;
}

/* worker(&result) in a new thread; its result. */
static int in_new_thread(void *(*worker)(void *))
{
  pthread_t t;
  int result = 12;
  if (pthread_create(&t, 0, worker, &result) != 0) return 13;
  pthread_join(t, 0);
  return result;
}

static int case_blocked(void) { return in_new_thread(blocked_worker); }

/* A thread that blocks every signal and reads them with signalfd, say,
 * has a SIGTRAP pending when it makes the first call: the call must not
 * unblock it (its default action kills), and it is still pending after. */
static void *pending_worker(void *arg)
{
  sigset_t all, pending;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, 0);
  pthread_kill(pthread_self(), SIGTRAP);
  *(int *)arg = counts() ? 0 : 11;
  if (sigpending(&pending) != 0 || !sigismember(&pending, SIGTRAP)) *(int *)arg = 22;
  return 0;
}

static int case_pending(void) { return in_new_thread(pending_worker); }

static volatile int in_handler_result = 14;
HANDLER_ALIGN static void fullmask_handler(int signo)
{
  (void)signo;
  in_handler_result = guarded_then_first_call();
}

static int case_fullmask(void)
{
  struct sigaction a;
  memset(&a, 0, sizeof a);
  a.sa_handler = fullmask_handler;
  sigfillset(&a.sa_mask);
  sigaction(SIGUSR1, &a, 0);
  raise(SIGUSR1);
  return in_handler_result;
}

/* The thread asks for its own cancellation, then makes the first
 * cpucycles_persecond(), whose open() of /etc/cpucyclespersecond is a
 * cancellation point: the decision must finish before the thread goes. */
static void *cancelled_thread(void *arg)
{
  (void)arg;
  pthread_cancel(pthread_self());
  cpucycles_persecond();
  pthread_testcancel();
  return 0;
}

/* /etc/cpucyclespersecond must exist for the first cpucycles_persecond()
 * to open it: an empty /etc (a tmpfs in a mount namespace of this
 * process) with just that file.  Needs the right to unshare (root). */
static int etc_with_persecond_file(void)
{
#if defined(__linux__) && defined(CLONE_NEWNS)
  FILE *f;
  if (unshare(CLONE_NEWNS) != 0 || mount(0, "/", 0, MS_REC | MS_PRIVATE, 0) != 0 ||
      mount("tmpfs", "/etc", "tmpfs", 0, 0) != 0 || !(f = fopen("/etc/cpucyclespersecond", "w")))
    return -1;
  fputs("2500000000\n", f);
  return fclose(f);
#else
  return -1;
#endif
}

static int case_cancel(void)
{
  pthread_t t;
  if (etc_with_persecond_file() != 0) return 4;
  if (pthread_create(&t, 0, cancelled_thread, 0) != 0) return 13;
  pthread_join(t, 0);
  return cpucycles_persecond() == 2500000000LL && counts() ? 0 : 15;
}

static volatile int traced;
static void *cancelled_tracer(void *arg)
{
  (void)arg;
  pthread_cancel(pthread_self());
  cpucycles_tracesetup(); /* armed: the first call prints the lines */
  (void)cpucycles();
  cpucycles_tracesetup(); /* decided: it prints them itself */
  traced = 1;
  pthread_testcancel();
  return 0;
}

/* The lines go to /dev/null, not into the TAP output. */
static int case_cancel_trace(void)
{
  pthread_t t;
  void *result = 0;
  if (!freopen("/dev/null", "w", stdout)) return 13;
  if (pthread_create(&t, 0, cancelled_tracer, 0) != 0) return 13;
  pthread_join(t, &result);
  return traced && result == PTHREAD_CANCELED && counts() ? 0 : 15;
}

#if defined(TEST_HAVE_SECCOMP_FILTER) && defined(SECCOMP_RET_TRAP) && defined(SYS_rt_sigaction)
static volatile long long sigsys_count = -1;
HANDLER_ALIGN static void sigsys_handler(int signo, siginfo_t *info, void *context)
{
  (void)signo, (void)info, (void)context;
  sigsys_count = cpucycles(); /* a program logging the trap with a timestamp */
}

/* Traps rt_sigaction(SIGSEGV, ...), which the guard makes for every
 * counter (SIGBUS and SIGILL only for those that can raise them). */
static int case_sigsys(void)
{
  struct sigaction a;
  /* the low half of args[0], wherever the byte order puts it */
  unsigned int arg0 = (unsigned int)offsetof(struct seccomp_data, args[0]) +
                      (*(const unsigned short *)"\1" == 1 ? 0 : 4);
  struct sock_filter code[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_rt_sigaction, 0, 3),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, arg0),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SIGSEGV, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  struct sock_fprog program = {(unsigned short)(sizeof code / sizeof code[0]), code};
  memset(&a, 0, sizeof a);
  a.sa_sigaction = sigsys_handler;
  a.sa_flags = SA_SIGINFO;
  sigaction(SIGSYS, &a, 0);
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
      prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program) != 0)
    return 4;
  if (!counts()) return 16;
  return sigsys_count >= 0 ? 0 : 17; /* the handler ran, and returned */
}
#else
static int case_sigsys(void) { return 4; }
#endif

/* A prepare handler registered before the library's runs after it (they
 * run in reverse order): with the library's locks taken, it raises a
 * signal whose handler makes the process's first call. */
static volatile int fork_case;
static volatile long long fork_handler_count = -1;
HANDLER_ALIGN static void fork_signal_handler(int signo)
{
  (void)signo;
  fork_handler_count = cpucycles();
}
static void raise_in_prepare(void)
{
  if (fork_case) raise(SIGUSR2);
}
__attribute__((constructor(101))) static void register_early(void)
{
  pthread_atfork(raise_in_prepare, 0, 0);
}

static int case_fork(void)
{
  int status;
  pid_t pid;
  signal(SIGUSR2, fork_signal_handler);
  fork_case = 1;
  pid = fork();
  if (pid == 0) _exit(0);
  fork_case = 0;
  if (pid < 0 || waitpid(pid, &status, 0) != pid) return 13;
  return fork_handler_count > 0 && counts() ? 0 : 18;
}

HANDLER_ALIGN static void persecond_handler(int signo)
{
  (void)signo;
  cpucycles_persecond();
}

static int case_persecond(void)
{
  struct itimerval every = {{0, 20}, {0, 20}};
  cpucycles(); /* the counter is decided; the frequency is not yet */
  signal(SIGALRM, persecond_handler);
  setitimer(ITIMER_REAL, &every, 0);
  cpucycles_persecond();
  memset(&every, 0, sizeof every);
  setitimer(ITIMER_REAL, &every, 0);
  return cpucycles_persecond() > 0 ? 0 : 19;
}

/* A time namespace whose CLOCK_MONOTONIC is a century ahead (unshare
 * --time --monotonic 3600000000): the two CLOCK_MONOTONIC counters, set
 * up in it, count from their origin, so their counts scaled to cycles
 * stay positive (nanoseconds since the namespace's "boot" times 2.6
 * wrapped to -9.1e18).  Needs root and Linux 5.6. */
#if defined(__linux__)
#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif
static int monotonic_counts_positive(void)
{
  static const char *const names[] = {"default-monotonic", "default-monotonic-syscall"};
  struct cpucycles_setup s = {2600000000LL, 0, 0, 0, 0};
  size_t i;
  for (i = 0; i < sizeof names / sizeof names[0]; i++) {
    int index = cpucycles_table_find(names[i]);
    long long a, b;
    if (index < 0 || cpucycles_table[index].setup(&s) != 0) continue;
    a = cpucycles_scale_ticks(cpucycles_table[index].read(), CPUCYCLES_SCALE_Q32(2.6));
    b = cpucycles_scale_ticks(cpucycles_table[index].read(), CPUCYCLES_SCALE_Q32(2.6));
    printf("# %s in the namespace: %lld then %lld cycles\n", names[i], a, b);
    fflush(stdout);
    if (!(a > 0 && b >= a)) return 20;
  }
  return 0;
}

static int case_timens(void)
{
  int status, fd;
  pid_t pid;
  static const char offsets[] = "monotonic 3600000000 0\n";
  if (unshare(CLONE_NEWTIME) != 0) return 4;
  fd = open("/proc/self/timens_offsets", O_WRONLY);
  if (fd < 0 || write(fd, offsets, sizeof offsets - 1) != (ssize_t)sizeof offsets - 1) return 4;
  close(fd);
  fflush(stdout);
  pid = fork(); /* the child is in the namespace */
  if (pid == 0) _exit(monotonic_counts_positive());
  if (pid < 0 || waitpid(pid, &status, 0) != pid) return 13;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 21;
}
#else
static int case_timens(void) { return 4; }
#endif

/* ---- The driver ---- */

struct hostile_case {
  int (*run)(void);
  const char *what;
};

static const struct hostile_case cases[] = {
    {case_blocked, "a worker thread that blocks every signal"},
    {case_fullmask, "a handler installed with a full sa_mask"},
    {case_pending, "a thread that blocks every signal with a SIGTRAP pending"},
    {case_cancel, "a thread cancelled during its first cpucycles_persecond()"},
    {case_cancel_trace, "a thread with a cancellation pending calling cpucycles_tracesetup() before and after its first call"},
    {case_sigsys, "a seccomp trap's SIGSYS handler calling cpucycles() during it"},
    {case_fork, "a signal delivered to a forking thread after the fork handlers' locks"},
};

/* Runs one case in a child of this process, which has never called the
 * library (so the child's first call is its own), killed after 10 s.  Its
 * exit status, or -1 - N when signal N killed it (*hung when it hung). */
static int run_fresh(int (*run)(void), int *hung)
{
  int status = 0, i;
  pid_t pid;
  fflush(stdout);
  pid = fork();
  if (pid == 0) _exit(run());
  *hung = 0;
  if (pid < 0) return 13;
  for (i = 0; i < 1000 && waitpid(pid, &status, WNOHANG) == 0; i++) usleep(10000);
  if (i == 1000) {
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    *hung = 1;
    return -1;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1 - WTERMSIG(status);
}

int main(void)
{
  size_t i;
  int status, hung, failures = 0, runs;
  tap_plan((int)(sizeof cases / sizeof cases[0]) + 2);
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
#if defined(TAP_UNDER_SANITIZER)
    if (cases[i].run == case_sigsys) {
      tap_skip(cases[i].what, "the sanitizer's runtime intercepts sigaction and makes system calls of its own");
      continue;
    }
#endif
#if !defined(TEST_HAVE_SECCOMP_FILTER)
    if (cases[i].run == case_sigsys) { /* no filter to trap with */
      tap_skip(cases[i].what, TEST_NO_SECCOMP_FILTER_REASON);
      continue;
    }
#endif
    status = run_fresh(cases[i].run, &hung);
    if (status == 4) {
      tap_skip(cases[i].what, "cannot be set up here (no seccomp filter, no right to unshare, or an emulator)");
      continue;
    }
    tap_ok(status == 0, "%s: the first call neither dies nor hangs, and counts (%s %d)",
           cases[i].what, hung ? "hung" : status < -1 ? "killed by signal" : "exit",
           status < -1 ? -1 - status : status);
  }
#if defined(TAP_UNDER_TSAN)
  tap_skip("a timer's handler calling cpucycles_persecond() during the first one", TAP_TSAN_REASON);
#else
  for (runs = 0; runs < PERSECOND_RUNS && failures < 3; runs++)
    failures += run_fresh(case_persecond, &hung) != 0;
  tap_ok(failures == 0,
         "a timer's handler calling cpucycles_persecond() during the same thread's first one: "
         "%d of %d fresh processes died or hung",
         failures, runs);
#endif
  status = run_fresh(case_timens, &hung);
  if (status == 4)
    tap_skip("CLOCK_MONOTONIC a century ahead (a time namespace)", "no time namespace here (root, Linux 5.6)");
  else
    tap_ok(status == 0, "CLOCK_MONOTONIC a century ahead (a time namespace): the counts stay positive (exit %d)",
           status);
  return tap_done();
}
