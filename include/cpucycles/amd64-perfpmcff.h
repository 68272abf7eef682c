/* SPDX-License-Identifier: MIT */
/* amd64-perfpmcff: fixed counter 1 (unhalted core cycles), read with
 * amd64-pmcff's LFENCE; RDPMC 0x40000001, made readable by a perf cycles
 * event of each thread's own (libcpucycles 20260901's counter of that name).
 *
 * Unlike amd64-perfpmc it does not read the counter the event's control
 * page names, nor add the page's offset: it reads the fixed counter
 * directly, as amd64-pmcff does.  The event is there so that the kernel
 * allows RDPMC (with the default rdpmc=1, CR4.PCE is set only while a
 * task with an mmap()ed event runs), and it is the thread's own so that
 * it holds for every thread that reads, as amd64-perfpmc's does.  The raw
 * counter may jump when the kernel reprograms it (it also counts for the
 * event when perf puts the cycles event there); seeds/000: occasional
 * jumps are the caller's medians' business, a decrease in every try makes
 * the measurement refuse it.  AMD CPUs have no fixed counters and fault on
 * this index; a machine without a PMU fails the event's open. */
#ifndef CPUCYCLES_AMD64_PERFPMCFF_H
#define CPUCYCLES_AMD64_PERFPMCFF_H
#include "amd64-pmcff.h" /* the read of fixed counter 1 */
#if defined(CPUCYCLES_HAVE_AMD64_PMCFF)
#define CPUCYCLES_HAVE_AMD64_PERFPMCFF 1
#define CPUCYCLES_AMD64_PERFPMCFF_LIBRARY_READ 1 /* per-thread events */
#define CPUCYCLES_AMD64_PERFPMCFF_HAS_STATE 1 /* cpucycles_amd64_perfpmcff_release */

enum { cpucycles_amd64_perfpmcff_kind = CPUCYCLES_KIND_ONCORE };

#if defined(CPUCYCLES_COUNTER_SETUP)
#include "linux-perf.h"
/* One copy per program that sets counters up: the library, or a probe. */
static __thread struct cpucycles_perf_event cpucycles_amd64_perfpmcff_thread CPUCYCLES_TLS_MODEL;
static struct cpucycles_perf_state cpucycles_amd64_perfpmcff_state;
static const struct cpucycles_perf_config cpucycles_amd64_perfpmcff_config = {
    .config1 = {0}, .ntries = 1, .need_rdpmc = 1, .state = &cpucycles_amd64_perfpmcff_state};

CPUCYCLES_ALWAYS_INLINE long long cpucycles_amd64_perfpmcff_read(void)
{
  struct cpucycles_perf_event *e = cpucycles_perf_thread_event(&cpucycles_amd64_perfpmcff_thread,
                                                               &cpucycles_amd64_perfpmcff_config);
  if (!e) return cpucycles_perf_fallback(&cpucycles_amd64_perfpmcff_config);
  return cpucycles_amd64_pmcff_read();
}

static inline int cpucycles_amd64_perfpmcff_setup(struct cpucycles_setup *s)
{
  return cpucycles_perf_setup_per_thread(&cpucycles_amd64_perfpmcff_thread,
                                         &cpucycles_amd64_perfpmcff_config, s);
}

static inline void cpucycles_amd64_perfpmcff_release(int zero_page)
{
  cpucycles_perf_release(&cpucycles_amd64_perfpmcff_config, zero_page);
}
#endif
#endif
#endif
