/* SPDX-License-Identifier: MIT */
/* t-namespaces - the shared library loads late as often as a host asks:
 * NAMESPACES copies at once, each in a namespace of its own
 * (dlmopen(LM_ID_NEWLM), as isolating plugin hosts do); ROUNDS loads and
 * unloads of such a copy; and INTERLEAVED rounds of loading it beside
 * tests/tls-ie512 (512 bytes of initial-exec TLS), then unloading it first
 * and its neighbour second.  Every copy's cpucycles() counts.
 *
 * A library with initial-exec TLS takes its block from glibc's static-TLS
 * surplus at each load and does not always give it back (only a block at
 * the end of the used part is reclaimed): with 316 bytes of it the
 * namespaces ran out at the 4th copy, the loads and unloads at the 10th
 * round, the interleaved ones at the 4th.  Each namespace's copy of the C
 * library takes static TLS too (144 bytes: glibc 2.36, x86-64), and the
 * surplus glibc keeps for those follows glibc.rtld.nns, 4 namespaces by
 * default: then even a library with no TLS at all reaches only 11.  So
 * the namespaces are counted with room kept for 16 (NAMESPACE_TUNABLES):
 * there a library without initial-exec TLS reaches glibc's limit of 15
 * and the one with 316 bytes stopped at 11.  The other parts run with
 * glibc's defaults, and there the library gets as many namespaces as
 * tests/tls-none, a library with no TLS that needs the C library (11
 * here): with x86's TLS descriptors (-mtls-dialect=gnu2), which glibc
 * moves into that surplus while it has room, it got 9. */
#include "tap.h"
#include "tls.h"
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define NAMESPACES 13
#define NAMESPACES_MAX 16 /* glibc's DL_NNS: the most there can be */
#define NAMESPACE_TUNABLES "glibc.rtld.nns=16"
#define ROUNDS 100
#define INTERLEAVED 30
#define SANITIZER_REASON \
  "a sanitized library finds its sanitizer's runtime only in the program's namespace"

/* 1 when the copy behind h exports cpucycles and it counts: a later read
 * is larger (bounded: a counter that stands still fails). */
static int counts(void *h)
{
  long long (**count)(void) = (long long (**)(void))dlsym(h, "cpucycles");
  long long a, b;
  long i;
  if (!count || !*count) return 0;
  a = b = (*count)();
  for (i = 0; i < 100000000 && b <= a; i++) b = (*count)();
  return b > a;
}

/* The failure of round `round` (1-based): a load's dlerror(), or a copy
 * that does not count. */
static char why[512];
static int failed_at(int round, const char *error)
{
  snprintf(why, sizeof why, "round %d: %s", round, error ? error : "cpucycles() does not count");
  return round;
}

#if defined(__GLIBC__)
/* 0 when NAMESPACES copies load, each in a new namespace, and count, all
 * open at once; else the number of the copy that failed.  All closed. */
static int namespaces(const char *path, const char *unused)
{
  void *h[NAMESPACES];
  int i, n, failed = 0;
  (void)unused;
  for (n = 0; n < NAMESPACES; n++) {
    h[n] = dlmopen(LM_ID_NEWLM, path, RTLD_NOW | RTLD_LOCAL);
    if (!h[n]) {
      failed = failed_at(n + 1, dlerror());
      break;
    }
    if (!counts(h[n])) {
      failed = failed_at(n + 1, 0);
      n++;
      break;
    }
  }
  for (i = n - 1; i >= 0; i--) dlclose(h[i]);
  return failed;
}

/* How many copies load at once, each in a new namespace (at most
 * NAMESPACES_MAX), into why; 0.  All closed. */
static int namespaces_count(const char *path, const char *unused)
{
  void *h[NAMESPACES_MAX];
  int i, n;
  (void)unused;
  for (n = 0; n < NAMESPACES_MAX; n++)
    if (!(h[n] = dlmopen(LM_ID_NEWLM, path, RTLD_NOW | RTLD_LOCAL))) break;
  for (i = n - 1; i >= 0; i--) dlclose(h[i]);
  snprintf(why, sizeof why, "%d", n);
  return 0;
}

/* 0 when ROUNDS loads of a copy in a new namespace, each counting and
 * unloaded before the next, succeed; else the failed round. */
static int rounds(const char *path, const char *unused)
{
  int i, failed = 0;
  (void)unused;
  for (i = 1; i <= ROUNDS && !failed; i++) {
    void *h = dlmopen(LM_ID_NEWLM, path, RTLD_NOW | RTLD_LOCAL);
    if (!h) failed = failed_at(i, dlerror());
    else if (!counts(h)) failed = failed_at(i, 0);
    if (h) dlclose(h);
  }
  return failed;
}
#endif

/* 0 when INTERLEAVED rounds succeed: the library, then its neighbour
 * with initial-exec TLS, loaded; the library counts; the library, then
 * the neighbour, unloaded.  Else the failed round. */
static int interleaved(const char *path, const char *neighbour)
{
  int i, failed = 0;
  for (i = 1; i <= INTERLEAVED && !failed; i++) {
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL), *n = 0;
    if (!h) failed = failed_at(i, dlerror());
    else if (!(n = dlopen(neighbour, RTLD_NOW | RTLD_LOCAL))) failed = failed_at(i, dlerror());
    else if (!counts(h)) failed = failed_at(i, 0);
    if (h) dlclose(h);
    if (n) dlclose(n);
  }
  return failed;
}

