/* SPDX-License-Identifier: MIT */
/* default-perfevent: the kernel's count of this thread's user-space CPU
 * cycles, read with read() on a perf_event file descriptor.  True cycles,
 * but each read is a system call (hundreds of cycles of overhead), hence
 * the same +100 penalty as an off-core counter.
 *
 * Each thread has its own event, opened on its first read (linux-perf.h),
 * so it is read through the library, never inline.  Before each read()
 * the descriptor is checked to still be that event: a program may close
 * it, and the number may come back as one of the program's own files. */
#ifndef CPUCYCLES_DEFAULT_PERFEVENT_H
#define CPUCYCLES_DEFAULT_PERFEVENT_H
#include "counter.h"
#if defined(CPUCYCLES_HAVE_LINUX_PERF)
#define CPUCYCLES_HAVE_DEFAULT_PERFEVENT 1
#define CPUCYCLES_DEFAULT_PERFEVENT_LIBRARY_READ 1 /* per-thread events */
#define CPUCYCLES_DEFAULT_PERFEVENT_HAS_STATE 1 /* cpucycles_default_perfevent_release */

enum { cpucycles_default_perfevent_kind = CPUCYCLES_KIND_SYSCALL };

#if defined(CPUCYCLES_COUNTER_SETUP)
#include "linux-perf.h"
/* One copy per program that sets counters up: the library, or a probe. */
static __thread struct cpucycles_perf_event cpucycles_default_perfevent_thread CPUCYCLES_TLS_MODEL;
static struct cpucycles_perf_state cpucycles_default_perfevent_state;
static const struct cpucycles_perf_config cpucycles_default_perfevent_config = {
    .config1 = {0}, .ntries = 1, .keep_fd = 1,
    .state = &cpucycles_default_perfevent_state};

CPUCYCLES_ALWAYS_INLINE long long cpucycles_default_perfevent_read(void)
{
  return cpucycles_perf_read_count(&cpucycles_default_perfevent_thread,
                                   &cpucycles_default_perfevent_config);
}

static inline int cpucycles_default_perfevent_setup(struct cpucycles_setup *s)
{
  return cpucycles_perf_setup_per_thread(&cpucycles_default_perfevent_thread,
                                         &cpucycles_default_perfevent_config, s);
}

static inline void cpucycles_default_perfevent_release(int zero_page)
{
  cpucycles_perf_release(&cpucycles_default_perfevent_config, zero_page);
}
#endif
#endif
#endif
