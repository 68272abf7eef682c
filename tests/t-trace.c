/* SPDX-License-Identifier: MIT */
/* t-trace - when cpucycles_tracesetup() prints, as libcpucycles does it:
 * called before the selection (the process's first call to any of the
 * library's functions), it arms the lines and that first call prints
 * them, so what the program prints in between comes first (libcpucycles'
 * own cpucycles-info calls it, then prints its version, then reads: the
 * version must be its first line); called after the selection, it prints
 * at once.  The lines are printed once whoever makes the first call:
 * cpucycles(), cpucycles_persecond(), eight threads at one instant.  Each
 * case is a fresh child process (the selection happens once a process),
 * its standard output a file, each line read back as one letter:
 *   M  the program's "MARK"
 *   T  a run of "cpucycles tracesetup N ..." lines, N from 0 up by one
 *   v  the "cpucycles verdict ..." line that ends them
 *   ?  anything else
 * and the case's letters compared with what libcpucycles would print. */
#include "cpucycles.h"
#include "tap.h"
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The program's line, flushed (as libcpucycles' parity checks do): the
 * lines are written at once, not through stdio, so a line the program
 * leaves in stdio's buffer comes after them (case_unflushed). */
static void mark(void)
{
  printf("MARK\n");
  fflush(stdout);
}

static void case_unflushed(void)
{
  cpucycles_tracesetup();
  printf("MARK\n");
  (void)cpucycles();
}

static void case_armed(void)
{
  cpucycles_tracesetup();
  mark();
  (void)cpucycles();
}

static void case_armed_persecond(void)
{
  cpucycles_tracesetup();
  mark();
  (void)cpucycles_persecond();
}

static void case_after(void)
{
  (void)cpucycles();
  cpucycles_tracesetup();
  mark();
}

static void case_twice_before(void)
{
  cpucycles_tracesetup();
  cpucycles_tracesetup();
  mark();
  (void)cpucycles();
}

static void case_before_and_after(void)
{
  cpucycles_tracesetup();
  mark();
  (void)cpucycles();
  cpucycles_tracesetup();
}

#define THREADS 8
static int go;
static void *first_call(void *arg)
{
  while (!__atomic_load_n(&go, __ATOMIC_ACQUIRE)) sched_yield();
  *(long long *)arg = cpucycles();
  return 0;
}

static void case_threads(void)
{
  pthread_t t[THREADS];
  long long counts[THREADS];
  int i, n = 0;
  cpucycles_tracesetup();
  mark();
  for (i = 0; i < THREADS; i++)
    if (pthread_create(&t[i], 0, first_call, &counts[i]) == 0) n++;
    else break;
  __atomic_store_n(&go, 1, __ATOMIC_RELEASE);
  for (i = 0; i < n; i++) pthread_join(t[i], 0);
}

/* The first call inside a SIGALRM handler that interrupts the program in
 * malloc() or free(), with the lines armed: they are printed there, so
 * without stdio (whose first write allocates its buffer).  The timer fires
 * at a random moment of a loop that does little else; the handler's count
 * is checked, so that a child whose signal never came does not pass. */
static volatile sig_atomic_t handled;
static volatile long long from_handler;
static HANDLER_ALIGN void first_call_in_handler(int sig)
{
  (void)sig;
  from_handler = cpucycles();
  handled = 1;
}

static void case_signal_in_malloc(void)
{
  struct sigaction sa;
  struct itimerval when = {{0, 0}, {0, 0}};
  struct timespec seed;
  void *p[16] = {0};
  unsigned i, r;
  clock_gettime(CLOCK_MONOTONIC, &seed);
  r = (unsigned)seed.tv_nsec ^ (unsigned)getpid();
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = first_call_in_handler;
  sigaction(SIGALRM, &sa, 0);
  cpucycles_tracesetup();
  when.it_value.tv_usec = 100 + r % 900;
  setitimer(ITIMER_REAL, &when, 0);
  for (i = 0; !handled; i++) {
    r = r * 1103515245u + 12345u;
    free(p[i % 16]);
    p[i % 16] = malloc(16 + (r >> 16) % 4000);
  }
  for (i = 0; i < 16; i++) free(p[i]);
  mark();
}

struct trace_case {
  void (*run)(void);
  const char *want;
  const char *what;
};

static const struct trace_case cases[] = {
    {case_armed, "MTv", "tracesetup, MARK, cpucycles(): MARK first, the lines at the first read"},
    {case_armed_persecond, "MTv",
     "tracesetup, MARK, cpucycles_persecond(): the lines at the first call of any function"},
    {case_after, "TvM", "cpucycles(), tracesetup, MARK: after the selection, the lines at once"},
    {case_twice_before, "MTv", "tracesetup twice before the first read: the lines once"},
    {case_before_and_after, "MTvTv", "tracesetup, MARK, cpucycles(), tracesetup: armed, then at once"},
    {case_threads, "MTv", "tracesetup, MARK, 8 threads' first calls at once: the lines once, whole"},
    {case_unflushed, "TvM",
     "tracesetup, MARK left in stdio's buffer, cpucycles(): the lines written at once, before it"},
};

/* The letters of the file's lines (above); 0 when it cannot be read or a
 * run of tracesetup lines does not count from 0 up by one. */
