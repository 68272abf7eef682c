/* SPDX-License-Identifier: MIT */
/* cpucycles.c - the public functions and the first-call decision.
 *
 * The first call to cpucycles() (or any function here) makes the decision
 * once; callers need no lock around it.  After it:
 *   - verified: cpucycles_abi_inline_id holds the build's counter id and
 *     the inline read in <cpucycles.h> is used; this library is not called
 *     again by programs built against this build's header;
 *   - not verified (or a program built against another build): every
 *     cpucycles() makes one indirect call, through cpucycles_abi_read,
 *     which the decision pointed at the chosen counter's read (through a
 *     small wrapper for a scaled counter).
 *
 * The first call may come from a signal handler, or from several threads
 * at once, or be interrupted by fork(): it takes no lock (a thread that
 * comes second waits for the first to finish, yielding, then sleeping),
 * blocks the calling thread's asynchronous signals while it runs (so no
 * handler in that thread can re-enter it or jump out of it), allocates
 * nothing, and keeps errno. */
/* This file defines the ABI symbols the header declares weak for programs
 * (so that they also run with libcpucycles' own library): here they are
 * the library's ordinary, exported definitions. */
#define CPUCYCLES_NO_LIBCPUCYCLES_FALLBACK 1
#include "cpucycles.h"
#include "decide.h"
#include "info-abi.h"
#include "private.h"
#include "guard.h"
#include "table.h"
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

unsigned int cpucycles_abi_inline_id;
unsigned long long cpucycles_abi_inline_scale_q32;

enum { UNDECIDED, DECIDING, DECIDED };
/* A decision made once in the process: its state, while DECIDING the
 * thread making it (this_thread()), and how many threads wait for it
 * (asleep on state, a futex, where there is one). */
struct once {
  int state;
  int waiters;
  long decider;
};
static struct once decision_once = {UNDECIDED, 0, 0};
static struct once persecond_once = {UNDECIDED, 0, 0};
static struct cpucycles_decision decision;
/* cpucycles_tracesetup()'s printer while its lines wait for the decision. */
static void (*trace_armed)(void);
static long long (*dispatch_read)(void);
static unsigned long long dispatch_scale_q32;

static long long first_read(void);
long long (*cpucycles_abi_read)(void) = first_read;

/* The read of a scaled counter: its ticks, in cycles. */
static long long scaled_read(void)
{
  return cpucycles_scale_ticks(dispatch_read(), dispatch_scale_q32);
}

CPUCYCLES_COLD void cpucycles_build_plan(struct cpucycles_plan *plan)
{
  plan->build_counter = CPUCYCLES_BUILD_CHOICE ? cpucycles_table_find(CPUCYCLES_CHOSEN) : -1;
  plan->build_precision = CPUCYCLES_BUILD_PRECISION;
  plan->build_scale = CPUCYCLES_INLINE_SCALE;
  plan->build_fingerprint = CPUCYCLES_BUILD_FINGERPRINT;
  plan->build_persecond = CPUCYCLES_BUILD_PERSECOND;
#if defined(CPUCYCLES_INLINE_READ)
  plan->build_inline = 1;
#else
  plan->build_inline = 0;
#endif
}

/* Set in the thread that is forking, from our prepare handler to our
 * parent or child handler, while it holds the guard's and the perf
 * registry's locks (its own calls take them again: guard.c,
 * linux-perf.h); forking_from is the process it forks. */
static __thread int forking_here;

/* The calling thread, as the kernel knows it.  Not a thread-local
 * variable's address (but where there is no gettid): a child made with
 * clone(CLONE_VM) and no TLS of its own shares its parent's, and would
 * take the parent's decision for its own. */
CPUCYCLES_COLD __attribute__((__noinline__)) static long this_thread(void)
{
#if defined(__linux__) && defined(SYS_gettid)
  long tid = syscall(SYS_gettid);
  if (tid > 0) return tid;
#endif
  return (long)(uintptr_t)&forking_here;
}

static pid_t forking_from;
static void take_fork_locks(void);
static void let_go_fork_locks(void);

