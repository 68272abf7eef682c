/* SPDX-License-Identifier: MIT */
/* out.c - format.h's writer: text into a caller's buffer as snprintf()
 * writes it, JSON strings and CSV fields escaped, numbers in the C locale.
 * Compiled into the library and into cpucycles-info (which links only the
 * library's API). */
#include "format.h"
#include "utf8.h"
#include <locale.h>
#include <stdio.h>
#include <string.h>

void cpucycles_out_start(struct cpucycles_out *o, char *buf, unsigned long size)
{
  o->buf = buf, o->size = size, o->len = 0;
  if (size) buf[0] = 0;
}

static void add(struct cpucycles_out *o, const char *s, unsigned long n)
{
  unsigned long i;
  for (i = 0; i < n; i++, o->len++)
    if (o->len + 1 < o->size) o->buf[o->len] = s[i];
  if (o->size) o->buf[o->len < o->size ? o->len : o->size - 1] = 0;
}

void cpucycles_out_str(struct cpucycles_out *o, const char *s) { add(o, s, strlen(s)); }

void cpucycles_out_int(struct cpucycles_out *o, long long n)
{
  char text[32];
  snprintf(text, sizeof text, "%lld", n);
  cpucycles_out_str(o, text);
}

void cpucycles_out_double(struct cpucycles_out *o, double x)
{
  char text[64], *p;
  const char *point = localeconv()->decimal_point;
  size_t plen = strlen(point);
  snprintf(text, sizeof text, "%.10g", x);
  if (plen && strcmp(point, ".") != 0 && (p = strstr(text, point)) != 0) {
    *p = '.';
    memmove(p + 1, p + plen, strlen(p + plen) + 1);
  }
  cpucycles_out_str(o, text);
}

void cpucycles_out_json_string(struct cpucycles_out *o, const char *s)
{
  const unsigned char *p = (const unsigned char *)s;
  char esc[8];
  if (!s) {
    cpucycles_out_str(o, "null");
    return;
  }
  add(o, "\"", 1);
  while (*p) {
    /* a NUL ends the string, and any sequence it cuts short */
    int n = (int)cpucycles_utf8_length(p, 4);
    if (*p == '"' || *p == '\\') esc[0] = '\\', esc[1] = (char)*p, add(o, esc, 2);
    else if (*p == '\n') add(o, "\\n", 2);
    else if (*p == '\t') add(o, "\\t", 2);
    else if (*p < 0x20 || *p == 0x7f) snprintf(esc, sizeof esc, "\\u%04x", *p), add(o, esc, 6);
    else if (n == 0) add(o, "\\ufffd", 6);
    else add(o, (const char *)p, (unsigned long)n);
    p += n ? n : 1;
  }
  add(o, "\"", 1);
}

void cpucycles_out_csv_field(struct cpucycles_out *o, const char *s)
{
  const char *p;
  if (!s) return;
  if (!strpbrk(s, ",\"\r\n")) {
    cpucycles_out_str(o, s);
    return;
  }
  add(o, "\"", 1);
  for (p = s; *p; p++) add(o, *p == '"' ? "\"\"" : p, *p == '"' ? 2 : 1); /* "" */
  add(o, "\"", 1);
}
