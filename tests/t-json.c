/* SPDX-License-Identifier: MIT */
/* t-json - the JSON reader cpucycles-info --compare uses (src/tools/json-read.c)
 * against RFC 8259: what it must accept and read right (every escape, a
 * surrogate pair, numbers by the grammar, a BOM, CRLF, nesting up to its
 * limit) and what it must refuse with a message (each way a document can
 * break the grammar, bad UTF-8, lone surrogates, trailing text, a key
 * repeated at the top level); numbers under a decimal-comma locale. */
#include "json-read.h"
#include "tap.h"
#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct example {
  const char *text;
  size_t length; /* 0: strlen(text) */
  int ok;
};

static const struct example examples[] = {
  {"{\"a\": 1}", 0, 1},
  {"{}", 0, 1},
  {"[]", 0, 1},
  {"\"x\"", 0, 1},
  {" 1 ", 0, 1},
  {"true", 0, 1},
  {"null", 0, 1},
  {"-0", 0, 1},
  {"[0.5e-3, 1E+2, -12.75e0, 0]", 0, 1},
  {"\xef\xbb\xbf{\"a\": 1}", 0, 1},              /* a byte order mark */
  {"{\r\n  \"a\": 1\r\n}\r\n", 0, 1},           /* CRLF */
  {"{\"a\": {\"b\": 1, \"b\": 2}}", 0, 1},      /* repeated below the top level */
  {"{\"a\": [1, {\"c\": [null, true, false, \"\\u00e9\"]}], \"b\": \"\"}", 0, 1},
  {"{\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\": 1}", 0, 1}, /* UTF-8 of 2, 3, 4 bytes */
  {"", 0, 0},
  {" \r\n", 0, 0},
  {"\xef\xbb\xbf", 0, 0},
  {"{", 0, 0},
  {"{\"a\"}", 0, 0},
  {"{\"a\":}", 0, 0},
  {"{\"a\": 1,}", 0, 0},
  {"[1,]", 0, 0},
  {"[1 2]", 0, 0},
  {"{'a': 1}", 0, 0},
  {"{a: 1}", 0, 0},
  {"{\"a\": 01}", 0, 0},
  {"{\"a\": +1}", 0, 0},
  {"{\"a\": .5}", 0, 0},
  {"{\"a\": 1.}", 0, 0},
  {"{\"a\": 1e}", 0, 0},
  {"{\"a\": 1e+}", 0, 0},
  {"{\"a\": -}", 0, 0},
  {"{\"a\": NaN}", 0, 0},
  {"{\"a\": Infinity}", 0, 0},
  {"{\"a\": 0x10}", 0, 0},
  {"{\"a\": tru}", 0, 0},
  {"{\"a\": \"\\x\"}", 0, 0},
  {"{\"a\": \"\\u12\"}", 0, 0},
  {"{\"a\": \"\\uDC00\"}", 0, 0},                /* a low surrogate alone */
  {"{\"a\": \"\\uD800\"}", 0, 0},                /* a high one alone */
  {"{\"a\": \"\\uD800\\u0041\"}", 0, 0},
  {"{\"a\": \"\\uD800\\uD800\"}", 0, 0},
  {"{\"a\": \"tab\there\"}", 0, 0},             /* a control character unescaped */
  {"{\"a\": \"\x1b[2J\"}", 0, 0},
  {"{\"a\": \"\xff\"}", 0, 0},                   /* not UTF-8 */
  {"{\"a\": \"\xc0\x80\"}", 0, 0},               /* overlong */
  {"{\"a\": \"\xed\xa0\x80\"}", 0, 0},           /* a surrogate in UTF-8 */
  {"{\"a\": \"\xf4\x90\x80\x80\"}", 0, 0},       /* beyond U+10FFFF */
  {"{\"a\": \"\xe2\x82\"}", 0, 0},               /* cut short */
  {"{\"a\": \"open", 0, 0},
  {"{\"a\": 1} x", 0, 0},
  {"{\"a\": 1}{}", 0, 0},
  {"{\"a\": 1}\0", 9, 0},
  {"{\"a\": 1, \"a\": 1}", 0, 0},                /* repeated at the top level */
  {"{\"b\": 1, \"a\\u0000\": 2, \"a\\u0000\": 3}", 0, 0},
  {" \xef\xbb\xbf{}", 0, 0},                      /* a BOM only first */
  {"\0", 1, 0},
};

