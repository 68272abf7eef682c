/* guard.h - run a piece of code that may fault (SIGILL, SIGSEGV, SIGBUS,
 * SIGFPE) and survive: how a counter the CPU or kernel forbids is found. */
#ifndef CPUCYCLES_GUARD_H
#define CPUCYCLES_GUARD_H

/* Calls fn(arg).  Returns 0 when it returned, or the number of the signal
 * it raised.  The caller's signal handlers and signal mask are restored
 * exactly.  Only a fault in this thread, inside fn, is caught: a fault in
 * another thread meanwhile goes to that program's own handler. */
int cpucycles_guarded_call(void (*fn)(void *), void *arg);

/* "faulted with SIGILL (...)" and so on, for messages. */
const char *cpucycles_fault_reason(int signo);

#endif
