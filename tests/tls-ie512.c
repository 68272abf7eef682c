/* SPDX-License-Identifier: MIT */
/* tls-ie512 - t-namespaces' neighbour: a library with 512 bytes of
 * initial-exec thread-local storage, the kind a dlopen() must find room
 * for in glibc's static TLS surplus. */
static __thread char tls_ie512_block[512] __attribute__((__tls_model__("initial-exec")));

char *tls_ie512(void);
char *tls_ie512(void)
{
  tls_ie512_block[511]++;
  return tls_ie512_block;
}
