/* SPDX-License-Identifier: MIT */
/* cpucycles.h - count CPU cycles.
 *
 *   #include <cpucycles.h>
 *   long long t0 = cpucycles();
 *   work();
 *   long long cycles = cpucycles() - t0;
 *
 * Link with -lcpucycles (pkg-config cpucycles).  The API is libcpucycles':
 * cpucycles(), cpucycles_persecond(), cpucycles_implementation(),
 * cpucycles_version().
 *
 * cpucycles() is inline: once the library has verified, on the first call,
 * that the counter configure chose works on this host, each call is that
 * counter's instruction(s) behind one load and one predictable branch.
 * The first call takes about 10 microseconds; it is thread-safe, keeps
 * errno, and may be made from a signal handler (it allocates nothing and
 * takes no lock that an interrupted thread could hold).
 *
 * A program that revokes the TSC (prctl(PR_SET_TSC, PR_TSC_SIGSEGV)) or
 * otherwise forbids the counter must do it BEFORE its first cpucycles()
 * call: the first call then finds the counter faulting and counts with
 * the system-call clock instead.  Revoked after the first call, the inline
 * read faults (SIGSEGV), as it does with libcpucycles.
 * Until then, and for good if the check fails, it calls into the library,
 * which uses the best counter that works here.  It never fails: at worst
 * it counts with gettimeofday(), or returns 0 where there is no clock. */
#ifndef CPUCYCLES_H
#define CPUCYCLES_H

/* cffi's API mode (ffi.set_source(); the C it generates defines _CFFI_)
 * binds "cpucycles" as its cdef() declares it, libcpucycles' pointer: with
 * the inline function below in its place, it would call the function's
 * code as that pointer, and crash.  It needs the declarations-only header
 * (doc/bindings.md). */
#if defined(_CFFI_) && !defined(CPUCYCLES_NO_INLINE)
#error "cpucycles.h in cffi's API mode: define CPUCYCLES_NO_INLINE (ffi.set_source(..., define_macros=[(\"CPUCYCLES_NO_INLINE\", None)])), as cdef() binds libcpucycles' pointer cpucycles"
#endif

/* The build's configuration and the chosen counter's inline read; with
 * -DCPUCYCLES_NO_INLINE the header is declarations only (below), and
 * includes nothing. */
