/* SPDX-License-Identifier: MIT */
/* guard.h - run a piece of code that may fault (SIGILL, SIGSEGV, SIGBUS)
 * and survive: how a counter the CPU or kernel forbids is found. */
#ifndef CPUCYCLES_GUARD_H
#define CPUCYCLES_GUARD_H
#include <signal.h>
#include "cpucycles/counter.h"
#include "hidden.h"
CPUCYCLES_HIDDEN_BEGIN

/* The caller's mask, and whether it was changed (a sandbox may deny it). */
struct cpucycles_signal_state {
  sigset_t mask;
  int changed;
  int faults_were_unblocked; /* the thread's note before this (guard.c) */
};

/* Sets this thread's mask to every asynchronous signal blocked and the
 * synchronous ones (SIGILL, SIGSEGV, SIGBUS, SIGFPE, SIGSYS, SIGTRAP)
 * unblocked, saving the caller's; guarded calls made meanwhile skip their
 * own masking.  Pairs with cpucycles_restore_signals. */
void cpucycles_block_async_signals(struct cpucycles_signal_state *saved);
void cpucycles_restore_signals(const struct cpucycles_signal_state *saved);

/* What cpucycles_guarded_call returns when it cannot guard (a fault
 * signal stays blocked, or our handler cannot be installed: a sandbox
 * that denies rt_sigprocmask or rt_sigaction): fn was not called. */
#define CPUCYCLES_GUARD_UNAVAILABLE (-1)

/* Calls fn(arg) with this thread's asynchronous signals blocked, catching
 * the fault signals of `faults` (CPUCYCLES_FAULT_* bits; 0: all three): a
 * counter that can raise fewer (RDTSC: SIGSEGV alone) costs fewer system
 * calls.  Returns 0 when it returned, the number of the fault it raised,
 * or CPUCYCLES_GUARD_UNAVAILABLE without calling it.  The caller's signal
 * mask is restored exactly, and so are the program's actions, unless
 * another thread changed one meanwhile (that change stays).  Only a fault
 * the kernel raises in this thread, inside fn, is caught: a fault in
 * another thread, a fault signal sent with kill(), or one of a signal not
 * caught goes to the program's own action as if no guard were there. */
int cpucycles_guarded_call(unsigned int faults, void (*fn)(void *), void *arg);
/* A bit of `faults` for the library's own measuring only: inside
 * cpucycles_block_async_signals(), the mask it noted is the thread's (no
 * handler runs on top: asynchronous signals are blocked), and need not be
 * read again.  Without it (the harness, through cpucycles_private()), a
 * guarded call inside a masked region reads the mask. */
#define CPUCYCLES_GUARD_TRUST_NOTE 0x100u

/* For pthread_atfork: prepare waits until no guarded call is under way
 * (in a child, a guard another thread held would stay held for good, and
 * its handlers installed); done, in parent and child, lets guards run.
 * Meanwhile the forking thread's own guarded calls (a program's fork
 * handler making the first call) go ahead. */
void cpucycles_guard_fork_prepare(void);
void cpucycles_guard_fork_done(void);

/* At load: the pages of the guard's state written (cpucycles.c's
 * map_first_call_state says why). */
void cpucycles_guard_map_state(void);

/* "faulted with SIGILL (...)" and so on, for messages. */
const char *cpucycles_fault_reason(int signo);

CPUCYCLES_HIDDEN_END
#endif
