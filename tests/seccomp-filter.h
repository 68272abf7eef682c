/* SPDX-License-Identifier: MIT */
/* seccomp-filter.h - what the tests that install a seccomp filter
 * (t-seccomp, t-hostile) need from the kernel's headers, where the
 * toolchain has them: TEST_HAVE_SECCOMP_FILTER then.  The library installs
 * no filter (src/core/setup/seccomp.h only detects one), so this is the
 * tests' own fact, decided as linux-perf.h decides CPUCYCLES_HAVE_LINUX_PERF:
 * __has_include, and a compiler without it is taken to have the headers.
 * Debian's musl-gcc has none of the kernel's headers: there the filter
 * cases SKIP with TEST_NO_SECCOMP_FILTER_REASON. */
#ifndef CPUCYCLES_TEST_SECCOMP_FILTER_H
#define CPUCYCLES_TEST_SECCOMP_FILTER_H
#if defined(__linux__) && defined(__has_include)
#if __has_include(<linux/filter.h>) && __has_include(<linux/seccomp.h>)
#define TEST_HAVE_SECCOMP_FILTER 1
#endif
#elif defined(__linux__)
#define TEST_HAVE_SECCOMP_FILTER 1
#endif
#if defined(TEST_HAVE_SECCOMP_FILTER)
#include <linux/filter.h>
#include <linux/seccomp.h>
#endif
#if defined(__linux__)
#define TEST_NO_SECCOMP_FILTER_REASON "no <linux/filter.h> and <linux/seccomp.h> in this toolchain"
#else
#define TEST_NO_SECCOMP_FILTER_REASON "no seccomp on this OS"
#endif
#endif
