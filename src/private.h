/* SPDX-License-Identifier: MIT */
/* private.h - what the counter library (libcpucycles, src/core/) tells
 * this project's own harness library and cpucycles-info beyond its API:
 * one exported function, cpucycles_private(), defined in
 * src/core/cpucycles.c.
 *
 * Neither may take more of the core than this.  The harness reads the
 * fields below; cpucycles-info also reads the decision and the tables,
 * through info (its layout is src/core/info-abi.h's, valid for the same
 * version only: cpucycles-info checks the version and the sizes).  Where
 * the library is libcpucycles' own (djb's, the same soname), there is no
 * cpucycles_private at all: its callers refer to it weakly, and fall back
 * to the public API, saying so. */
#ifndef CPUCYCLES_PRIVATE_H
#define CPUCYCLES_PRIVATE_H
#include "cpucycles.h"

/* Bumped when a field changes meaning; fields are only ever added at the
 * end, and size says how many there are. */
#define CPUCYCLES_PRIVATE_INTERFACE 2

struct cpucycles_info_abi; /* cpucycles-info's view: src/core/info-abi.h */

struct cpucycles_private {
  unsigned int interface;               /* CPUCYCLES_PRIVATE_INTERFACE */
  unsigned long size;                   /* sizeof(struct cpucycles_private) */
  const char *version;                  /* the library's CPUCYCLES_VERSION */
  /* Where cpucycles_persecond() came from ("operating system", ...). */
  const char *(*persecond_source)(void);
  /* This host, as the build's fingerprint describes one. */
  const char *(*host_fingerprint)(void);
  /* Calls fn(arg), surviving the SIGILL, SIGSEGV or SIGBUS it raises
   * (those of faults, CPUCYCLES_FAULT_* bits; 0: all three): 0, the
   * signal, or -1 when faults cannot be caught here (fn not called); the
   * program's signal handlers are left as they were. */
  int (*guarded_call)(unsigned int faults, void (*fn)(void *), void *arg);
  const struct cpucycles_info_abi *info;
};

CPUCYCLES_API const struct cpucycles_private *cpucycles_private(void);

#endif
