/* amd64-perfpmc: the cycles event that perf_event_open() set up, read with
 * RDPMC through the event's mmap()ed control page, as the kernel documents
 * in include/uapi/linux/perf_event.h (struct perf_event_mmap_page).
 *
 * The kernel may move the event to another hardware counter or stop it at
 * any context switch: the lock/seq loop retries until it has read index,
 * offset and the counter with no update in between. */
#ifndef CPUCYCLES_AMD64_PERFPMC_H
#define CPUCYCLES_AMD64_PERFPMC_H
#include "linux-perf.h"
#if defined(__x86_64__) && defined(CPUCYCLES_HAVE_LINUX_PERF)
#define CPUCYCLES_HAVE_AMD64_PERFPMC 1

enum { cpucycles_amd64_perfpmc_kind = CPUCYCLES_KIND_ONCORE };

CPUCYCLES_STATE_STORAGE struct cpucycles_perf_state cpucycles_amd64_perfpmc_state;

static inline long long cpucycles_amd64_perfpmc_read(void)
{
  volatile struct perf_event_mmap_page *pc = cpucycles_amd64_perfpmc_state.page;
  unsigned int seq, index, width, lo, hi;
  unsigned long long count, pmc;
  do {
    seq = pc->lock;
    CPUCYCLES_COMPILER_BARRIER();
    index = pc->index;
    count = (unsigned long long)pc->offset;
    if (pc->cap_user_rdpmc && index) {
      width = pc->pmc_width;
      __asm__ __volatile__("rdpmc" : "=a"(lo), "=d"(hi) : "c"(index - 1));
      /* the counter is pmc_width bits wide: sign-extend it (an arithmetic
       * right shift, as GCC and Clang define it) before adding offset */
      pmc = (((unsigned long long)hi << 32) | lo) << (64 - width);
      count += (unsigned long long)((long long)pmc >> (64 - width));
    }
    CPUCYCLES_COMPILER_BARRIER();
  } while (pc->lock != seq);
  return (long long)count;
}

#if defined(CPUCYCLES_COUNTER_SETUP)
static inline int cpucycles_amd64_perfpmc_setup(struct cpucycles_setup *s)
{
  volatile struct perf_event_mmap_page *pc;
  if (cpucycles_perf_open(&cpucycles_amd64_perfpmc_state, 1, s) != 0) return -1;
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
