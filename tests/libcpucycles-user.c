/* SPDX-License-Identifier: MIT */
/* libcpucycles-user.c - a program written for libcpucycles, as its
 * documentation shows: it includes <cpucycles.h> and uses that API,
 * cpucycles_tracesetup() included.  It must build unchanged against this
 * project's installed header and library (the README's "Coming from
 * libcpucycles" points here). */
#include <stdio.h>
#include <cpucycles.h>

int main(void)
{
  long long t[16];
  int i;
  printf("cpucycles version %s\n", cpucycles_version());
  cpucycles_tracesetup();
  printf("cpucycles persecond %lld\n", cpucycles_persecond());
  printf("cpucycles implementation %s\n", cpucycles_implementation());
  for (i = 0; i < 16; i++) t[i] = cpucycles();
  printf("cpucycles median");
  for (i = 1; i < 16; i++) printf(" %lld", t[i] - t[i - 1]);
  printf("\n");
  for (i = 1; i < 16; i++)
    if (t[i] < t[i - 1]) return 1;
  printf("libcpucycles-user-ok\n");
  return 0;
}
