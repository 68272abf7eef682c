/* default-perfevent: the kernel's count of this thread's user-space CPU
 * cycles, read with read() on a perf_event file descriptor.  True cycles,
 * but each read is a system call (hundreds of cycles of overhead), hence
 * the same +100 penalty as an off-core counter. */
#ifndef CPUCYCLES_DEFAULT_PERFEVENT_H
#define CPUCYCLES_DEFAULT_PERFEVENT_H
#include "linux-perf.h"
#if defined(CPUCYCLES_HAVE_LINUX_PERF)
#include <unistd.h>
#define CPUCYCLES_HAVE_DEFAULT_PERFEVENT 1

enum { cpucycles_default_perfevent_kind = CPUCYCLES_KIND_SYSCALL };

CPUCYCLES_STATE_STORAGE struct cpucycles_perf_state cpucycles_default_perfevent_state;

static inline long long cpucycles_default_perfevent_read(void)
{
  long long count;
  if (read(cpucycles_default_perfevent_state.fd, &count, sizeof count) != (long)sizeof count)
    return 0;
  return count;
}

#if defined(CPUCYCLES_COUNTER_SETUP)
static inline int cpucycles_default_perfevent_setup(struct cpucycles_setup *s)
{
  return cpucycles_perf_open(&cpucycles_default_perfevent_state, 0, 0, s);
}
#endif
#endif
#endif
