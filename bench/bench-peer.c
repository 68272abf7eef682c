/* SPDX-License-Identifier: MIT */
/* bench-peer - the first call of another cpucycles library (libcpucycles
 * itself: Debian's libcpucycles1), for bench's lines beside ours.
 *
 *   bench-peer LIBRARY
 *
 * loads LIBRARY (dlopen), then times its first read through the data
 * symbol cpucycles (libcpucycles' function pointer, which selects its
 * counter on that first call) and prints one line: "MICROSECONDS VERSION"
 * (its cpucycles_version()), or a reason on stderr and exit 2.  A program
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
  long long (**first_read)(void), t0, t1, count;
  const char *(*version)(void);
  void *library;
  if (argc != 2) {
    fprintf(stderr, "usage: bench-peer LIBRARY\n");
    return 2;
  }
  library = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
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
  printf("%.2f %s %lld\n", (double)(t1 - t0) / 1e3, version(), count > 0 ? 1LL : 0LL);
  return 0;
}
