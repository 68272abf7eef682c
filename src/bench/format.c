/* SPDX-License-Identifier: MIT */
/* format.c - results as data (cpucycles_bench_format(),
 * cpucycles_compare_format(): see cpucycles.h), written with out.c. */
#include "cpucycles-bench.h"
#include "core.h"
#include "format.h"
#include "verdict.h"
#include <math.h> /* isfinite, NAN: macros, no libm */
#include <string.h>

/* What an in-process comparison's verdict covers, in words beside it
 * (CPUCYCLES_BENCH_PLACEMENT_NOT_COVERED). */
#define NOT_COVERED \
  "this interval covers one process's placement; cpucycles-compare covers placement across processes"

/* ---- one record, as JSON, a CSV row or the CSV header ----
 * Each field is written by name and value; the format decides what of
 * them goes out, so that the three cannot list different fields. */
struct record {
  struct cpucycles_out *o;
  int format, fields;
  int in_row; /* JSON: the fields go into the one row of "rows" (CSV: flat) */
};

static void field(struct record *w, const char *name)
{
  if (w->format == CPUCYCLES_FORMAT_JSON) {
    if (w->in_row == 1) cpucycles_out_str(w->o, "\n    {\""), w->in_row = 2;
    else if (w->in_row) cpucycles_out_str(w->o, ", \"");
    else cpucycles_out_str(w->o, w->fields ? ",\n  \"" : "{\n  \"");
    cpucycles_out_str(w->o, name);
    cpucycles_out_str(w->o, "\": ");
  } else {
    if (w->fields) cpucycles_out_str(w->o, ",");
    if (w->format == CPUCYCLES_FORMAT_CSV_HEADER) cpucycles_out_str(w->o, name);
  }
  w->fields++;
}

static void string_field(struct record *w, const char *name, const char *value)
{
  field(w, name);
  if (w->format == CPUCYCLES_FORMAT_JSON) cpucycles_out_json_string(w->o, value);
  if (w->format == CPUCYCLES_FORMAT_CSV) cpucycles_out_csv_field(w->o, value);
}

static void integer(struct record *w, const char *name, long long value)
{
  field(w, name);
  if (w->format != CPUCYCLES_FORMAT_CSV_HEADER) cpucycles_out_int(w->o, value);
}

/* JSON has no NaN or infinity: such a value is null there, and an empty
 * field in CSV (as a missing value is). */
static void number(struct record *w, const char *name, double value)
{
  field(w, name);
  if (w->format == CPUCYCLES_FORMAT_CSV_HEADER) return;
  if (isfinite(value)) cpucycles_out_double(w->o, value);
  else if (w->format == CPUCYCLES_FORMAT_JSON) cpucycles_out_str(w->o, "null");
}

/* JSON: an array of names; CSV: the names separated by spaces. */
static void flags(struct record *w, unsigned int value)
{
  unsigned int bit;
  int n = 0;
  field(w, "flags");
  if (w->format == CPUCYCLES_FORMAT_CSV_HEADER) return;
  if (w->format == CPUCYCLES_FORMAT_JSON) cpucycles_out_str(w->o, "[");
  for (bit = 1; bit; bit <<= 1)
    if ((value & bit) && cpucycles_bench_flag_name(bit)) {
      if (n++) cpucycles_out_str(w->o, w->format == CPUCYCLES_FORMAT_JSON ? ", " : " ");
      if (w->format == CPUCYCLES_FORMAT_JSON) cpucycles_out_json_string(w->o, cpucycles_bench_flag_name(bit));
      else cpucycles_out_str(w->o, cpucycles_bench_flag_name(bit));
    }
  if (w->format == CPUCYCLES_FORMAT_JSON) cpucycles_out_str(w->o, "]");
}

/* What a result means only beside: the counter, its unit, the rate and
 * where it came from, the host, the version. */
