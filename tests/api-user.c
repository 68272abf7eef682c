/* SPDX-License-Identifier: MIT */
/* api-user.c - a program written against the libcpucycles API, as a user
 * would write it; t-installed builds it against the installed library
 * under strict C99, C11 and C++ flags.  Prints "ok" lines for the script. */
#include <cpucycles.h>
#include <stdio.h>

/* The measured region: t-installed looks for the counter's instruction in
 * this function's machine code (kept out of line, even by -flto). */
#if defined(__GNUC__)
__attribute__((__noinline__, __used__))
#endif
long long cpucycles_user_measure(void)
{
  long long t0 = cpucycles();
  long long t1 = cpucycles();
  return t1 - t0;
}

int main(void)
{
  long long persecond = cpucycles_persecond();
  long long d = cpucycles_user_measure();
  long long f0 = cpucycles_function(), f1 = cpucycles_function();
  printf("implementation %s version %s persecond %lld delta %lld\n", cpucycles_implementation(),
         cpucycles_version(), persecond, d);
  if (d < 0 || f1 < f0 || persecond <= 0) return 1;
  printf("api-ok\n");
  return 0;
}
