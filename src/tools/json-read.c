/* SPDX-License-Identifier: MIT */
/* json-read.c - json-read.h's reader: recursive descent over RFC 8259's
 * grammar, one function per rule (quoted above each).  The top-level
 * object's keys and values are kept; everything else is only checked. */
#include "json-read.h"
#include "utf8.h"
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STRINGIFY(x) #x
#define NUMBER_TEXT(x) STRINGIFY(x)

struct parser {
  const char *start, *p, *end; /* the text, the next byte, its end */
  const char *error;           /* what is wrong at p: the first thing found */
  char *keep;                  /* where the next kept string goes */
  int depth;                   /* arrays and objects open around p */
  struct cpucycles_json *doc;  /* where the top-level members go (0: nowhere) */
  size_t room;                 /* for members, in doc->members */
};

static int value(struct parser *s, struct cpucycles_json_member *m);

/* Records what is wrong (at p) and returns -1. */
static int fail(struct parser *s, const char *what)
{
  if (!s->error) s->error = what;
  return -1;
}

/* The next byte, or -1 at the end. */
static int peek(const struct parser *s) { return s->p < s->end ? (unsigned char)*s->p : -1; }

/* ws = *( %x20 / %x09 / %x0A / %x0D ): a CRLF line end is whitespace. */
static void skip_space(struct parser *s)
{
  while (s->p < s->end && (*s->p == ' ' || *s->p == '\t' || *s->p == '\n' || *s->p == '\r')) s->p++;
}

/* true, false, null */
static int literal(struct parser *s, const char *word)
{
  size_t n = strlen(word);
  if ((size_t)(s->end - s->p) < n || memcmp(s->p, word, n) != 0) return fail(s, "not a JSON value");
  s->p += n;
  return 0;
}

/* 1*DIGIT: 1 when there was one. */
static int digits(struct parser *s)
{
  const char *from = s->p;
  while (s->p < s->end && *s->p >= '0' && *s->p <= '9') s->p++;
  return s->p > from;
}

/* The number text[from..p), checked against the grammar, as a double.
 * strtod() takes the decimal point of the program's locale (LC_NUMERIC:
 * a program that calls setlocale() may have a comma), so it reads a copy
 * with that point in place of '.'.  Beyond a double's range strtod() gives
 * +-HUGE_VAL, which the caller must judge. */
static int convert(struct parser *s, const char *from, double *x)
{
  const char *point = localeconv()->decimal_point;
  size_t n = (size_t)(s->p - from), plen, i, j = 0;
  char small[64], *copy = small, *end;
  int whole;
  if (!point || !*point) point = ".";
  plen = strlen(point);
  if (n + plen + 1 > sizeof small && !(copy = malloc(n + plen + 1))) return fail(s, "out of memory");
  for (i = 0; i < n; i++)
    if (from[i] == '.') memcpy(copy + j, point, plen), j += plen;
    else copy[j++] = from[i];
  copy[j] = 0;
  *x = strtod(copy, &end);
  whole = end == copy + j;
  if (copy != small) free(copy);
  return whole ? 0 : fail(s, "a number strtod() cannot read");
}

/* number = [ "-" ] int [ frac ] [ exp ]
 * int = "0" / ( %x31-39 *DIGIT ); frac = "." 1*DIGIT
 * exp = ( "e" / "E" ) [ "-" / "+" ] 1*DIGIT
 * (no '+' first, no leading zero, no bare '.', no inf, nan or hex).  Its
 * value goes to *x when x is not 0. */
static int number(struct parser *s, double *x)
{
  const char *from = s->p;
  if (peek(s) == '-') s->p++;
  if (peek(s) == '0') {
    s->p++;
    if (peek(s) >= '0' && peek(s) <= '9') return fail(s, "a number with a leading zero");
  } else if (!digits(s)) {
    return fail(s, "a number needs a digit here");
  }
  if (peek(s) == '.') {
    s->p++;
    if (!digits(s)) return fail(s, "a number needs a digit after its '.'");
  }
  if (peek(s) == 'e' || peek(s) == 'E') {
    s->p++;
    if (peek(s) == '+' || peek(s) == '-') s->p++;
    if (!digits(s)) return fail(s, "a number needs a digit in its exponent");
  }
  return x ? convert(s, from, x) : 0;
}

