/* SPDX-License-Identifier: MIT */
/* bench-peer - the first call of another cpucycles library (libcpucycles
 * itself: Debian's libcpucycles1), for bench's lines beside ours.
 *
 *   bench-peer LIBRARY
 *
 * loads LIBRARY (dlopen), then times its first read through the data
 * symbol cpucycles (libcpucycles' function pointer, which selects its
 * counter on that first call) and prints one line: "MICROSECONDS VERSION
 * NONZERO LOAD" (its cpucycles_version(), whether the count was nonzero,
 * and the dlopen()'s microseconds: what a library does at load is not
 * hidden from the first call's figure), or a reason on stderr and exit 2.  A program
 * of its own, linked with no cpucycles library: both libraries have one
 * soname, and this one may run under another C library's loader (a newer
 * libcpucycles package needs a newer glibc than the build host's). */
#include <dlfcn.h>
#include <stdio.h>
#include <time.h>

static long long now_ns(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

int main(int argc, char **argv)
{
  long long (**first_read)(void), t0, t1, count, loading;
  const char *(*version)(void);
  void *library;
  if (argc != 2) {
    fprintf(stderr, "usage: bench-peer LIBRARY\n");
    return 2;
  }
  loading = now_ns();
  library = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  loading = now_ns() - loading;
  if (!library) {
    fprintf(stderr, "bench-peer: %s\n", dlerror());
    return 2;
  }
  first_read = (long long (**)(void))dlsym(library, "cpucycles");
  version = (const char *(*)(void))dlsym(library, "cpucycles_version");
  if (!first_read || !version) {
    fprintf(stderr, "bench-peer: %s: no cpucycles pointer or cpucycles_version()\n", argv[1]);
    return 2;
  }
  t0 = now_ns();
  count = (*first_read)();
  t1 = now_ns();
  printf("%.2f %s %lld %.2f\n", (double)(t1 - t0) / 1e3, version(), count > 0 ? 1LL : 0LL,
         (double)loading / 1e3);
  return 0;
}