/* In a thread that is forking, another thread's decision may be waiting
 * for the locks the fork holds (a program's fork handler made the call).
 * In the parent, they are let go until that decision is made; in the
 * child, before our child handler runs (a program's own runs first), the
 * deciding thread is not there to finish: the decision starts again. */
CPUCYCLES_COLD static void wait_while_forking(struct once *once)
{
  int expected = DECIDING;
  if (getpid() != forking_from) {
    __atomic_compare_exchange_n(&once->state, &expected, UNDECIDED, 0, __ATOMIC_ACQ_REL,
                                __ATOMIC_ACQUIRE);
    return;
  }
  let_go_fork_locks();
  while (__atomic_load_n(&once->state, __ATOMIC_ACQUIRE) == DECIDING) sched_yield();
  take_fork_locks();
}

/* Linux's futex: FUTEX_WAIT sleeps while *word still holds value, and
 * FUTEX_WAKE wakes its sleepers (the numbers are the kernel's ABI, written
 * out: musl-gcc has no kernel headers).  A 32-bit target built with 64-bit
 * time may have only futex_time64: without a timeout, the same call.
 * Returns the system call's result; -1 with ENOSYS where there is none. */
#if defined(__linux__) && defined(SYS_futex)
#define CPUCYCLES_SYS_FUTEX SYS_futex
#elif defined(__linux__) && defined(SYS_futex_time64)
#define CPUCYCLES_SYS_FUTEX SYS_futex_time64
#endif
CPUCYCLES_COLD static long futex(int *word, int op, int value)
{
#if defined(CPUCYCLES_SYS_FUTEX)
  return syscall(CPUCYCLES_SYS_FUTEX, word, (long)(op | 128 /* FUTEX_PRIVATE_FLAG */), (long)value, 0L);
#else
  (void)word, (void)op, (void)value;
  errno = ENOSYS;
  return -1;
#endif
}

/* Another thread is deciding: wait, with this thread's signals as they
 * were (a handler here does no harm: it waits for the other thread too)
 * and still no cancellation point.  A few yields (a verified decision
 * takes microseconds), then asleep until the decider wakes us: threads
 * that poll take the CPUs from the one deciding, whose measurements then
 * take longer and see its waiters in them (64 threads polling every
 * 50 µs on a 2-CPU riscv64 kernel under TCG: 3 first calls in 83 took
 * over 10 s).  The waiter counts itself before it looks at the state, the
 * decider publishes before it looks at the count (both sequentially
 * consistent): either the decider sees the waiter and wakes it, or the
 * waiter sees DECIDED, or FUTEX_WAIT does (it sleeps only while the state
 * is still the one loaded).  Where there is no futex (or a filter refuses
 * it), naps that double up to 10 ms. */
CPUCYCLES_COLD static void wait_for_decision(struct once *once)
{
  struct timespec nap = {0, 50000};
  int state, yields;
  for (yields = 0; yields < 10; yields++) {
    if (__atomic_load_n(&once->state, __ATOMIC_ACQUIRE) == DECIDED) return;
    sched_yield();
  }
  __atomic_add_fetch(&once->waiters, 1, __ATOMIC_SEQ_CST);
  while ((state = __atomic_load_n(&once->state, __ATOMIC_SEQ_CST)) != DECIDED)
    if (futex(&once->state, 0 /* FUTEX_WAIT */, state) != 0 && errno != EAGAIN && errno != EINTR) {
      nanosleep(&nap, 0);
      if (nap.tv_nsec < 10000000) nap.tv_nsec *= 2;
    }
  __atomic_sub_fetch(&once->waiters, 1, __ATOMIC_RELAXED);
}

/* The decision is made: published, and its waiters woken. */
CPUCYCLES_COLD static void publish_decision(struct once *once)
{
  __atomic_store_n(&once->state, DECIDED, __ATOMIC_SEQ_CST);
  if (__atomic_load_n(&once->waiters, __ATOMIC_SEQ_CST)) futex(&once->state, 1 /* FUTEX_WAKE */, 0x7fffffff);
}

