/* SPDX-License-Identifier: MIT */
/* pagemap.h - whether a page of this process is in its page tables
 * (/proc/self/pagemap, bit 63 of the page's entry: readable without
 * privilege), for the tests of what the library maps at load. */
#ifndef CPUCYCLES_TEST_PAGEMAP_H
#define CPUCYCLES_TEST_PAGEMAP_H
#include <fcntl.h>
#include <stdint.h>
#include <unistd.h>

/* 1 when the page at p is present, 0 when not, -1 when the map cannot be
 * read (no such file, or qemu-user's: test tap_under_qemu_user() first). */
static inline int test_page_present(const void *p)
{
  long page = sysconf(_SC_PAGESIZE);
  unsigned long long entry = 0;
  int fd = open("/proc/self/pagemap", O_RDONLY);
  ssize_t got = fd < 0 || page <= 0 ? -1
                                    : pread(fd, &entry, sizeof entry,
                                            (off_t)((uintptr_t)p / (uintptr_t)page * sizeof entry));
  if (fd >= 0) close(fd);
  return got == (ssize_t)sizeof entry ? (int)(entry >> 63) : -1;
}
#endif