static void environment(struct record *w)
{
  string_field(w, "counter", cpucycles_implementation());
  string_field(w, "unit", cpucycles_bench_core_unit_name());
  integer(w, "persecond", cpucycles_persecond());
  string_field(w, "persecond_source", cpucycles_bench_core_persecond_source());
  string_field(w, "host", cpucycles_bench_core_host());
  string_field(w, "version", cpucycles_version());
}

/* JSON: "rows": [{ ... }] around the fields between these two (a
 * comparison's one row); CSV: the fields in line. */
static void open_row(struct record *w)
{
  if (w->format != CPUCYCLES_FORMAT_JSON) return;
  cpucycles_out_str(w->o, ",\n  \"rows\": [");
  w->in_row = 1;
}

static void close_row(struct record *w)
{
  if (w->format != CPUCYCLES_FORMAT_JSON) return;
  cpucycles_out_str(w->o, "}\n  ]");
  w->in_row = 0;
}

static long finish(struct record *w)
{
  if (w->format == CPUCYCLES_FORMAT_JSON) cpucycles_out_str(w->o, "\n}\n");
  else cpucycles_out_str(w->o, "\n");
  return (long)w->o->len;
}

static int known_format(int format)
{
  return format == CPUCYCLES_FORMAT_JSON || format == CPUCYCLES_FORMAT_CSV ||
         format == CPUCYCLES_FORMAT_CSV_HEADER;
}

/* The flags of the reference's own runs: "drift" when the speed changed
 * while fn was measured, "spread" when it ran at two (or was noisy). */
static void reference_flags(struct record *w, unsigned int value)
{
  field(w, "reference_flags");
  if (w->format == CPUCYCLES_FORMAT_CSV_HEADER) return;
  if (w->format == CPUCYCLES_FORMAT_JSON) cpucycles_out_str(w->o, "[");
  if (value & CPUCYCLES_BENCH_DRIFT) cpucycles_out_str(w->o, w->format == CPUCYCLES_FORMAT_JSON ? "\"drift\"" : "drift");
  if ((value & CPUCYCLES_BENCH_DRIFT) && (value & CPUCYCLES_BENCH_SPREAD))
    cpucycles_out_str(w->o, w->format == CPUCYCLES_FORMAT_JSON ? ", " : " ");
  if (value & CPUCYCLES_BENCH_SPREAD) cpucycles_out_str(w->o, w->format == CPUCYCLES_FORMAT_JSON ? "\"spread\"" : "spread");
  if (w->format == CPUCYCLES_FORMAT_JSON) cpucycles_out_str(w->o, "]");
}

long cpucycles_bench_format_with_speed(char *buf, unsigned long size, int format, const char *name,
                                       const struct cpucycles_bench_result *r,
                                       const struct cpucycles_bench_speed *speed)
{
  struct cpucycles_out o;
  struct record w;
  if (!known_format(format) || (!r && format != CPUCYCLES_FORMAT_CSV_HEADER)) return -1;
  cpucycles_out_start(&o, buf, size);
  w.o = &o, w.format = format, w.fields = 0, w.in_row = 0;
  integer(&w, "schema", CPUCYCLES_JSON_SCHEMA);
  string_field(&w, "type", "bench");
  string_field(&w, "name", name ? name : "");
  number(&w, "median", r ? r->median : 0);
  number(&w, "interquartile_mean", r ? r->interquartile_mean : 0);
  number(&w, "interquartile_mean_error", r ? r->interquartile_mean_error : 0);
  number(&w, "mean", r ? r->mean : 0);
  number(&w, "min", r ? r->min : 0);
  number(&w, "max", r ? r->max : 0);
  integer(&w, "count", r ? r->count : 0);
  integer(&w, "disturbed", r ? r->disturbed : 0);
  integer(&w, "calls", r ? r->calls : 0);
  integer(&w, "overhead", r ? r->overhead : 0);
  integer(&w, "precision", r ? r->precision : 0);
  flags(&w, r ? r->flags : 0);
  /* the host's speed beside it: null where not measured (NaN) */
  number(&w, "reference", speed && speed->reference > 0 ? speed->reference : NAN);
  integer(&w, "reference_runs", speed ? speed->reference_runs : 0);
  reference_flags(&w, speed ? speed->flags : 0);
  environment(&w);
  return finish(&w);
}

