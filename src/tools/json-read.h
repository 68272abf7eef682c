/* SPDX-License-Identifier: MIT */
/* json-read.h - a strict JSON reader (RFC 8259) for a document that is one
 * object of named values, as cpucycles_bench_format() writes: parse it
 * once, then look up the top-level object's own members by name.  A text
 * of several such documents (an array, or one after another) is split
 * into them first (cpucycles_json_values()).
 *
 * The whole text is checked: objects, arrays, strings (UTF-8, every
 * escape, \uXXXX with surrogate pairs), numbers by the grammar, true,
 * false, null, whitespace (CRLF included), an optional UTF-8 byte order
 * mark first, nothing after the value.  Arrays and objects nested deeper
 * than CPUCYCLES_JSON_DEPTH are refused (the reader recurses).  A key that
 * appears twice in the top-level object is refused: which one counts would
 * be a guess.  Nested values are checked, not kept (a member's array or
 * object is kept as its text, to be read in turn).  Numbers read the
 * same whatever the program's locale.  No global state.  Used by
 * cpucycles-info --compare; json-read.c. */
#ifndef CPUCYCLES_JSON_READ_H
#define CPUCYCLES_JSON_READ_H
#include <stddef.h>

#define CPUCYCLES_JSON_DEPTH 256

enum cpucycles_json_type {
  CPUCYCLES_JSON_NULL,
  CPUCYCLES_JSON_FALSE,
  CPUCYCLES_JSON_TRUE,
  CPUCYCLES_JSON_NUMBER,
  CPUCYCLES_JSON_STRING,
  CPUCYCLES_JSON_ARRAY, /* (its text kept, not its values) */
  CPUCYCLES_JSON_OBJECT /* (likewise) */
};

/* One member of the top-level object.  Text is UTF-8 with its escapes
 * undone, NUL-terminated after its length (a "\u0000" in it is a NUL too:
 * compare with the length). */
struct cpucycles_json_member {
  const char *key;
  size_t key_length;
  enum cpucycles_json_type type;
  const char *string; /* CPUCYCLES_JSON_STRING's text; CPUCYCLES_JSON_ARRAY's
                         and CPUCYCLES_JSON_OBJECT's JSON text as written,
                         whole (split an array with cpucycles_json_values(),
                         parse an object with cpucycles_json_parse()); else 0 */
  size_t length;
  double number; /* CPUCYCLES_JSON_NUMBER's value: +-HUGE_VAL beyond a double's range */
};

struct cpucycles_json {
  enum cpucycles_json_type type;          /* of the whole document */
  struct cpucycles_json_member *members;  /* the top-level object's, sorted by key */
  size_t count;
  char *strings;                          /* (where their text is kept) */
};

/* Parses text[0..length-1] (need not be NUL-terminated) into doc: 0, or -1
 * with doc empty and why[0..size-1] saying where and what, one line of
 * printable text.  Free a parsed doc with cpucycles_json_free(). */
int cpucycles_json_parse(struct cpucycles_json *doc, const char *text, size_t length, char *why,
                         size_t size);
void cpucycles_json_free(struct cpucycles_json *doc);

/* The top-level member named key, or 0 (also when the document is not an
 * object). */
const struct cpucycles_json_member *cpucycles_json_find(const struct cpucycles_json *doc,
                                                        const char *key);
/* key's string, its length in *length; 0 when there is none or it is not a
 * string */
const char *cpucycles_json_string(const struct cpucycles_json *doc, const char *key, size_t *length);
/* 1 with key's number in *x; 0 when there is none or it is not a number */
int cpucycles_json_number(const struct cpucycles_json *doc, const char *key, double *x);

/* One value of a text that holds several: its bytes, text[offset] to
 * text[offset + length - 1]. */
struct cpucycles_json_span {
  size_t offset, length;
};

/* The values text[0..length-1] holds: the elements of a top-level array,
 * or values one after another with only whitespace between them (as
 * `cat a.json b.json` makes; one value is one of them).  Each is checked
 * as above, not kept: parse each span with cpucycles_json_parse().
 * 0 with a malloc()ed *spans (free it) and *count, or -1 with why as
 * above. */
int cpucycles_json_values(const char *text, size_t length, struct cpucycles_json_span **spans,
                          size_t *count, char *why, size_t size);

#endif
