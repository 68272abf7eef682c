/* SPDX-License-Identifier: MIT */
/* tls-none - t-namespaces' yardstick: a library with no thread-local
 * storage of its own that needs the C library, as libcpucycles does.  Each
 * namespace it is loaded into holds a copy of the C library, whose own
 * initial-exec TLS limits how many namespaces any such library gets. */
#include <stdio.h>

int tls_none(void);
int tls_none(void) { return puts("tls-none"); }