long cpucycles_bench_format(char *buf, unsigned long size, int format, const char *name,
                            const struct cpucycles_bench_result *r)
{
  return cpucycles_bench_format_with_speed(buf, size, format, name, r, 0);
}

/* The comparison document every comparison writes (schema 2: what was
 * compared and how, then one row), here of one in-process comparison. */
long cpucycles_compare_format(char *buf, unsigned long size, int format, const char *name_a,
                              const char *name_b, const struct cpucycles_compare_result *r)
{
  struct cpucycles_out o, said;
  struct record w;
  struct cpucycles_judgement j;
  char says[128];
  if (!known_format(format) || (!r && format != CPUCYCLES_FORMAT_CSV_HEADER)) return -1;
  cpucycles_out_start(&o, buf, size);
  w.o = &o, w.format = format, w.fields = 0, w.in_row = 0;
  integer(&w, "schema", CPUCYCLES_JSON_SCHEMA);
  string_field(&w, "type", "comparison");
  string_field(&w, "tool", "cpucycles_bench_compare");
  string_field(&w, "old", name_a ? name_a : "A");
  string_field(&w, "new", name_b ? name_b : "B");
  string_field(&w, "measured", "cycles per call");
  number(&w, "tolerance", 0);
  number(&w, "confidence", 0.99);
  integer(&w, "looks", 1);
  open_row(&w);
  string_field(&w, "name", name_b ? name_b : "B");
  string_field(&w, "verdict", r ? cpucycles_compare_verdict_name(r->verdict) : "");
  /* the members every comparison's row has (cpucycles_bench(3), JSON),
   * from the judgement the verdict stands for (at tolerance 0; a result
   * has no reason against a verdict: a disturbed comparison is none) */
  cpucycles_judgement_at_zero(r ? r->verdict : CPUCYCLES_VERDICT_INDISTINGUISHABLE, &j);
  cpucycles_out_start(&said, says, sizeof says);
  cpucycles_verdict_phrase(&said, &j, 0);
  field(&w, "beyond_tolerance");
  if (w.format != CPUCYCLES_FORMAT_CSV_HEADER) cpucycles_out_str(&o, j.beyond ? "true" : "false");
  field(&w, "reasons");
  if (w.format == CPUCYCLES_FORMAT_JSON) cpucycles_out_str(&o, "[]");
  string_field(&w, "says", r ? says : "");
  number(&w, "ratio", r ? r->ratio : 0);
  number(&w, "ratio_low", r ? r->ratio_low : 0);
  number(&w, "ratio_high", r ? r->ratio_high : 0);
  string_field(&w, "verdict_covers", r && (r->flags & CPUCYCLES_BENCH_PLACEMENT_NOT_COVERED) ? NOT_COVERED : "");
  number(&w, "old", r ? r->a : 0);
  number(&w, "new", r ? r->b : 0);
  number(&w, "difference", r ? r->difference : 0);
  number(&w, "difference_error", r ? r->difference_error : 0);
  integer(&w, "pairs", r ? r->pairs : 0);
  integer(&w, "blocks", r ? r->blocks : 0);
  integer(&w, "disturbed", r ? r->disturbed : 0);
  integer(&w, "calls", r ? r->calls : 0);
  integer(&w, "overhead", r ? r->overhead : 0);
  integer(&w, "precision", r ? r->precision : 0);
  integer(&w, "b_first", r ? r->b_first : 0);
  flags(&w, r ? r->flags : 0);
  close_row(&w);
  integer(&w, "status", j.status);
  environment(&w);
  return finish(&w);
}
