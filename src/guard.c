/* guard.c - see guard.h. */
#include "guard.h"
#include <setjmp.h>
#include <signal.h>
#include <string.h>

static const int guarded_signals[] = {SIGILL, SIGSEGV, SIGBUS, SIGFPE};
#define NGUARDED ((int)(sizeof guarded_signals / sizeof guarded_signals[0]))

/* Per thread, so that two threads probing at once cannot jump into each
 * other's stacks. */
static __thread sigjmp_buf *guard_jump;
static __thread int guard_signo;
/* The caller's handlers, while ours are installed (one guard at a time
 * per process is enough: the library serialises its first call). */
static struct sigaction saved_actions[NGUARDED];

static void guard_handler(int signo)
{
  int i;
  if (guard_jump) {
    guard_signo = signo;
    siglongjmp(*guard_jump, 1);
  }
  /* Not our fault: hand the signal back to the program's own handler and
   * let the faulting instruction run again under it. */
  for (i = 0; i < NGUARDED; i++)
    if (guarded_signals[i] == signo) sigaction(signo, &saved_actions[i], 0);
}

int cpucycles_guarded_call(void (*fn)(void *), void *arg)
{
  struct sigaction ours;
  sigset_t faults, saved_mask;
  sigjmp_buf jump;
  int i;

  memset(&ours, 0, sizeof ours);
  ours.sa_handler = guard_handler;
  sigemptyset(&ours.sa_mask);
  sigemptyset(&faults);
  for (i = 0; i < NGUARDED; i++) sigaddset(&faults, guarded_signals[i]);
  /* A synchronous fault while its signal is blocked kills the process
   * outright, so the guarded signals are unblocked for the call. */
  pthread_sigmask(SIG_UNBLOCK, &faults, &saved_mask);
  for (i = 0; i < NGUARDED; i++) sigaction(guarded_signals[i], &ours, &saved_actions[i]);

  guard_signo = 0;
  if (sigsetjmp(jump, 0) == 0) {
    guard_jump = &jump;
    fn(arg);
  }
  guard_jump = 0;

  for (i = 0; i < NGUARDED; i++) sigaction(guarded_signals[i], &saved_actions[i], 0);
  /* the handler left its signal blocked: this puts the caller's mask back */
  pthread_sigmask(SIG_SETMASK, &saved_mask, 0);
  return guard_signo;
}

const char *cpucycles_fault_reason(int signo)
{
  switch (signo) {
  case SIGILL: return "faulted with SIGILL (instruction not allowed here)";
  case SIGSEGV: return "faulted with SIGSEGV (instruction or access forbidden)";
  case SIGBUS: return "faulted with SIGBUS";
  case SIGFPE: return "faulted with SIGFPE";
  default: return "faulted with a signal";
  }
}
