/* SPDX-License-Identifier: MIT */
/* text.h - building messages without stdio: the library's first call may
 * run in a signal handler, where snprintf() is not allowed.  Each function
 * appends to the NUL-terminated text in buf[size], cutting at its end;
 * control characters become '?', so that a message stays one line.
 * (util-fn.h: where the functions' code is.) */
#ifndef CPUCYCLES_TEXT_H
#define CPUCYCLES_TEXT_H
#include "util-fn.h"
#include <string.h>

/* len bytes of s (NULs among them appended as '?'). */
CPUCYCLES_UTIL_FN void cpucycles_text_add(char *buf, size_t size, const char *s, size_t len);
/* The string s. */
CPUCYCLES_UTIL_FN void cpucycles_text_add_str(char *buf, size_t size, const char *s);
/* n in decimal. */
CPUCYCLES_UTIL_FN void cpucycles_text_add_number(char *buf, size_t size, long long n);
/* "0x" and 8 hexadecimal digits */
CPUCYCLES_UTIL_FN void cpucycles_text_add_hex(char *buf, size_t size, unsigned int x);
/* x >= 0 with three decimals ("41.538"), enough for cycles per tick. */
CPUCYCLES_UTIL_FN void cpucycles_text_add_decimal(char *buf, size_t size, double x);

#if defined(CPUCYCLES_UTIL_BODIES)
CPUCYCLES_UTIL_FN void cpucycles_text_add(char *buf, size_t size, const char *s, size_t len)
{
  size_t used = strlen(buf);
  unsigned char c;
  for (; len > 0 && used + 1 < size; len--) {
    c = (unsigned char)*s++;
    buf[used++] = c < 0x20 || c == 0x7f ? '?' : (char)c;
  }
  buf[used] = 0;
}

CPUCYCLES_UTIL_FN void cpucycles_text_add_str(char *buf, size_t size, const char *s)
{
  cpucycles_text_add(buf, size, s, strlen(s));
}

CPUCYCLES_UTIL_FN void cpucycles_text_add_number(char *buf, size_t size, long long n)
{
  char digits[24];
  size_t i = sizeof digits;
  unsigned long long u = n < 0 ? 0 - (unsigned long long)n : (unsigned long long)n;
  do digits[--i] = (char)('0' + u % 10);
  while (u /= 10);
  if (n < 0) digits[--i] = '-';
  cpucycles_text_add(buf, size, digits + i, sizeof digits - i);
}

CPUCYCLES_UTIL_FN void cpucycles_text_add_hex(char *buf, size_t size, unsigned int x)
{
  char digits[11] = {'0', 'x'};
  int i;
  for (i = 0; i < 8; i++) digits[2 + i] = "0123456789abcdef"[(x >> (28 - 4 * i)) & 0xf];
  digits[10] = 0;
  cpucycles_text_add_str(buf, size, digits);
}

CPUCYCLES_UTIL_FN void cpucycles_text_add_decimal(char *buf, size_t size, double x)
{
  long long thousandths = x < 0 ? 0 : (long long)(x * 1000 + 0.5);
  char frac[5] = {'.', 0, 0, 0, 0};
  cpucycles_text_add_number(buf, size, thousandths / 1000);
  frac[1] = (char)('0' + thousandths / 100 % 10);
  frac[2] = (char)('0' + thousandths / 10 % 10);
  frac[3] = (char)('0' + thousandths % 10);
  cpucycles_text_add_str(buf, size, frac);
}
#endif
#endif