/* The four hexadecimal digits after p's 'u' in *u, p after them. */
static int hex4(struct parser *s, unsigned long *u)
{
  int i, c, d;
  s->p++;
  for (*u = 0, i = 0; i < 4; i++, s->p++) {
    c = peek(s);
    d = c >= '0' && c <= '9' ? c - '0'
        : c >= 'a' && c <= 'f' ? c - 'a' + 10
        : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
    if (d < 0) return fail(s, "\\u needs four hexadecimal digits");
    *u = *u << 4 | (unsigned long)d;
  }
  return 0;
}

/* escape = "\" ( %x22 / "\" / "/" / "b" / "f" / "n" / "r" / "t" / "u" 4HEXDIG ),
 * at p's backslash: the character's code point in *u, p after it.  A
 * character beyond U+FFFF is a UTF-16 surrogate pair, "\uD83D\uDE00"; a
 * surrogate alone is no character (UTF-8 cannot hold it) and is refused. */
static int escape(struct parser *s, unsigned long *u)
{
  static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
  const char *hit;
  unsigned long low;
  s->p++;
  if (peek(s) > 0 && (hit = strchr(from, peek(s))) != 0) {
    *u = (unsigned char)to[hit - from];
    s->p++;
    return 0;
  }
  if (peek(s) != 'u') return fail(s, "not an escape (\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)");
  if (hex4(s, u) != 0) return -1;
  if (*u >= 0xdc00 && *u <= 0xdfff) return fail(s, "a \\u low surrogate with no high one before it");
  if (*u < 0xd800 || *u > 0xdbff) return 0;
  if (s->end - s->p < 2 || s->p[0] != '\\' || s->p[1] != 'u')
    return fail(s, "a \\u high surrogate with no \\u low one after it");
  s->p++;
  if (hex4(s, &low) != 0) return -1;
  if (low < 0xdc00 || low > 0xdfff) return fail(s, "a \\u high surrogate with no \\u low one after it");
  *u = 0x10000 + ((*u - 0xd800) << 10) + (low - 0xdc00);
  return 0;
}

/* Code point u as UTF-8 at out (when not 0): its length. */
static size_t put_utf8(char *out, unsigned long u)
{
  unsigned char b[4];
  size_t n;
  if (u < 0x80) b[0] = (unsigned char)u, n = 1;
  else if (u < 0x800) b[0] = (unsigned char)(0xc0 | u >> 6), n = 2;
  else if (u < 0x10000) b[0] = (unsigned char)(0xe0 | u >> 12), n = 3;
  else b[0] = (unsigned char)(0xf0 | u >> 18), n = 4;
  if (n > 1) b[n - 1] = (unsigned char)(0x80 | (u & 0x3f));
  if (n > 2) b[n - 2] = (unsigned char)(0x80 | (u >> 6 & 0x3f));
  if (n > 3) b[1] = (unsigned char)(0x80 | (u >> 12 & 0x3f));
  if (out) memcpy(out, b, n);
  return n;
}

/* string = %x22 *char %x22, at p's quote: its text, escapes undone, to out
 * (NUL-terminated, *length without the NUL) when out is not 0.  Control
 * characters must be escaped; the rest must be UTF-8 (RFC 8259, 8.1). */