/* Runs decide() once in the process, however many threads call at once.
 * The thread that claims it has cancellation disabled (a cancellation
 * point inside, an open() or read(), would leave the claim standing and
 * every later caller spinning) and its asynchronous signals blocked (no
 * handler can run on top of it and wait for it), both from before the
 * claim until the decision is published.  Returns 1 once it is made, 0 in
 * the thread making it (a handler for a synchronous signal, a seccomp
 * trap's SIGSYS, on top of it: such a signal cannot be blocked): then the
 * caller must not wait, and answers as if there were no counter yet.
 * state is what run_once() loaded: not DECIDED. */
CPUCYCLES_COLD static int run_once_slow(struct once *once, void (*decide)(void), int state)
{
  struct cpucycles_signal_state saved;
  int expected, cancel_state, saved_errno, decided_here = 0;

  if (state == DECIDING && __atomic_load_n(&once->decider, __ATOMIC_ACQUIRE) == this_thread())
    return 0;
  saved_errno = errno;
  pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel_state);
  cpucycles_block_async_signals(&saved);
  for (;;) {
    expected = UNDECIDED;
    if (__atomic_compare_exchange_n(&once->state, &expected, DECIDING, 0, __ATOMIC_ACQ_REL,
                                    __ATOMIC_ACQUIRE)) {
      __atomic_store_n(&once->decider, this_thread(), __ATOMIC_RELEASE);
      decide();
      publish_decision(once);
      decided_here = once == &decision_once;
      break;
    }
    if (expected == DECIDED || !forking_here) break;
    wait_while_forking(once);
  }
  cpucycles_restore_signals(&saved);
  /* Armed tracesetup lines: printed here, where libcpucycles prints them
   * (its selection), once the decision is published (they ask for it and
   * the frequency) and with the signals as the program set them (a write
   * to a full pipe may block: a SIGINT must still end it); cancellation
   * is still disabled. */
  if (decided_here) {
    void (*print)(void);
    __atomic_thread_fence(__ATOMIC_SEQ_CST); /* cpucycles_trace_arm()'s */
    if ((print = __atomic_exchange_n(&trace_armed, (void (*)(void))0, __ATOMIC_ACQ_REL)) != 0) print();
  }
  wait_for_decision(once);
  pthread_setcancelstate(cancel_state, 0);
  errno = saved_errno;
  return 1;
}

/* Once decided, one load and a branch: what cpucycles_persecond() and
 * the other public functions pay on every call after the first. */
static inline int run_once(struct once *once, void (*decide)(void))
{
  int state = __atomic_load_n(&once->state, __ATOMIC_ACQUIRE);
  if (state == DECIDED) return 1;
  return run_once_slow(once, decide, state);
}

/* The decision itself. */
CPUCYCLES_COLD static void decide_now(void)
{
  struct cpucycles_plan plan;

  cpucycles_build_plan(&plan);
  cpucycles_decide(cpucycles_table, cpucycles_table_size, &plan, "/etc/cpucyclespersecond",
                   "cpucyclespersecond", &decision);
  cpucycles_table_release_others(decision.index, 0);
  dispatch_read = cpucycles_table[decision.index].read;
  dispatch_scale_q32 = CPUCYCLES_SCALE_Q32(decision.scale);
  __atomic_store_n(&cpucycles_abi_read, decision.scale != 1 ? scaled_read : dispatch_read,
                   __ATOMIC_RELEASE);
  if (decision.build_verified) {
    cpucycles_abi_inline_scale_q32 = dispatch_scale_q32;
    __atomic_store_n(&cpucycles_abi_inline_id, CPUCYCLES_INLINE_ID, __ATOMIC_RELEASE);
  }
}

/* Arms the lines, then looks whether the decision is published: the
 * decision's thread stores DECIDED before it takes them, so with a full
 * fence on each side one of the two sees the other's store, and the
 * exchange gives them to exactly one. */
CPUCYCLES_COLD int cpucycles_trace_arm(void (*print)(void))
{
  __atomic_store_n(&trace_armed, print, __ATOMIC_RELAXED);
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  if (__atomic_load_n(&decision_once.state, __ATOMIC_ACQUIRE) != DECIDED) return 1;
  return !__atomic_exchange_n(&trace_armed, (void (*)(void))0, __ATOMIC_ACQ_REL);
}

