/* SPDX-License-Identifier: MIT */
/* hidden.h - the core's internal declarations are hidden, as their
 * definitions are (-fvisibility=hidden): each internal header puts its
 * declarations between CPUCYCLES_HIDDEN_BEGIN and CPUCYCLES_HIDDEN_END,
 * after its system headers.  The compiler then calls an internal function
 * of another file directly (5 bytes on x86-64) instead of through the GOT
 * (-fno-plt: 6 bytes, relaxed by the linker), and takes its data by its
 * address instead of from the GOT: the library's size budget
 * (HACKING.md).  Exported names are declared CPUCYCLES_API, which wins. */
#ifndef CPUCYCLES_HIDDEN_H
#define CPUCYCLES_HIDDEN_H
#if defined(__GNUC__)
#define CPUCYCLES_HIDDEN_BEGIN _Pragma("GCC visibility push(hidden)")
#define CPUCYCLES_HIDDEN_END _Pragma("GCC visibility pop")
#else
#define CPUCYCLES_HIDDEN_BEGIN
#define CPUCYCLES_HIDDEN_END
#endif
#endif