/* Runs a part in a process of its own, this program again with the part's
 * name and its files, under GLIBC_TUNABLES=tunables when that is not 0:
 * each part starts from a process that has loaded nothing (what one part
 * leaves in static TLS must not fail the next), and glibc reads its
 * tunables at startup.  0, or the failed round with why set. */
static int run_part(const char *part, const char *path, const char *other, const char *tunables)
{
  int fds[2], status;
  ssize_t len;
  pid_t pid;
  fflush(stdout);
  if (pipe(fds) != 0 || (pid = fork()) < 0) return failed_at(0, "pipe() or fork() failed");
  if (pid == 0) {
    char *argv[] = {(char *)"t-namespaces", (char *)part, (char *)path, (char *)other, 0};
    close(fds[0]);
    dup2(fds[1], 1);
    if (tunables) setenv("GLIBC_TUNABLES", tunables, 1);
    execv("/proc/self/exe", argv);
    printf("round 0: cannot run /proc/self/exe again");
    fflush(stdout);
    _exit(1);
  }
  close(fds[1]);
  len = read(fds[0], why, sizeof why - 1);
  why[len > 0 ? len : 0] = 0;
  close(fds[0]);
  if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) return failed_at(0, "the part died");
  return WEXITSTATUS(status) == 0 ? 0 : (why[0] ? 1 : failed_at(0, "the part failed"));
}

int main(int argc, char **argv)
{
  char path[4096], neighbour[4096], yardstick[4096];
  const char *top = getenv("top_builddir");
  void *n;
  int failed;

  if (argc == 4) { /* a part, from run_part() */
#if defined(__GLIBC__)
    failed = !strcmp(argv[1], "namespaces") ? namespaces(argv[2], argv[3])
             : !strcmp(argv[1], "count")    ? namespaces_count(argv[2], argv[3])
             : !strcmp(argv[1], "rounds")   ? rounds(argv[2], argv[3])
                                            : interleaved(argv[2], argv[3]);
    if (!failed && !strcmp(argv[1], "count")) {
      printf("%s", why);
      return 0;
    }
#else
    failed = interleaved(argv[2], argv[3]);
#endif
    if (failed) printf("%s", why);
    return failed ? 1 : 0;
  }

  tap_plan(4);
  snprintf(path, sizeof path, "%s/.libs/libcpucycles.so.1", top ? top : ".");
  snprintf(neighbour, sizeof neighbour, "%s/tests/.libs/tls-ie512.so", top ? top : ".");
  snprintf(yardstick, sizeof yardstick, "%s/tests/.libs/tls-none.so", top ? top : ".");
#if defined(CPUCYCLES_TLS_READ_INITIAL_EXEC)
  if (1) {
    const char *reason = "riscv under glibc without TLS descriptors: a read's per-thread event "
                         "stays initial-exec (src/core/tls.h)";
#else
  if (access(path, R_OK) != 0) {
    const char *reason = "no shared library in this build";
#endif
    tap_skip("namespaces", reason);
    tap_skip("namespaces under glibc's defaults", reason);
    tap_skip("loads and unloads", reason);
    tap_skip("loads beside initial-exec TLS", reason);
    return tap_done();
  }

#if defined(__GLIBC__) && !defined(TAP_UNDER_SANITIZER)
  failed = run_part("namespaces", path, "-", NAMESPACE_TUNABLES);
  tap_ok(!failed, "%d copies, each in a namespace of its own, open at once, each counting (%s)%s%s",
         NAMESPACES, NAMESPACE_TUNABLES, failed ? ": " : "", failed ? why : "");
  {
    int ours = -1, theirs = -1;
    if (run_part("count", path, "-", 0) == 0) ours = atoi(why);
    if (run_part("count", yardstick, "-", 0) == 0) theirs = atoi(why);
    tap_ok(ours >= 1 && ours >= theirs,
           "under glibc's defaults, as many namespaces as a library without TLS: %d (tests/tls-none: %d)",
           ours, theirs);
  }
  failed = run_part("rounds", path, "-", 0);
  tap_ok(!failed, "%d rounds of loading a copy in a new namespace, counting, unloading%s%s",
         ROUNDS, failed ? ": " : "", failed ? why : "");
#elif !defined(__GLIBC__)
  tap_skip("namespaces", "no dlmopen() in this C library");
  tap_skip("namespaces under glibc's defaults", "no dlmopen() in this C library");
  tap_skip("loads and unloads in new namespaces", "no dlmopen() in this C library");
#else
  tap_skip("namespaces", SANITIZER_REASON);
  tap_skip("namespaces under glibc's defaults", SANITIZER_REASON);
  tap_skip("loads and unloads in new namespaces", SANITIZER_REASON);
#endif

  /* The neighbour alone first: where the C library cannot load
   * initial-exec TLS late at all (musl), there is nothing to interleave. */
  n = dlopen(neighbour, RTLD_NOW | RTLD_LOCAL);
  if (!n) {
    const char *error = dlerror();
    snprintf(why, sizeof why, "tests/tls-ie512 does not load alone: %s", error ? error : "?");
    tap_skip("loads beside initial-exec TLS", why);
    return tap_done();
  }
  dlclose(n);
  failed = run_part("interleaved", path, neighbour, 0);
  tap_ok(!failed, "%d rounds of loading it beside 512 bytes of initial-exec TLS, unloading both%s%s",
         INTERLEAVED, failed ? ": " : "", failed ? why : "");
  return tap_done();
}
