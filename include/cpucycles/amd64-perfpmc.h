/* SPDX-License-Identifier: MIT */
/* amd64-perfpmc: the cycles event that perf_event_open() set up, read with
 * RDPMC through the event's mmap()ed control page, as the kernel documents
 * in include/uapi/linux/perf_event.h (struct perf_event_mmap_page), with
 * linux-perf.h's lock/seq loop.  Each thread has its own event, opened on
 * its first read: the page of another thread's event says where THAT
 * thread's count is, which is not counting while this one runs. */
#ifndef CPUCYCLES_AMD64_PERFPMC_H
#define CPUCYCLES_AMD64_PERFPMC_H
#include "counter.h"
#if defined(__x86_64__) && defined(CPUCYCLES_HAVE_LINUX_PERF)
#define CPUCYCLES_HAVE_AMD64_PERFPMC 1
#define CPUCYCLES_AMD64_PERFPMC_LIBRARY_READ 1 /* per-thread events */
#define CPUCYCLES_AMD64_PERFPMC_HAS_STATE 1 /* cpucycles_amd64_perfpmc_release */

enum { cpucycles_amd64_perfpmc_kind = CPUCYCLES_KIND_ONCORE };

static inline unsigned long long cpucycles_amd64_perfpmc_rdpmc(unsigned int index)
{
  unsigned int lo, hi;
  __asm__ __volatile__("rdpmc" : "=a"(lo), "=d"(hi) : "c"(index - 1));
  return (CPUCYCLES_CAST(unsigned long long, hi) << 32) | lo;
}

#if defined(CPUCYCLES_COUNTER_SETUP)
#include "linux-perf.h"
/* One copy per program that sets counters up: the library, or a probe. */
static __thread struct cpucycles_perf_event cpucycles_amd64_perfpmc_thread CPUCYCLES_TLS_MODEL;
static struct cpucycles_perf_state cpucycles_amd64_perfpmc_state;
static const struct cpucycles_perf_config cpucycles_amd64_perfpmc_config = {
    .config1 = {0}, .ntries = 1, .need_rdpmc = 1, .state = &cpucycles_amd64_perfpmc_state};

CPUCYCLES_ALWAYS_INLINE long long cpucycles_amd64_perfpmc_read(void)
{
  struct cpucycles_perf_event *e = cpucycles_perf_thread_event(&cpucycles_amd64_perfpmc_thread,
                                                               &cpucycles_amd64_perfpmc_config);
  if (!e) return cpucycles_perf_fallback(&cpucycles_amd64_perfpmc_config);
  return cpucycles_perf_page_count(e->page, cpucycles_amd64_perfpmc_rdpmc);
}

static inline int cpucycles_amd64_perfpmc_setup(struct cpucycles_setup *s)
{
  return cpucycles_perf_setup_per_thread(&cpucycles_amd64_perfpmc_thread,
                                         &cpucycles_amd64_perfpmc_config, s);
}

static inline void cpucycles_amd64_perfpmc_release(int zero_page)
{
  cpucycles_perf_release(&cpucycles_amd64_perfpmc_config, zero_page);
}
#endif
#endif
#endif
