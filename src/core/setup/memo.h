/* SPDX-License-Identifier: MIT */
/* memo.h - what a run-time selection's counters' setups find out once.
 *
 * A selection sets up every counter in turn, and several ask the system
 * the same question: whether a seccomp filter may kill a system call
 * (seccomp.h: reading /proc/thread-self/status, 14 us here and 40 the
 * first time, since the kernel writes the whole file; asked by each perf
 * counter and each vDSO clock), and whether the CPU's cycles event opens
 * at all (linux-perf.h: amd64-perfpmcff, amd64-perfpmc and amd64-pmcff ask
 * for the same event).  While cpucycles_select() runs (it sets active, in
 * its own thread: seccomp filters are a thread's) the first answer is kept
 * for the others; outside a selection every setup asks again, since a
 * filter or a PMU may come later.  The storage is measure.c's, which
 * defines CPUCYCLES_SELECTION_MEMO_STORAGE before including this file. */
#ifndef CPUCYCLES_MEMO_H
#define CPUCYCLES_MEMO_H
#if defined(CPUCYCLES_COUNTER_SETUP) && defined(__linux__)
#include "hidden.h"
CPUCYCLES_HIDDEN_BEGIN
struct cpucycles_selection_memo {
  int active;         /* a selection is under way in this thread */
  int seccomp_known;  /* seccomp_state holds this thread's answer */
  int seccomp_state;  /* cpucycles_seccomp_state()'s */
  int perf_errno;     /* nonzero: the cycles event with config1 perf_config1
                         failed to open, with this errno */
  unsigned long long perf_config1;
};
/* Local-dynamic: the library finds it at an offset from its other
 * thread-local variables, with no entry of its own in the GOT (16 bytes of
 * the read-only data's last page, which has none to spare: HACKING.md);
 * GCC takes an extern declaration as global-dynamic, hidden or not. */
#if defined(__GNUC__)
#define CPUCYCLES_MEMO_TLS_MODEL __attribute__((__tls_model__("local-dynamic")))
#else
#define CPUCYCLES_MEMO_TLS_MODEL
#endif
extern __thread struct cpucycles_selection_memo cpucycles_selection_memo CPUCYCLES_MEMO_TLS_MODEL;
CPUCYCLES_HIDDEN_END
#endif
#endif

/* measure.c's definition (outside the guard: a counter's setup may have
 * included this file first, as a probe program includes the counters
 * before measure.c) */
#if defined(CPUCYCLES_SELECTION_MEMO_STORAGE) && defined(CPUCYCLES_COUNTER_SETUP) && \
    defined(__linux__) && !defined(CPUCYCLES_MEMO_DEFINED)
#define CPUCYCLES_MEMO_DEFINED 1
__thread struct cpucycles_selection_memo cpucycles_selection_memo CPUCYCLES_MEMO_TLS_MODEL;
#endif
