/* SPDX-License-Identifier: MIT */
/* upstream-user.c - a program written for libcpucycles' own interface: it
 * declares that interface itself (no header of this project), as a
 * program compiled against libcpucycles' <cpucycles.h> would, and must
 * link and run unchanged against this project's installed library.
 * Prints "upstream-ok" when the counts work. */
#include <stdio.h>

extern long long (*cpucycles)(void);
extern const char *cpucycles_implementation(void);
extern const char *cpucycles_version(void);
extern long long cpucycles_persecond(void);
extern void cpucycles_tracesetup(void);

int main(void)
{
  long long t0, t1, best = -1;
  int i;
  printf("cpucycles version %s\n", cpucycles_version());
  cpucycles_tracesetup();
  for (i = 0; i < 1000; i++) {
    t0 = cpucycles();
    t1 = cpucycles();
    if (t1 < t0) {
      printf("backwards: %lld then %lld\n", t0, t1);
      return 1;
    }
    if (best < 0 || t1 - t0 < best) best = t1 - t0;
  }
  printf("cpucycles persecond %lld\n", cpucycles_persecond());
  printf("cpucycles implementation %s\n", cpucycles_implementation());
  printf("upstream-ok smallest difference %lld\n", best);
  return cpucycles_persecond() > 0 ? 0 : 1;
}
