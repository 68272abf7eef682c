/* SPDX-License-Identifier: MIT */
/* linux-perf.h - the Linux perf_event plumbing shared by the counters that
 * ask the kernel for a cycle counter (amd64-pmcff, amd64-perfpmc,
 * default-perfevent, and the arm64/riscv64 perf variants).
 *
 * The kernel only lets user space read the PMU when a perf event is open:
 * with /sys/bus/event_source/devices/cpu/rdpmc = 1 (the default), RDPMC is
 * allowed for a process that has mmap()ed such an event; with 2 it is
 * allowed everywhere.  perf_event_paranoid <= 2 is needed to open a
 * user-only event.  A machine without a PMU (most VMs) fails the open with
 * ENOENT or EOPNOTSUPP: "hardware events not supported".
 *
 * An event opened with pid 0 counts the thread that opened it, and only
 * that one: a count read in another thread is the opener's, not its own.
 * So the counters that read an event's count (default-perfevent, the
 * *-perfpmc ones) open one event per thread, on the thread's first read,
 * and read it through the library (never inline).  Each event is released
 * when its thread exits, when the library is unloaded, and in the child of
 * a fork() (perf mappings are not inherited, and inherited descriptors
 * count the parent's threads). */
#ifndef CPUCYCLES_LINUX_PERF_H
#define CPUCYCLES_LINUX_PERF_H
#include "cpucycles/counter.h"
#if defined(CPUCYCLES_HAVE_LINUX_PERF)
#include <linux/perf_event.h>

/* The event's count, read in user space through its control page, as
 * include/uapi/linux/perf_event.h documents: the kernel may move the event
 * to another hardware counter, or stop it, at any context switch, and bumps
 * pc->lock when it does, so the loop retries until index, offset and the
 * counter were read with no update in between.  read_pmc(index) reads the
 * hardware counter the page names (index is 1-based); the counter is
 * pmc_width bits wide and is sign-extended (an arithmetic right shift, as
 * GCC and Clang define it) before offset is added.  read_pmc is always a
 * constant, so the compiler inlines it. */
static inline long long cpucycles_perf_page_count(volatile struct perf_event_mmap_page *pc,
                                                 unsigned long long (*read_pmc)(unsigned int))
{
  unsigned int seq, index, width;
  unsigned long long count, pmc;
  do {
    seq = pc->lock;
    CPUCYCLES_COMPILER_BARRIER();
    index = pc->index;
    count = (unsigned long long)pc->offset;
    if (pc->cap_user_rdpmc && index) {
      width = pc->pmc_width;
      pmc = read_pmc(index) << (64 - width);
      count += (unsigned long long)((long long)pmc >> (64 - width));
    }
    CPUCYCLES_COMPILER_BARRIER();
  } while (pc->lock != seq);
  return (long long)count;
}

#if defined(CPUCYCLES_COUNTER_SETUP)
/* Setup half: system calls that the installed header never needs. */
#include "seccomp.h"
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* What a perf counter changes as it runs: in .bss, apart from its
 * constant configuration below. */
struct cpucycles_perf_state {
  /* A thread whose event cannot be opened counts with CLOCK_MONOTONIC
   * times this (cycles per ns, 32.32), never with a frozen 0. */
  unsigned long long fallback_q32;
  pthread_key_t key;             /* per-thread events: released at thread exit */
  int per_thread;                /* 1 when key exists */
  int used;                      /* an event was ever opened: release has work */
};

/* How a counter wants its events: constant (the library's writable,
 * initialized data is a page of its own on disk: HACKING.md). */
struct cpucycles_perf_config {
  unsigned long long config1[2]; /* tried in turn (arm64: 64-bit, then 32-bit) */
  unsigned char ntries;          /* how many of config1[] */
  unsigned char keep_fd;         /* keep the descriptor: to read() the
                                    count, or (riscv) to disable the event
                                    before its page goes (see
                                    cpucycles_perf_unplace) */
  unsigned char need_rdpmc;      /* the page must let user space read the PMU */
  unsigned char need_index;      /* nonzero: and name this counter (the one
                                    the read reads: riscv's cycle CSR, 1) */
  struct cpucycles_perf_state *state;
};

/* One open event: a thread's, or (amd64-pmcff, riscv64-perfrdcycle) the
 * process's, which is there only to make the kernel allow the reads. */