static int letters(const char *path, char *out, size_t size)
{
  char line[512];
  size_t n = 0;
  int next = 0, i, ok = 1;
  FILE *f = fopen(path, "r");
  if (!f) return 0;
  while (fgets(line, sizeof line, f) && n + 1 < size) {
    char c;
    if (!strcmp(line, "MARK\n")) c = 'M';
    else if (sscanf(line, "cpucycles tracesetup %d ", &i) == 1) {
      if (i != next) ok = 0;
      next = i + 1;
      if (n && out[n - 1] == 'T') continue;
      c = 'T';
    } else if (!strncmp(line, "cpucycles verdict ", 18)) c = 'v';
    else c = '?';
    if (c != 'T') next = 0;
    out[n++] = c;
  }
  out[n] = 0;
  fclose(f);
  return ok;
}

/* Starts one case in a fresh child, its standard output the file. */
static pid_t start_fresh(void (*run)(void), const char *path)
{
  pid_t pid;
  fflush(stdout);
  pid = fork();
  if (pid == 0) {
    if (!freopen(path, "w", stdout)) _exit(3);
    run();
    exit(fflush(stdout) == 0 ? 0 : 3);
  }
  return pid;
}

/* Runs one case in a fresh child: its exit status, -1 when it did not exit. */
static int run_fresh(void (*run)(void), const char *path)
{
  int status;
  pid_t pid = start_fresh(run, path);
  if (pid < 0 || waitpid(pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* AddressSanitizer (gcc's macro, clang's feature) */
#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED_ADDRESS 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED_ADDRESS 1
#endif
#endif
#ifndef SANITIZED_ADDRESS
#define SANITIZED_ADDRESS 0
#endif

/* The signal case in SIGNAL_CHILDREN fresh processes, BATCH at a time
 * (processes side by side are what made the heap corruption common: 36 to
 * 47 of 200 died on the code that printed with stdio), each within
 * DEADLINE_S seconds (a handler that deadlocks in stdio's lock would hang
 * it: it is killed and counted).  One check: every child exited 0 and
 * printed the lines, whole and once, before its MARK (the program's own
 * output is buffered by stdio and written at exit, after the trace's,
 * which is written at once). */
#define SIGNAL_CHILDREN 200
#define BATCH 8
#define DEADLINE_S 20
static void check_signal_case(const char *dir)
{
  char path[BATCH][256], got[64], why[160] = "";
  pid_t pids[BATCH];
  int done = 0, bad = 0, killed = 0, i, n, status, well_formed;
  time_t deadline;
  while (done < SIGNAL_CHILDREN) {
    n = SIGNAL_CHILDREN - done < BATCH ? SIGNAL_CHILDREN - done : BATCH;
    for (i = 0; i < n; i++) {
      snprintf(path[i], sizeof path[i], "%s/%d", dir, i);
      pids[i] = start_fresh(case_signal_in_malloc, path[i]);
    }
    deadline = time(0) + DEADLINE_S;
    for (i = 0; i < n; i++) {
      int waited = 0;
      while (pids[i] > 0 && (waited = (int)waitpid(pids[i], &status, WNOHANG)) == 0 && time(0) < deadline) {
        struct timespec nap = {0, 1000000};
        nanosleep(&nap, 0);
      }
      if (pids[i] > 0 && waited == 0) {
        kill(pids[i], SIGKILL);
        waitpid(pids[i], &status, 0);
        killed++;
      }
      got[0] = 0;
      well_formed = letters(path[i], got, sizeof got);
      if (pids[i] <= 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0 || !well_formed ||
          strcmp(got, "TvM")) {
        if (!bad++)
          snprintf(why, sizeof why, "; the first: %s %d, lines %s",
                   pids[i] <= 0 ? "no fork" : WIFSIGNALED(status) ? "signal" : "exit",
                   pids[i] <= 0 ? 0 : WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status), got);
      }
      remove(path[i]);
    }
    done += n;
  }
  tap_ok(bad == 0,
         "tracesetup, then the first call in a SIGALRM handler on top of malloc()/free(): %d of %d "
         "processes died, hung (%d, killed after %d s) or printed other lines%s",
         bad, SIGNAL_CHILDREN, killed, DEADLINE_S, why);
}

int main(void)
{
  char path[] = "/tmp/t-trace.XXXXXX", dir[] = "/tmp/t-trace-signal.XXXXXX", got[64];
  size_t i;
  int fd = mkstemp(path), status, well_formed;
  tap_plan((int)(sizeof cases / sizeof cases[0]) + 1);
  if (fd < 0) {
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) tap_skip(cases[i].what, "no temporary file");
  } else {
    close(fd);
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
      status = run_fresh(cases[i].run, path);
      got[0] = 0;
      well_formed = letters(path, got, sizeof got);
      tap_ok(status == 0 && well_formed && !strcmp(got, cases[i].want), "%s (lines %s, want %s%s, exit %d)",
             cases[i].what, got, cases[i].want, well_formed ? "" : "; tracesetup lines out of order",
             status);
    }
    remove(path);
  }
  if (SANITIZED_ADDRESS)
    tap_skip("tracesetup, then the first call in a signal handler on top of malloc()",
             "AddressSanitizer's build: its longjmp path allocates (on an alternate signal stack it "
             "asks pthread_getattr_np(), which callocs), and deadlocks in a handler that interrupted "
             "malloc(): the sanitizer's runtime, not the library, is not async-signal-safe there");
  else if (!mkdtemp(dir))
    tap_skip("tracesetup, then the first call in a signal handler on top of malloc()", "no temporary directory");
  else {
    check_signal_case(dir);
    rmdir(dir);
  }
  return tap_done();
}
