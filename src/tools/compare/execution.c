/* SPDX-License-Identifier: MIT */
/* execution.c - cpucycles-compare's internal mode: one execution, a fresh
 * process the driver starts (driver.c).  It loads both builds, the one
 * loaded first alternating from one execution to the next (load.c), finds
 * each symbol in each, takes a random amount of stack (stack alignment,
 * 4 KiB aliasing between the stack and the code's data), enters each
 * function through a jump at a random address, and measures each symbol
 * with cpucycles_bench_compare(), after a call of each build's alone.
 *
 * Its one channel to the parent is the pipe it was given, a line at a
 * time (say()):
 *   step load LABEL | step call LABEL SYMBOL | step measure SYMBOL
 *       what it is about to do, so that a crash or a hang is named;
 *   placement LABEL OFFSET STEP | placement LABEL - how: why
 *       how a build was loaded (load.c);
 *   alignment LABEL CODE DATA   its copy's sections' largest alignments,
 *                               of code and of data (elf-shift.h);
 *   result SYMBOL ratio a b difference error pairs disturbed flags seconds
 *   error TEXT, then exit 2;
 *   done, its last word. */
#include "compare-tool.h"
#include "cpucycles-bench.h"
#include "readfile.h"
#include "rng.h"
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define EAGAIN_TRIES 3

static volatile char *stack_taken; /* keeps the stack padding in place */

/* Entry points at a random place: each function is called through a
 * trampoline of its own (an absolute jump) at a random byte offset within
 * a fresh page, so the address the harness's one call site jumps to, and
 * so how the indirect-branch predictor tells the two apart, changes from
 * one execution to the next, as it would when other code moves.  Only
 * where the jump is written here (x86-64, arm64); elsewhere, and when no
 * page can be made executable, the functions are called directly.  (A
 * build with 300 bytes of padding before its code measured 0.01% faster
 * in every execution without them, and within the spread with them.) */
#if defined(__x86_64__)
#define TRAMPOLINE_SIZE 12
static void trampoline_write(unsigned char *at, void *target)
{
  at[0] = 0x48, at[1] = 0xb8; /* movabs $target, %rax */
  memcpy(at + 2, &target, 8);
  at[10] = 0xff, at[11] = 0xe0; /* jmp *%rax */
}
#define TRAMPOLINE_ALIGN 1
#elif defined(__aarch64__)
#define TRAMPOLINE_SIZE 16
static void trampoline_write(unsigned char *at, void *target)
{
  static const unsigned int code[2] = {0x58000050u, 0xd61f0200u}; /* ldr x16, 8; br x16 */
  memcpy(at, code, 8);
  memcpy(at + 8, &target, 8);
}
#define TRAMPOLINE_ALIGN 8
#endif