/* 1 once the counter is chosen; 0 in a handler on top of the choosing. */
static int ensure_decided(void)
{
  return run_once(&decision_once, decide_now);
}

/* Around fork(): the guard and the counters' registry are quiet while the
 * child is made (a lock held by another thread would stay held in the
 * child for good).  The forking thread's asynchronous signals are blocked
 * from before it takes those locks until it lets them go: a handler that
 * ran in between and made the process's first call would wait for a lock
 * its own thread holds.  The mask it had is kept while it holds the
 * locks, so one place serves every thread (and costs no TLS). */
static struct cpucycles_signal_state mask_before_fork;

CPUCYCLES_COLD static void take_fork_locks(void)
{
  cpucycles_guard_fork_prepare();
  cpucycles_table_fork_prepare();
}

CPUCYCLES_COLD static void let_go_fork_locks(void)
{
  cpucycles_table_fork_parent();
  cpucycles_guard_fork_done();
}

CPUCYCLES_COLD static void before_fork(void)
{
  struct cpucycles_signal_state mask;
  cpucycles_block_async_signals(&mask);
  take_fork_locks();
  mask_before_fork = mask;
  forking_from = getpid();
  forking_here = 1;
}

CPUCYCLES_COLD static void after_fork_in_parent(void)
{
  struct cpucycles_signal_state mask = mask_before_fork;
  forking_here = 0;
  let_go_fork_locks();
  cpucycles_restore_signals(&mask);
}

/* In the child of a fork(), only the forking thread exists: a decision
 * another thread had under way will never finish there, so the child
 * starts it again; and the counters' per-thread resources belonged to the
 * parent's threads. */
CPUCYCLES_COLD static void after_fork_in_child(void)
{
  int state = __atomic_load_n(&decision_once.state, __ATOMIC_ACQUIRE), cancel_state;
  struct cpucycles_signal_state mask = mask_before_fork;
  /* the counters' setup closes and opens descriptors: cancellation points */
  pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel_state);
  forking_here = 0;
  if (state == DECIDING) __atomic_store_n(&decision_once.state, UNDECIDED, __ATOMIC_RELEASE);
  if (__atomic_load_n(&persecond_once.state, __ATOMIC_ACQUIRE) == DECIDING)
    __atomic_store_n(&persecond_once.state, UNDECIDED, __ATOMIC_RELEASE);
  cpucycles_table_after_fork(state == DECIDED ? decision.index : -1, decision.persecond);
  cpucycles_guard_fork_done();
  cpucycles_restore_signals(&mask);
  pthread_setcancelstate(cancel_state, 0);
}

/* The shared library's read-only data (its constants and strings) mapped
 * at load: the first call reads them, and their segment's first read is
 * a page fault (1.5 µs in a KVM guest, a fifth of the first call) that
 * is taken here, beside the loader's own, instead of in the first call,
 * which programs often make inside a region they time: the same reason
 * the library is bound at load (-z now).  One read a page, of the
 * library's own read-only segments, found through its program headers
 * (__ehdr_start: the linker's name for the object's own ELF header);
 * where the linker put them in the code's segment (lld, gold, bfd off
 * x86), there is none, and the code's first fault maps them with it.
 * Only in a shared object: position-independent objects linked into a
 * program (a convenience library, a static library built --with-pic)
 * would find the program's headers, whose data is the program's to map;
 * and no more than a library's few pages. */
