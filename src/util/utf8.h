/* SPDX-License-Identifier: MIT */
/* utf8.h - the one check of a UTF-8 character, for the JSON the library
 * writes (out.c) and the JSON cpucycles-info reads (json-read.c). */
#ifndef CPUCYCLES_UTF8_H
#define CPUCYCLES_UTF8_H
#include <stddef.h>

/* The length (1 to 4) of the UTF-8 character at s, of which available
 * bytes may be read; 0 when it is not one: a stray continuation byte, an
 * overlong form, a surrogate, beyond U+10FFFF, or cut short (by the end,
 * or by a NUL, which is no continuation byte). */
static inline size_t cpucycles_utf8_length(const unsigned char *s, size_t available)
{
  size_t n, i;
  unsigned long c;
  if (available == 0) return 0;
  if (s[0] < 0x80) return 1;
  if (s[0] >= 0xc2 && s[0] <= 0xdf) n = 2, c = s[0] & 0x1f;
  else if (s[0] >= 0xe0 && s[0] <= 0xef) n = 3, c = s[0] & 0x0f;
  else if (s[0] >= 0xf0 && s[0] <= 0xf4) n = 4, c = s[0] & 0x07;
  else return 0;
  if (available < n) return 0;
  for (i = 1; i < n; i++) {
    if ((s[i] & 0xc0) != 0x80) return 0;
    c = c << 6 | (s[i] & 0x3f);
  }
  if ((n == 3 && c < 0x800) || (n == 4 && (c < 0x10000 || c > 0x10ffff))) return 0;
  return c >= 0xd800 && c <= 0xdfff ? 0 : n;
}

#endif