static void trampolines(void (**fns)(void *), void (**saved)(void *), int n, unsigned long long seed)
{
#if defined(TRAMPOLINE_SIZE)
  long page = sysconf(_SC_PAGESIZE);
  unsigned char *code;
  unsigned long slots, slot;
  int i;
  if (page <= 0 || (unsigned long)n * TRAMPOLINE_SIZE * 2 > (unsigned long)page) return;
  code = mmap(0, (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (code == MAP_FAILED) return;
  /* n disjoint slots of TRAMPOLINE_SIZE at random places: the page cut in
   * n parts, each trampoline at a random offset within its part */
  slots = (unsigned long)page / (unsigned long)n;
  for (i = 0; i < n; i++) {
    slot = (unsigned long)(cpucycles_xorshift(&seed) % (slots - TRAMPOLINE_SIZE)) / TRAMPOLINE_ALIGN *
           TRAMPOLINE_ALIGN;
    {
      void *target, *entry = code + (unsigned long)i * slots + slot;
      memcpy(&target, &fns[i], sizeof target);
      trampoline_write(code + (unsigned long)i * slots + slot, target);
      memcpy(&fns[i], &entry, sizeof entry);
    }
  }
  __builtin___clear_cache((char *)code, (char *)code + page);
  if (mprotect(code, (size_t)page, PROT_READ | PROT_EXEC) != 0) { /* W^X: called directly */
    memcpy(fns, saved, (size_t)n * sizeof *fns);
    munmap(code, (size_t)page);
  }
#else
  (void)fns, (void)saved, (void)n, (void)seed;
#endif
}

/* One call of fn alone, in seconds; the step is said first, so that a
 * call that crashes or hangs is named. */
static double call_alone(const char *label, const char *symbol, void (*fn)(void *))
{
  double t;
  say("step call %s %s", label, symbol);
  t = now();
  fn(0);
  return now() - t;
}

/* One call of each build's alone first: a build that crashes or hangs is
 * then named, not lost in the interleaving.  Then how many pairs to ask
 * the harness for (co->pairs, 0 for as many as the time allows) and
 * *pair, the seconds a pair of calls takes: 0, or 2 with an error line
 * when not even the fewest fit in seconds.
 *
 * The harness keeps at least 200 pairs however long they take: a slow
 * function would overrun --seconds by far (a 200 ms call: 80 s, and a
 * --timeout's kill).  Where 200 do not fit, the pairs that fit are asked
 * for (at least 100: 2 blocks); where not even those fit, the time it
 * would take is said, for twice the fewest: pairs asked for are run, the
 * disturbed ones not made up for, and a call of milliseconds is often
 * switched out on a busy machine (37 of 105 pairs of a 20 ms call here,
 * where time for 105 then failed every try).  A slow first call may be a
 * cold one: the estimate is the faster of two. */
#define ADVISED_PAIRS (2 * HARNESS_FEWEST_PAIRS + SETUP_PAIRS)
static int pairs_to_ask(const char *symbol, void (*old_fn)(void *), void (*new_fn)(void *),
                        double seconds, struct cpucycles_compare_options *co, double *pair)
{
  double old_call = call_alone("OLD", symbol, old_fn), new_call = call_alone("NEW", symbol, new_fn);
  long long fit;
  if ((old_call + new_call) * (HARNESS_MIN_PAIRS + SETUP_PAIRS) > seconds) {
    double t = call_alone("OLD", symbol, old_fn);
    if (t < old_call) old_call = t;
    t = call_alone("NEW", symbol, new_fn);
    if (t < new_call) new_call = t;
  }
  *pair = old_call + new_call;
  if (*pair * (HARNESS_MIN_PAIRS + SETUP_PAIRS) <= seconds) return 0;
  fit = (long long)(seconds / *pair) - SETUP_PAIRS;
  if (fit < HARNESS_FEWEST_PAIRS) {
    say("error %s: a call takes %.3g s (OLD) and %.3g s (NEW): the fewest pairs a comparison "
        "keeps (%d, and %d to set up) need %.3g s, and a busy machine disturbs some: give "
        "--seconds %.3g or more (time for %d)",
        symbol, old_call, new_call, HARNESS_FEWEST_PAIRS, SETUP_PAIRS,
        *pair * (HARNESS_FEWEST_PAIRS + SETUP_PAIRS), 1.05 * *pair * ADVISED_PAIRS,
        ADVISED_PAIRS - SETUP_PAIRS);
    return 2;
  }
  co->pairs = fit;
  /* a run of one call spans a counter's steps many times over: the
   * harness need not time runs of 1, 2, 4... calls to find that */
  if (old_call >= 1e-3 && new_call >= 1e-3) co->calls = 1;
  return 0;
}

/* One symbol measured: its "result" line, 0; or 2 with an error line.
 * fns are the builds' functions, entries where the harness enters them. */
static int measure(const char *symbol, void (**fns)(void *), void (**entries)(void *), double seconds)
{
  struct cpucycles_compare_options co;
  struct cpucycles_compare_result r;
  double pair;
  int tries, rc;
  memset(&co, 0, sizeof co);
  co.seconds = seconds;
  if (pairs_to_ask(symbol, fns[0], fns[1], seconds, &co, &pair) != 0) return 2;
  for (tries = 0; tries < EAGAIN_TRIES; tries++) {
    /* each try may take the time: the parent's deadline starts again */
    say("step measure %s", symbol);
    rc = cpucycles_bench_compare(entries[0], 0, entries[1], 0, &co, &r);
    if (rc == 0 || errno != EAGAIN) break;
  }
  if (rc != 0 && errno == EAGAIN && co.pairs) {
    say("error %s: in each of %d tries fewer than %d of the %lld pairs were undisturbed (%lld "
        "switched out or moved in the last: a busy machine?): give --seconds %.3g or more (time "
        "for %d)", symbol, EAGAIN_TRIES, HARNESS_FEWEST_PAIRS, co.pairs, r.disturbed,
        1.05 * pair * ADVISED_PAIRS, ADVISED_PAIRS - SETUP_PAIRS);
    return 2;
  }
  if (rc != 0 && errno == EAGAIN) {
    say("error %s: in each of %d tries fewer than %d pairs were undisturbed (%lld switched out "
        "or moved in the last: a busy machine?)", symbol, EAGAIN_TRIES, HARNESS_FEWEST_PAIRS,
        r.disturbed);
    return 2;
  }
  if (rc != 0) {
    say("error %s: cpucycles_bench_compare: %s", symbol, strerror(errno));
    return 2;
  }
  /* its last field: a pair's seconds when the pairs were counted (fewer
   * than the harness keeps when the time decides), else 0 */
  say("result %s %.17g %.17g %.17g %.17g %.17g %lld %lld %u %.6g", symbol, r.ratio, r.a, r.b,
      r.difference, r.difference_error, r.pairs, r.disturbed, r.flags, co.pairs ? pair : 0.0);
  return 0;
}

/* Each symbol's functions in both builds, fns[2 * i] OLD's and
 * fns[2 * i + 1] NEW's: 0, or 2 with an error line when a build lacks
 * one of its own. */
static int find_symbols(void **h, const char **paths, char **symbols, int nsymbols,
                        void (**fns)(void *))
{
  const char *elsewhere;
  int i, k;
  for (i = 0; i < nsymbols; i++)
    for (k = 0; k < 2; k++) {
      void *p;
      dlerror();
      p = dlsym(h[k], symbols[i]);
      if (!p) {
        say("error %s %s: no symbol %s", k ? "NEW" : "OLD", paths[k], symbols[i]);
        return 2;
      }
      if (!defined_by(h[k], p, &elsewhere)) {
        if (elsewhere)
          say("error %s %s: no symbol %s of its own (that one is %s's, a library it loads)",
              k ? "NEW" : "OLD", paths[k], symbols[i], elsewhere);
        else
          say("error %s %s: no symbol %s of its own (its address lies in no loaded object)",
              k ? "NEW" : "OLD", paths[k], symbols[i]);
        return 2;
      }
      if (is_data(p)) {
        say("error %s %s: %s is data, not a function (give --symbol the name of a function "
            "void NAME(void *))", k ? "NEW" : "OLD", paths[k], symbols[i]);
        return 2;
      }
      /* dlsym's void * to a function pointer: POSIX requires it to work */
      memcpy(&fns[2 * i + k], &p, sizeof p);
    }
  return 0;
}

/* argv: INTERNAL fd index stack seconds old-copy new-copy old new
 * symbol... (a copy: where it goes, or why none is made) */
#define FIRST_SYMBOL 10
int execution(int argc, char **argv)
{
  void *h[2];
  void (*fns[2 * MAX_SYMBOLS])(void *), (*entries[2 * MAX_SYMBOLS])(void *);
  const char *paths[2], *copies[2], *end;
  struct timespec t;
  int i, k, first, nsymbols = argc - FIRST_SYMBOL, report_fd;
  long stack;
  double seconds;
  unsigned long long seed;
  if (argc <= FIRST_SYMBOL || nsymbols > MAX_SYMBOLS) return 2;
  report_fd = atoi(argv[2]);
  say_to(report_fd);
  first = atoi(argv[3]) % 2; /* which build is loaded first */
  stack = atol(argv[4]);
  seconds = cpucycles_parse_decimal(argv[5], &end);
  copies[0] = argv[6], copies[1] = argv[7];
  paths[0] = argv[8], paths[1] = argv[9];
  if (report_fd < 0 || stack < 0 || stack >= STACK_MAX || !(seconds > 0)) return 2;
  /* inherited to be written here, and nowhere else: a helper a benchmark
   * starts (system("... &")) must not hold the parent's pipe open */
  if (fcntl(report_fd, F_SETFD, FD_CLOEXEC) != 0) return 2;
  /* a benchmark's output goes to stderr: stdout may be JSON */
  if (dup2(2, 1) < 0) return 2;
  clock_gettime(CLOCK_MONOTONIC, &t);
  seed = ((unsigned long long)t.tv_nsec * 0x9e3779b97f4a7c15ULL ^ (unsigned long long)getpid()) | 1;
  for (k = 0; k < 2; k++) {
    int j = k ^ first;
    h[j] = load_build(j ? "NEW" : "OLD", paths[j], copies[j], &seed);
  }
  if (find_symbols(h, paths, argv + FIRST_SYMBOL, nsymbols, fns) != 0) return 2;
  {
    /* this execution's stack offset: a variable-length array of stack
     * bytes, so that every frame of the measurement lies that much lower
     * (a fixed-size array would move nothing) */
    char taken[stack + 1];
    taken[stack] = 1;
    stack_taken = taken + stack;
    memcpy(entries, fns, sizeof entries);
    trampolines(entries, fns, 2 * nsymbols, seed);
    for (i = 0; i < nsymbols; i++)
      if (measure(argv[FIRST_SYMBOL + i], fns + 2 * i, entries + 2 * i, seconds) != 0) return 2;
    say("done");
    return 0;
  }
}
