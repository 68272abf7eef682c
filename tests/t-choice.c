/* SPDX-License-Identifier: MIT */
/* t-choice - configure's choice is the run-time choice on the build host.
 *
 * Runs the library's full run-time selection (the code the fallback uses)
 * in fresh processes (this program again, "t-choice select") and compares
 * it with what configure chose, and checks that the
 * library's table is in the list's order (m4/cpucycles_counters.m4), which
 * breaks ties, and ends with the last resort. */
#include "cpucycles.h"
#include "decide.h"
#include "table.h"
#include "tap.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define ATTEMPTS 5  /* run-time selections in one process, at most */
#define PROCESSES 4 /* processes that select, at most */

/* The names in m4/cpucycles_counters.m4's list, in order ("  [name]," lines). */
static char listed[64][32];
static int nlisted;
static int read_list(void)
{
  const char *srcdir = getenv("top_srcdir");
  char path[4096], line[256], *open_, *close_;
  FILE *f;
  snprintf(path, sizeof path, "%s/m4/cpucycles_counters.m4", srcdir ? srcdir : ".");
  if (!(f = fopen(path, "r"))) return 0;
  while (fgets(line, sizeof line, f) && nlisted < 64) {
    open_ = strrchr(line, '[');
    close_ = open_ ? strchr(open_, ']') : 0;
    if (!close_ || close_ - open_ - 1 >= 32 || !strchr("abcdefghijklmnopqrstuvwxyz", open_[1]))
      continue;
    if (!strstr(line, "],") && !strstr(line, "]])")) continue;
    memcpy(listed[nlisted], open_ + 1, (size_t)(close_ - open_ - 1));
    listed[nlisted++][close_ - open_ - 1] = 0;
  }
  fclose(f);
  return nlisted;
}

/* What the rule picks from configure's measurements (the build table in
 * cpucycles-config.h), with the counter called name measured at precision
 * instead (name 0: none): configure's choice, unless --with-counter chose
 * another. */
static const char *rule_choice_with(const char *name, long long precision)
{
  static struct cpucycles_result results[CPUCYCLES_MAX_COUNTERS];
  static const char *names[CPUCYCLES_MAX_COUNTERS];
  int n = 0;
#define X(name_, available_, precision_, hz_, kind_, reason_) \
  if (n < CPUCYCLES_MAX_COUNTERS) {                           \
    names[n] = name_;                                         \
    results[n].available = (available_) == 1;                 \
    results[n].precision = (precision_);                      \
    n++;                                                      \
  }
  CPUCYCLES_BUILD_COUNTERS(X)
#undef X
  for (int i = 0; name && i < n; i++)
    if (strcmp(names[i], name) == 0) results[i].precision = precision, results[i].available = 1;
  return n ? names[cpucycles_choose(results, n)] : "";
}

static const char *build_rule_choice(void)
{
  return rule_choice_with(0, 0);
}

/* configure's measured precision of the counter called name, or -1 when
 * configure found it unavailable or has no such counter. */
static long long build_precision(const char *name)
{
#define X(name_, available_, precision_, hz_, kind_, reason_) \
  if (strcmp(name, name_) == 0) return (available_) == 1 ? (long long)(precision_) : -1;
  CPUCYCLES_BUILD_COUNTERS(X)
#undef X
  return -1;
}

/* cpucycles_tracesetup()'s lines, in a file: the precision it prints for
 * counter i, or -1 when it printed no line for it. */
static long long traced[CPUCYCLES_MAX_COUNTERS];
static int trace(void)
{
  char path[] = "/tmp/t-choice.XXXXXX", line[256], name[64];
  long long precision;
  int fd = mkstemp(path), saved, i;
  FILE *f;
  for (i = 0; i < CPUCYCLES_MAX_COUNTERS; i++) traced[i] = -1;
  if (fd < 0) return 0;
  fflush(stdout);
  saved = dup(1);
  dup2(fd, 1);
  cpucycles_tracesetup();
  fflush(stdout);
  dup2(saved, 1);
  close(saved);
  close(fd);
  f = fopen(path, "r");
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "cpucycles tracesetup %d %63s precision %lld", &i, name, &precision) == 3 &&
        i >= 0 && i < CPUCYCLES_MAX_COUNTERS)
      traced[i] = precision;
  if (f) fclose(f);
  remove(path);
  return 1;
}

/* libcpucycles' tracesetup lines say precision 0 for a counter that "does
 * not seem to work": every counter that works here, measured alone, must
 * have a line with a precision above 0. */
