/* amd64-perfpmc: the cycles event that perf_event_open() set up, read with
 * RDPMC through the event's mmap()ed control page, as the kernel documents
 * in include/uapi/linux/perf_event.h (struct perf_event_mmap_page), with
 * linux-perf.h's lock/seq loop. */
#ifndef CPUCYCLES_AMD64_PERFPMC_H
#define CPUCYCLES_AMD64_PERFPMC_H
#include "linux-perf.h"
#if defined(__x86_64__) && defined(CPUCYCLES_HAVE_LINUX_PERF)
#define CPUCYCLES_HAVE_AMD64_PERFPMC 1

enum { cpucycles_amd64_perfpmc_kind = CPUCYCLES_KIND_ONCORE };

CPUCYCLES_STATE_STORAGE struct cpucycles_perf_state cpucycles_amd64_perfpmc_state;

static inline unsigned long long cpucycles_amd64_perfpmc_rdpmc(unsigned int index)
{
  unsigned int lo, hi;
  __asm__ __volatile__("rdpmc" : "=a"(lo), "=d"(hi) : "c"(index - 1));
  return ((unsigned long long)hi << 32) | lo;
}

static inline long long cpucycles_amd64_perfpmc_read(void)
{
  return cpucycles_perf_page_count(cpucycles_amd64_perfpmc_state.page,
                                   cpucycles_amd64_perfpmc_rdpmc);
}

#if defined(CPUCYCLES_COUNTER_SETUP)
static inline int cpucycles_amd64_perfpmc_setup(struct cpucycles_setup *s)
{
  volatile struct perf_event_mmap_page *pc;
  if (cpucycles_perf_open(&cpucycles_amd64_perfpmc_state, 0, 1, s) != 0) return -1;
  pc = cpucycles_amd64_perfpmc_state.page;
  if (!pc->cap_user_rdpmc || !pc->index) {
    s->reason = "kernel does not allow RDPMC on this event (cap_user_rdpmc or index is 0)";
    return -1;
  }
  return 0;
}
#endif
#endif
#endif