/* n times open, then n times close: arrays nested n deep. */
static int nested(int n, char open, char close)
{
  char *text = malloc(2 * (size_t)n), why[200];
  struct cpucycles_json doc;
  int r;
  memset(text, open, (size_t)n), memset(text + n, close, (size_t)n);
  r = cpucycles_json_parse(&doc, text, 2 * (size_t)n, why, sizeof why);
  if (r == 0) cpucycles_json_free(&doc);
  free(text);
  return r;
}

int main(void)
{
  static const char escaped[] =
      "{\"s\": \"\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\u20AC\\uD83D\\uDE00\\u0000.\", \"n\": -12.5e1,"
      " \"big\": 1e999, \"t\": true, \"z\": null, \"o\": {\"s\": \"nested\"}, \"l\": [1]}";
  static const char key_nul[] = "{\"type\\u0000x\": \"bench\"}";
  static const char twice[] = "{\"b\": 1, \"a\": 2, \"b\": 3}";
  static const char decoded[] = "\"\\/\b\f\n\r\t\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\0.";
  struct cpucycles_json doc;
  const struct cpucycles_json_member *m;
  char why[200], first_why[200] = "";
  const char *s;
  size_t i, length, wrong = 0, quiet = 0, n = sizeof examples / sizeof examples[0];
  double x = 0;
  int r;

  tap_plan(13);
  for (i = 0; i < n; i++) {
    const struct example *e = &examples[i];
    r = cpucycles_json_parse(&doc, e->text, e->length ? e->length : strlen(e->text), why,
                                 sizeof why);
    if ((r == 0) != e->ok) {
      if (!wrong++) printf("# wrong: %s (%s)\n", e->text, r ? why : "accepted");
    } else if (r != 0 && (strncmp(why, "line ", 5) != 0 && !strstr(why, "more than once"))) {
      if (!quiet++) printf("# no message: %s\n", e->text);
    }
    if (r != 0 && !first_why[0]) strcpy(first_why, why);
    if (r == 0) cpucycles_json_free(&doc);
  }
  tap_ok(wrong == 0 && quiet == 0,
         "%lu documents accepted or refused as RFC 8259 says, each refusal with where and what "
         "(e.g. '%s')", (unsigned long)n, first_why);

  r = cpucycles_json_parse(&doc, escaped, strlen(escaped), why, sizeof why);
  tap_ok(r == 0 && doc.type == CPUCYCLES_JSON_OBJECT && doc.count == 7,
         "an object with every kind of value: %lu members", (unsigned long)doc.count);
  s = cpucycles_json_string(&doc, "s", &length);
  tap_ok(s && length == sizeof decoded - 1 && memcmp(s, decoded, length) == 0 && s[length] == 0,
         "every escape undone: \\\" \\\\ \\/ \\b \\f \\n \\r \\t, \\u to UTF-8, a surrogate pair, "
         "\\u0000 (kept with its length)");
  tap_ok(cpucycles_json_number(&doc, "n", &x) && x == -125 &&
             cpucycles_json_number(&doc, "big", &x) && isinf(x) &&
             !cpucycles_json_number(&doc, "s", &x) && !cpucycles_json_string(&doc, "n", &length) &&
             (m = cpucycles_json_find(&doc, "t")) && m->type == CPUCYCLES_JSON_TRUE &&
             (m = cpucycles_json_find(&doc, "z")) && m->type == CPUCYCLES_JSON_NULL &&
             (m = cpucycles_json_find(&doc, "l")) && m->type == CPUCYCLES_JSON_ARRAY,
         "numbers (1e999 as inf, for the caller to judge), true, null, an array; a string is no "
         "number and a number no string");
  tap_ok((m = cpucycles_json_find(&doc, "l")) && m->string && m->length == 3 &&
             memcmp(m->string, "[1]", 4) == 0,
         "an array's text is kept as written (cpucycles-info --compare splits a result's flags)");
  tap_ok((m = cpucycles_json_find(&doc, "o")) && m->type == CPUCYCLES_JSON_OBJECT &&
             !cpucycles_json_find(&doc, "nested") && !cpucycles_json_find(&doc, ""),
         "only the top level's own members are found");
  {
    struct cpucycles_json inner;
    m = cpucycles_json_find(&doc, "o");
    tap_ok(m && m->string && m->length == 15 && memcmp(m->string, "{\"s\": \"nested\"}", 16) == 0 &&
               cpucycles_json_parse(&inner, m->string, m->length, why, sizeof why) == 0 &&
               (s = cpucycles_json_string(&inner, "s", &length)) && strcmp(s, "nested") == 0,
           "an object's text is kept as written, and parses (Google Benchmark's \"context\")");
    if (m && m->string) cpucycles_json_free(&inner);
  }
  cpucycles_json_free(&doc);

  tap_ok(cpucycles_json_parse(&doc, key_nul, strlen(key_nul), why, sizeof why) == 0 &&
             !cpucycles_json_find(&doc, "type"),
         "a key with \\u0000 in it is not the key before the NUL");
  cpucycles_json_free(&doc);

  tap_ok(nested(CPUCYCLES_JSON_DEPTH, '[', ']') == 0 && nested(CPUCYCLES_JSON_DEPTH + 1, '[', ']') != 0 &&
             nested(100000, '[', ']') != 0 && nested(100000, '{', '}') != 0,
         "nesting: %d deep read, deeper refused (100000 too, without a crash)", CPUCYCLES_JSON_DEPTH);

  tap_ok(cpucycles_json_parse(&doc, twice, strlen(twice), why, sizeof why) != 0 &&
             strstr(why, "\"b\""),
         "a key repeated at the top level is refused: %s", why);

  /* Several values: an array's elements, or values one after another. */
  {
    static const struct {
      const char *text;
      size_t count;   /* values, or 0: refused */
      const char *first, *last; /* the first and last value's text */
    } sets[] = {
        {"{\"a\": 1}", 1, "{\"a\": 1}", "{\"a\": 1}"},
        {" [ {\"a\": 1} , {\"b\": [2, 3]} ] \n", 2, "{\"a\": 1}", "{\"b\": [2, 3]}"},
        {"{\"a\": 1}\n{\"b\": 2}\n{}\n", 3, "{\"a\": 1}", "{}"},
        {"\xef\xbb\xbf[]", 0, 0, 0}, /* an empty array: no value, and no error */
        {"", 0, 0, 0},
        {"  \n", 0, 0, 0},
        {"[{\"a\": 1},]", 0, 0, 0},
        {"[{\"a\": 1}] x", 0, 0, 0},
        {"{\"a\": 1} x", 0, 0, 0},
        {"{\"a\": 1}{", 0, 0, 0},
    };
    struct cpucycles_json_span *spans;
    size_t i, count, wrong = 0;
    for (i = 0; i < sizeof sets / sizeof sets[0]; i++) {
      const char *t = sets[i].text;
      int r = cpucycles_json_values(t, strlen(t), &spans, &count, why, sizeof why);
      int empty_array = i == 3;
      if (sets[i].count == 0 && !empty_array) {
        if (r == 0) wrong++, tap_diag("values of \"%s\": read, should be refused", t);
      } else if (r != 0 || count != sets[i].count ||
                 (count && (strlen(sets[i].first) != spans[0].length ||
                            memcmp(t + spans[0].offset, sets[i].first, spans[0].length) != 0 ||
                            strlen(sets[i].last) != spans[count - 1].length ||
                            memcmp(t + spans[count - 1].offset, sets[i].last, spans[count - 1].length) != 0))) {
        wrong++, tap_diag("values of \"%s\": %s", t, r ? why : "wrong spans");
      }
      free(spans);
    }
    tap_ok(wrong == 0, "several values: an array's elements and values one after another are "
                       "found, with their exact bytes; broken sets are refused (%zu wrong)", wrong);
    tap_ok(cpucycles_json_values("[1, {\"a\": [}]", 13, &spans, &count, why, sizeof why) != 0 &&
               spans == 0 && count == 0 && strstr(why, "line 1, column 12"),
           "a broken element is refused where it breaks: %s", why);
  }

  if (setlocale(LC_NUMERIC, "de_DE.UTF-8") || setlocale(LC_NUMERIC, "de_DE.utf8")) {
    tap_ok(cpucycles_json_parse(&doc, "{\"x\": 5.25}", 11, why, sizeof why) == 0 &&
               cpucycles_json_number(&doc, "x", &x) && x == 5.25,
           "under de_DE (decimal comma) 5.25 is read as 5.25");
    cpucycles_json_free(&doc);
    setlocale(LC_NUMERIC, "C");
  } else {
    tap_skip("numbers under a decimal-comma locale", "no de_DE locale");
  }
  return tap_failures != 0;
}