#if !defined(CPUCYCLES_NO_INLINE)
#include "cpucycles-config.h"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* What a library of cpucycles exports, and nothing else: each is built
 * with -fvisibility=hidden, and every name it exports is declared with
 * this (here, in <cpucycles-bench.h>, and the core's private one in its
 * sources); tests/t-installed.sh holds the export lists to these
 * declarations.  A program needs none of it: a binding generator whose
 * parser knows no attributes (cffi's cdef()) may define it empty,
 * -DCPUCYCLES_API= (the library itself never does). */
#if !defined(CPUCYCLES_API)
#if defined(__GNUC__) && __GNUC__ >= 4
#define CPUCYCLES_API __attribute__((__visibility__("default")))
#else
#define CPUCYCLES_API
#endif
#endif

/* The same count as cpucycles(), as a real function for callers that
 * cannot inline (in this library only: from other languages, bind
 * libcpucycles' pointer "cpucycles", below, which both libraries have). */
CPUCYCLES_API long long cpucycles_function(void);

/* Estimated cycles per second (see cpucycles-info for its source). */
CPUCYCLES_API long long cpucycles_persecond(void);
/* The name of the counter in use, e.g. "amd64-tsc". */
CPUCYCLES_API const char *cpucycles_implementation(void);
/* The library's version, e.g. "0.1.0". */
CPUCYCLES_API const char *cpucycles_version(void);
/* libcpucycles' diagnostic: measures every counter and prints one
 * "cpucycles tracesetup N NAME precision P scaling S only32 0" line each,
 * then the verdict, on standard output (as libcpucycles does).  Called
 * before the library's first call (to any function here), it only arms
 * them: that first call prints them, so lines the program prints in
 * between come first; called after it, it prints them at once. */
CPUCYCLES_API void cpucycles_tracesetup(void);

/* What the counts are, for reports that must say "cycles" or "ns"-like
 * units honestly (the counter in use decides):
 *   CPUCYCLES_UNIT_CORE_CYCLES     the core's own cycles (a PMU counter,
 *                                  RDCYCLE, the kernel's perf count)
 *   CPUCYCLES_UNIT_CONSTANT_RATE   a constant-rate counter (the TSC, a
 *                                  timer register) in cycles at
 *                                  cpucycles_persecond(): time, not work
 *   CPUCYCLES_UNIT_OS_CLOCK        an OS clock scaled to cycles (coarse)
 *   CPUCYCLES_UNIT_NONE            no clock at all: every count is 0 */
#define CPUCYCLES_UNIT_NONE 0
#define CPUCYCLES_UNIT_CORE_CYCLES 1
#define CPUCYCLES_UNIT_CONSTANT_RATE 2
#define CPUCYCLES_UNIT_OS_CLOCK 3
CPUCYCLES_API int cpucycles_unit(void);
/* "core cycles", "constant-rate cycles", "OS clock cycles" or "none". */
CPUCYCLES_API const char *cpucycles_unit_name(void);

#if defined(CPUCYCLES_NO_INLINE)
/* With -DCPUCYCLES_NO_INLINE, libcpucycles' own declaration: cpucycles is
 * a pointer to the read, the data symbol both libraries export (ours
 * points it at the same count as cpucycles_function()).  For bindings made
 * from this header and for C that takes &cpucycles: they bind the same
 * symbol on either library.  The header is then plain declarations, with
 * no inline function, asm or included file: bindgen reads it as it is
 * (cpucycles.unwrap()()), cffi's cdef() its text from
 *   cc -E -P -DCPUCYCLES_NO_INLINE -DCPUCYCLES_API= cpucycles.h
 * (tests/t-bindings.sh does both).  Each count is one indirect call; read
 * the pointer at each call (libcpucycles' starts at its setup function,
 * which replaces it on the first call). */
CPUCYCLES_API extern long long (*cpucycles)(void);
#else
/* ABI, not API: what the inline read below refers to (do not use these
 * names yourself).  cpucycles_abi_inline_id is the id of the counter that
 * the library verified on this host for the inline path (0 until then, and
 * for good when it refused it), and cpucycles_abi_inline_scale_q32 its
 * scale.  A program inlines its own build's counter only when both are its
 * own: run against a library built with another counter or scale (the
 * same soname, rebuilt by a distribution), it reads through the library,
 * so all of its counts come from one counter. */
/* Weak where the toolchain has weak references (GNU C on ELF): a program
 * built with this header then also runs with libcpucycles' own
 * libcpucycles.so.1 (djb's; Debian ships it under the same soname), which
 * has none of these three; cpucycles() then reads through the function
 * pointer that library exports as its data symbol "cpucycles", named here
 * by an asm label (cpucycles_libcpucycles_read).  The extensions below
 * (cpucycles_function(), cpucycles_unit(), cpucycles_unit_name()) exist
 * in this library only.  The harness, cpucycles_bench() and the rest, is a
 * library of its own: <cpucycles-bench.h>. */
#if defined(__GNUC__) && defined(__ELF__) && !defined(CPUCYCLES_NO_LIBCPUCYCLES_FALLBACK)
#define CPUCYCLES_ABI_WEAK __attribute__((__weak__))
#define CPUCYCLES_LIBCPUCYCLES_FALLBACK 1
extern long long (*cpucycles_libcpucycles_read)(void) __asm__("cpucycles");
#else
#define CPUCYCLES_ABI_WEAK
#define CPUCYCLES_LIBCPUCYCLES_FALLBACK 0
#endif
CPUCYCLES_API extern unsigned int cpucycles_abi_inline_id CPUCYCLES_ABI_WEAK;
CPUCYCLES_API extern unsigned long long cpucycles_abi_inline_scale_q32 CPUCYCLES_ABI_WEAK;

/* ABI, not API: the library's read, one indirect call.  It starts as the
 * first-call function (which decides, then replaces it) and becomes the
 * chosen counter's read (or its scaled read): the path of every call that
 * does not inline the read. */
CPUCYCLES_API extern long long (*cpucycles_abi_read)(void) CPUCYCLES_ABI_WEAK;

#if defined(__GNUC__)
#define CPUCYCLES_LIKELY(x) __builtin_expect(!!(x), 1)
#define CPUCYCLES_LOAD_INLINE_ID() __atomic_load_n(&cpucycles_abi_inline_id, __ATOMIC_ACQUIRE)
/* the library replaces it once, from another thread perhaps */
#define CPUCYCLES_LOAD_ABI_READ() __atomic_load_n(&cpucycles_abi_read, __ATOMIC_ACQUIRE)
#else
#define CPUCYCLES_LIKELY(x) (x)
#define CPUCYCLES_LOAD_INLINE_ID() (*(volatile unsigned int *)&cpucycles_abi_inline_id)
#define CPUCYCLES_LOAD_ABI_READ() (*(long long (*volatile *)(void)) & cpucycles_abi_read)
#endif

/* 0 when the library is libcpucycles' own (see CPUCYCLES_ABI_WEAK): one
 * load of the symbol's address, tested, on the inline path. */
#if CPUCYCLES_LIBCPUCYCLES_FALLBACK
#if defined(__cplusplus) && __cplusplus >= 201103L
#define CPUCYCLES_ABI_PRESENT() (&cpucycles_abi_inline_id != nullptr)
#else
#define CPUCYCLES_ABI_PRESENT() (&cpucycles_abi_inline_id != 0)
#endif
#else
#define CPUCYCLES_ABI_PRESENT() 1
#endif

/* 1 when the library verified this very counter and scale on this host. */
#if CPUCYCLES_INLINE_SCALED
#define CPUCYCLES_INLINE_VERIFIED()                                            \
  (CPUCYCLES_ABI_PRESENT() && CPUCYCLES_LOAD_INLINE_ID() == CPUCYCLES_INLINE_ID && \
   cpucycles_abi_inline_scale_q32 == CPUCYCLES_SCALE_Q32(CPUCYCLES_INLINE_SCALE))
#else
#define CPUCYCLES_INLINE_VERIFIED() \
  (CPUCYCLES_ABI_PRESENT() && CPUCYCLES_LOAD_INLINE_ID() == CPUCYCLES_INLINE_ID)
#endif

#if CPUCYCLES_LIBCPUCYCLES_FALLBACK
/* Another assembler name than "cpucycles", libcpucycles' data symbol: a
 * program that takes this function's address gets a local copy, which
 * must not be mistaken for that pointer. */
CPUCYCLES_ALWAYS_INLINE long long cpucycles(void) __asm__("cpucycles_inline");
#endif

CPUCYCLES_ALWAYS_INLINE long long cpucycles(void)
{
#if defined(CPUCYCLES_INLINE_READ)
  if (CPUCYCLES_LIKELY(CPUCYCLES_INLINE_VERIFIED())) {
#if CPUCYCLES_INLINE_SCALED
    return cpucycles_scale_ticks(CPUCYCLES_INLINE_READ(), CPUCYCLES_SCALE_Q32(CPUCYCLES_INLINE_SCALE));
#else
    return CPUCYCLES_INLINE_READ();
#endif
  }
#endif
#if CPUCYCLES_LIBCPUCYCLES_FALLBACK
  if (!CPUCYCLES_ABI_PRESENT()) return cpucycles_libcpucycles_read();
#endif
  return CPUCYCLES_LOAD_ABI_READ()();
}

#endif /* CPUCYCLES_NO_INLINE */

#ifdef __cplusplus
}
#endif

#endif