static int string(struct parser *s, char *out, size_t *length)
{
  size_t n = 0, k = 0;
  unsigned long u;
  int c;
  for (s->p++; (c = peek(s)) != '"'; n += k) {
    if (c < 0) return fail(s, "a string is not closed");
    if (c < 0x20) return fail(s, "a control character in a string (it must be escaped)");
    if (c == '\\') {
      if (escape(s, &u) != 0) return -1;
      k = put_utf8(out ? out + n : 0, u);
    } else {
      k = cpucycles_utf8_length((const unsigned char *)s->p, (size_t)(s->end - s->p));
      if (k == 0) return fail(s, "a string is not UTF-8 here");
      if (out) memcpy(out + n, s->p, k);
      s->p += k;
    }
  }
  s->p++;
  if (out) out[n] = 0;
  *length = n;
  return 0;
}

/* Opens an array or object at p: -1 beyond the depth limit, so that deep
 * nesting cannot exhaust the stack. */
static int open_nested(struct parser *s)
{
  if (++s->depth > CPUCYCLES_JSON_DEPTH)
    return fail(s, "arrays and objects nested more than " NUMBER_TEXT(CPUCYCLES_JSON_DEPTH) " deep");
  s->p++;
  skip_space(s);
  return 0;
}

/* array = "[" [ value *( "," value ) ] "]" */
static int array(struct parser *s)
{
  if (open_nested(s) != 0) return -1;
  if (peek(s) != ']')
    for (;;) {
      skip_space(s);
      if (value(s, 0) != 0) return -1;
      skip_space(s);
      if (peek(s) == ']') break;
      if (peek(s) != ',') return fail(s, "expected ',' or ']' after an array's value");
      s->p++;
    }
  s->p++;
  s->depth--;
  return 0;
}

/* A new member at the end of doc's: 0 when out of memory. */
static struct cpucycles_json_member *add_member(struct parser *s)
{
  struct cpucycles_json *doc = s->doc;
  struct cpucycles_json_member *more;
  if (doc->count == s->room) {
    size_t room = s->room ? 2 * s->room : 16;
    if (!(more = realloc(doc->members, room * sizeof *more))) return 0;
    doc->members = more, s->room = room;
  }
  memset(&doc->members[doc->count], 0, sizeof doc->members[0]);
  return &doc->members[doc->count++];
}

/* object = "{" [ member *( "," member ) ] "}"
 * member = string ":" value
 * The top-level object's members (those at depth 1) are kept in doc. */
static int object(struct parser *s)
{
  struct cpucycles_json_member *m = 0;
  size_t length;
  int top = s->depth == 0 && s->doc;
  if (open_nested(s) != 0) return -1;
  if (peek(s) != '}')
    for (;;) {
      skip_space(s);
      if (peek(s) != '"') return fail(s, "expected a key (a string) in an object");
      if (top && !(m = add_member(s))) return fail(s, "out of memory");
      if (string(s, m ? s->keep : 0, &length) != 0) return -1;
      if (m) m->key = s->keep, m->key_length = length, s->keep += length + 1;
      skip_space(s);
      if (peek(s) != ':') return fail(s, "expected ':' after an object's key");
      s->p++;
      skip_space(s);
      if (value(s, m) != 0) return -1;
      skip_space(s);
      if (peek(s) == '}') break;
      if (peek(s) != ',') return fail(s, "expected ',' or '}' after an object's value");
      s->p++;
    }
  s->p++;
  s->depth--;
  return 0;
}

/* value = false / null / true / object / array / number / string, at p;
 * its type and, for a string or a number, its value, for an array or an
 * object its text, kept in m when m is not 0. */
