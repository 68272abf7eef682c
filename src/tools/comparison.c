/* SPDX-License-Identifier: MIT */
/* comparison.c - the comparison document the tools write (comparison.h). */
#include "comparison.h"
#include "cpucycles.h"
#include "format.h"
#include "../util/utf8.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

void json_text(const char *s, size_t n)
{
  struct cpucycles_out out;
  char small[256], *buf = small, *copy = 0;
  size_t size = 6 * n + 3;
  /* (out.c escapes a NUL-terminated string: a name holding a NUL is cut
   * there; the tools' names come from JSON strings and paths) */
  if (memchr(s, 0, n) == 0) {
    if (!(copy = malloc(n + 1))) {
      fputs("null", stdout);
      return;
    }
    memcpy(copy, s, n), copy[n] = 0, s = copy;
  }
  if (size > sizeof small && !(buf = malloc(size))) {
    fputs("null", stdout);
    free(copy);
    return;
  }
  cpucycles_out_start(&out, buf, size > sizeof small ? size : sizeof small);
  cpucycles_out_json_string(&out, s);
  fputs(buf, stdout);
  if (buf != small) free(buf);
  free(copy);
}

void json_string(const char *s)
{
  if (!s) fputs("null", stdout);
  else json_text(s, strlen(s));
}

void json_number(double x)
{
  struct cpucycles_out out;
  char buf[64];
  if (!isfinite(x)) {
    fputs("null", stdout);
    return;
  }
  cpucycles_out_start(&out, buf, sizeof buf);
  cpucycles_out_double(&out, x);
  fputs(buf, stdout);
}

void json_numbers(const double *x, long n)
{
  long i;
  fputs("[", stdout);
  for (i = 0; i < n; i++) {
    if (i) fputs(", ", stdout);
    json_number(x[i]);
  }
  fputs("]", stdout);
}

void json_key(const char *key, int first)
{
  printf("%s\n  \"%s\": ", first ? "{" : ",", key);
}

void json_member(const char *key)
{
  printf(", \"%s\": ", key);
}

void comparison_begin(const struct comparison_head *h)
{
  json_key("schema", 1), printf("%d", CPUCYCLES_JSON_SCHEMA);
  json_key("type", 0), json_string("comparison");
  json_key("tool", 0), json_string(h->tool);
  json_key("version", 0), json_string(CPUCYCLES_VERSION);
  json_key("old", 0), json_string(h->old_name);
  json_key("new", 0), json_string(h->new_name);
  json_key("measured", 0), json_string(h->measured);
  json_key("tolerance", 0), json_number(h->tolerance);
  json_key("confidence", 0), json_number(cpucycles_verdict_confidence(h->looks));
  json_key("looks", 0), printf("%d", h->looks);
}

void comparison_rows(void)
{
  json_key("rows", 0), fputs("[", stdout);
}

void comparison_row(const struct comparison_row *r, double tolerance, int first)
{
  struct cpucycles_out out;
  char says[512];
  unsigned int bit;
  int n = 0;
  printf("%s\n    {\"name\": ", first ? "" : ",");
  json_text(r->name, r->name_length);
  printf(", \"verdict\": \"%s\", \"beyond_tolerance\": %s", cpucycles_verdict_word(r->j->verdict),
         r->j->beyond ? "true" : "false");
  json_member("reasons"), fputs("[", stdout);
  for (bit = 1; bit; bit <<= 1)
    if ((r->j->reasons & bit) && cpucycles_verdict_reason_name(bit))
      printf("%s\"%s\"", n++ ? ", " : "", cpucycles_verdict_reason_name(bit));
  fputs("]", stdout);
  cpucycles_out_start(&out, says, sizeof says);
  cpucycles_verdict_phrase(&out, r->j, tolerance);
  json_member("says"), json_string(says);
  fputs(",\n     \"ratio\": ", stdout), json_number(r->ratio);
  json_member("ratio_low"), json_number(r->low);
  json_member("ratio_high"), json_number(r->high);
  json_member("old"), json_number(r->old_figure);
  json_member("new"), json_number(r->new_figure);
}

void comparison_row_end(void)
{
  fputs("}", stdout);
}

void comparison_rows_end(void)
{
  fputs("\n  ]", stdout);
}

void comparison_end(int status)
{
  json_key("status", 0), printf("%d", status);
  fputs("\n}\n", stdout);
}

/* ---- Markdown ---- */

static int rank(const struct cpucycles_judgement *j)
{
  switch (j->verdict) {
  case CPUCYCLES_VERDICT_SLOWER: return 0;
  case CPUCYCLES_VERDICT_CANNOT_JUDGE: return 1;
  case CPUCYCLES_VERDICT_INDISTINGUISHABLE: return 2;
  default: return 3;
  }
}

static int worst_first(const void *a, const void *b)
{
  const struct comparison_row *x = *(const struct comparison_row *const *)a, *y = *(const struct comparison_row *const *)b;
  double rx = isfinite(x->ratio) ? x->ratio : 0, ry = isfinite(y->ratio) ? y->ratio : 0;
  if (rank(x->j) != rank(y->j)) return rank(x->j) - rank(y->j);
  return (rx < ry) - (rx > ry);
}

