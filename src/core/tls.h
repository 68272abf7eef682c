/* SPDX-License-Identifier: MIT */
/* tls.h - CPUCYCLES_TLS_MODEL, after the declarator of a counter's
 * per-thread state that its read looks up (the *-perfpmc and
 * *-perfrdcycle perf events); the library's other __thread variables
 * take the default model.
 *
 * The library is loaded late and many times (dlopen() by Python and
 * plugin hosts, dlmopen() into namespaces of their own, cpucycles-compare),
 * so its thread-local variables are not initial-exec: glibc would take
 * each copy's block from its small static-TLS surplus, and fail a load
 * once that ran out (t-namespaces).  Where the variables are TLS
 * descriptors (CPUCYCLES_TLS_DESCRIPTORS: aarch64's default model; not
 * x86's -mtls-dialect=gnu2, which costs namespaces: configure.ac), an
 * access is one indirect call to a resolver that returns the variable's
 * offset from the thread pointer; elsewhere the default model calls
 * __tls_get_addr() on every access.
 *
 * One exception, CPUCYCLES_TLS_READ_INITIAL_EXEC: riscv under glibc,
 * whose compilers here have no descriptors (gcc 14's -mtls-dialect=desc
 * also needs glibc 2.40).  There __tls_get_addr() made two calls a read of
 * a perf counter's per-thread event, 42 ns of a 62 ns read under qemu,
 * which moved the library's smallest step past what configure's probe (an
 * executable, which finds its variables at a fixed offset) had measured
 * (decide.c).  So there those variables stay initial-exec (144 bytes of
 * static TLS a copy on riscv64), and t-namespaces skips.  (musl's dlopen() refuses
 * initial-exec variables.) */
#ifndef CPUCYCLES_TLS_H
#define CPUCYCLES_TLS_H
#include <stdlib.h> /* __GLIBC__ */
#if defined(__riscv) && defined(__GLIBC__) && !defined(CPUCYCLES_TLS_DESCRIPTORS)
#define CPUCYCLES_TLS_READ_INITIAL_EXEC 1
#endif
#if defined(CPUCYCLES_TLS_READ_INITIAL_EXEC) && defined(__PIC__)
#define CPUCYCLES_TLS_MODEL __attribute__((__tls_model__("initial-exec")))
#else
#define CPUCYCLES_TLS_MODEL
#endif
#endif
