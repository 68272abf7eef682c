/* SPDX-License-Identifier: MIT */
/* seccomp.h - setup-time check: may this thread make a system call that
 * a seccomp filter might answer by killing the process?
 *
 * A filter may answer a system call it does not allow by killing the
 * process (SECCOMP_RET_KILL_PROCESS), with SIGSYS (SECCOMP_RET_TRAP) or an
 * error, and there is no way to ask it beforehand.  The counters that need
 * system calls a program does not usually make (perf_event_open, the raw
 * clock_gettime), and the vDSO's clocks (which make the system call
 * themselves when the kernel's clocksource is not one they can read, hpet
 * say), ask here first.  With no filter ("Seccomp: 0" in
 * /proc/thread-self/status) the answer is yes at once.  Under a filter, or
 * where nothing can tell (no /proc in a chroot, no descriptor left), a
 * child makes the very call: yes when it came back with success, no when
 * the filter killed, trapped or refused it.  The child is a bare clone()
 * (no fork handlers, no SIGCHLD to the program's handler) that makes that
 * one call and exits.  Read with open/read: no stdio, no allocation. */
#ifndef CPUCYCLES_SECCOMP_H
#define CPUCYCLES_SECCOMP_H
#if defined(CPUCYCLES_COUNTER_SETUP) && defined(__linux__)
#include "cpucycles/counter.h"
#include "readfile.h"
#include "memo.h"
#include <signal.h>
#include <time.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define CPUCYCLES_SECCOMP_REASON \
  "skipped: a seccomp filter (or no way to tell there is none) and the system call failed in a child"

/* For cpucycles_readfile_lines: the "Seccomp:" line, into *(int *)ctx. */
CPUCYCLES_COLD static inline int cpucycles_seccomp_line(void *ctx, const char *line, size_t len)
{
  (void)len;
  if (strncmp(line, "Seccomp:", 8) != 0) return 0;
  line += 8;
  while (*line == ' ' || *line == '\t') line++;
  *(int *)ctx = *line == '0' ? 0 : 1;
  return 1;
}

/* 0 when this thread has no seccomp filter, 1 when it has one (or strict
 * mode), -1 when /proc does not say. */
CPUCYCLES_COLD static inline int cpucycles_seccomp_state(void)
{
  char buf[1024]; /* its line is some 1100 bytes in: two reads, not six */
  int state = -1;
  if (cpucycles_selection_memo.active && cpucycles_selection_memo.seccomp_known)
    return cpucycles_selection_memo.seccomp_state;
  /* The process's main thread reads /proc/self/status, the same file
   * (its task's), found 6 us sooner than through thread-self the first
   * time; another thread reads its own.  (Kernels before 3.17 have no
   * thread-self.) */
  if (syscall(SYS_gettid) == (long)getpid() ||
      cpucycles_readfile_lines("/proc/thread-self/status", buf, sizeof buf, cpucycles_seccomp_line,
                               &state) < 0 || state < 0)
    cpucycles_readfile_lines("/proc/self/status", buf, sizeof buf, cpucycles_seccomp_line, &state);
  if (cpucycles_selection_memo.active)
    cpucycles_selection_memo.seccomp_known = 1, cpucycles_selection_memo.seccomp_state = state;
  return state;
}

/* The architectures whose raw clone() returns 0 in the child as fork()
 * does; elsewhere (sparc returns the pid in both) no child is tried. */
#if defined(SYS_clone) &&                                                                  \
    (defined(__x86_64__) || defined(__i386__) || defined(__aarch64__) || defined(__arm__) || \
     defined(__riscv) || defined(__powerpc__) || defined(__s390__) || defined(__loongarch__) || \
     defined(__mips__))
#define CPUCYCLES_SECCOMP_CHILD 1
#endif

/* Makes the system call nr(a0, ..., a4) in a child: 1 when it returned
 * 0 or more there, 0 when it failed or the child died of it, -1 when no
 * child could be made (clone refused: EPERM, EAGAIN at the process limit,
 * EINVAL under qemu-user) or waited for. */
CPUCYCLES_COLD static inline int cpucycles_seccomp_try_in_child(long nr, long a0, long a1, long a2,
                                                                long a3, long a4)
{
#if defined(CPUCYCLES_SECCOMP_CHILD)
  struct sigaction default_action;
  int status = 0, saved_errno = errno;
  long pid, waited;
  /* flags 0 and stack 0 (in either order: s390's clone takes the stack
   * first): a copy of this process, no signal to the parent at its exit */
  pid = syscall(SYS_clone, 0L, 0L, 0L, 0L, 0L);
  if (pid == 0) {
    /* a trap must kill the child, not run the program's handler */
    memset(&default_action, 0, sizeof default_action);
    default_action.sa_handler = SIG_DFL;
    sigaction(SIGSYS, &default_action, 0);
    syscall(SYS_exit_group, syscall(nr, a0, a1, a2, a3, a4) >= 0 ? 0L : 1L);
  }
  if (pid < 0) {
    errno = saved_errno;
    return -1;
  }
  while ((waited = waitpid((pid_t)pid, &status, __WALL)) < 0 && errno == EINTR) continue;
  errno = saved_errno;
  if (waited != pid) return -1;
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
#else
  (void)nr, (void)a0, (void)a1, (void)a2, (void)a3, (void)a4;
  return -1;
#endif
}

/* The system call behind the vDSO's clock_gettime() (32-bit targets with
 * a 64-bit time_t use clock_gettime64), and a buffer for its answer. */
#if defined(SYS_clock_gettime64)
#define CPUCYCLES_SECCOMP_CLOCK_SYSCALL SYS_clock_gettime64
#else
#define CPUCYCLES_SECCOMP_CLOCK_SYSCALL SYS_clock_gettime
#endif

/* 1 when this thread may make the system call nr(a0, ..., a4): no
 * filter, or a child made it and came back; else 0. */
CPUCYCLES_COLD static inline int cpucycles_seccomp_allows(long nr, long a0, long a1, long a2,
                                                          long a3, long a4)
{
  return cpucycles_seccomp_state() == 0 || cpucycles_seccomp_try_in_child(nr, a0, a1, a2, a3, a4) == 1;
}

/* 1 when a vDSO clock may be used here, though it may fall back to its
 * system call: the clock_gettime one for CLOCK_MONOTONIC, or
 * gettimeofday's. */
CPUCYCLES_COLD static inline int cpucycles_seccomp_allows_clock(int gettimeofday_call)
{
  long long answer[2];
  long nr = CPUCYCLES_SECCOMP_CLOCK_SYSCALL, a0 = CLOCK_MONOTONIC, a1 = (long)answer;
#if defined(SYS_gettimeofday)
  if (gettimeofday_call) nr = SYS_gettimeofday, a0 = (long)answer, a1 = 0;
#else
  (void)gettimeofday_call;
#endif
  /* Unlike the uncommon calls, a vDSO clock is refused only when a child
   * died of (or failed) its system call: where no child can be made, it is
   * used, as every program uses it. */
  return cpucycles_seccomp_state() == 0 || cpucycles_seccomp_try_in_child(nr, a0, a1, 0, 0, 0) != 0;
}
#endif
#endif
