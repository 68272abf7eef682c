/* SPDX-License-Identifier: MIT */
/* upstream.c - libcpucycles' binary interface, on the same soname.
 *
 * libcpucycles' <cpucycles.h> declares
 *   extern long long (*cpucycles)(void);
 *   const char *cpucycles_implementation(void);
 *   const char *cpucycles_version(void);
 *   long long cpucycles_persecond(void);
 *   void cpucycles_tracesetup(void);
 * so a program built against it looks for a data symbol "cpucycles".  Ours
 * is here: a pointer to the same count cpucycles_function() gives.  This
 * file sees <cpucycles.h> as a program built with -DCPUCYCLES_NO_INLINE
 * does, with that pointer declared (exported, CPUCYCLES_API) instead of
 * the inline function of the same name. */
#define CPUCYCLES_NO_INLINE 1
#include "cpucycles.h"
#include "decide.h"
#include "cpucycles/counter.h"
#include "table.h"
#include "library.h"
#include "cpucycles-config.h" /* CPUCYCLES_SELECTION_RULE */
#include "text.h"
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

long long (*cpucycles)(void) = cpucycles_function;

/* One line of the trace on standard output, text then a newline, in one
 * write() (another thread's output never splits it), again where a
 * signal or a full pipe cut it short; errno kept.  Not stdio: the lines
 * may be printed by a first call in a signal handler, on top of the
 * program's malloc() (stdio's first write allocates its buffer) or of its
 * own printf(). */
CPUCYCLES_COLD static void trace_write_line(char *text, size_t size)
{
  size_t n = strlen(text), done = 0;
  ssize_t w;
  int saved_errno = errno;
  if (n + 1 >= size) n = size - 2;
  text[n++] = '\n';
  while (done < n && ((w = write(1, text + done, n - done)) > 0 || (w < 0 && errno == EINTR)))
    if (w > 0) done += (size_t)w;
  errno = saved_errno;
}

/* libcpucycles' lines, "cpucycles tracesetup N NAME precision P scaling S
 * only32 B" (precision 0 means, as libcpucycles documents it, "does not
 * seem to work"), from a fresh measurement of every counter (the one in
 * use is measured as it is, not released: the program goes on counting
 * with it), then our verdict.  The selection leaves counters that could
 * not win unmeasured (an OS clock behind a working one, a penalty that
 * alone reaches an earlier score): here they are measured too, so that a
 * working counter never says 0.  only32 is always 0: our 32-bit
 * counters are extended to 64 bits before anyone sees them.  On standard
 * output, as libcpucycles prints them (so that its cpucycles-info's
 * output keeps its shape), but written at once, each line whole: what the
 * program printed through stdio and has not flushed comes after them. */
CPUCYCLES_COLD static void trace_print(void)
{
  struct cpucycles_result results[CPUCYCLES_MAX_COUNTERS];
  const struct cpucycles_decision *d = cpucycles_decision();
  char line[sizeof d->why + 32];
  int i, n = cpucycles_table_size < CPUCYCLES_MAX_COUNTERS ? cpucycles_table_size
                                                          : CPUCYCLES_MAX_COUNTERS;
  int cancel_state;
  /* Its measurements are not where the thread is cancelled: no unwind
   * tables here (configure.ac). */
  pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel_state);
  cpucycles_select(cpucycles_table, n, d->persecond, d->index, results);
  for (i = 0; i < n; i++)
    if (results[i].reason == cpucycles_reason_not_measured)
      cpucycles_measure(&cpucycles_table[i], d->persecond, &results[i]);
  cpucycles_table_release_others(d->index, 0);
  /* "precision" is the rule's score, as libcpucycles' is: under rule
   * 20260901 with its 10 for each working counter before this one;
   * "scaling" with printf's %f's six decimals */
  for (i = 0; i < n; i++) {
    line[0] = 0;
    cpucycles_text_format(line, sizeof line, "cpucycles tracesetup %u %s precision %lld scaling ",
                          (unsigned)i, cpucycles_table[i].name,
                          results[i].available ? cpucycles_rule_score(CPUCYCLES_SELECTION_RULE, results, i) : 0LL);
    cpucycles_text_add_fixed(line, sizeof line, results[i].available ? results[i].scale : 0.0, 6);
    cpucycles_text_add_str(line, sizeof line, " only32 0");
    trace_write_line(line, sizeof line);
  }
  line[0] = 0;
  cpucycles_text_format(line, sizeof line, "cpucycles verdict %s", d->why);
  trace_write_line(line, sizeof line);
  pthread_setcancelstate(cancel_state, 0);
}

/* As libcpucycles: called before the selection (the first call to any
 * function here), it arms the lines and the selection prints them, so a
 * program's own lines printed in between come first; called after it, it
 * prints them at once.  Arming is a store: no cancellation point. */
CPUCYCLES_COLD void cpucycles_tracesetup(void)
{
  if (!cpucycles_trace_arm(trace_print)) trace_print();
}
