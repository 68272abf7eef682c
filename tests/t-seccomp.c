/* SPDX-License-Identifier: MIT */
/* t-seccomp - a seccomp filter that kills the process (or traps) on
 * perf_event_open and on the clock_gettime system call: a run-time
 * selection must not make those calls, must say why it skipped the
 * counters that need them, and must still find a counter.  Then the
 * process's first call in sandboxes: a filter that allows everything with
 * the TSC forbidden, no /proc or no descriptor to tell whether a filter
 * is there, the signal calls denied.  Each case runs in a child, which the
 * filter would kill. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* unshare */
#endif
#include "cpucycles.h"
#include "decide.h"
#include "table.h"
#include "seccomp-filter.h"
#include "tap.h"
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <sched.h>
#include <stdio.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <time.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define PLAN 7

#if !defined(TEST_HAVE_SECCOMP_FILTER)
/* Every case installs a filter, which cannot be written without the
 * kernel's headers: each SKIPs, saying so. */
int main(void)
{
  tap_plan(PLAN);
  while (tap_count < PLAN)
    tap_skip("a selection and the first call under a seccomp filter", TEST_NO_SECCOMP_FILTER_REASON);
  return tap_done();
}
#else
/* The clock_gettime system call the library would make (32-bit targets
 * with a 64-bit time_t use clock_gettime64). */
#if defined(SYS_clock_gettime64)
#define CLOCK_SYSCALL SYS_clock_gettime64
#else
#define CLOCK_SYSCALL SYS_clock_gettime
#endif

/* Installs a filter answering the n system calls nrs[] with action and
 * allowing everything else (n 0: a filter that allows every call).
 * Returns 0 or -1. */
static int install_filter_for(const long *nrs, int n, unsigned int action)
{
  struct sock_filter code[16];
  struct sock_fprog program;
  int i, len = 0;
  code[len++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
  for (i = 0; i < n; i++)
    code[len++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned int)nrs[i],
                                               (unsigned char)(n - i), 0);
  code[len++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
  code[len++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, action);
  program.len = (unsigned short)len;
  program.filter = code;
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return -1;
  return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program);
}

/* The filter of the first cases: perf_event_open and clock_gettime. */
static int install_filter(unsigned int action)
{
  static const long nrs[] = {SYS_perf_event_open, CLOCK_SYSCALL};
  return install_filter_for(nrs, 2, action);
}

/* Exit status of a child that installs the filter and decides afresh:
 * 0 fine, 2 a perf counter was not skipped for the filter, 3 nothing
 * found, 4 no filter could be installed. */
static int child(unsigned int action)
{
  struct cpucycles_plan plan;
  struct cpucycles_decision d;
  int i;
  if (install_filter(action) != 0) _exit(4);
  cpucycles_build_plan(&plan);
  plan.build_counter = -1; /* a full run-time selection */
  cpucycles_decide(cpucycles_table, cpucycles_table_size, &plan, 0, 0, &d);
  for (i = 0; i < cpucycles_table_size; i++) {
    struct cpucycles_result r = d.results[i];
    /* the selection may leave a counter that could not win unmeasured
     * (the system-call clock behind a working CLOCK_MONOTONIC,
     * default-perfevent behind the TSC): measure it alone too */
    if (r.reason == cpucycles_reason_not_measured)
      cpucycles_measure(&cpucycles_table[i], d.persecond, &r);
    if ((strstr(cpucycles_table[i].name, "perf") || strstr(cpucycles_table[i].name, "syscall")) &&
        (r.available || !strstr(r.reason, "seccomp")))
      _exit(2);
  }
  if (strcmp(cpucycles_table[d.index].name, "default-zero") == 0) _exit(3);
  _exit(0);
}

/* ---- The process's first call in a sandbox ---- */

/* Exit status after a first call: 0 it counts (increasing, never 0) with
 * a real counter, 1 it does not. */
static int first_call_counts(void)
{
  struct timespec ms = {0, 2000000};
  long long a = cpucycles(), b;
  nanosleep(&ms, 0);
  b = cpucycles();
  printf("# chose %s: %lld then %lld\n", cpucycles_implementation(), a, b);
  fflush(stdout);
  return b > a && a > 0 && strcmp(cpucycles_implementation(), "default-zero") != 0 ? 0 : 1;
}

/* Exit status after a full run-time selection (as on a host unlike the
 * build host): 0 it found a counter that counts, 1 it did not. */
static int selection_counts(void)
{
  struct cpucycles_plan plan;
  static struct cpucycles_decision d;
  long long a, b;
  cpucycles_build_plan(&plan);
  plan.build_counter = -1;
  cpucycles_decide(cpucycles_table, cpucycles_table_size, &plan, 0, 0, &d);
  a = cpucycles_table[d.index].read();
  b = cpucycles_table[d.index].read();
  while (b == a && cpucycles_table[d.index].kind != CPUCYCLES_KIND_NONE) b = cpucycles_table[d.index].read();
  printf("# a run-time selection chose %s\n", cpucycles_table[d.index].name);
  fflush(stdout);
  return cpucycles_table[d.index].kind != CPUCYCLES_KIND_NONE && b > a ? first_call_counts() : 1;
}