static void tracesetup_lines(void)
{
  struct cpucycles_result r;
  char wrong[512] = "";
  int i, working = 0;
  if (!trace()) {
    tap_skip("tracesetup prints a precision for every counter that works", "no temporary file");
    return;
  }
  for (i = 0; i < cpucycles_table_size; i++) {
    if (!cpucycles_measure(&cpucycles_table[i], cpucycles_persecond(), &r)) continue;
    if (cpucycles_table[i].release && i != cpucycles_decision()->index) cpucycles_table[i].release(0);
    working++;
    if (traced[i] <= 0 && strlen(wrong) + strlen(cpucycles_table[i].name) + 2 < sizeof wrong)
      strcat(wrong, " "), strcat(wrong, cpucycles_table[i].name);
  }
  tap_ok(working > 0 && !wrong[0], "tracesetup prints a precision above 0 for all %d counters that "
         "work here%s%s", working, wrong[0] ? "; not for:" : "", wrong);
}

/* One process's verdict on test 3, printed for the parent as
 *   chosen NAME
 *   agrees 0|1 DESCRIPTION
 * after the selections' diagnostics.  The selection is made again, at
 * most ATTEMPTS times, until it agrees with configure's choice. */
static int select_until_agreed(void)
{
  struct cpucycles_result results[CPUCYCLES_MAX_COUNTERS];
  /* Two counters whose precisions are within the noise of one
   * measurement (both CLOCK_MONOTONIC clocks under an emulator, where
   * both are system calls) may swap places from one run to the next:
   * then configure's must be available now and within 25% of the
   * winner.  configure measured at another moment than this selection,
   * and a busy machine can slow one counter's reads alone for the
   * microseconds they take: the selection is made again, at most
   * ATTEMPTS times, until it agrees. */
  const char *rule = build_rule_choice();
  int build = cpucycles_table_find(rule), same = 0, close = 0, behind = 0, tie = 0, attempt, i,
      chosen = cpucycles_table_size - 1;
  long long rule_score = build_precision(rule), chosen_score;
  int slow_probe = 0;
  char why[200] = "";
  for (attempt = 1; attempt <= ATTEMPTS && !(same || close || behind || tie); attempt++) {
    chosen = cpucycles_select(cpucycles_table, cpucycles_table_size, cpucycles_persecond(), -1, results);
    for (i = 0; i < cpucycles_table_size; i++)
      if (results[i].available)
        tap_diag("%s precision %lld", cpucycles_table[i].name, results[i].precision);
    same = strcmp(cpucycles_table[chosen].name, rule) == 0;
    /* and the winner no worse than configure's counter, as the best of
     * this very selection must be: a selection that chose a worse one
     * is wrong, however close */
    close = build >= 0 && results[build].available &&
            results[build].precision * 4 <= results[chosen].precision * 5 &&
            results[chosen].precision <= results[build].precision;
    /* the selection does not measure an OS clock behind a working one
     * (measure.c); configure, which probes each alone, may have chosen it */
    behind = build >= 0 && !results[build].available &&
             results[build].reason == cpucycles_reason_not_measured &&
             cpucycles_table[build].kind == CPUCYCLES_KIND_OSCLOCK &&
             cpucycles_table[chosen].kind == CPUCYCLES_KIND_OSCLOCK;
    /* configure's own figures could not tell the two apart (within 25%:
     * under an emulator, a probe's process and this one time the same
     * clocks differently, s390x's STCKF against CLOCK_MONOTONIC on
     * qemu-system-s390x), and the selection took the best of what it
     * measured itself */
    chosen_score = build_precision(cpucycles_table[chosen].name);
    tie = rule_score > 0 && chosen_score > 0 && chosen_score * 4 <= rule_score * 5 &&
          cpucycles_choose(results, cpucycles_table_size) == chosen;
  }
  /* configure's probe of the winner may have been the slow process
   * itself (s390x-stckf at 1420 in configure's probe under TCG, 292 to 316
   * in every selection of four processes after it, beside
   * default-monotonic's 606 in both): the winner is measured alone, as the
   * probe measures it; when configure's figure is over 25% above that, and
   * the rule, with that figure in place of configure's, picks the winner,
   * the difference is configure's measurement, not the rule. */
  if (!(same || close || behind || tie)) {
    struct cpucycles_result alone;
    long long configured = build_precision(cpucycles_table[chosen].name);
    slow_probe = configured > 0 && cpucycles_measure(&cpucycles_table[chosen], cpucycles_persecond(), &alone) &&
                 alone.precision * 5 < configured * 4 &&
                 strcmp(rule_choice_with(cpucycles_table[chosen].name, alone.precision),
                        cpucycles_table[chosen].name) == 0;
    if (slow_probe)
      snprintf(why, sizeof why, ", whose probe configure measured at %lld, and alone now at %lld: with "
               "that figure the rule picks it", configured, alone.precision);
  }
  printf("chosen %s\n", cpucycles_table[chosen].name);
  printf("agrees %d run-time choice %s is the rule's from configure's measurements, %s%s "
         "(selection %d of at most %d", same || close || behind || tie || slow_probe,
         cpucycles_table[chosen].name, rule,
         same ? "" : behind ? ", an OS clock behind it" : close ? ", or within 25% of its precision"
         : tie ? ", a tie in configure's figures (within 25%), and the best of this selection's"
         : slow_probe ? why : ", or within 25% of its precision", attempt - 1, ATTEMPTS);
  return fflush(stdout) != 0;
}

