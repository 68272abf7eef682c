/* SPDX-License-Identifier: MIT */
/* t-atfork - a program's own fork handlers make the process's first call.
 *
 * A plugin host registers pthread_atfork() handlers, then loads the
 * shared library with dlopen() (so the library's handlers are registered
 * after the program's: its prepare handler runs first, its parent and
 * child handlers last), then forks; one of the program's handlers makes
 * the first call.  The library's prepare handler holds its locks until its
 * parent or child handler runs: a first call in between must not wait for
 * them (it did, for ever, with every asynchronous signal blocked).  Each
 * case runs in a process group of its own, killed if it has not finished
 * in TIMEOUT_SECONDS.  cpucycles_tracesetup() measures every counter:
 * guarded reads, and perf events (under tests/perfshim on a machine
 * without a PMU), so it takes the perf registry's lock too. */
#include "perf-util.h"
#include "tap.h"
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define TIMEOUT_SECONDS 60

enum { IN_PREPARE, IN_PARENT, IN_CHILD };
enum { CALL_COUNT, CALL_PERSECOND, CALL_TRACESETUP };

static int when, what;
static long long (*count)(void);
static long long (*persecond)(void);
static void (*tracesetup)(void);
static long long answer = -1; /* what the handler's call returned */

/* The first call, from a handler. */
static void first_call(void)
{
  int out, null;
  switch (what) {
  case CALL_COUNT: answer = count(); break;
  case CALL_PERSECOND: answer = persecond(); break;
  default:
    fflush(stdout);
    out = dup(1);
    null = open("/dev/null", O_WRONLY);
    dup2(null, 1);
    tracesetup();
    count(); /* the first call: it prints the lines tracesetup() armed */
    dup2(out, 1);
    close(out);
    close(null);
    answer = 1;
  }
}
/* Another thread's first call, racing the fork: it starts when the fork
 * has begun (the library's prepare handler holds its locks by then), and
 * the program's handler waits RACE_MS for it to be deciding, and waiting
 * for those locks, before making its own call. */
#define RACE_MS 50
static int racing;
static volatile int go;
static void *first_call_in_thread(void *arg)
{
  (void)arg;
  while (!go) sched_yield();
  count();
  return 0;
}
static void start_the_race(void)
{
  struct timespec pause = {0, RACE_MS * 1000000L};
  if (!racing) return;
  go = 1;
  nanosleep(&pause, 0);
}

static void prepare(void)
{
  start_the_race();
  if (when == IN_PREPARE) first_call();
}
static void parent(void) { if (when == IN_PARENT) first_call(); }
static void child(void) { if (when == IN_CHILD) first_call(); }

/* The case's process: 0 when fork() returned in both, the handler's call
 * answered, and the count works in both after it. */
static int run_case(const char *path)
{
  void *h;
  long long t0, t1;
  pthread_t thread;
  pid_t pid;
  int status;

  if (pthread_atfork(prepare, parent, child) != 0) return 10;
  if (!(h = dlopen(path, RTLD_NOW | RTLD_LOCAL))) return 11;
  *(void **)&count = dlsym(h, "cpucycles_function");
  *(void **)&persecond = dlsym(h, "cpucycles_persecond");
  *(void **)&tracesetup = dlsym(h, "cpucycles_tracesetup");
  if (!count || !persecond || !tracesetup) return 12;
  if (racing && pthread_create(&thread, 0, first_call_in_thread, 0) != 0) return 17;
  pid = fork();
  if (pid < 0) return 13;
  t0 = count();
  busy_ms(1);
  t1 = count();
  if (pid == 0) _exit(t1 > t0 && (when != IN_CHILD || answer > 0) ? 0 : 14);
  if (racing) pthread_join(thread, 0);
  if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) return 15;
  if (WEXITSTATUS(status) != 0) return WEXITSTATUS(status);
  return t1 > t0 && (when == IN_CHILD || answer > 0) ? 0 : 16;
}

/* Runs one case in its own process group; "" when it passed, else why. */
static const char *run_bounded(const char *path, char *why, size_t size)
{
  struct timespec tick = {0, 10000000};
  pid_t pid;
  int status, waited;

  fflush(stdout);
  pid = fork();
  if (pid < 0) return "fork failed";
  if (pid == 0) {
    setpgid(0, 0);
    _exit(run_case(path));
  }
  setpgid(pid, pid);
  for (waited = 0; waited < TIMEOUT_SECONDS * 100; waited++) {
    if (waitpid(pid, &status, WNOHANG) == pid) {
      kill(-pid, SIGKILL); /* a child the case left behind */
      if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return "";
      snprintf(why, size, "the case ended with %s %d", WIFEXITED(status) ? "status" : "signal",
               WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
      return why;
    }
    nanosleep(&tick, 0);
  }
  kill(-pid, SIGKILL);
  waitpid(pid, &status, 0);
  snprintf(why, size, "fork() had not returned after %d s: killed", TIMEOUT_SECONDS);
  return why;
}

int main(int argc, char **argv)
{
  static const char *const whens[] = {"prepare", "parent", "child"};
  static const char *const whats[] = {"cpucycles_function()", "cpucycles_persecond()",
                                      "cpucycles_tracesetup()"};
  char path[4096], why[128];
  const char *top = getenv("top_builddir"), *result;
  int i, j;

  (void)argc;
  perf_util_preload_shim(argv);
  tap_plan(12);
  snprintf(path, sizeof path, "%s/.libs/libcpucycles.so", top ? top : ".");
  for (racing = 0; racing < 2; racing++)
    for (i = 0; i < 3; i++)
      for (j = 0; j < (racing ? 1 : 3); j++) {
        if (access(path, R_OK) != 0) {
          tap_skip("a fork handler makes the first call", "no shared library in this build");
          continue;
        }
#if defined(TAP_UNDER_TSAN)
        if (racing) {
          tap_skip("a fork handler's first call while another thread makes its own",
                   "ThreadSanitizer does not support fork() in a multithreaded process");
          continue;
        }
#endif
        when = i, what = j;
        result = run_bounded(path, why, sizeof why);
        tap_ok(!result[0], "library loaded by dlopen() after the program's pthread_atfork(): its %s "
               "handler makes the first call, %s%s; fork() returns, the count works in both%s%s",
               whens[i], whats[j], racing ? ", while another thread is making its own" : "",
               result[0] ? ": " : "", result);
      }
  return tap_done();
}
