/* SPDX-License-Identifier: MIT */
/* guard.c - see guard.h.
 *
 * Signal actions are process-wide, so while a guarded call runs, our
 * handler stands in for the program's handler of the three fault signals.
 * Three rules keep the program's handlers intact:
 *   - a fault that is not the probe's (another thread, or a signal sent
 *     with kill()) is passed to the program's own action, with the flags,
 *     mask and stack it asked for;
 *   - asynchronous signals are blocked in the guarded thread for the
 *     call's duration (well under a millisecond), so no handler can
 *     longjmp out of it and leave our handler installed;
 *   - on the way out, an action that another thread installed meanwhile is
 *     put back, never overwritten with the one we saved. */
#include "guard.h"
#include "cpucycles/counter.h"
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <string.h>

/* What a counter's read or setup can raise: SIGILL (an instruction the CPU
 * lacks or the OS forbids), SIGSEGV (RDTSC/RDPMC forbidden, a perf page),
 * SIGBUS (a perf page gone), in the order of the CPUCYCLES_FAULT_* bits.
 * Each signal guarded costs three system calls per guarded call, so no
 * more, and a counter that can raise fewer has only those guarded. */
static const int cpucycles_guarded_signals[] = {SIGILL, SIGSEGV, SIGBUS};
typedef char cpucycles_fault_bits_agree[(CPUCYCLES_FAULT_SIGILL == 1 && CPUCYCLES_FAULT_SIGSEGV == 2 &&
                                         CPUCYCLES_FAULT_SIGBUS == 4)
                                            ? 1
                                            : -1];
#define CPUCYCLES_NGUARDED \
  ((int)(sizeof cpucycles_guarded_signals / sizeof cpucycles_guarded_signals[0]))

/* The signals that stay deliverable while asynchronous ones are blocked:
 * the faults (a probe's is caught, a real one must not be held back: a
 * blocked synchronous fault kills), SIGSYS (a seccomp trap) and SIGTRAP (a
 * debugger). */
static const int cpucycles_synchronous_signals[] = {SIGILL, SIGSEGV, SIGBUS,
                                                    SIGFPE, SIGSYS,  SIGTRAP};

/* Depth of cpucycles_block_async_signals() in this thread. */
static __thread int cpucycles_async_blocked;
/* 1 while this thread's mask is known to leave every synchronous signal
 * unblocked (cpucycles_block_async_signals() set it so, and nothing has
 * changed it since): a guarded call need not read the mask again. */
static __thread int cpucycles_faults_unblocked;

/* Every signal blocked but the synchronous ones, which are unblocked even
 * when the caller had them blocked (a worker thread that blocks all
 * signals, a handler installed with a full sa_mask): a fault whose signal
 * is blocked is not delivered, the kernel kills the process instead.  A
 * synchronous signal that is blocked and already pending (sent to a
 * thread that reads its signals with signalfd, say) stays blocked:
 * unblocked, its default action could kill the process. */
CPUCYCLES_COLD static void cpucycles_guard_mask(const sigset_t *caller, sigset_t *mask)
{
  sigset_t pending;
  size_t i;
  sigfillset(mask);
  if (sigpending(&pending) != 0) sigfillset(&pending);
  for (i = 0; i < sizeof cpucycles_synchronous_signals / sizeof cpucycles_synchronous_signals[0];
       i++) {
    int signo = cpucycles_synchronous_signals[i];
    if (!(sigismember(caller, signo) && sigismember(&pending, signo))) sigdelset(mask, signo);
  }
}

/* One system call where the caller blocks none of the synchronous
 * signals (nearly always): every other signal blocked on top of its mask,
 * which comes back as the one to restore.  Where it blocks one, the mask
 * is set again as cpucycles_guard_mask() says (two more calls). */
