/* probes/host.c - configure's probe of the build host: writes its
 * fingerprint (src/fingerprint.c) to conftest.out. */
#include "fingerprint.c"

int main(void)
{
  char fp[CPUCYCLES_FINGERPRINT_MAX];
  FILE *out = fopen("conftest.out", "w");
  if (!out) return 2;
  cpucycles_fingerprint(fp, sizeof fp);
  fprintf(out, "%s\n", fp);
  return fclose(out) != 0;
}
