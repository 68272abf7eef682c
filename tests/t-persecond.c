/* t-persecond - cpucycles_persecond()'s sources in order, and every kind of
 * bad value skipped (and reported), never trusted. */
#include "persecond.h"
#include "tap.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char etc_path[64];

static void write_etc(const char *text)
{
  FILE *f = fopen(etc_path, "w");
  if (!f) {
    perror(etc_path);
    exit(1);
  }
  fputs(text, f);
  fclose(f);
}

/* The value as one printable line, for test names. */
static const char *shown(const char *text)
{
  static char buf[64];
  size_t i;
  for (i = 0; text[i] && i < sizeof buf - 1; i++) buf[i] = text[i] == '\n' ? '|' : text[i];
  buf[i] = 0;
  return buf;
}

static const char *const invalid[] = {
  "", "   \n", "abc", "2.4GHz", "2400000000 cycles", "0", "-2400000000", "nan", "NaN",
  "inf", "-inf", "1e400", "1e30", "999", "0x", "2400000000\n\n junk",
};
#define NINVALID ((int)(sizeof invalid / sizeof invalid[0]))

int main(void)
{
  struct cpucycles_persecond_report r;
  long long hz, os = cpucycles_persecond_from_os();
  const char *why;
  int i, rejected = 0, reported;

  snprintf(etc_path, sizeof etc_path, "t-persecond-%ld.tmp", (long)getpid());
  tap_plan(11 + 2 * NINVALID);

  tap_ok(cpucycles_parse_persecond("2400000000\n", &hz, &why) && hz == 2400000000LL,
         "a plain number with a newline parses");
  tap_ok(cpucycles_parse_persecond(" 2.5e9 ", &hz, &why) && hz == 2500000000LL,
         "2.5e9 with blanks parses");
  for (i = 0; i < NINVALID; i++) {
    why = 0;
    rejected = !cpucycles_parse_persecond(invalid[i], &hz, &why);
    tap_ok(rejected && why != 0, "'%s' is rejected (%s)", shown(invalid[i]), why ? why : "accepted!");
  }

  /* The order: file, environment, build figure, OS, default. */
  write_etc("3000000000\n");
  tap_ok(cpucycles_persecond_resolve(etc_path, "2000000000", 1500000000, &r) == 3000000000LL &&
             strcmp(r.source, etc_path) == 0,
         "the file comes first");
  tap_ok(cpucycles_persecond_resolve("/nonexistent/x", "2000000000", 1500000000, &r) ==
             2000000000LL,
         "then the environment variable");
  tap_ok(cpucycles_persecond_resolve("/nonexistent/x", 0, 1500000000, &r) == 1500000000LL,
         "then the configure-time figure");
  hz = cpucycles_persecond_resolve("/nonexistent/x", 0, 0, &r);
  if (os)
    tap_ok(hz == os && strcmp(r.source, "operating system") == 0, "then the OS (%lld)", os);
  else
    tap_ok(hz == CPUCYCLES_PERSECOND_DEFAULT, "then the default (the OS says nothing)");
  tap_ok(r.problems[0] == 0, "nothing to report when nothing is wrong");

  /* Bad values are skipped, reported, and the next source is used. */
  for (i = 0; i < NINVALID; i++) {
    write_etc(invalid[i]);
    hz = cpucycles_persecond_resolve(etc_path, invalid[i], 1500000000, &r);
    reported = strstr(r.problems, etc_path) != 0 && strstr(r.problems, "environment") != 0;
    tap_ok(hz == 1500000000LL && reported,
           "'%s' in the file and the environment is skipped and reported", shown(invalid[i]));
  }
  write_etc("garbage\n");
  hz = cpucycles_persecond_resolve(etc_path, "2000000000", 0, &r);
  tap_ok(hz == 2000000000LL, "a bad file falls through to a good environment variable");
  tap_diag("report: %s", r.problems);
  tap_ok(strstr(r.problems, "garbage") != 0 && strstr(r.problems, "not a number") != 0,
         "the report quotes the value and says what is wrong");
  hz = cpucycles_persecond_resolve(0, 0, 0, &r);
  tap_ok(hz >= CPUCYCLES_PERSECOND_MIN && hz <= CPUCYCLES_PERSECOND_MAX,
         "with no overrides the result is in range (%lld from %s)", hz, r.source);
  hz = cpucycles_persecond_resolve(etc_path, "", 0, &r);
  tap_ok(hz >= CPUCYCLES_PERSECOND_MIN && strstr(r.problems, "empty") != 0,
         "an empty variable is reported as empty");
  remove(etc_path);
  return tap_done();
}