CPUCYCLES_COLD void cpucycles_block_async_signals(struct cpucycles_signal_state *saved)
{
  sigset_t mask;
  size_t i, n = sizeof cpucycles_synchronous_signals / sizeof cpucycles_synchronous_signals[0];
  int synchronous_blocked = 0;
  sigfillset(&mask);
  for (i = 0; i < n; i++) sigdelset(&mask, cpucycles_synchronous_signals[i]);
  sigemptyset(&saved->mask);
  /* A sandbox may deny rt_sigprocmask: then nothing changes. */
  saved->changed = pthread_sigmask(SIG_BLOCK, &mask, &saved->mask) == 0;
  for (i = 0; saved->changed && i < n; i++)
    synchronous_blocked |= sigismember(&saved->mask, cpucycles_synchronous_signals[i]) == 1;
  if (synchronous_blocked) {
    cpucycles_guard_mask(&saved->mask, &mask);
    pthread_sigmask(SIG_SETMASK, &mask, 0);
  }
  saved->faults_were_unblocked = cpucycles_faults_unblocked;
  cpucycles_faults_unblocked = saved->changed && !synchronous_blocked;
  cpucycles_async_blocked++;
}

CPUCYCLES_COLD void cpucycles_restore_signals(const struct cpucycles_signal_state *saved)
{
  cpucycles_async_blocked--;
  cpucycles_faults_unblocked = saved->faults_were_unblocked;
  if (saved->changed) pthread_sigmask(SIG_SETMASK, &saved->mask, 0);
}

/* 1 when none of the signals of `faults` (bits) is blocked in this thread
 * (a fault would reach our handler), 0 when one is, or the mask cannot be
 * read.  A system call only when the mask is not known already (noted:
 * the caller may trust the note, below). */
CPUCYCLES_COLD static int cpucycles_faults_deliverable(unsigned int faults, int noted)
{
  sigset_t now;
  int i;
  if (noted && cpucycles_faults_unblocked) return 1;
  if (pthread_sigmask(SIG_BLOCK, 0, &now) != 0) return 0;
  for (i = 0; i < CPUCYCLES_NGUARDED; i++)
    if ((faults & (1u << i)) && sigismember(&now, cpucycles_guarded_signals[i])) return 0;
  return 1;
}

/* Set while this thread runs a guarded function. */
static __thread sigjmp_buf *cpucycles_guard_jump;
static __thread volatile sig_atomic_t cpucycles_guard_signo;
/* The program's actions while ours are installed; one guarded call at a
 * time in the process (cpucycles_guard_lock). */
static struct sigaction cpucycles_saved_actions[CPUCYCLES_NGUARDED];
static pthread_mutex_t cpucycles_guard_lock = PTHREAD_MUTEX_INITIALIZER;
/* Set in the thread whose fork() holds cpucycles_guard_lock, from the
 * prepare handler to the parent's or child's: the program's own fork
 * handlers run in that thread meanwhile, and one that makes the first
 * call must not wait for its own thread.  No other guarded call can be
 * under way then, so its calls go ahead without taking the lock again. */
static __thread int cpucycles_guard_held_by_fork;

CPUCYCLES_COLD __attribute__((__noinline__)) static int cpucycles_guarded_index(int signo)
{
  int i;
  for (i = 0; i < CPUCYCLES_NGUARDED; i++)
    if (cpucycles_guarded_signals[i] == signo) return i;
  return 0;
}

CPUCYCLES_COLD static int cpucycles_is_default_or_ignored(const struct sigaction *a)
{
  return !(a->sa_flags & SA_SIGINFO) && (a->sa_handler == SIG_DFL || a->sa_handler == SIG_IGN);
}

/* What the kernel would have done with this signal under the program's
 * own action. */