static int value(struct parser *s, struct cpucycles_json_member *m)
{
  enum cpucycles_json_type type;
  size_t length;
  int c = peek(s), r;
  const char *from = s->p;
  if (c == '{' || c == '[') {
    if (c == '{') type = CPUCYCLES_JSON_OBJECT, r = object(s);
    else type = CPUCYCLES_JSON_ARRAY, r = array(s);
    /* its text as written: a flags array is read by splitting it, a
     * member's object (Google Benchmark's "context") by parsing it; not
     * the whole text's own object, whose members are kept (s->depth is
     * back to 0 after it) */
    if (m && r == 0 && (c == '[' || s->depth > 0)) {
      m->length = (size_t)(s->p - from), m->string = s->keep;
      memcpy(s->keep, from, m->length), s->keep[m->length] = 0, s->keep += m->length + 1;
    }
  }
  else if (c == 't') type = CPUCYCLES_JSON_TRUE, r = literal(s, "true");
  else if (c == 'f') type = CPUCYCLES_JSON_FALSE, r = literal(s, "false");
  else if (c == 'n') type = CPUCYCLES_JSON_NULL, r = literal(s, "null");
  else if (c == '-' || (c >= '0' && c <= '9')) type = CPUCYCLES_JSON_NUMBER, r = number(s, m ? &m->number : 0);
  else if (c == '"') {
    type = CPUCYCLES_JSON_STRING, r = string(s, m ? s->keep : 0, &length);
    if (m && r == 0) m->string = s->keep, m->length = length, s->keep += length + 1;
  } else return fail(s, c < 0 ? "the text ends where a value should be" : "not a JSON value");
  if (m) m->type = type;
  return r;
}

/* Keys compared as bytes, a key before a longer one it begins. */
static int compare_keys(const void *a, const void *b)
{
  const struct cpucycles_json_member *x = a, *y = b;
  int c = memcmp(x->key, y->key, x->key_length < y->key_length ? x->key_length : y->key_length);
  return c ? c : (x->key_length > y->key_length) - (x->key_length < y->key_length);
}

/* The line and column (in bytes) of p, and what is wrong there. */
static void describe(const struct parser *s, char *why, size_t size)
{
  unsigned long line = 1, column = 1;
  const char *q;
  for (q = s->start; q < s->p; q++)
    if (*q == '\n') line++, column = 1;
    else column++;
  snprintf(why, size, "line %lu, column %lu: %s", line, column, s->error);
}

/* A key found twice: its first 60 bytes, whole characters, with control
 * characters as '?' (the message is one line of text). */
static void describe_twice(const struct cpucycles_json_member *m, char *why, size_t size)
{
  char key[64];
  size_t i, n = m->key_length < 60 ? m->key_length : 60;
  while (n < m->key_length && n > 0 && (m->key[n] & 0xc0) == 0x80) n--;
  for (i = 0; i < n; i++) {
    unsigned char c = (unsigned char)m->key[i];
    key[i] = c < 0x20 || c == 0x7f ? '?' : (char)c;
  }
  key[n] = 0;
  snprintf(why, size, "the key \"%s\"%s appears more than once in the top-level object", key,
           n < m->key_length ? "..." : "");
}

int cpucycles_json_parse(struct cpucycles_json *doc, const char *text, size_t length, char *why,
                         size_t size)
{
  struct parser s;
  struct cpucycles_json_member root;
  size_t i;
  memset(doc, 0, sizeof *doc);
  memset(&s, 0, sizeof s);
  s.start = s.p = text, s.end = text + length, s.doc = doc;
  /* Kept text is never longer than its JSON form, quotes included, which
   * leave room for its NUL (an array's or a member's object's NUL: its
   * key's quotes and ':', or the one byte beyond when the whole text is
   * the array; the whole text's own object is not kept): the text's
   * length and one byte are enough for all of it. */
  if (!(s.keep = doc->strings = malloc(length + 1))) {
    if (size) snprintf(why, size, "out of memory");
    return -1;
  }
  if (length >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0) s.p += 3; /* a byte order mark */
  skip_space(&s);
  if (value(&s, &root) == 0) {
    skip_space(&s);
    if (s.p != s.end) fail(&s, "more after the JSON value");
  }
  if (s.error) {
    if (size) describe(&s, why, size);
    cpucycles_json_free(doc);
    return -1;
  }
  doc->type = root.type;
  /* the room add_member() left over given back: a suite keeps a document
   * per result, most of whose room would be unused */
  if (doc->count > 0 && doc->count < s.room) {
    struct cpucycles_json_member *fit = realloc(doc->members, doc->count * sizeof *fit);
    if (fit) doc->members = fit;
  }
  if (doc->count > 1) {
    qsort(doc->members, doc->count, sizeof doc->members[0], compare_keys);
    for (i = 1; i < doc->count; i++)
      if (compare_keys(&doc->members[i - 1], &doc->members[i]) == 0) {
        if (size) describe_twice(&doc->members[i], why, size);
        cpucycles_json_free(doc);
        return -1;
      }
  }
  return 0;
}

