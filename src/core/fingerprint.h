/* SPDX-License-Identifier: MIT */
/* fingerprint.h - what identifies a host for the counters' sake.
 *
 * The configure-time choice is trusted at run time only on a host with the
 * same fingerprint as the build host.  On x86 it is the CPUID signature
 * (family/model/stepping), leaf 1's feature words and the bits the
 * counters depend on (TSC, RDTSCP, invariant TSC), from glibc's cache of
 * CPUID where there is one; elsewhere the machine name and the first CPU
 * identification lines of /proc/cpuinfo (fingerprint.c lists them per
 * architecture). */
#ifndef CPUCYCLES_FINGERPRINT_H
#define CPUCYCLES_FINGERPRINT_H
#include <stddef.h>
#include "hidden.h"
CPUCYCLES_HIDDEN_BEGIN

#define CPUCYCLES_FINGERPRINT_MAX 160

void cpucycles_fingerprint(char *buf, size_t len);

CPUCYCLES_HIDDEN_END
#endif