struct cpucycles_perf_event {
  volatile struct perf_event_mmap_page *page; /* its control page, or 0 */
  int fd;                   /* kept only when config->keep_fd, else -1 */
  int open;                 /* page/fd are ours */
  int failed;               /* this thread could not open one: fallback */
  unsigned long long id;    /* PERF_EVENT_IOC_ID of fd */
  long long base, last;     /* read() counters: continuity over a re-open */
  pid_t pid;                /* the process that opened it */
  const struct cpucycles_perf_config *config;
  struct cpucycles_perf_event *next; /* in cpucycles_perf_events */
};

/* The per-thread event of a counter read in user space (the *-perfpmc
 * and *-perfrdcycle ones), which every read looks up, is found without a
 * call to __tls_get_addr() (tls.h). */
#include "tls.h"

/* Every open event of the process (the library's or the probe's copy of
 * this file), for release and fork.  The lock is taken with signals
 * blocked, so a handler cannot wait for its own thread. */
static struct cpucycles_perf_event *cpucycles_perf_events;
static pthread_mutex_t cpucycles_perf_lock = PTHREAD_MUTEX_INITIALIZER;
/* Set in the thread whose fork() holds the lock (from the prepare handler
 * to the parent's or child's): a program's fork handler in that thread
 * may set a counter up, and must not wait for its own thread. */
static __thread int cpucycles_perf_held_by_fork;

static inline void cpucycles_perf_lock_all(sigset_t *saved)
{
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, saved);
  if (!cpucycles_perf_held_by_fork) pthread_mutex_lock(&cpucycles_perf_lock);
}

static inline void cpucycles_perf_unlock_all(const sigset_t *saved)
{
  if (!cpucycles_perf_held_by_fork) pthread_mutex_unlock(&cpucycles_perf_lock);
  pthread_sigmask(SIG_SETMASK, saved, 0);
}

/* Unlinks e; with the lock held. */
static inline void cpucycles_perf_unlink(struct cpucycles_perf_event *e)
{
  struct cpucycles_perf_event **p;
  for (p = &cpucycles_perf_events; *p; p = &(*p)->next)
    if (*p == e) {
      *p = e->next;
      break;
    }
  e->next = 0;
}

/* Takes a mapped event off its counter before its page is unmapped.
 * riscv's SBI PMU driver, when the page of an event that is on a counter
 * goes, clears that counter's bit of scounteren on every CPU the process
 * has run on: the next RDCYCLE of another process's thread running there
 * dies of SIGILL (Debian's 7.2 kernel under qemu: a reader on one CPU died
 * in 3 runs of 3 while other processes unmapped such pages on the other,
 * in none of 3 when they disabled the event first).  A disabled event is
 * on no counter, and its unmapping clears nothing.  fd must be the
 * event's (riscv's counters keep it: keep_fd).  Other drivers take back
 * only what they gave the process: nothing to do there. */
CPUCYCLES_COLD static inline void cpucycles_perf_unplace(int fd)
{
#if defined(__riscv)
  if (fd >= 0) ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
#else
  (void)fd;
#endif
}

/* 1 when e keeps a descriptor and it is still the event's: a program may
 * close every descriptor (a daemon) and open a file that gets the same
 * number, which is then the program's, never to be read or closed here.
 * Asked before each read() and at each release; one copy, not inlined. */
__attribute__((__noinline__)) static int cpucycles_perf_fd_ours(const struct cpucycles_perf_event *e)
{
  unsigned long long id = 0;
  return e->fd >= 0 && ioctl(e->fd, PERF_EVENT_IOC_ID, &id) == 0 && id == e->id;
}

/* read() and close() as the bare system calls, which unlike the C
 * library's wrappers are not cancellation points: a thread's last read
 * and exit, a fork's child and the library's unloading reach these with
 * cancellation as the program left it, and the library's code has no
 * unwind tables to cancel through (configure.ac says why).  The system
 * calls are the ones the wrappers make, so a seccomp filter sees the same. */
static inline int cpucycles_perf_close_fd(int fd)
{
  return (int)syscall(SYS_close, (long)fd);
}

/* Gives back e's page and descriptor; with the lock held.  zero_page
 * replaces the page by zeros instead of unmapping it, for when another
 * thread may still be reading it (the process is exiting). */
