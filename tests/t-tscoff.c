/* SPDX-License-Identifier: MIT */
/* t-tscoff - a process that forbade the TSC before its first call
 * (prctl(PR_SET_TSC, PR_TSC_SIGSEGV)) still gets a real, increasing
 * count: RDTSC, RDTSCP and the vDSO clocks (which read the TSC where it is
 * the kernel's clocksource) fault, and
 * the first call falls back to the clock_gettime system call.  Runs in a
 * child, which the prctl would otherwise leave without a TSC.  A hypervisor
 * that does not trap RDTSC (seen on KVM) accepts the prctl, and PR_GET_TSC
 * says PR_TSC_SIGSEGV, yet RDTSC runs: the library then rightly keeps the
 * TSC, so the child first checks that RDTSC really faults, and SKIPs if not. */
#include "cpucycles.h"
#include "tap.h"
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#if defined(__linux__) && (defined(__x86_64__) || defined(__i386__))
#include <setjmp.h>
#include <signal.h>
#include <sys/prctl.h>
#endif

#if defined(PR_SET_TSC)
static sigjmp_buf rdtsc_jump;
static void rdtsc_faulted(int signo)
{
  (void)signo;
  siglongjmp(rdtsc_jump, 1);
}

/* 1 when a raw RDTSC faults in this process (not the library's read,
 * whose guard is what is tested), 0 when it runs. */
static int rdtsc_faults(void)
{
  struct sigaction a, old;
  unsigned int lo, hi;
  volatile int faulted = 0; /* set after sigsetjmp: volatile keeps it */
  memset(&a, 0, sizeof a);
  a.sa_handler = rdtsc_faulted;
  sigaction(SIGSEGV, &a, &old);
  if (sigsetjmp(rdtsc_jump, 1) != 0)
    faulted = 1;
  else
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
  sigaction(SIGSEGV, &old, 0);
  return faulted;
}
#endif

/* Exit status of the child: 0 fine, 1 not the system-call clock,
 * 2 the count did not increase, 3 inline path on, 4 no prctl here,
 * 5 the prctl was accepted but RDTSC does not fault. */
static int child(void)
{
#if defined(PR_SET_TSC)
  struct timespec ms = {0, 1000000};
  long long a, b;
  if (prctl(PR_SET_TSC, PR_TSC_SIGSEGV, 0, 0, 0) != 0) return 4;
  if (!rdtsc_faults()) return 5;
  a = cpucycles();
  nanosleep(&ms, 0);
  b = cpucycles();
  /* CLOCK_MONOTONIC through its system call; or through the vDSO where
   * the kernel's clocksource is not the TSC (hpet, acpi_pm: the vDSO then
   * makes the system call itself and reads no TSC). */
  if (strcmp(cpucycles_implementation(), "default-monotonic-syscall") != 0 &&
      strcmp(cpucycles_implementation(), "default-monotonic") != 0)
    return 1;
  if (!(b > a && a > 0)) return 2;
  if (cpucycles_abi_inline_id != 0) return 3;
  return 0;
#else
  return 4;
#endif
}

int main(void)
{
  int status = 0;
  pid_t pid;
  tap_plan(1);
#if defined(TAP_UNDER_SANITIZER)
  tap_skip("with the TSC forbidden the system-call clock counts",
           "the sanitizer's runtime reads the TSC itself");
  return tap_done();
#endif
  fflush(stdout);
  pid = fork();
  if (pid == 0) {
    alarm(20); /* a hang (with the TSC forbidden, SIGALRM still works) fails */
    _exit(child());
  }
  if (pid > 0) waitpid(pid, &status, 0);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 4)
    tap_skip("with the TSC forbidden the system-call clock counts", "no PR_SET_TSC here (not x86 Linux, or an emulator)");
  else if (WIFEXITED(status) && WEXITSTATUS(status) == 5)
    tap_skip("with the TSC forbidden the system-call clock counts",
             "PR_SET_TSC accepted but RDTSC does not fault here (a hypervisor that does not trap it)");
  else
    tap_ok(pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0,
           "with the TSC forbidden the first call counts with CLOCK_MONOTONIC, increasing (%s %d)",
           WIFEXITED(status) ? "exit" : "signal", WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
  return tap_done();
}
