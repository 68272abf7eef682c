/* SPDX-License-Identifier: MIT */
/* fuzz-json - libFuzzer harness for the JSON reader cpucycles-info
 * --compare reads saved results with (src/tools/json-read.c).  Build and run:
 * tests/fuzz/run.sh.
 *
 * The input is the document, exactly its bytes (no NUL after them, so that
 * a read past the end is a sanitizer report).  Checked besides the
 * sanitizers: a refusal has a one-line printable message; an accepted
 * document's members are sorted with no key twice, each found by its name,
 * their text NUL-terminated at its length and UTF-8 with no surrogate (an
 * array's text, as written, an array cpucycles_json_values() splits; an
 * object's, an object that parses, unless a key of its own is twice);
 * whitespace after an accepted document changes nothing, and anything else
 * after it is refused. */
#include "json-read.c"
#include <stdint.h>

/* 1 when text[0..n-1] is UTF-8 (NULs allowed: "\u0000"). */
static int utf8(const char *text, size_t n)
{
  const unsigned char *p = (const unsigned char *)text, *end = p + n;
  size_t k;
  for (; p < end; p += k)
    if ((k = cpucycles_utf8_length(p, (size_t)(end - p))) == 0) return 0;
  return 1;
}

static void check_refusal(const char *why)
{
  const char *p;
  if (!*why) abort();
  for (p = why; *p; p++)
    if ((unsigned char)*p < 0x20 || *p == 0x7f) abort();
}

static void check_document(const struct cpucycles_json *doc)
{
  size_t i;
  if (doc->count && doc->type != CPUCYCLES_JSON_OBJECT) abort();
  for (i = 0; i < doc->count; i++) {
    const struct cpucycles_json_member *m = &doc->members[i];
    if (i && compare_keys(&doc->members[i - 1], m) >= 0) abort();
    if (m->key[m->key_length] || !utf8(m->key, m->key_length)) abort();
    if (strlen(m->key) == m->key_length && cpucycles_json_find(doc, m->key) != m) abort();
    if ((m->type == CPUCYCLES_JSON_STRING || m->type == CPUCYCLES_JSON_ARRAY ||
         m->type == CPUCYCLES_JSON_OBJECT) != (m->string != 0))
      abort();
    if (m->string && (m->string[m->length] || !utf8(m->string, m->length))) abort();
    if (m->type == CPUCYCLES_JSON_ARRAY) { /* its text as written: an array that splits */
      struct cpucycles_json_span *spans;
      size_t count;
      char why[256];
      if (m->string[0] != '[' || m->string[m->length - 1] != ']' ||
          cpucycles_json_values(m->string, m->length, &spans, &count, why, sizeof why) != 0)
        abort();
      free(spans);
    }
    if (m->type == CPUCYCLES_JSON_OBJECT) { /* its text as written: an object that parses */
      struct cpucycles_json inner;
      char why[256];
      if (m->string[0] != '{' || m->string[m->length - 1] != '}') abort();
      if (cpucycles_json_parse(&inner, m->string, m->length, why, sizeof why) == 0)
        cpucycles_json_free(&inner);
      else if (!strstr(why, "appears more than once"))
        abort();
    }
  }
}

/* The values of a text of several: each span inside the text, after the
 * one before, and a value by the grammar (parsed alone, it is refused
 * only for a key twice at its top level). */
static void check_values(const uint8_t *data, size_t size)
{
  struct cpucycles_json_span *spans;
  struct cpucycles_json one;
  size_t i, count, end = 0;
  char why[256];
  if (cpucycles_json_values((const char *)data, size, &spans, &count, why, sizeof why) != 0) {
    if (spans || count) abort();
    check_refusal(why);
    return;
  }
  for (i = 0; i < count; i++) {
    if (spans[i].offset < end || spans[i].length == 0 || spans[i].offset + spans[i].length > size)
      abort();
    end = spans[i].offset + spans[i].length;
    if (cpucycles_json_parse(&one, (const char *)data + spans[i].offset, spans[i].length, why,
                             sizeof why) == 0)
      cpucycles_json_free(&one);
    else if (!strstr(why, "appears more than once"))
      abort();
  }
  free(spans);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  struct cpucycles_json doc, again;
  char why[256], *more;
  int ok;
  check_values(data, size);
  ok = cpucycles_json_parse(&doc, (const char *)data, size, why, sizeof why) == 0;
  if (!ok) {
    check_refusal(why);
    return 0;
  }
  check_document(&doc);

  if (!(more = malloc(size + 1))) abort();
  memcpy(more, data, size);
  more[size] = '\n';
  if (cpucycles_json_parse(&again, more, size + 1, why, sizeof why) != 0 ||
      again.count != doc.count || again.type != doc.type)
    abort();
  cpucycles_json_free(&again);
  more[size] = 'x';
  if (cpucycles_json_parse(&again, more, size + 1, why, sizeof why) == 0) abort();
  check_refusal(why);
  free(more);
  cpucycles_json_free(&doc);
  return 0;
}
