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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void mark(void) { printf("MARK\n"); }

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
  fflush(stdout);
  for (i = 0; i < THREADS; i++)
    if (pthread_create(&t[i], 0, first_call, &counts[i]) == 0) n++;
    else break;
  __atomic_store_n(&go, 1, __ATOMIC_RELEASE);
  for (i = 0; i < n; i++) pthread_join(t[i], 0);
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

/* Runs one case in a fresh child, its standard output the file. */
static int run_fresh(void (*run)(void), const char *path)
{
  int status;
  pid_t pid;
  fflush(stdout);
  pid = fork();
  if (pid == 0) {
    if (!freopen(path, "w", stdout)) _exit(3);
    run();
    exit(fflush(stdout) == 0 ? 0 : 3);
  }
  if (pid < 0 || waitpid(pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int main(void)
{
  char path[] = "/tmp/t-trace.XXXXXX", got[64];
  size_t i;
  int fd = mkstemp(path), status, well_formed;
  tap_plan((int)(sizeof cases / sizeof cases[0]));
  if (fd < 0) {
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) tap_skip(cases[i].what, "no temporary file");
    return tap_done();
  }
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
  return tap_done();
}