/* What the last process of select_in_new_process() chose, and said. */
static char chosen[64], what[400];

/* select_until_agreed() in a new process (this program again, with
 * "select"): its diagnostics are passed on, its choice goes to chosen and
 * its description to what.  1 when it agreed, 0 when not, -1 when it
 * could not be run. */
static int select_in_new_process(void)
{
  char line[512];
  int fds[2], status, agrees = -1, n;
  FILE *from;
  pid_t pid;
  fflush(stdout);
  if (pipe(fds) != 0) return -1;
  if ((pid = fork()) < 0) {
    close(fds[0]);
    close(fds[1]);
    return -1;
  }
  if (pid == 0) {
    char *argv[] = {(char *)"t-choice", (char *)"select", 0};
    close(fds[0]);
    dup2(fds[1], 1);
    execv("/proc/self/exe", argv);
    /* no /proc: in this copy of the process, then (its layout is the parent's) */
    _exit(select_until_agreed());
  }
  close(fds[1]);
  if (!(from = fdopen(fds[0], "r"))) {
    close(fds[0]);
    waitpid(pid, &status, 0);
    return -1;
  }
  while (fgets(line, sizeof line, from)) {
    line[strcspn(line, "\n")] = 0;
    if (sscanf(line, "agrees %d %n", &agrees, &n) == 1)
      snprintf(what, sizeof what, "%.399s", line + n);
    else if (strncmp(line, "chosen ", 7) == 0)
      snprintf(chosen, sizeof chosen, "%.63s", line + 7);
    else
      printf("%s\n", line);
  }
  fclose(from);
  if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return -1;
  return agrees;
}

int main(int argc, char **argv)
{
  const struct cpucycles_decision *d = cpucycles_decision();
  int i, j, in_order = 1, process, agrees = -1;

  if (argc == 2 && strcmp(argv[1], "select") == 0) return select_until_agreed();
  tap_plan(5);
  /* Every counter of the library is in the one list (m4/cpucycles_counters.m4,
   * read here as the source, not as configure's output), in its order:
   * that order breaks ties. */
  in_order = read_list() > 0;
  for (i = 0, j = 0; in_order && i < cpucycles_table_size; i++) {
    while (j < nlisted && strcmp(listed[j], cpucycles_table[i].name) != 0) j++;
    if (j == nlisted) {
      tap_diag("%s is missing or out of m4/cpucycles_counters.m4's order", cpucycles_table[i].name);
      in_order = 0;
    }
  }
  tap_ok(in_order, "the library's counters are in m4/cpucycles_counters.m4's order (%d listed)",
         nlisted);
  /* The choice falls back on the last counter: it must be the last resort
   * (the list in m4/cpucycles_counters.m4 keeps it last). */
  tap_ok(cpucycles_table[cpucycles_table_size - 1].kind == CPUCYCLES_KIND_NONE,
         "the library's last counter, %s, is the last resort",
         cpucycles_table[cpucycles_table_size - 1].name);

  if (!d->host_matches || CPUCYCLES_CHOSEN[0] == 0) {
    tap_skip("run-time choice equals configure's", "not the build host");
    tap_skip("the choice is not default-zero", "not the build host");
    tracesetup_lines();
    return tap_done();
  }
  /* A process may read one counter slower for its whole life than
   * configure's probe read it: under qemu-system's TCG, a few arm64
   * processes in a hundred (3 of 40, then 1 of 60) read arm64-perfpmc at 6
   * times its step (610 cycles against 100-130), selection after
   * selection, beside arm64-vct's 140, and none of 40 did with the
   * kernel's address-space randomisation off: it is the process's layout
   * (the emulator's look-ups), not the moment.  That process's selection
   * rightly takes arm64-vct.  So the selections are made in fresh
   * processes, at most PROCESSES of them, until one agrees: a rule that
   * differs from configure's disagrees in all of them. */
  for (process = 1; process <= PROCESSES && agrees != 1; process++)
    agrees = select_in_new_process();
  tap_ok(agrees == 1, "%s%s, in process %d of at most %d)", what[0] ? what : "no process could select (",
         what[0] ? "" : "fork or exec failed", process - 1, PROCESSES);
  tap_ok(chosen[0] && strcmp(chosen, "default-zero") != 0, "a real counter was found on this host");
  tracesetup_lines();
  return tap_done();
}