CPUCYCLES_COLD static inline void cpucycles_perf_close(struct cpucycles_perf_event *e,
                                                       int zero_page)
{
  size_t size = (size_t)sysconf(_SC_PAGESIZE);
  int ours = cpucycles_perf_fd_ours(e); /* a lost descriptor stays the program's */
#if defined(__riscv)
  /* An event whose descriptor is lost cannot be disabled: its page stays
   * mapped rather than take RDCYCLE from the other threads. */
  if (!ours) e->page = 0;
  if (e->page) cpucycles_perf_unplace(e->fd);
#endif
  if (e->page) {
    if (zero_page)
      mmap((void *)e->page, size, PROT_READ, MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    else
      munmap((void *)e->page, size);
  }
  if (ours) cpucycles_perf_close_fd(e->fd);
  e->page = 0;
  e->fd = -1;
  e->open = 0;
}

/* Why perf_event_open() failed, with its errno (by name; the errnos that
 * mean one thing share a message). */
CPUCYCLES_COLD static inline const char *cpucycles_perf_errno_reason(int error)
{
  if (error == ENOENT || error == EOPNOTSUPP || error == ENODEV)
    return "perf_event_open: hardware cycle events not supported (no PMU: ENOENT, EOPNOTSUPP or ENODEV)";
  if (error == EACCES || error == EPERM)
    return "perf_event_open: not permitted (EACCES or EPERM: see /proc/sys/kernel/perf_event_paranoid)";
  if (error == EINVAL) return "perf_event_open: the PMU refused the cycles event, with the kernel excluded and without (EINVAL)";
  if (error == ENOSYS) return "perf_event_open: no such system call (ENOSYS)";
  if (error == EMFILE || error == ENFILE) return "perf_event_open: out of file descriptors (EMFILE or ENFILE)";
  return "perf_event_open failed, with an errno none of the above"; /* (room: HACKING.md, the size) */
}

/* The event every perf counter asks for first: the CPU's cycles, in user
 * space only (config1: the arch's flags, e.g. arm64's user-access bit).
 * Pinned: the kernel puts it on the PMU before any flexible event of the
 * thread, every time the thread is scheduled, so it never stands still
 * while multiplexed out, and a cycles event keeps the cycle counter.
 * riscv's read needs the latter: its RDCYCLE reads the cycle CSR, which
 * the SBI PMU driver lets user mode read only while the event is on it;
 * unpinned beside another cycles event of the thread (the selection opens
 * default-perfevent's), it was moved off on a reschedule in 3 to 71 of 100
 * reschedules (Debian's 7.2 kernel under qemu), and the count stood still
 * or a read died of SIGILL.  A pinned event that cannot be placed (other
 * pinned events hold the counters) is in error: read() returns 0 bytes (a
 * lost event: replaced) and its page names no counter (the count stands
 * still, as an unpinned one's did whenever it was multiplexed out). */
CPUCYCLES_COLD static inline void cpucycles_perf_cycles_attr(struct perf_event_attr *attr,
                                                             unsigned long long config1)
{
  memset(attr, 0, sizeof *attr);
  attr->type = PERF_TYPE_HARDWARE;
  attr->size = sizeof *attr;
  attr->config = PERF_COUNT_HW_CPU_CYCLES;
  attr->config1 = config1;
  attr->exclude_kernel = 1;
  attr->exclude_hv = 1;
  attr->pinned = 1;
}

/* perf_event_open(attr) for this thread on any CPU, close-on-exec, or -1
 * with errno. */
CPUCYCLES_COLD static inline int cpucycles_perf_syscall(struct perf_event_attr *attr)
{
  int fd;
  /* the integers as long: syscall() is variadic and reads longs */
  fd = (int)syscall(SYS_perf_event_open, attr, 0L, -1L, -1L, (long)PERF_FLAG_FD_CLOEXEC);
  if (fd < 0 && errno == EINVAL) {
    /* kernels before 3.14 know no PERF_FLAG_FD_CLOEXEC */
    fd = (int)syscall(SYS_perf_event_open, attr, 0L, -1L, -1L, 0L);
    if (fd >= 0) fcntl(fd, F_SETFD, FD_CLOEXEC);
  }
  return fd;
}

/* A close-on-exec descriptor for a CPU-cycles event of this thread on any
 * CPU, or -1 with *reason.  User space only where the PMU can tell the
 * privilege modes apart; a PMU that cannot refuses exclude_kernel and
 * exclude_hv with EINVAL (riscv's SBI PMU without the Sscofpmf extension,
 * as on Debian's riscv64 kernel under qemu; some arm32 and ppc PMUs), so
 * the event is asked for again counting every mode, as libcpucycles does.
 * The counters read from user space (RDCYCLE, PMCCNTR, RDPMC) count every
 * mode on such hardware anyway; a read() of the event then also counts
 * the cycles the kernel spends for the thread, in interrupts and system
 * calls, which a region free of system calls seldom holds. */
CPUCYCLES_COLD static inline int cpucycles_perf_open_fd(unsigned long long config1,
                                                        const char **reason)
{
  struct perf_event_attr attr;
  struct cpucycles_selection_memo *memo = &cpucycles_selection_memo;
  int fd;
  /* in a selection, a cycles event that did not open for an earlier
   * counter does not open for this one (memo.h) */
  if (memo->active && memo->perf_errno && memo->perf_config1 == config1) {
    *reason = cpucycles_perf_errno_reason(memo->perf_errno);
    return -1;
  }
  cpucycles_perf_cycles_attr(&attr, config1);
  if (!cpucycles_seccomp_allows(SYS_perf_event_open, (long)&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC)) {
    *reason = CPUCYCLES_SECCOMP_REASON;
    return -1;
  }
  fd = cpucycles_perf_syscall(&attr);
  if (fd < 0 && (errno == EINVAL || errno == EOPNOTSUPP)) {
    attr.exclude_kernel = 0;
    attr.exclude_hv = 0;
    fd = cpucycles_perf_syscall(&attr);
  }
  if (fd < 0) {
    *reason = cpucycles_perf_errno_reason(errno);
    /* what no later open in this selection can change: no PMU, not
     * permitted, no system call, an event the PMU refuses (not a lack of
     * descriptors or memory, an interrupted or busy call) */
    if (memo->active && (errno == ENOENT || errno == EOPNOTSUPP || errno == ENODEV ||
                         errno == EACCES || errno == EPERM || errno == ENOSYS || errno == EINVAL))
      memo->perf_errno = errno, memo->perf_config1 = config1;
  }
  return fd;
}

/* Opens e for the calling thread as config says and registers it.
 * Returns 0, or -1 with *reason (nothing left open). */
CPUCYCLES_COLD
static inline int cpucycles_perf_open(struct cpucycles_perf_event *e,
                                      const struct cpucycles_perf_config *config,
                                      const char **reason)
{
  void *m = MAP_FAILED;
  volatile struct perf_event_mmap_page *pc;
  sigset_t saved;
  int i, fd = -1, saved_errno = errno, cancel_state;

  /* A thread's first read opens its event here: its open(), read() and
   * close() must not be where the thread is cancelled (no unwind tables:
   * configure.ac). */
  pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel_state);
  e->page = 0;
  e->fd = -1;
  e->open = 0;
  e->config = config;
  config->state->used = 1;
  for (i = 0; i < config->ntries && fd < 0; i++) fd = cpucycles_perf_open_fd(config->config1[i], reason);
  if (fd < 0) goto fail;
  if (!config->keep_fd || config->need_rdpmc) {
    m = mmap(0, (size_t)sysconf(_SC_PAGESIZE), PROT_READ, MAP_SHARED, fd, 0);
    if (m == MAP_FAILED) {
      *reason = "mmap of the perf event page failed";
      goto fail;
    }
    pc = (volatile struct perf_event_mmap_page *)m;
    if (config->need_rdpmc && (!pc->cap_user_rdpmc || !pc->index)) {
      *reason = "kernel does not allow user-space reads of this event (cap_user_rdpmc or index is 0)";
      goto fail;
    }
    if (config->need_index && pc->index != config->need_index) {
      *reason = "the cycles event is not on the counter this read reads (the cycle CSR)";
      goto fail;
    }
    if (config->need_rdpmc && pc->pmc_width != 32 && pc->pmc_width != 64) {
      *reason = "unexpected pmc_width in the perf event page";
      goto fail;
    }
    e->page = pc;
  }
  if (config->keep_fd) {
    if (ioctl(fd, PERF_EVENT_IOC_ID, &e->id) != 0) {
      *reason = "perf event has no id (PERF_EVENT_IOC_ID)";
      goto fail;
    }
    e->fd = fd;
    e->base = e->last; /* a new event counts from 0: count on from the last count */
  } else {
    /* The mapping keeps the event alive: no descriptor for the program
     * to close, reuse or leak into exec'd children. */
    close(fd);
  }
  e->open = 1;
  e->pid = getpid();
  cpucycles_perf_lock_all(&saved);
  e->next = cpucycles_perf_events;
  cpucycles_perf_events = e;
  cpucycles_perf_unlock_all(&saved);
  if (config->state->per_thread) pthread_setspecific(config->state->key, e);
  fd = 0;
  goto done;
fail:
  if (m != MAP_FAILED) {
    cpucycles_perf_unplace(fd);
    munmap(m, (size_t)sysconf(_SC_PAGESIZE));
  }
  if (fd >= 0) close(fd);
  e->page = 0;
  fd = -1;
done:
  pthread_setcancelstate(cancel_state, 0);
  errno = saved_errno;
  return fd;
}

