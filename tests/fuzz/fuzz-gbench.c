/* SPDX-License-Identifier: MIT */
/* fuzz-gbench - libFuzzer harness for the reader of Google Benchmark's
 * JSON (src/tools/gbench.c, on json-read.c), which cpucycles-compare's GB
 * mode reads programs' output with.  Build and run: tests/fuzz/run.sh.
 *
 * The input is the text, exactly its bytes.  Checked besides the
 * sanitizers: a refusal has a one-line printable message and leaves
 * nothing behind; an accepted text's entries each have a name
 * NUL-terminated at its length, a run_name, an aggregate_name only where
 * it is an aggregate, times that are NaN (failed, or no time) or finite
 * and not negative, a document that exists, counts in their ranges; and
 * the filter made for each name is "^...$" or refused. */
#include "json-read.c"
#include "gbench.c"
#include <stdint.h>

static void check_refusal(const char *why, const struct cpucycles_gbench *gb)
{
  const char *p;
  if (!*why || gb->entries || gb->count || gb->contexts || gb->documents) abort();
  for (p = why; *p; p++)
    if ((unsigned char)*p < 0x20 || *p == 0x7f) abort();
}

static void check_time(double t, int must)
{
  if (isnan(t)) {
    if (must) abort();
  } else if (!isfinite(t) || t < 0) {
    abort();
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  struct cpucycles_gbench gb;
  char why[256], filter[512];
  size_t i;
  if (cpucycles_gbench_parse(&gb, (const char *)data, size, why, sizeof why) != 0) {
    check_refusal(why, &gb);
    return 0;
  }
  if (gb.documents == 0 || !gb.contexts) abort();
  for (i = 0; i < gb.count; i++) {
    const struct cpucycles_gbench_entry *e = &gb.entries[i];
    if (!e->name || e->name[e->name_length] || !e->run_name || e->run_name[e->run_name_length]) abort();
    if (!e->aggregate_name || (!e->aggregate && *e->aggregate_name) || !e->message || !e->label) abort();
    if (e->document >= gb.documents || (i && e->document < gb.entries[i - 1].document)) abort();
    if (e->threads < 1 || e->repetition_index < -1 || e->repetitions < 0) abort();
    /* an iteration run that did not fail has its times */
    check_time(e->real_seconds, !e->failed && !e->aggregate);
    check_time(e->cpu_seconds, !e->failed && !e->aggregate);
    if (e->failed && !isnan(e->real_seconds)) abort();
    if (cpucycles_gbench_filter(filter, sizeof filter, e->name, e->name_length) == 0 &&
        (filter[0] != '^' || filter[strlen(filter) - 1] != '$'))
      abort();
  }
  for (i = 0; i < gb.documents; i++)
    if (!gb.contexts[i].executable || !gb.contexts[i].library_build_type ||
        gb.contexts[i].debug != !strcmp(gb.contexts[i].library_build_type, "debug"))
      abort();
  cpucycles_gbench_free(&gb);
  return 0;
}
