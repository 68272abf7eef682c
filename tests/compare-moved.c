/* SPDX-License-Identifier: MIT */
/* compare-moved.c - a shared object tests/t-compare-tool.sh hands to
 * cpucycles-compare to see its copies moved within their pages
 * (src/tools/compare/elf-shift.c) and still right: benchmark() checks,
 * through every kind of address the move must carry, that each still
 * leads where it did, and calls abort() if one does not (the tool then
 * reports the execution killed by SIGABRT):
 *   - pointers in data to data, to a function and to strings (RELATIVE
 *     relocations), an exported array reached through the GOT;
 *   - thread-local variables, the object's own and exported (TLS
 *     relocations: offsets, which must not move);
 *   - a function chosen by a resolver at load time (IRELATIVE; with
 *     glibc, whose loader has them);
 *   - a constructor (.init_array), a call into the C library (a PLT
 *     slot), a switch compiled to a jump table (relative entries);
 *   - read-only data aligned to 32 bytes, which must stay so (the step).
 * With -DPAGE_ALIGNED it also holds data aligned to a page, which no
 * move within a page can keep: that object is refused, and loaded as
 * it is. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int counter;
static __thread int own_tls = 7;
__thread long moved_tls = 11;
int moved_data[4] = {1, 2, 3, 4};
int *moved_pointers[2] = {&moved_data[1], &counter};
static int triple(int x) { return 3 * x; }
int (*moved_function)(int) = triple;
static const char *const names[] = {"zero", "one", "two", "three", "four"};
static int constructed;
__attribute__((constructor)) static void construct(void) { constructed = 42; }
static int five(void) { return 5; }
#if defined(__GLIBC__) /* musl's loader has no IFUNC */
static void *resolve_five(void) { return (void *)(uintptr_t)five; }
int moved_ifunc(void) __attribute__((ifunc("resolve_five")));
#else
int moved_ifunc(void) { return five(); }
#endif
__attribute__((aligned(32))) const double moved_table[4] = {1.5, 2.5, 3.5, 4.5};
#ifdef PAGE_ALIGNED
__attribute__((aligned(4096))) const char moved_page[4096] = {1};
#endif

int moved_switch(int x);
int moved_switch(int x)
{
  switch (x) {
  case 0: return 10;
  case 1: return 21;
  case 2: return 32;
  case 3: return 43;
  case 4: return 54;
  case 5: return 65;
  case 6: return 76;
  default: return -1;
  }
}

void benchmark(void *arg);
void benchmark(void *arg)
{
  volatile int three = 3;
  (void)arg;
  if (constructed != 42) abort();
  if (*moved_pointers[0] != 2 || moved_pointers[1] != &counter) abort();
  if (moved_function(5) != 15) abort();
  if (strcmp(names[three], "three") != 0 || strlen(names[4]) != 4) abort();
  if (own_tls != 7 || moved_tls != 11) abort();
  if (moved_ifunc() != 5) abort();
  if (moved_table[2] != 3.5 || ((uintptr_t)moved_table & 31) != 0) abort();
  if (moved_switch(three) != 43 || moved_switch(three + 2) != 65) abort();
#ifdef PAGE_ALIGNED
  if (((uintptr_t)moved_page & 4095) != 0 || moved_page[0] != 1) abort();
#endif
  counter++;
}
