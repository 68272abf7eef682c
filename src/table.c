/* table.c - the counters compiled into the library.
 *
 * The order is configure.ac's order of CPUCYCLES_PROBE calls: a tie in
 * precision goes to the earlier counter, at configure time and at run time
 * alike (tests/t-choice checks the two orders agree).  Each counter file
 * compiles to nothing on other architectures, leaving its line out. */
#define CPUCYCLES_COUNTER_SETUP 1
#define CPUCYCLES_STATE_STORAGE /* the library owns the counters' state */
#include "cpucycles/amd64-pmc.h"
#include "cpucycles/amd64-perfpmc.h"
#include "cpucycles/amd64-tscp.h"
#include "cpucycles/amd64-tsc.h"
#include "cpucycles/x86-tsc.h"
#include "cpucycles/arm64-perfpmc.h"
#include "cpucycles/arm64-pmc.h"
#include "cpucycles/arm64-vct.h"
#include "cpucycles/arm32-cortex.h"
#include "cpucycles/riscv64-perfrdcycle.h"
#include "cpucycles/riscv64-rdcycle.h"
#include "cpucycles/riscv64-rdtime.h"
#include "cpucycles/riscv32-rdcycle.h"
#include "cpucycles/ppc64-mftb.h"
#include "cpucycles/ppc32-mftb.h"
#include "cpucycles/s390x-stckf.h"
#include "cpucycles/sparc64-rdtick.h"
#include "cpucycles/mips64-cc.h"
#include "cpucycles/loong64-rdtime.h"
#include "cpucycles/default-perfevent.h"
#include "cpucycles/default-mach.h"
#include "cpucycles/default-monotonic.h"
#include "cpucycles/default-monotonic-syscall.h"
#include "cpucycles/default-gettimeofday.h"
#include "cpucycles/default-zero.h"
#include "table.h"
#include <string.h>

#define COUNTER(id, name) \
  {name, cpucycles_##id##_kind, cpucycles_##id##_setup, cpucycles_##id##_read, 0},
/* A counter whose setup takes descriptors or mappings, and releases them. */
#define COUNTER_WITH_STATE(id, name)                                               \
  {name, cpucycles_##id##_kind, cpucycles_##id##_setup, cpucycles_##id##_read, \
   cpucycles_##id##_release},

const struct cpucycles_counter cpucycles_table[] = {
#ifdef CPUCYCLES_HAVE_AMD64_PMC
  COUNTER_WITH_STATE(amd64_pmc, "amd64-pmc")
#endif
#ifdef CPUCYCLES_HAVE_AMD64_PERFPMC
  COUNTER_WITH_STATE(amd64_perfpmc, "amd64-perfpmc")
#endif
#ifdef CPUCYCLES_HAVE_AMD64_TSCP
  COUNTER(amd64_tscp, "amd64-tscp")
#endif
#ifdef CPUCYCLES_HAVE_AMD64_TSC
  COUNTER(amd64_tsc, "amd64-tsc")
#endif
#ifdef CPUCYCLES_HAVE_X86_TSC
  COUNTER(x86_tsc, "x86-tsc")
#endif
#ifdef CPUCYCLES_HAVE_ARM64_PERFPMC
  COUNTER_WITH_STATE(arm64_perfpmc, "arm64-perfpmc")
#endif
#ifdef CPUCYCLES_HAVE_ARM64_PMC
  COUNTER(arm64_pmc, "arm64-pmc")
#endif
#ifdef CPUCYCLES_HAVE_ARM64_VCT
  COUNTER(arm64_vct, "arm64-vct")
#endif
#ifdef CPUCYCLES_HAVE_ARM32_CORTEX
  COUNTER(arm32_cortex, "arm32-cortex")
#endif
#ifdef CPUCYCLES_HAVE_RISCV64_PERFRDCYCLE
  COUNTER_WITH_STATE(riscv64_perfrdcycle, "riscv64-perfrdcycle")
#endif
#ifdef CPUCYCLES_HAVE_RISCV64_RDCYCLE
  COUNTER(riscv64_rdcycle, "riscv64-rdcycle")
#endif
#ifdef CPUCYCLES_HAVE_RISCV64_RDTIME
  COUNTER(riscv64_rdtime, "riscv64-rdtime")
#endif
#ifdef CPUCYCLES_HAVE_RISCV32_RDCYCLE
  COUNTER(riscv32_rdcycle, "riscv32-rdcycle")
#endif
#ifdef CPUCYCLES_HAVE_PPC64_MFTB
  COUNTER(ppc64_mftb, "ppc64-mftb")
#endif
#ifdef CPUCYCLES_HAVE_PPC32_MFTB
  COUNTER(ppc32_mftb, "ppc32-mftb")
#endif
#ifdef CPUCYCLES_HAVE_S390X_STCKF
  COUNTER(s390x_stckf, "s390x-stckf")
#endif
#ifdef CPUCYCLES_HAVE_SPARC64_RDTICK
  COUNTER(sparc64_rdtick, "sparc64-rdtick")
#endif
#ifdef CPUCYCLES_HAVE_MIPS64_CC
  COUNTER(mips64_cc, "mips64-cc")
#endif
#ifdef CPUCYCLES_HAVE_LOONG64_RDTIME
  COUNTER(loong64_rdtime, "loong64-rdtime")
#endif
#ifdef CPUCYCLES_HAVE_DEFAULT_PERFEVENT
  COUNTER_WITH_STATE(default_perfevent, "default-perfevent")
#endif
#ifdef CPUCYCLES_HAVE_DEFAULT_MACH
  COUNTER(default_mach, "default-mach")
#endif
#ifdef CPUCYCLES_HAVE_DEFAULT_MONOTONIC
  COUNTER(default_monotonic, "default-monotonic")
#endif
#ifdef CPUCYCLES_HAVE_DEFAULT_MONOTONIC_SYSCALL
  COUNTER(default_monotonic_syscall, "default-monotonic-syscall")
#endif
  COUNTER(default_gettimeofday, "default-gettimeofday")
  COUNTER(default_zero, "default-zero")
};

const int cpucycles_table_size = (int)(sizeof cpucycles_table / sizeof cpucycles_table[0]);

int cpucycles_table_find(const char *name)
{
  int i;
  for (i = 0; i < cpucycles_table_size; i++)
    if (strcmp(cpucycles_table[i].name, name) == 0) return i;
  return -1;
}

void cpucycles_table_release_others(int keep, int zero_page)
{
  int i;
  for (i = 0; i < cpucycles_table_size; i++)
    if (i != keep && cpucycles_table[i].release) cpucycles_table[i].release(zero_page);
}

void cpucycles_table_fork_prepare(void)
{
#if defined(CPUCYCLES_HAVE_LINUX_PERF)
  cpucycles_perf_fork_prepare();
#endif
}

void cpucycles_table_fork_parent(void)
{
#if defined(CPUCYCLES_HAVE_LINUX_PERF)
  cpucycles_perf_fork_parent();
#endif
}

void cpucycles_table_after_fork(int chosen, long long persecond)
{
  struct cpucycles_setup s;
#if defined(CPUCYCLES_HAVE_LINUX_PERF)
  cpucycles_perf_forget_after_fork();
#endif
  if (chosen < 0 || chosen >= cpucycles_table_size || !cpucycles_table[chosen].release) return;
  /* Set the chosen counter up again in the child (amd64-pmc's RDPMC is
   * allowed only while the process has an event mapped). */
  s.persecond = persecond;
  s.reason = 0;
  s.nominal_hz = 0;
  cpucycles_table[chosen].setup(&s);
}