#if defined(PIC) && defined(__ELF__) && defined(__GNUC__) && defined(__linux__)
#include <link.h>
#include <sys/auxv.h>
#define READ_ONLY_PAGES_AT_MOST 16
extern const ElfW(Ehdr) __ehdr_start __attribute__((__weak__, __visibility__("hidden")));
CPUCYCLES_COLD static void map_read_only_data(void)
{
  const char *header = (const char *)&__ehdr_start;
  const ElfW(Phdr) *ph;
  uintptr_t bias = 0, page = (uintptr_t)getauxval(AT_PAGESZ), at, end;
  int i, pages = 0;
  if (!header || page == 0 || (page & (page - 1)) != 0) return; /* no such symbol, no page size */
  ph = (const ElfW(Phdr) *)(header + __ehdr_start.e_phoff);
  if ((uintptr_t)ph == (uintptr_t)getauxval(AT_PHDR)) return; /* the program's own */
  for (i = 0; i < __ehdr_start.e_phnum; i++)
    if (ph[i].p_type == PT_LOAD && ph[i].p_offset == 0) bias = (uintptr_t)header - ph[i].p_vaddr;
  if (!bias) return;
  for (i = 0; i < __ehdr_start.e_phnum; i++) {
    if (ph[i].p_type != PT_LOAD || ph[i].p_offset == 0 || (ph[i].p_flags & (PF_R | PF_W | PF_X)) != PF_R)
      continue;
    end = bias + ph[i].p_vaddr + ph[i].p_filesz;
    for (at = (bias + ph[i].p_vaddr) & ~(page - 1); at < end && pages < READ_ONLY_PAGES_AT_MOST; at += page, pages++)
      (void)*(const volatile char *)at;
  }
}
#else
static void map_read_only_data(void) {}
#endif

/* The state the first call writes, its pages written at load: an atomic
 * no-op on a word of each (it changes nothing, and no first call can run
 * yet).  Linked into a program (the static library, bench), that state
 * lies in the program's .bss, whose first read and write were two page
 * faults in the first call (3.5 µs of bench's 7.8); in the shared library
 * the loader's relocations have written its data page already, and these
 * cost nothing.  And this thread's block of the library's thread-local
 * variables: loaded by dlopen(), the library has its block allocated in
 * each thread on first use (0.5 µs of the first call here); linked with
 * the program, it is in each thread's static block already. */
