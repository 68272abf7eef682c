/* SPDX-License-Identifier: MIT */
/* t-memo - a run-time selection asks the system once what each counter's
 * setup would ask again (src/core/setup/memo.h), and only while it runs:
 *   - /proc/thread-self/status (whether a seccomp filter may kill a
 *     system call; 14 us a read here) is opened at most once in a
 *     selection, where its counters, each measured alone, open it more;
 *   - a cycles event that did not open for one counter is not asked for
 *     again in the same selection: the later counters give its reason;
 *   - outside a selection nothing is remembered.
 * The test counts the library's open() calls of a file named .../status:
 * its own open() stands in for the C library's (the library's objects
 * are linked into this program). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "counter-setup.h"
#include "decide.h"
#include "table.h"
#include "memo.h"
#include "tap.h"
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define PLAN 3

static int status_opens;

/* Under _FILE_OFFSET_BITS=64 the headers give this definition open64's
 * name, as they give it the library's calls. */
int open(const char *path, int flags, ...)
{
  long mode = 0;
  if (flags & O_CREAT) {
    va_list ap;
    va_start(ap, flags);
    mode = va_arg(ap, int);
    va_end(ap);
  }
  if (strstr(path, "/status")) status_opens++;
  return (int)syscall(SYS_openat, (long)AT_FDCWD, path, (long)flags, mode);
}

#if defined(__linux__) && defined(CPUCYCLES_HAVE_LINUX_PERF)
int main(void)
{
  struct cpucycles_result results[CPUCYCLES_MAX_COUNTERS], r;
  int i, n = cpucycles_table_size, in_selection, alone = 0, perfevent;
  tap_plan(PLAN);

  status_opens = 0;
  cpucycles_select(cpucycles_table, n, 2600000000LL, -1, results);
  in_selection = status_opens;
  /* the same counters, each measured alone */
  for (i = 0; i < n; i++) {
    if (results[i].reason == cpucycles_reason_not_measured) continue;
    status_opens = 0;
    cpucycles_measure(&cpucycles_table[i], 2600000000LL, &r);
    if (cpucycles_table[i].release) cpucycles_table[i].release(0);
    alone += status_opens;
  }
  if (alone < 2)
    tap_skip("a selection reads /proc/thread-self/status once",
             "fewer than two of the counters it measured here ask whether a filter is there");
  else
    tap_ok(in_selection <= 1 && !cpucycles_selection_memo.active,
           "a selection opened the status file %d times, its counters measured alone %d times; "
           "and it remembers nothing after", in_selection, alone);

  perfevent = cpucycles_table_find("default-perfevent");
  if (perfevent < 0) {
    tap_skip("a failed cycles event is remembered in a selection", "no default-perfevent here");
    tap_skip("and only in a selection", "no default-perfevent here");
    return tap_done();
  }
  /* a selection that found the event failing with an errno no open gives
   * (EXDEV: its reason is the catch-all one, "... an errno none of the
   * above") */
  memset(&cpucycles_selection_memo, 0, sizeof cpucycles_selection_memo);
  cpucycles_selection_memo.active = 1;
  cpucycles_selection_memo.perf_errno = EXDEV;
  cpucycles_selection_memo.perf_config1 = 0;
  cpucycles_measure(&cpucycles_table[perfevent], 2600000000LL, &r);
  cpucycles_table[perfevent].release(0);
  tap_ok(!r.available && r.reason && strstr(r.reason, "an errno none of the above"),
         "in a selection, default-perfevent gives the reason an earlier counter's event failed "
         "with: %s", r.reason ? r.reason : "(available)");
  memset(&cpucycles_selection_memo, 0, sizeof cpucycles_selection_memo);
  cpucycles_selection_memo.perf_errno = EXDEV;
  cpucycles_measure(&cpucycles_table[perfevent], 2600000000LL, &r);
  cpucycles_table[perfevent].release(0);
  tap_ok(r.available || (r.reason && !strstr(r.reason, "an errno none of the above")),
         "outside one, it asks for the event itself: %s", r.available ? "available" : r.reason);
  return tap_done();
}
#else
int main(void)
{
  tap_plan(PLAN);
  while (tap_count < PLAN)
    tap_skip("the selection's memo", "no Linux perf events in this toolchain (memo.h)");
  return tap_done();
}
#endif
