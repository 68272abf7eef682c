/* SPDX-License-Identifier: MIT */
/* probes/host.c - configure's probe of the build host: prints its
 * fingerprint (src/core/fingerprint.c). */
#include "fingerprint.c"
#include <stdio.h>

int main(void)
{
  char fp[CPUCYCLES_FINGERPRINT_MAX];
  cpucycles_fingerprint(fp, sizeof fp);
  printf("%s\n", fp);
  return fflush(stdout) != 0;
}