/* a name in a code span: the fence one backtick longer than its longest
 * run of them, a space inside when it begins or ends with one, '|' as \| */
static void md_code(const char *s, size_t n)
{
  size_t i, run = 0, longest = 0;
  for (i = 0; i < n; i++) {
    run = s[i] == '`' ? run + 1 : 0;
    if (run > longest) longest = run;
  }
  for (i = 0; i <= longest; i++) putchar('`');
  if (n && (s[0] == '`' || s[n - 1] == '`')) putchar(' ');
  for (i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == '|') fputs("\\|", stdout);
    else putchar(c < 0x20 || c == 0x7f ? '?' : c);
  }
  if (n && (s[0] == '`' || s[n - 1] == '`')) putchar(' ');
  for (i = 0; i <= longest; i++) putchar('`');
}

static void md_figure(double x, int seconds)
{
  if (!isfinite(x)) fputs("-", stdout);
  else if (!seconds) printf("%.1f", x);
  else if (x >= 1) printf("%.3g s", x);
  else if (x >= 1e-3) printf("%.3g ms", x * 1e3);
  else if (x >= 1e-6) printf("%.3g µs", x * 1e6);
  else printf("%.3g ns", x * 1e9);
}

void comparison_markdown(const struct comparison_head *h, const char *command, const struct comparison_row *rows,
                         size_t n, int unit_seconds, long samples, const char *what)
{
  const struct comparison_row **order = malloc((n ? n : 1) * sizeof *order);
  struct cpucycles_out out;
  char says[512];
  size_t i, counts[4] = {0, 0, 0, 0};
  for (i = 0; i < n; i++) counts[rows[i].j->verdict]++;
  fputs("**cpucycles-compare**: ", stdout);
  md_code(h->new_name, strlen(h->new_name)), fputs(" against ", stdout), md_code(h->old_name, strlen(h->old_name));
  printf(": %zu slower, %zu faster, %zu indistinguishable, %zu cannot judge", counts[CPUCYCLES_VERDICT_SLOWER],
         counts[CPUCYCLES_VERDICT_FASTER], counts[CPUCYCLES_VERDICT_INDISTINGUISHABLE],
         counts[CPUCYCLES_VERDICT_CANNOT_JUDGE]);
  if (h->tolerance > 0) printf(" (tolerance %g%%)", h->tolerance);
  fputs("\n\n", stdout);
  if (command) fputs("Command: ", stdout), md_code(command, strlen(command)), printf(" (%ld %s, %s)\n\n", samples, what, h->measured);
  printf("| benchmark | new/old | %s%% interval | old | new | verdict |\n", h->looks > 1 ? "99.5" : "99");
  fputs("|---|---:|:---:|---:|---:|---|\n", stdout);
  if (!order) return;
  for (i = 0; i < n; i++) order[i] = &rows[i];
  qsort(order, n, sizeof *order, worst_first);
  for (i = 0; i < n; i++) {
    const struct comparison_row *r = order[i];
    int wide = isfinite(r->low) && (r->high / r->ratio > 1.02 || r->ratio / r->low > 1.02);
    fputs("| ", stdout), md_code(r->name, r->name_length);
    if (isfinite(r->ratio)) printf(" | %.4f | [%.4f, %.4f] | ", r->ratio, r->low, r->high);
    else fputs(" | - | - | ", stdout);
    md_figure(r->old_figure, unit_seconds), fputs(" | ", stdout), md_figure(r->new_figure, unit_seconds);
    cpucycles_out_start(&out, says, sizeof says);
    cpucycles_verdict_phrase(&out, r->j, h->tolerance);
    printf(" | %s%s%s%s |\n", r->j->verdict == CPUCYCLES_VERDICT_SLOWER ? "**" : "", says,
           r->j->verdict == CPUCYCLES_VERDICT_SLOWER ? "**" : "",
           r->j->verdict == CPUCYCLES_VERDICT_CANNOT_JUDGE ? " ⚠" : wide ? " (noisy: interval over ±2%)" : "");
  }
  free(order);
}

/* ---- SVG ---- */

/* text for XML: its five specials as entities, UTF-8 copied, any other
 * byte (a control character, a byte that is not UTF-8, U+FFFE or U+FFFF,
 * which XML forbids) as '?' */
static void xml_text(FILE *f, const char *s, size_t n)
{
  const unsigned char *u = (const unsigned char *)s;
  size_t i = 0, len;
  while (i < n) {
    unsigned char c = u[i];
    len = cpucycles_utf8_length(u + i, n - i);
    if (len > 1 && !(len == 3 && c == 0xef && u[i + 1] == 0xbf && u[i + 2] >= 0xbe)) {
      fwrite(u + i, 1, len, f), i += len;
      continue;
    }
    if (c == '&') fputs("&amp;", f);
    else if (c == '<') fputs("&lt;", f);
    else if (c == '>') fputs("&gt;", f);
    else if (c == '"') fputs("&quot;", f);
    else if (c == '\'') fputs("&apos;", f);
    else putc(len == 1 && c >= 0x20 && c != 0x7f ? c : '?', f);
    i++;
  }
}

