/* SPDX-License-Identifier: MIT */
/* fault.h - a real fault for the tests: a read of a page mapped with no
 * access, which the kernel answers with SIGSEGV (si_code SEGV_ACCERR) on
 * every architecture.  Not raise(): the guard catches only faults the
 * kernel raises, and a null pointer would be undefined behaviour. */
#ifndef CPUCYCLES_TEST_FAULT_H
#define CPUCYCLES_TEST_FAULT_H
#include <sys/mman.h>
#include <unistd.h>

static volatile int *test_fault_page;

/* Maps the page (no access) without touching it. */
static inline volatile int *test_fault_map(void)
{
  if (!test_fault_page) {
    void *m = mmap(0, (size_t)sysconf(_SC_PAGESIZE), PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m != MAP_FAILED) test_fault_page = (volatile int *)m;
  }
  return test_fault_page;
}

static inline int test_fault(void)
{
  return test_fault_map() ? *test_fault_page : -1;
}
#endif