/* A thread's exit: its event goes, page and descriptor (on riscv the
 * event is disabled first: cpucycles_perf_close).  riscv's pages once
 * stayed mapped for the rest of the process (a page and an idle event per
 * exited thread), because unmapping the page of an event on the cycle CSR
 * took RDCYCLE from the process's other threads; a disabled event's page
 * takes nothing. */
CPUCYCLES_COLD static inline void cpucycles_perf_thread_exit(void *arg)
{
  struct cpucycles_perf_event *e = (struct cpucycles_perf_event *)arg;
  sigset_t saved;
  cpucycles_perf_lock_all(&saved);
  cpucycles_perf_unlink(e);
  cpucycles_perf_close(e, 0);
  cpucycles_perf_unlock_all(&saved);
}

/* Setup of a counter with per-thread events: the calling thread's event
 * now (in a fork's child, s->defer_open: on its first read too), the
 * others' on their first read.  A thread whose event is already
 * open keeps it (a second setup, as cpucycles_tracesetup() or a selection
 * makes after the first call, must not open another over the same record:
 * the first would leak, still counting, and the record would be linked
 * twice into the list of events).  Returns 0 or -1 with s->reason. */
CPUCYCLES_COLD
static inline int cpucycles_perf_setup_per_thread(struct cpucycles_perf_event *e,
                                                  const struct cpucycles_perf_config *config,
                                                  struct cpucycles_setup *s)
{
  struct cpucycles_perf_state *state = config->state;
  state->fallback_q32 = CPUCYCLES_SCALE_Q32((double)s->persecond / 1e9);
  if (!state->per_thread) {
    if (pthread_key_create(&state->key, cpucycles_perf_thread_exit) != 0) {
      s->reason = "pthread_key_create failed";
      return -1;
    }
    state->per_thread = 1;
  }
  if (e->open) return 0;
  e->failed = 0;
  if (s->defer_open) return 0; /* at the thread's first read */
  return cpucycles_perf_open(e, config, &s->reason);
}

