/* SPDX-License-Identifier: MIT */
/* util-fn.h - how the helpers of src/util/ (readfile.h, text.h) are
 * compiled.  Each file that includes them gets its own static inline
 * copies (the harness, the tools, the probes, the tests, the fuzzers),
 * except in the counter library, whose objects Makefile.am compiles with
 * CPUCYCLES_UTIL_SHARED: there the headers only declare the helpers, and
 * src/core/util.c (which also defines CPUCYCLES_UTIL_DEFINE) holds the one
 * copy of each, cold (CPUCYCLES_COLD) like the rest of the one-time code
 * that calls them.  Copies inlined into every caller were most of the
 * library's size (HACKING.md, its size budget). */
#ifndef CPUCYCLES_UTIL_FN_H
#define CPUCYCLES_UTIL_FN_H
#if defined(CPUCYCLES_UTIL_SHARED)
#include "cpucycles/counter.h"
/* hidden like the core's other internal functions (src/core/hidden.h) */
#if defined(__GNUC__)
#define CPUCYCLES_UTIL_FN CPUCYCLES_COLD __attribute__((__visibility__("hidden")))
#else
#define CPUCYCLES_UTIL_FN CPUCYCLES_COLD
#endif
#if defined(CPUCYCLES_UTIL_DEFINE)
#define CPUCYCLES_UTIL_BODIES 1
#endif
#else
#define CPUCYCLES_UTIL_FN static inline
#define CPUCYCLES_UTIL_BODIES 1
#endif

/* printf's checks for a function whose conversions are a subset of its. */
#if defined(__GNUC__)
#define CPUCYCLES_UTIL_PRINTF(fmt, first) __attribute__((__format__(__printf__, fmt, first)))
#else
#define CPUCYCLES_UTIL_PRINTF(fmt, first)
#endif
#endif
