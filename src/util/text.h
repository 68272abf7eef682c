/* SPDX-License-Identifier: MIT */
/* text.h - building messages without stdio: the library's first call may
 * run in a signal handler, where snprintf() is not allowed.  The cpucycles_text_*
 * functions append to the NUL-terminated text in buf[size], cutting at its
 * end; control characters become '?', so that a message stays one line
 * (util-fn.h: where their code is).  The cursor below writes our own
 * texts (no control characters) without libc at all. */
#ifndef CPUCYCLES_TEXT_H
#define CPUCYCLES_TEXT_H
#include "util-fn.h"
#include <stdarg.h>
#include <string.h>

/* The first call's texts (the host's fingerprint, the verdict) and its
 * comparisons are written without libc's string functions: theirs may lie
 * on a page of its code the program has not run yet, and its first run is
 * then a page fault (2.5 µs in a KVM guest: after a dlopen here, strcmp()
 * in 1 first call of 4, then strlen() in 1 of 3).  A cursor writes left
 * to right into buf[size] (size >= 1), always NUL-terminated, cutting at
 * its end as the functions below do. */
struct cpucycles_cursor {
  char *at, *last; /* last: where the NUL goes at the latest */
};

static inline void cpucycles_cursor_start(struct cpucycles_cursor *c, char *buf, size_t size)
{
  c->at = buf;
  c->last = buf + size - 1;
  *c->at = 0;
}

/* (inline at each call: a loop of a few instructions, where a call would
 * cost as much, and no out-of-line copy in each file that uses it) */
#if defined(__GNUC__)
__attribute__((__always_inline__))
#endif
static inline void cpucycles_cursor_put(struct cpucycles_cursor *c, const char *s)
{
  while (*s && c->at < c->last) *c->at++ = *s++;
  *c->at = 0;
}

/* u in base 10 or 16, at least width digits (zeros in front). */
static inline void cpucycles_cursor_put_number(struct cpucycles_cursor *c, unsigned int u,
                                               unsigned int base, int width)
{
  char digits[12];
  int n = 0;
  do digits[n++] = "0123456789abcdef"[u % base];
  while ((u /= base) != 0 || n < width);
  while (n > 0 && c->at < c->last) *c->at++ = digits[--n];
  *c->at = 0;
}

/* 1 when a and b are the same text. */
static inline int cpucycles_same_text(const char *a, const char *b)
{
  while (*a && *a == *b) a++, b++;
  return *a == *b;
}

/* len bytes of s (NULs among them appended as '?'). */
CPUCYCLES_UTIL_FN void cpucycles_text_add(char *buf, size_t size, const char *s, size_t len);
/* The string s. */
CPUCYCLES_UTIL_FN void cpucycles_text_add_str(char *buf, size_t size, const char *s);
/* n in decimal. */
CPUCYCLES_UTIL_FN void cpucycles_text_add_number(char *buf, size_t size, long long n);
/* x >= 0 with 1 to 9 decimals, as printf's %.3f with 3 ("41.538", enough
 * for cycles per tick) or %f with 6 (libcpucycles' trace lines); a
 * negative x is written as 0.000, x at most 9e9. */
CPUCYCLES_UTIL_FN void cpucycles_text_add_fixed(char *buf, size_t size, double x, int decimals);
/* fmt with these conversions of printf's, and no others, each appended as
 * above:
 *   %s     a string
 *   %.*s   an int n >= 0, then exactly n bytes of a string (NULs among
 *          them as '?', where printf would stop at the first)
 *   %u     an unsigned int; %lld a long long
 *   %08x   an unsigned int in 8 hexadecimal digits (write "0x%08x")
 *   %%     a '%'
 * (No %f: a variadic function that takes a double saves every vector
 * register on entry; cpucycles_text_add_fixed() appends one.) */
CPUCYCLES_UTIL_FN void cpucycles_text_format(char *buf, size_t size, const char *fmt, ...)
    CPUCYCLES_UTIL_PRINTF(3, 4);

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

CPUCYCLES_UTIL_FN void cpucycles_text_add_fixed(char *buf, size_t size, double x, int decimals)
{
  char digits[10];
  long long one = 1, n;
  int i;
  for (i = 0; i < decimals; i++) one *= 10;
  n = x < 0 ? 0 : (long long)(x * (double)one + 0.5);
  cpucycles_text_add_number(buf, size, n / one);
  digits[0] = '.';
  for (i = decimals; i > 0; i--, n /= 10) digits[i] = (char)('0' + n % 10);
  cpucycles_text_add(buf, size, digits, (size_t)decimals + 1);
}

CPUCYCLES_UTIL_FN void cpucycles_text_format(char *buf, size_t size, const char *fmt, ...)
{
  va_list ap;
  const char *from;
  char digits[8];
  unsigned int u = 0;
  int i;
  char c;
  va_start(ap, fmt);
  for (;;) {
    for (from = fmt; *fmt && *fmt != '%'; fmt++) continue;
    cpucycles_text_add(buf, size, from, (size_t)(fmt - from));
    if (!*fmt++) break;
    /* the first character after the '%' tells the conversions apart; one
     * va_arg() of each type, each expanded once (the int of %.*s, never
     * negative here, is read as the unsigned int it equals) */
    c = *fmt;
    if (c == 'l') { /* %lld */
      cpucycles_text_add_number(buf, size, va_arg(ap, long long));
      fmt += 3;
      continue;
    }
    if (c == '.' || c == 'u' || c == '0') u = va_arg(ap, unsigned int);
    if (c == 'u') {
      cpucycles_text_add_number(buf, size, u);
      fmt++;
    } else if (c == '0') { /* %08x */
      for (i = 0; i < 8; i++) digits[i] = "0123456789abcdef"[(u >> (28 - 4 * i)) & 0xf];
      cpucycles_text_add(buf, size, digits, 8);
      fmt += 3;
    } else if (c == 's' || c == '.') { /* %s, %.*s */
      from = va_arg(ap, const char *);
      cpucycles_text_add(buf, size, from, c == '.' ? (size_t)u : strlen(from));
      fmt += c == '.' ? 3 : 1;
    } else { /* %% */
      cpucycles_text_add(buf, size, "%", 1);
      if (c) fmt++;
    }
  }
  va_end(ap);
}
#endif
#endif
