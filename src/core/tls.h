/* SPDX-License-Identifier: MIT */
/* tls.h - CPUCYCLES_TLS_MODEL, after the declarator of each of the
 * library's __thread variables.
 *
 * A shared library's __thread variable is by default found through
 * __tls_get_addr(), a call on every access (on riscv64 two calls a read
 * of a perf counter's per-thread event, 42 ns of a 62 ns read under
 * qemu), while configure's probe, an executable, finds its own at a fixed
 * offset from the thread pointer.  Initial-exec gives the library that
 * same fixed offset: a read costs what configure measured, and each of
 * the 29 places the rest of the library reached its thread's state
 * through a call (the guard, the first call, fork) is 10 bytes shorter
 * (x86-64: 288 bytes of the size budget, HACKING.md).  glibc keeps room in
 * its static TLS for a dlopen()ed library's initial-exec variables (all of
 * ours: 316 bytes on x86-64, .tbss); musl's dlopen() refuses such a
 * library, so elsewhere the default model stays. */
#ifndef CPUCYCLES_TLS_H
#define CPUCYCLES_TLS_H
#include <stdlib.h> /* __GLIBC__ */
#if defined(__GLIBC__) && defined(__PIC__)
#define CPUCYCLES_TLS_MODEL __attribute__((__tls_model__("initial-exec")))
#else
#define CPUCYCLES_TLS_MODEL
#endif
#endif
