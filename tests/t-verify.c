/* SPDX-License-Identifier: MIT */
/* t-verify - on the build host the first call verifies configure's counter
 * and switches the inline path on; cpucycles() then counts with it.  On
 * another host (the deployment test runs this under qemu-x86_64 -cpu qemu64,
 * which has no RDTSCP and another CPUID) the inline path stays off, a full
 * selection finds a working counter, and the counts never go backwards. */
#include "cpucycles.h"
#include "decide.h"
#include "table.h"
#include "tap.h"
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The first call verifies configure's counter against configure's own
 * measurement of it (a precision at most three times configure's,
 * src/core/decide.c's PRECISION_SLACK):
 * two measurements at different moments, which a busy or emulated machine
 * can set apart (on the TCG emulator a process's check is sometimes
 * refused so: doc/testing.md).  The first call is made once a process, so
 * the checks run in fresh child processes: one whose check was refused for
 * its precision alone is tried again, in ATTEMPTS processes at most; any
 * other verdict, and the last attempt's, is reported as it is. */
#define ATTEMPTS 8
#define AGAIN 77 /* a child's exit status: refused for its precision */

/* Before attempt 2, 3, ...: 20 ms, then twice as long each time (2.5 s in
 * all before the last).  The emulator's slow moments come in bursts:
 * CI's s390x row once refused 5 attempts made back to back, 1261 against
 * configure's 237 in the last. */
static void pause_before(int attempt)
{
  struct timespec t;
  long long ns = 20000000LL << (attempt - 2);
  t.tv_sec = (time_t)(ns / 1000000000LL);
  t.tv_nsec = (long)(ns % 1000000000LL);
  while (nanosleep(&t, &t) != 0) continue;
}

/* Number of backwards steps in n calls of cpucycles(). */
static int backwards_steps(int n)
{
  long long prev = cpucycles(), now;
  int i, backwards = 0;
  for (i = 0; i < n; i++) {
    now = cpucycles();
    if (now < prev) backwards++;
    prev = now;
  }
  return backwards;
}

static int plan_inlines(void)
{
  struct cpucycles_plan plan;
  cpucycles_build_plan(&plan);
  return plan.build_inline;
}

/* 1 when the decision d refused configure's counter for its precision
 * alone (a noisy moment), which another measurement may not. */
static int refused_for_precision(const struct cpucycles_decision *d)
{
  return d->host_matches && !d->build_verified && strstr(d->why, ": precision ") &&
         strstr(d->why, " at build time");
}

/* The same decision for a build whose counter is read through the
 * library (--disable-inline, a counter only the library can read): it is
 * verified, but the verdict must not call it inline.  Another measurement,
 * so refused for its precision alone it is made again, ATTEMPTS times at
 * most, spaced out (CI's s390x row once measured 1171 against
 * configure's 239). */
static void verdict_of_a_plan_not_inlined(void)
{
  static struct cpucycles_decision d;
  struct cpucycles_plan plan;
  int attempt = 0;
  cpucycles_build_plan(&plan);
  plan.build_inline = 0;
  for (;;) {
    cpucycles_decide(cpucycles_table, cpucycles_table_size, &plan, 0, 0, &d);
    if (!refused_for_precision(&d) || ++attempt >= ATTEMPTS) break;
    tap_diag("attempt %d refused for its precision: %s", attempt, d.why);
    pause_before(attempt + 1);
  }
  tap_ok(d.build_verified && strncmp(d.why, "inline", 6) != 0 && strstr(d.why, "not inlined"),
         "a build that does not inline its counter: verified, and not called inline: %s", d.why);
}

/* The checks in this process (attempt of ATTEMPTS); AGAIN, with nothing
 * printed, when the check was refused for its precision and last is 0. */
static int checks(int attempt, int last)
{
  long long a, b;
  int backwards;
  const struct cpucycles_decision *d;

  a = cpucycles();
  b = cpucycles();
  d = cpucycles_decision();
  if (!last && CPUCYCLES_BUILD_CHOICE && refused_for_precision(d)) return AGAIN;
  tap_plan(7);
  tap_diag("verdict: %s", d->why);
  tap_ok(b >= a, "two calls do not go backwards (%lld then %lld)", a, b);
  if (!CPUCYCLES_BUILD_CHOICE) {
    tap_skip("the inline path is verified", "no counter chosen at build time");
    tap_skip("the implementation is configure's choice", "no counter chosen at build time");
    tap_skip("no full selection was run on the build host", "no counter chosen at build time");
    tap_skip("the verdict says why", "no counter chosen at build time");
    tap_skip("a build that does not inline its counter is not called inline",
             "no counter chosen at build time");
    backwards = backwards_steps(100000);
    tap_ok(backwards == 0, "100000 counts never go backwards (%d backwards steps)", backwards);
    return tap_done();
  }
  if (!d->host_matches) {
    tap_diag("build host: %s", CPUCYCLES_BUILD_FINGERPRINT);
    tap_diag("this host:  %s", d->host_fingerprint);
    tap_ok(cpucycles_abi_inline_id == 0 && d->reselected,
           "not the build host: the inline path stays off and a full selection ran");
    tap_ok(strstr(d->why, "differs from the build host") != NULL, "the verdict says why: %s",
           d->why);
    tap_ok(strcmp(cpucycles_implementation(), "default-zero") != 0,
           "the selection found a working counter here (%s)", cpucycles_implementation());
    {
      /* Under qemu64 the build's amd64-tscp raises SIGILL here. */
      int built = cpucycles_table_find(CPUCYCLES_CHOSEN);
      const char *here = built < 0 ? "not in the table"
                         : d->results[built].available ? "it works" : d->results[built].reason;
      tap_ok(built >= 0 && (d->results[built].available ||
                            strcmp(cpucycles_implementation(), CPUCYCLES_CHOSEN) != 0),
             "the build's %s is used here only if it works here (%s)", CPUCYCLES_CHOSEN, here);
    }
    tap_skip("a build that does not inline its counter is not called inline",
             "not the build host: its counter is not verified here");
    backwards = backwards_steps(100000);
    tap_ok(backwards == 0, "100000 counts never go backwards (%d backwards steps)", backwards);
    return tap_done();
  }
  /* The first call (library) and the later ones (inline) must scale
   * identically, or a scaled counter jumps between them. */
  tap_ok(cpucycles_abi_inline_id == CPUCYCLES_INLINE_ID && d->build_verified &&
             d->scale == CPUCYCLES_INLINE_SCALE &&
             cpucycles_abi_inline_scale_q32 == CPUCYCLES_SCALE_Q32(CPUCYCLES_INLINE_SCALE),
         "the inline path is verified, with the build's scale (%.17g; process %d of at most %d)",
         d->scale, attempt, ATTEMPTS);
  tap_ok(strcmp(cpucycles_implementation(), CPUCYCLES_CHOSEN) == 0,
         "the implementation is configure's choice (%s)", cpucycles_implementation());
  tap_ok(!d->reselected, "no full selection was run on the build host");
  tap_ok(strstr(d->why, "verified") != NULL &&
             !strncmp(d->why, "inline ", 7) == !!plan_inlines(),
         "the verdict says so, 'inline' only when the read is inlined (%s): %s",
         plan_inlines() ? "it is" : "it is not", d->why);
  verdict_of_a_plan_not_inlined();
  backwards = backwards_steps(100000);
  tap_ok(backwards == 0, "100000 counts never go backwards (%d backwards steps)", backwards);
  return tap_done();
}

int main(void)
{
  int attempt, status;
  pid_t pid;
  for (attempt = 1; attempt < ATTEMPTS; attempt++) {
    if (attempt > 1) pause_before(attempt);
    fflush(stdout);
    pid = fork();
    if (pid == 0) _exit(checks(attempt, 0));
    if (pid < 0 || waitpid(pid, &status, 0) != pid) break;
    if (!WIFEXITED(status)) return 1;
    if (WEXITSTATUS(status) != AGAIN) return WEXITSTATUS(status);
  }
  return checks(attempt, 1);
}
