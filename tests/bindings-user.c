/* SPDX-License-Identifier: MIT */
/* bindings-user.c - <cpucycles.h> as a binding sees it: built with
 * -DCPUCYCLES_NO_INLINE, where cpucycles is libcpucycles' own pointer
 * (extern long long (*cpucycles)(void)), the data symbol both libraries
 * export.  It takes the pointer's address and counts through it, from the
 * very first call (libcpucycles' pointer starts at its setup function),
 * and through the name.  Prints "bindings-user-ok IMPLEMENTATION
 * PERSECOND DIFFERENCE" when the counts go forward. */
#include <cpucycles.h>
#include <stdio.h>

int main(void)
{
  long long (**read)(void) = &cpucycles;
  long long t0, prev, t, persecond;
  const char *name;
  int i;

  prev = t0 = (*read)();
  for (i = 0; i < 1000; i++) {
    t = i % 2 ? (*read)() : cpucycles();
    if (t < prev) {
      printf("backwards: %lld then %lld\n", prev, t);
      return 1;
    }
    prev = t;
  }
  name = cpucycles_implementation();
  persecond = cpucycles_persecond();
  printf("bindings-user-ok %s %lld %lld\n", name, persecond, prev - t0);
  return prev > t0 && persecond > 0 ? 0 : 1;
}