/* Forbids the TSC where the kernel lets a process do so (x86 Linux). */
static int forbid_tsc(void)
{
#if defined(PR_SET_TSC)
  return prctl(PR_SET_TSC, PR_TSC_SIGSEGV, 0, 0, 0);
#else
  return -1;
#endif
}

/* A filter that allows every call, and the TSC forbidden: RDTSC and the
 * vDSO's TSC clocks fault, the system-call clock is tried in a child and
 * works (it used to be skipped under any filter: default-zero). */
static int allow_all_tsc_forbidden(void)
{
  if (forbid_tsc() != 0) return 4;
  if (install_filter_for(0, 0, SECCOMP_RET_ALLOW) != 0) return 4;
  return first_call_counts();
}

/* No /proc (a mount namespace with it unmounted): whether a filter is
 * there cannot be read, and a filter that kills on perf_event_open and
 * clock_gettime is; the first call must neither die nor give up. */
static int no_proc_kill_filter(void)
{
  if (unshare(CLONE_NEWNS) != 0 || mount(0, "/", 0, MS_REC | MS_PRIVATE, 0) != 0 ||
      umount2("/proc", MNT_DETACH) != 0 || access("/proc/self/status", F_OK) == 0)
    return 4;
  if (install_filter(SECCOMP_RET_KILL_PROCESS) != 0) return 4;
  return selection_counts();
}

/* No descriptor left to read /proc with (RLIMIT_NOFILE 3), and the same
 * filter. */
static int no_descriptor_kill_filter(void)
{
  struct rlimit three = {3, 3};
  if (install_filter(SECCOMP_RET_KILL_PROCESS) != 0 || setrlimit(RLIMIT_NOFILE, &three) != 0) return 4;
  return selection_counts();
}

/* A sandbox that denies rt_sigaction and rt_sigprocmask (EPERM): the
 * guard cannot stand in, so nothing that may fault is tried; with the TSC
 * forbidden too (x86), RDTSC would have killed the process. */
static int no_signal_calls(void)
{
  static const long nrs[] = {SYS_rt_sigaction, SYS_rt_sigprocmask};
  forbid_tsc();
  if (install_filter_for(nrs, 2, SECCOMP_RET_ERRNO | EPERM) != 0) return 4;
  cpucycles();
  cpucycles();
  return 0; /* alive: default-zero is allowed here (nothing could be tried safely) */
}

static void run_case(int (*fn)(void), const char *name)
{
  int status = 0;
  pid_t pid;
  fflush(stdout);
  pid = fork();
  if (pid == 0) {
    alarm(20);
    _exit(fn());
  }
  if (pid < 0 || waitpid(pid, &status, 0) != pid) {
    tap_ok(0, "%s: could not run the child", name);
    return;
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 4) {
    tap_skip(name, "cannot be set up here (no seccomp, no PR_SET_TSC, or no right to unshare)");
    return;
  }
  tap_ok(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s (%s %d)", name,
         WIFEXITED(status) ? "exit" : "killed by signal",
         WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
}

/* The first cases: child() under each action, through run_case. */
static unsigned int filter_action;
static int selection_under_filter(void) { return child(filter_action); }
static void run(unsigned int action, const char *name)
{
  filter_action = action;
  run_case(selection_under_filter, name);
}

int main(void)
{
  tap_plan(PLAN);
  run(SECCOMP_RET_KILL_PROCESS,
      "SECCOMP_RET_KILL_PROCESS: a run-time selection survives, skips the system-call counters and says why");
  run(SECCOMP_RET_TRAP,
      "SECCOMP_RET_TRAP: a run-time selection survives, skips the system-call counters and says why");
  run(SECCOMP_RET_ERRNO | EPERM,
      "SECCOMP_RET_ERRNO(EPERM): a run-time selection survives, skips the system-call counters and says why");
#if defined(TAP_UNDER_SANITIZER)
  tap_skip("a filter that allows every call, TSC forbidden", "the sanitizer's runtime reads the TSC itself");
#else
  run_case(allow_all_tsc_forbidden,
           "a filter that allows every call and the TSC forbidden: the first call counts");
#endif
#if defined(TAP_UNDER_SANITIZER)
  tap_skip("no /proc and a filter that kills", "the sanitizer's runtime needs /proc and descriptors");
  tap_skip("no descriptor left and a filter that kills", "the sanitizer's runtime needs /proc and descriptors");
  (void)no_proc_kill_filter;
  (void)no_descriptor_kill_filter;
#else
  run_case(no_proc_kill_filter, "no /proc and a filter that kills: a selection and the first call survive and count");
  run_case(no_descriptor_kill_filter,
           "no descriptor left and a filter that kills: a selection and the first call survive and count");
#endif
  run_case(no_signal_calls,
           "rt_sigaction and rt_sigprocmask denied (and the TSC forbidden): the first call survives");
  return tap_done();
}
#endif /* TEST_HAVE_SECCOMP_FILTER */