/* Releases every event of config (all threads), or of every config when
 * config is 0, and its thread-exit key; zero_page as cpucycles_perf_close. */
CPUCYCLES_COLD static inline void cpucycles_perf_release(const struct cpucycles_perf_config *config,
                                                         int zero_page)
{
  struct cpucycles_perf_event **p, *e;
  sigset_t saved;
  struct cpucycles_perf_state *state = config ? config->state : 0;
  if (state && !state->used && !state->per_thread) return; /* never set up */
  cpucycles_perf_lock_all(&saved);
  for (p = &cpucycles_perf_events; (e = *p) != 0;) {
    if (config && e->config != config) {
      p = &e->next;
      continue;
    }
    *p = e->next;
    e->next = 0;
    if (e->config && e->config->state->per_thread) {
      pthread_key_t key = e->config->state->key;
      if (pthread_getspecific(key) == e) pthread_setspecific(key, 0);
    }
    cpucycles_perf_close(e, zero_page);
  }
  cpucycles_perf_unlock_all(&saved);
  if (state && state->per_thread) {
    pthread_key_delete(state->key);
    state->per_thread = 0;
  }
}

/* For pthread_atfork: no registry change is under way at the fork. */
CPUCYCLES_COLD static inline void cpucycles_perf_fork_prepare(void)
{
  pthread_mutex_lock(&cpucycles_perf_lock);
  cpucycles_perf_held_by_fork = 1;
}
CPUCYCLES_COLD static inline void cpucycles_perf_fork_parent(void)
{
  cpucycles_perf_held_by_fork = 0;
  pthread_mutex_unlock(&cpucycles_perf_lock);
}