void cpucycles_json_free(struct cpucycles_json *doc)
{
  free(doc->members);
  free(doc->strings);
  memset(doc, 0, sizeof *doc);
}

const struct cpucycles_json_member *cpucycles_json_find(const struct cpucycles_json *doc,
                                                        const char *key)
{
  struct cpucycles_json_member probe;
  if (doc->count == 0) return 0;
  probe.key = key, probe.key_length = strlen(key);
  return bsearch(&probe, doc->members, doc->count, sizeof probe, compare_keys);
}

const char *cpucycles_json_string(const struct cpucycles_json *doc, const char *key, size_t *length)
{
  const struct cpucycles_json_member *m = cpucycles_json_find(doc, key);
  if (!m || m->type != CPUCYCLES_JSON_STRING) return 0;
  *length = m->length;
  return m->string;
}

int cpucycles_json_number(const struct cpucycles_json *doc, const char *key, double *x)
{
  const struct cpucycles_json_member *m = cpucycles_json_find(doc, key);
  if (!m || m->type != CPUCYCLES_JSON_NUMBER) return 0;
  *x = m->number;
  return 1;
}

/* A span at the end of *spans: -1 when out of memory. */
static int add_span(struct parser *s, struct cpucycles_json_span **spans, size_t *count,
                    size_t *room, const char *from)
{
  struct cpucycles_json_span *more;
  if (*count == *room) {
    size_t bigger = *room ? 2 * *room : 8;
    if (!(more = realloc(*spans, bigger * sizeof *more))) return fail(s, "out of memory");
    *spans = more, *room = bigger;
  }
  (*spans)[*count].offset = (size_t)(from - s->start);
  (*spans)[*count].length = (size_t)(s->p - from);
  (*count)++;
  return 0;
}

int cpucycles_json_values(const char *text, size_t length, struct cpucycles_json_span **spans,
                          size_t *count, char *why, size_t size)
{
  struct parser s;
  const char *from;
  size_t room = 0;
  *spans = 0, *count = 0;
  memset(&s, 0, sizeof s);
  s.start = s.p = text, s.end = text + length;
  if (length >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0) s.p += 3; /* a byte order mark */
  skip_space(&s);
  if (peek(&s) == '[') {
    /* array = "[" [ value *( "," value ) ] "]", each value a span */
    if (open_nested(&s) == 0 && peek(&s) != ']')
      for (;;) {
        skip_space(&s);
        from = s.p;
        if (value(&s, 0) != 0 || add_span(&s, spans, count, &room, from) != 0) break;
        skip_space(&s);
        if (peek(&s) == ']') break;
        if (peek(&s) != ',') {
          fail(&s, "expected ',' or ']' after an array's value");
          break;
        }
        s.p++;
      }
    if (!s.error) {
      s.p++;
      skip_space(&s);
      if (s.p != s.end) fail(&s, "more after the JSON array");
    }
  } else {
    do {
      from = s.p;
      if (value(&s, 0) != 0 || add_span(&s, spans, count, &room, from) != 0) break;
      skip_space(&s);
    } while (s.p != s.end);
  }
  if (s.error) {
    if (size) describe(&s, why, size);
    free(*spans);
    *spans = 0, *count = 0;
    return -1;
  }
  return 0;
}