CPUCYCLES_COLD static void cpucycles_pass_to_program(int signo, siginfo_t *info, void *context)
{
  struct sigaction *program = &cpucycles_saved_actions[cpucycles_guarded_index(signo)];
  int sent = info && info->si_code <= 0; /* kill(), tgkill(), sigqueue() */
  if (!cpucycles_is_default_or_ignored(program)) {
    if (program->sa_flags & SA_RESETHAND) {
      /* the kernel would have reset it on delivery; we do on restore */
      struct sigaction once = *program;
      memset(program, 0, sizeof *program);
      program->sa_handler = SIG_DFL;
      if (once.sa_flags & SA_SIGINFO) once.sa_sigaction(signo, info, context);
      else once.sa_handler(signo);
      return;
    }
    if (program->sa_flags & SA_SIGINFO) program->sa_sigaction(signo, info, context);
    else program->sa_handler(signo);
    return;
  }
  if (program->sa_handler == SIG_IGN && sent) return;
  /* The default action (a fault the program ignores is fatal too): put it
   * in place and let the signal come again, now fatal.  A fault re-runs
   * its instruction on return; a sent signal is raised again, pending
   * until this handler returns. */
  signal(signo, SIG_DFL);
  if (sent) raise(signo);
}

CPUCYCLES_COLD static void cpucycles_guard_handler(int signo, siginfo_t *info, void *context)
{
  /* Ours only when the kernel raised it for this thread's guarded code. */
  if (cpucycles_guard_jump && info && info->si_code > 0) {
    cpucycles_guard_signo = signo;
    siglongjmp(*cpucycles_guard_jump, 1);
  }
  cpucycles_pass_to_program(signo, info, context);
}

/* Installs ours for signal i, taking the program's flags that matter to
 * a handler (its stack, its mask, restarts) so that a fault passed on
 * runs as it would have.  The program's action is read first, in a call
 * of its own: a fault in another thread may reach ours the moment it is
 * installed, and must find that action whole (sigaction()'s old action,
 * taken in the same call, is copied out after the new one is in place).
 * 0, or -1 when the system refused. */
CPUCYCLES_COLD static int cpucycles_guard_install(int i)
{
  struct sigaction ours;
  if (sigaction(cpucycles_guarded_signals[i], 0, &cpucycles_saved_actions[i]) != 0) return -1;
  memset(&ours, 0, sizeof ours);
  ours.sa_sigaction = cpucycles_guard_handler;
  ours.sa_flags =
      SA_SIGINFO | (cpucycles_saved_actions[i].sa_flags & (SA_ONSTACK | SA_RESTART | SA_NODEFER));
  if (cpucycles_is_default_or_ignored(&cpucycles_saved_actions[i])) sigemptyset(&ours.sa_mask);
  else ours.sa_mask = cpucycles_saved_actions[i].sa_mask;
  return sigaction(cpucycles_guarded_signals[i], &ours, 0);
}

/* Puts the program's action back, unless another thread replaced ours
 * meanwhile: then that newer action is the program's wish, and stays. */
CPUCYCLES_COLD static void cpucycles_guard_restore(int i)
{
  struct sigaction found;
  sigaction(cpucycles_guarded_signals[i], &cpucycles_saved_actions[i], &found);
  if (!(found.sa_flags & SA_SIGINFO) || found.sa_sigaction != cpucycles_guard_handler)
    sigaction(cpucycles_guarded_signals[i], &found, 0);
}

/* fn(arg) with our handlers in place; the fault it raised, or 0. */
CPUCYCLES_COLD static int cpucycles_call_caught(void (*fn)(void *), void *arg)
{
  sigjmp_buf jump;
  cpucycles_guard_signo = 0;
  if (sigsetjmp(jump, 0) == 0) {
    cpucycles_guard_jump = &jump;
    fn(arg);
  }
  cpucycles_guard_jump = 0;
  return cpucycles_guard_signo;
}