#define SVG_ROW 22      /* px a row */
#define SVG_CHAR 7       /* px a character of a name, about */
#define SVG_PLOT 420    /* px: the axis */
#define SVG_WORDS 190   /* px: the verdicts' column */
#define SVG_TOP 44      /* px: the title, the axis' labels */

static const char *svg_colour(int verdict)
{
  switch (verdict) {
  case CPUCYCLES_VERDICT_SLOWER: return "#c0392b";
  case CPUCYCLES_VERDICT_FASTER: return "#1e8449";
  case CPUCYCLES_VERDICT_CANNOT_JUDGE: return "#d68910";
  default: return "#566573";
  }
}

void comparison_svg(FILE *f, const struct comparison_head *h, const struct comparison_row *rows, size_t n)
{
  const struct comparison_row **order = malloc((n ? n : 1) * sizeof *order);
  double lo = 1, hi = 1 + h->tolerance / 100, span, step;
  int names = 120, width, height = SVG_TOP + (int)n * SVG_ROW + 30, t;
  size_t i;
  for (i = 0; i < n; i++)
    if (rows[i].name_length < 80 && (int)rows[i].name_length * SVG_CHAR + 16 > names)
      names = (int)rows[i].name_length * SVG_CHAR + 16;
    else if (rows[i].name_length >= 80)
      names = 80 * SVG_CHAR + 16;
  width = names + SVG_PLOT + SVG_WORDS;
  /* the axis: every finite interval, 1 and the tolerance, a margin */
  for (i = 0; i < n; i++) {
    if (isfinite(rows[i].low) && rows[i].low < lo) lo = rows[i].low;
    if (isfinite(rows[i].high) && rows[i].high > hi) hi = rows[i].high;
  }
  if (hi - lo < 0.01) lo -= 0.005, hi += 0.005;
  span = hi - lo, lo -= span * 0.05, hi += span * 0.05, span = hi - lo;
  if (!isfinite(span) || span > 1e6) lo = 0.9, hi = 1.1, span = 0.2; /* (ratios from a broken run) */
#define X(r) (names + (r - lo) / span * SVG_PLOT)
  fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
             "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
             "font-family=\"sans-serif\" font-size=\"12\">\n"
             "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n<text x=\"4\" y=\"14\">new/old, ",
          width, height, width, height);
  fprintf(f, "%s%% interval: ", h->looks > 1 ? "99.5" : "99");
  xml_text(f, h->new_name, strlen(h->new_name)), fputs(" against ", f), xml_text(f, h->old_name, strlen(h->old_name));
  fputs("</text>\n", f);
  /* ticks: a round step, about five of them */
  step = pow(10, floor(log10(span / 5)));
  if (span / step > 25) step *= 5;
  else if (span / step > 10) step *= 2;
  for (t = (int)ceil(lo / step); t * step <= hi; t++)
    fprintf(f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" stroke=\"#e5e8e8\"/>"
               "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"#566573\">%.4g</text>\n",
            X(t * step), X(t * step), SVG_TOP - 6, height - 24, X(t * step), height - 10, t * step);
  fprintf(f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" stroke=\"black\"/>\n", X(1.0), X(1.0), SVG_TOP - 6,
          height - 24);
  if (h->tolerance > 0)
    fprintf(f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" stroke=\"#c0392b\" stroke-dasharray=\"4 3\"/>"
               "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"#c0392b\">+%g%%</text>\n",
            X(1 + h->tolerance / 100), X(1 + h->tolerance / 100), SVG_TOP - 6, height - 24,
            X(1 + h->tolerance / 100), SVG_TOP - 10, h->tolerance);
  if (order) {
    for (i = 0; i < n; i++) order[i] = &rows[i];
    qsort(order, n, sizeof *order, worst_first);
  }
  for (i = 0; order && i < n; i++) {
    const struct comparison_row *r = order[i];
    int y = SVG_TOP + (int)i * SVG_ROW + SVG_ROW / 2;
    const char *colour = svg_colour(r->j->verdict);
    fprintf(f, "<g class=\"row\"><text x=\"%d\" y=\"%d\" text-anchor=\"end\">", names - 8, y + 4);
    xml_text(f, r->name, r->name_length);
    fputs("</text>", f);
    if (isfinite(r->low) && isfinite(r->high))
      fprintf(f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"3\"/>", X(r->low),
              X(r->high), y, y, colour);
    if (isfinite(r->ratio))
      fprintf(f, "<circle cx=\"%.1f\" cy=\"%d\" r=\"4\" fill=\"%s\"/>", X(r->ratio), y, colour);
    fprintf(f, "<text x=\"%d\" y=\"%d\" fill=\"%s\">%s", names + SVG_PLOT + 8, y + 4, colour,
            cpucycles_verdict_word(r->j->verdict));
    if (isfinite(r->ratio)) fprintf(f, " %.4f", r->ratio);
    fputs("</text></g>\n", f);
  }
#undef X
  fputs("</svg>\n", f);
  free(order);
}
