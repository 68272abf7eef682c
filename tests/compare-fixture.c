/* SPDX-License-Identifier: MIT */
/* compare-fixture.c - the shared objects tests/t-compare-tool.sh compiles
 * ($CC -shared -fPIC) and hands to cpucycles-compare as OLD and NEW:
 *   -DWORK=N      benchmark() and other() do N steps of work
 *   -DMARKER=S    a constructor writes "compare-fixture: S loaded" to
 *                 stderr (each build is seen to be loaded)
 *   -DCRASH       benchmark() raises SIGSEGV
 *   -DHANG        benchmark() never returns (its process's pid written to
 *                 the file $COMPARE_FIXTURE_PIDFILE names, if set)
 *   -DSLOW_US=N   benchmark() takes N microseconds (a busy wait)
 *   -DSLEEP_US=N  benchmark() sleeps N microseconds (switched out each call)
 *   -DHELPER      benchmark()'s first call starts `sleep 10 &` (system())
 *   -DFORKER      benchmark()'s first call forks a child that sleeps 10 s
 *   -DWORK_LIBRARY=K  only compare_fixture_work(), doing K times its steps:
 *                 the library a build finds through $ORIGIN (libwork.so.1)
 *   -DWORK_ELSEWHERE  benchmark()'s work is that library's (linked with it)
 *   -DALTERNATE=K benchmark() does K times its work in every other process
 *                 that loads it (a count kept in the file
 *                 $COMPARE_FIXTURE_COUNTER): executions that disagree by a
 *                 factor of K, deterministically, for a wide interval
 *   -DSPIKE=K     benchmark() does K times its work in the 4th process of
 *                 every 10 that load it (the same count): one execution of
 *                 ten disturbed, as a busy neighbour does, unflagged
 *   -DALIGNED_DATA=N  an object aligned to N bytes in .bss (alignas(64),
 *                 a page-aligned buffer), which benchmark() touches
 *   -DTWO_SPEED_MS=T  benchmark() does 1.6 times its work in every other
 *                 window of T ms of the monotonic clock: a host whose
 *                 speed changes while both builds are measured
 *   -DSIBLING_DLOPEN  benchmark()'s work is that of plug.so beside it,
 *                 opened by dlopen("$ORIGIN/plug.so") at its first call, as
 *                 plugin loaders do (plug.so: a -DWORK_LIBRARY=K build)
 *   -DSIBLING_FILE    benchmark() does its work times the number in
 *                 factor.txt beside it, found through its own path
 *                 (dladdr()) by a constructor; abort() when it is missing
 * The work is done by compare_fixture_work(), exported and called through
 * the PLT: were two builds with one soname loaded into one namespace, the
 * second's benchmark() would bind to the first's work (same cost), and NEW
 * at 3 times OLD's work would measure as OLD. */
#if defined(SIBLING_DLOPEN) || defined(SIBLING_FILE)
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#endif
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifndef WORK
#define WORK 1000
#endif

void compare_fixture_work(long n);
#if !defined(WORK_ELSEWHERE)
#if defined(WORK_LIBRARY)
#define WORK_SCALE WORK_LIBRARY
#else
#define WORK_SCALE 1
#endif
void compare_fixture_work(long n)
{
  long i;
  for (i = 0; i < n * WORK_SCALE; i++) __asm__ __volatile__("" ::: "memory");
}
#endif

#if defined(ALTERNATE) || defined(SPIKE)
static long work_factor = 1;
__attribute__((constructor)) static void alternate(void)
{
  const char *name = getenv("COMPARE_FIXTURE_COUNTER");
  FILE *f = name ? fopen(name, "r+") : 0;
  long loads = 0;
  if (!f) return;
  if (fscanf(f, "%ld", &loads) != 1) loads = 0;
  rewind(f);
  fprintf(f, "%ld\n", loads + 1);
  fclose(f);
#if defined(ALTERNATE)
  work_factor = loads % 2 ? ALTERNATE : 1;
#else
  work_factor = loads % 10 == 3 ? SPIKE : 1;
#endif
}
#elif defined(SIBLING_FILE)
static long work_factor = 1;
__attribute__((constructor)) static void factor_beside(void)
{
  Dl_info info;
  char path[4096];
  const char *slash;
  FILE *f;
  if (!dladdr((void *)factor_beside, &info) || !info.dli_fname || !(slash = strrchr(info.dli_fname, '/')))
    abort();
  snprintf(path, sizeof path, "%.*s/factor.txt", (int)(slash - info.dli_fname), info.dli_fname);
  if (!(f = fopen(path, "r")) || fscanf(f, "%ld", &work_factor) != 1) abort();
  fclose(f);
}
#else
#define work_factor 1
#endif

#if defined(ALIGNED_DATA)
_Alignas(ALIGNED_DATA) unsigned char compare_fixture_aligned[ALIGNED_DATA];
#endif

#if !defined(WORK_LIBRARY)
void benchmark(void *arg);
void benchmark(void *arg)
{
  (void)arg;
#if defined(CRASH)
  raise(SIGSEGV);
#elif defined(HANG)
  const char *name = getenv("COMPARE_FIXTURE_PIDFILE");
  FILE *f = name ? fopen(name, "w") : 0;
  if (f) fprintf(f, "%ld\n", (long)getpid()), fclose(f);
  for (;;) pause();
#elif defined(SLEEP_US)
  /* the thread switched out in every call: every pair disturbed */
  struct timespec nap = {0, SLEEP_US * 1000L};
  nanosleep(&nap, 0);
#elif defined(SLOW_US)
  struct timespec t0, t;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  do clock_gettime(CLOCK_MONOTONIC, &t);
  while ((t.tv_sec - t0.tv_sec) * 1000000L + (t.tv_nsec - t0.tv_nsec) / 1000 < SLOW_US);
#elif defined(HELPER) || defined(FORKER)
  static int started;
  if (!started++) {
#if defined(HELPER)
    if (system("sleep 10 &") != 0) return;
#else
    if (fork() == 0) {
      sleep(10);
      _exit(0);
    }
#endif
  }
#endif
#if defined(ALIGNED_DATA)
  __atomic_fetch_add(&compare_fixture_aligned[0], 1, __ATOMIC_RELAXED);
#endif
#if defined(TWO_SPEED_MS)
  {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if ((now.tv_sec * 1000 + now.tv_nsec / 1000000) / TWO_SPEED_MS % 2) {
      compare_fixture_work(WORK * 8 / 5);
      return;
    }
  }
#endif
#if defined(SIBLING_DLOPEN)
  static void (*plug_work)(long);
  if (!plug_work) {
    void *plug = dlopen("$ORIGIN/plug.so", RTLD_NOW | RTLD_LOCAL), *fn;
    if (!plug || !(fn = dlsym(plug, "compare_fixture_work"))) abort();
    memcpy(&plug_work, &fn, sizeof fn);
  }
  plug_work(WORK);
#else
  compare_fixture_work(WORK * work_factor);
#endif
}

void other(void *arg);
void other(void *arg)
{
  (void)arg;
  compare_fixture_work(WORK / 2);
}

/* data, not a function: --symbol data must be refused, not called */
int data[4] = {1, 2, 3, 4};
#endif

#ifdef MARKER
#define TEXT(x) #x
#define STRING(x) TEXT(x)
__attribute__((constructor)) static void marker(void)
{
  static const char text[] = "compare-fixture: " STRING(MARKER) " loaded\n";
  if (write(2, text, sizeof text - 1) < 0) return;
}
#endif