CPUCYCLES_COLD int cpucycles_guarded_call(unsigned int faults, void (*fn)(void *), void *arg)
{
  struct cpucycles_signal_state saved_mask;
  unsigned int installed = 0;
  int i, refused = 0, signo = CPUCYCLES_GUARD_UNAVAILABLE, masked = cpucycles_async_blocked > 0;
  /* The note on this thread's mask stands for the library's own
   * measuring, and when this call masks (it writes the note); a caller
   * from outside inside a masked region may be a handler on top of it,
   * with a mask of its own. */
  int noted = (faults & CPUCYCLES_GUARD_TRUST_NOTE) || !masked;

  faults &= CPUCYCLES_FAULT_SIGILL | CPUCYCLES_FAULT_SIGSEGV | CPUCYCLES_FAULT_SIGBUS;
  if (!faults) faults = CPUCYCLES_FAULT_SIGILL | CPUCYCLES_FAULT_SIGSEGV | CPUCYCLES_FAULT_SIGBUS;
  /* Asynchronous signals blocked (no handler may run, and perhaps longjmp
   * away, while ours is installed), unless the caller did so already (the
   * first call does, for all of its guarded calls). */
  if (!masked) cpucycles_block_async_signals(&saved_mask);
  if (!cpucycles_guard_held_by_fork) pthread_mutex_lock(&cpucycles_guard_lock);
  /* A fault that cannot reach our handler kills: then fn is not called. */
  if (cpucycles_faults_deliverable(faults, noted))
    for (i = 0; i < CPUCYCLES_NGUARDED && !refused; i++)
      if (faults & (1u << i)) {
        refused = cpucycles_guard_install(i) != 0;
        if (!refused) installed |= 1u << i;
      }
  if (installed == faults) signo = cpucycles_call_caught(fn, arg);
  for (i = 0; i < CPUCYCLES_NGUARDED; i++)
    if (installed & (1u << i)) cpucycles_guard_restore(i);
  if (!cpucycles_guard_held_by_fork) pthread_mutex_unlock(&cpucycles_guard_lock);
  if (!masked) {
    /* the handler left its signal blocked: this puts the caller's mask back */
    cpucycles_restore_signals(&saved_mask);
  } else if (signo > 0) {
    /* The jump out of our handler left its mask in place (the program's
     * sa_mask, which may block the other faults, and the signal itself):
     * back to the caller's guard mask, as cpucycles_block_async_signals
     * set it. */
    sigset_t now, mask;
    cpucycles_faults_unblocked = 0; /* read it again next time */
    if (pthread_sigmask(SIG_BLOCK, 0, &now) == 0) {
      sigdelset(&now, signo);
      cpucycles_guard_mask(&now, &mask);
      pthread_sigmask(SIG_SETMASK, &mask, 0);
    }
  }
  return signo;
}

CPUCYCLES_COLD void cpucycles_guard_map_state(void)
{
  __atomic_fetch_or(&cpucycles_saved_actions[0].sa_flags, 0, __ATOMIC_RELAXED);
  __atomic_fetch_or(&cpucycles_saved_actions[CPUCYCLES_NGUARDED - 1].sa_flags, 0, __ATOMIC_RELAXED);
}

CPUCYCLES_COLD void cpucycles_guard_fork_prepare(void)
{
  pthread_mutex_lock(&cpucycles_guard_lock);
  cpucycles_guard_held_by_fork = 1;
}

CPUCYCLES_COLD void cpucycles_guard_fork_done(void)
{
  cpucycles_guard_held_by_fork = 0;
  pthread_mutex_unlock(&cpucycles_guard_lock);
}

CPUCYCLES_COLD const char *cpucycles_fault_reason(int signo)
{
  switch (signo) {
  case SIGILL: return "faulted with SIGILL (instruction not allowed here)";
  case SIGSEGV: return "faulted with SIGSEGV (instruction or access forbidden)";
  case SIGBUS: return "faulted with SIGBUS";
  case SIGFPE: return "faulted with SIGFPE";
  case CPUCYCLES_GUARD_UNAVAILABLE:
    return "not tried: its faults cannot be caught here (the signal mask or actions cannot be set)";
  default: return "faulted with a signal";
  }
}
