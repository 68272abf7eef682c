/* SPDX-License-Identifier: MIT */
/* t-signals - the first call probes counters under signal guards; the
 * caller's handlers and signal mask must come back exactly as they were. */
#include "cpucycles.h"
#include "guard.h"
#include "fault.h"
#include "tap.h"
#include <signal.h>
#include <string.h>

static const int guarded[] = {SIGILL, SIGSEGV, SIGBUS, SIGFPE};

static void my_handler(int signo) { (void)signo; }
static void my_siginfo_handler(int signo, siginfo_t *info, void *context)
{
  (void)signo;
  (void)info;
  (void)context;
}
static stack_t stack_before;

static void fault(void *arg)
{
  (void)arg;
  test_fault();
}

/* Compared signal by signal: the kernel fills only part of a sigset_t. */
static int same_set(const sigset_t *a, const sigset_t *b)
{
  int signo;
  for (signo = 1; signo < 32; signo++)
    if (sigismember(a, signo) != sigismember(b, signo)) return 0;
  return 1;
}

/* glibc adds its own return trampoline (SA_RESTORER, Linux's 0x04000000)
 * to every action it installs, even when the handler put back is SIG_DFL;
 * it is libc's, not the program's, so it is left out of the comparison. */
#define LIBC_FLAGS 0x04000000

/* 1 when the guarded signals' actions equal saved[] */
static int handlers_unchanged(const struct sigaction *saved)
{
  struct sigaction now;
  int i;
  for (i = 0; i < 4; i++) {
    sigaction(guarded[i], 0, &now);
    if (saved[i].sa_handler != now.sa_handler || (saved[i].sa_flags | LIBC_FLAGS) != (now.sa_flags | LIBC_FLAGS) ||
        !same_set(&saved[i].sa_mask, &now.sa_mask)) {
      tap_diag("signal %d: handler %s, flags %#x -> %#x", guarded[i],
               saved[i].sa_handler == now.sa_handler ? "same" : "changed",
               (unsigned)saved[i].sa_flags, (unsigned)now.sa_flags);
      return 0;
    }
  }
  return 1;
}

int main(void)
{
  struct sigaction mine, before[4];
  sigset_t mask_before, mask_after, blocked;
  int i;

  memset(before, 0, sizeof before);
  sigemptyset(&mask_before);
  sigemptyset(&mask_after);
  tap_plan(6);
  memset(&mine, 0, sizeof mine);
  mine.sa_handler = my_handler;
  sigemptyset(&mine.sa_mask);
  sigaddset(&mine.sa_mask, SIGUSR2);
  mine.sa_flags = SA_RESTART;
  sigaction(SIGSEGV, &mine, 0);
  sigaction(SIGILL, &mine, 0);
  /* SIGBUS stays default; SIGFPE is ignored; SIGUSR1 and SIGFPE blocked */
  signal(SIGFPE, SIG_IGN);
  sigemptyset(&blocked);
  sigaddset(&blocked, SIGUSR1);
  sigaddset(&blocked, SIGFPE);
  sigprocmask(SIG_BLOCK, &blocked, 0);
  /* SIGILL: an SA_SIGINFO handler on an alternate stack (sa_handler and
   * sa_sigaction share storage, so the comparison below covers both) */
  {
    static char alt[65536];
    stack_t ss = {alt, 0, sizeof alt};
    sigaltstack(&ss, 0);
    mine.sa_sigaction = my_siginfo_handler;
    mine.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigaction(SIGILL, &mine, 0);
    sigaltstack(0, &stack_before);
  }

  for (i = 0; i < 4; i++) sigaction(guarded[i], 0, &before[i]);
  sigprocmask(SIG_BLOCK, 0, &mask_before);

  cpucycles();
  tap_ok(strcmp(cpucycles_implementation(), "default-zero") != 0,
         "the first call with the program's handlers in place finds a real counter (%s)",
         cpucycles_implementation());

  sigprocmask(SIG_BLOCK, 0, &mask_after);
  tap_ok(handlers_unchanged(before), "handlers, flags and handler masks are unchanged");
  tap_ok(same_set(&mask_before, &mask_after) &&
             sigismember(&mask_after, SIGUSR1) && sigismember(&mask_after, SIGFPE),
         "the signal mask is unchanged");
  {
    stack_t now;
    sigaltstack(0, &now);
    tap_ok(now.ss_sp == stack_before.ss_sp && now.ss_size == stack_before.ss_size &&
               now.ss_flags == stack_before.ss_flags,
           "the alternate signal stack is unchanged");
  }

  /* The same after a fault was actually caught. */
  tap_ok(cpucycles_guarded_call(0, fault, 0) == SIGSEGV, "a SIGSEGV in a guarded call is caught");
  sigprocmask(SIG_BLOCK, 0, &mask_after);
  tap_ok(handlers_unchanged(before) && same_set(&mask_before, &mask_after),
         "after a caught fault, handlers and mask are unchanged");
  return tap_done();
}