CPUCYCLES_COLD static void map_first_call_state(void)
{
  __atomic_fetch_or(&cpucycles_abi_inline_id, 0u, __ATOMIC_RELAXED);
  __atomic_fetch_or(&decision_once.state, 0, __ATOMIC_RELAXED);
  __atomic_fetch_or(&persecond_once.state, 0, __ATOMIC_RELAXED);
  {
    void (*none)(void) = 0; /* (a pointer: no fetch_or; a no-op where not 0) */
    __atomic_compare_exchange_n(&trace_armed, &none, none, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
  }
  __atomic_fetch_or(&decision.build_verified, 0, __ATOMIC_RELAXED); /* its front, */
  __atomic_fetch_or(&decision.reselected, 0, __ATOMIC_RELAXED);     /* which it fills */
  cpucycles_guard_map_state();
  __atomic_fetch_or(&forking_here, 0, __ATOMIC_RELAXED);
}

/* glibc's pthread_atfork() passes the library's __dso_handle along, so
 * that dlclose() takes the handlers back out with the code.  And the
 * first call's pages mapped (above). */
CPUCYCLES_COLD __attribute__((constructor)) static void register_fork_handler(void)
{
  pthread_atfork(before_fork, after_fork_in_parent, after_fork_in_child);
  map_read_only_data();
  map_first_call_state();
}

/* dlclose() or exit: the chosen counter's descriptors and mappings go.  At
 * exit other threads may still be reading: they read zeros, not a hole. */
CPUCYCLES_COLD __attribute__((destructor)) static void release_counters(void)
{
  if (__atomic_load_n(&decision_once.state, __ATOMIC_ACQUIRE) == DECIDED)
    cpucycles_table_release_others(-1, 1);
}

/* The frequency, on first need (the verified path of a bare TSC or cycle
 * register leaves it out of the first call), once, as the decision. */
CPUCYCLES_COLD static void decide_persecond_now(void)
{
  struct cpucycles_plan plan;
  cpucycles_build_plan(&plan);
  cpucycles_decide_persecond(&plan, "/etc/cpucyclespersecond", "cpucyclespersecond",
                             &decision);
}

/* 1 once decision and frequency are known; 0 in a handler on top of
 * either being decided in this thread.  (Its slow part is one cold
 * function, not a cold fragment in each public function that asks.) */
CPUCYCLES_COLD static int ensure_persecond_slow(void)
{
  return ensure_decided() && run_once(&persecond_once, decide_persecond_now);
}

static inline int ensure_persecond(void)
{
  if (__atomic_load_n(&decision_once.state, __ATOMIC_ACQUIRE) == DECIDED &&
      __atomic_load_n(&persecond_once.state, __ATOMIC_ACQUIRE) == DECIDED)
    return 1;
  return ensure_persecond_slow();
}

const struct cpucycles_decision *cpucycles_decision(void)
{
  ensure_persecond();
  return &decision;
}

/* cpucycles_abi_read until the decision is made. */
static long long first_read(void)
{
  if (!ensure_decided()) return 0; /* a handler on top of the choosing */
  return __atomic_load_n(&cpucycles_abi_read, __ATOMIC_ACQUIRE)();
}

long long cpucycles_function(void)
{
  return cpucycles();
}

/* A handler on top of the choosing in its own thread gets answers that
 * need nothing decided: no counter yet (default-zero, the table's last),
 * and the build's frequency or the default. */
long long cpucycles_persecond(void)
{
  if (!ensure_persecond())
    return CPUCYCLES_BUILD_PERSECOND > 0 ? CPUCYCLES_BUILD_PERSECOND : CPUCYCLES_PERSECOND_DEFAULT;
  return decision.persecond;
}

const char *cpucycles_implementation(void)
{
  if (!ensure_persecond()) return cpucycles_table[cpucycles_table_size - 1].name;
  return cpucycles_table[decision.index].name;
}

/* The rule's enum cpucycles_counts is the API's CPUCYCLES_UNIT_* (measure.h
 * cannot include cpucycles.h: the probes compile it before configure has
 * written cpucycles-config.h). */
typedef char cpucycles_units_agree[(CPUCYCLES_COUNTS_NOTHING == CPUCYCLES_UNIT_NONE &&
                                    CPUCYCLES_COUNTS_CORE_CYCLES == CPUCYCLES_UNIT_CORE_CYCLES &&
                                    CPUCYCLES_COUNTS_CONSTANT_RATE == CPUCYCLES_UNIT_CONSTANT_RATE &&
                                    CPUCYCLES_COUNTS_OS_CLOCK == CPUCYCLES_UNIT_OS_CLOCK)
                                       ? 1
                                       : -1];

int cpucycles_unit_of_kind(int kind) { return cpucycles_kind_counts(kind); }

int cpucycles_unit(void)
{
  if (!ensure_decided()) return CPUCYCLES_UNIT_NONE;
  return cpucycles_unit_of_kind(cpucycles_table[decision.index].kind);
}

const char *cpucycles_unit_name(void)
{
  static const char *const names[] = {"none", "core cycles", "constant-rate cycles",
                                      "OS clock cycles"};
  return names[cpucycles_unit()];
}

const char *cpucycles_version(void)
{
  return CPUCYCLES_VERSION;
}

/* What this project's harness and cpucycles-info may ask beyond the API
 * (src/private.h).  Here, beside cpucycles_version(), because both refer
 * to it weakly: in a static build, only an object the program pulls in
 * anyway provides it. */
static const struct cpucycles_info_abi info_abi = {
    CPUCYCLES_VERSION,     sizeof(struct cpucycles_decision), cpucycles_decision, cpucycles_table,
    &cpucycles_table_size, cpucycles_kind_name,               cpucycles_kind_is_cycle_counter,
    cpucycles_choose,      cpucycles_rule_score};

CPUCYCLES_COLD static const char *persecond_source(void)
{
  return cpucycles_decision()->persecond_report.source;
}
CPUCYCLES_COLD static const char *host_fingerprint(void)
{
  return cpucycles_decision()->host_fingerprint;
}

static const struct cpucycles_private private_interface = {
    CPUCYCLES_PRIVATE_INTERFACE, sizeof(struct cpucycles_private), CPUCYCLES_VERSION,
    persecond_source,            host_fingerprint,                  cpucycles_guarded_call,
    &info_abi};

const struct cpucycles_private *cpucycles_private(void) { return &private_interface; }
