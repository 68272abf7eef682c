/* SPDX-License-Identifier: MIT */
/* t-guard-window - a fault in another thread the moment the guard's
 * handler is in place reaches the program's own handler.  Linked with
 * -Wl,--wrap=sigaction: each call that installs a SIGSEGV handler with
 * SA_SIGINFO (the guard's) waits, once the system call has made it, until
 * another thread has faulted and been handled, before it copies any old
 * action out, as a preemption on the call's return would let it.  The
 * guard must know the program's action by then (it asks first, in a call
 * of its own): a guard that took it from the installing call found zeros,
 * took them for the default action, and the process died of SIGSEGV. */
#include "fault.h"
#include "guard.h"
#include "tap.h"
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

int __real_sigaction(int signo, const struct sigaction *act, struct sigaction *old);
int __wrap_sigaction(int signo, const struct sigaction *act, struct sigaction *old);

static int armed, go, handled;

/* Up to 5 s for *flag to be set. */
static int wait_for(int *flag)
{
  struct timespec t = {0, 1000000};
  int i;
  for (i = 0; i < 5000 && !__atomic_load_n(flag, __ATOMIC_ACQUIRE); i++) nanosleep(&t, 0);
  return __atomic_load_n(flag, __ATOMIC_ACQUIRE);
}

int __wrap_sigaction(int signo, const struct sigaction *act, struct sigaction *old)
{
  struct sigaction was;
  int r = __real_sigaction(signo, act, old ? &was : 0);
  if (r == 0 && signo == SIGSEGV && act && (act->sa_flags & SA_SIGINFO) &&
      __atomic_exchange_n(&armed, 0, __ATOMIC_ACQ_REL)) {
    __atomic_store_n(&go, 1, __ATOMIC_RELEASE);
    wait_for(&handled);
  }
  if (old) *old = was;
  return r;
}

/* The program's handler: the page readable, so the read runs again. */
static void program_handler(int signo)
{
  (void)signo;
  mprotect((void *)test_fault_page, (size_t)sysconf(_SC_PAGESIZE), PROT_READ);
  __atomic_store_n(&handled, 1, __ATOMIC_RELEASE);
}

static void *fault_when_told(void *arg)
{
  (void)arg;
  if (wait_for(&go)) test_fault();
  return 0;
}

static void nothing(void *arg) { (void)arg; }

/* In a child: 0 when the other thread's fault reached the program's
 * handler during the guarded call, 1 when it did not come, 2 when it
 * did not reach it. */
static int child(void)
{
  pthread_t thread;
  signal(SIGSEGV, program_handler);
  if (!test_fault_map() || pthread_create(&thread, 0, fault_when_told, 0) != 0) return 1;
  __atomic_store_n(&armed, 1, __ATOMIC_RELEASE);
  cpucycles_guarded_call(CPUCYCLES_FAULT_SIGSEGV, nothing, 0);
  pthread_join(thread, 0);
  if (!__atomic_load_n(&go, __ATOMIC_ACQUIRE)) return 1;
  return __atomic_load_n(&handled, __ATOMIC_ACQUIRE) ? 0 : 2;
}

int main(void)
{
  int status = -1;
  pid_t pid;
  tap_plan(1);
  pid = fork();
  if (pid == 0) _exit(child());
  waitpid(pid, &status, 0);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 1)
    tap_skip("a fault the moment the guard's handler is installed", "the wrapped install was not seen");
  else
    tap_ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
           "another thread's fault, the moment the guard's handler is installed, reaches the "
           "program's handler (child: %s %d)", WIFEXITED(status) ? "exit" : "killed by signal",
           WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
  return tap_done();
}