/* In the child of a fork() (after prepare): the perf mappings were not
 * inherited, and the inherited descriptors count the parent's threads.
 * Closes those and forgets their events; per-thread ones reopen on the
 * next read.  An event this process opened itself (a program's child
 * handler, which runs before ours, made the first call) stays. */
CPUCYCLES_COLD static inline void cpucycles_perf_forget_after_fork(void)
{
  struct cpucycles_perf_event *e, *next, **kept = &cpucycles_perf_events;
  pid_t here = getpid();
  for (e = cpucycles_perf_events; e; e = next) {
    next = e->next;
    if (e->pid == here) {
      *kept = e;
      kept = &e->next;
      continue;
    }
    if (e->fd >= 0) cpucycles_perf_close_fd(e->fd);
    e->fd = -1;
    e->page = 0;
    e->open = 0;
    e->next = 0;
  }
  *kept = 0;
  cpucycles_perf_held_by_fork = 0;
  pthread_mutex_unlock(&cpucycles_perf_lock);
}

/* The count of a thread without an event: CLOCK_MONOTONIC in cycles. */
static inline long long cpucycles_perf_fallback(const struct cpucycles_perf_config *config)
{
  struct timespec t;
  if (clock_gettime(CLOCK_MONOTONIC, &t) != 0) return 0;
  return cpucycles_scale_ticks((long long)t.tv_sec * 1000000000LL + t.tv_nsec,
                               config->state->fallback_q32);
}

/* The calling thread's event of config, opened on first use; 0 when it
 * cannot have one (then the counter counts with the fallback). */
static inline struct cpucycles_perf_event *cpucycles_perf_thread_event(
    struct cpucycles_perf_event *e, const struct cpucycles_perf_config *config)
{
  const char *reason;
  /* e is a thread-local variable's address: taken once, not again for
   * each member the read touches (gcc 12 recomputed it, a second TLS
   * descriptor call in amd64-perfpmc's read). */
  __asm__("" : "+r"(e));
  if (e->open) return e;
  if (e->failed) return 0;
  if (cpucycles_perf_open(e, config, &reason) == 0) return e;
  e->failed = 1;
  return 0;
}

/* Forgets e, whose descriptor is not our event any more, without closing
 * it (the number may be the program's now).  The read's rare path, kept
 * out of it (not inlined: the read stays as short as it was). */
CPUCYCLES_COLD __attribute__((__noinline__)) static void cpucycles_perf_forget(
    struct cpucycles_perf_event *e)
{
  sigset_t saved;
  cpucycles_perf_lock_all(&saved);
  cpucycles_perf_unlink(e);
  cpucycles_perf_unlock_all(&saved);
  e->fd = -1;
  e->open = 0;
}

/* A read()-based count of the calling thread's event.  Before each read()
 * the descriptor is checked to be still our event (PERF_EVENT_IOC_ID): a
 * program that closes every descriptor (a daemon) and opens a file that
 * gets the same number must not have that file read.  A lost event is
 * replaced, counting on from the last count, which is never undercut. */
static inline long long cpucycles_perf_read_count(struct cpucycles_perf_event *e,
                                                  const struct cpucycles_perf_config *config)
{
  unsigned long long value;
  long long count;
  int tries, saved_errno = errno;
  for (tries = 0; tries < 2; tries++) {
    if (!cpucycles_perf_thread_event(e, config)) {
      count = cpucycles_perf_fallback(config);
      break;
    }
    /* the bare system call: no cancellation point (cpucycles_perf_close_fd) */
    if (cpucycles_perf_fd_ours(e) &&
        syscall(SYS_read, (long)e->fd, &value, (long)sizeof value) == (long)sizeof value) {
      count = e->base + (long long)value;
      break;
    }
    /* Not ours any more: forget it and open another. */
    cpucycles_perf_forget(e);
    count = e->last;
  }
  if (count < e->last) count = e->last;
  e->last = count;
  errno = saved_errno;
  return count;
}
#endif /* CPUCYCLES_COUNTER_SETUP */
#endif /* CPUCYCLES_HAVE_LINUX_PERF */
#endif
