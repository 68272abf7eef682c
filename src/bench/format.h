/* SPDX-License-Identifier: MIT */
/* format.h - text into a caller's buffer as snprintf() writes it (cut at
 * its end, the length of the whole text counted), JSON strings and CSV
 * fields escaped, numbers in the C locale whatever the program's (out.c).
 * Used by cpucycles_bench_format() (format.c) and cpucycles-info. */
#ifndef CPUCYCLES_FORMAT_H
#define CPUCYCLES_FORMAT_H

/* The version of the JSON every tool and cpucycles_bench_format() write
 * ("schema": 2; a result or a comparison: doc/measuring.md, "JSON").
 * Files without it are schema 1 (before 0.1.0's second year), still read. */
#define CPUCYCLES_JSON_SCHEMA 2

struct cpucycles_out {
  char *buf;
  unsigned long size; /* of buf */
  unsigned long len;  /* of the whole text so far (may exceed size - 1) */
};

void cpucycles_out_start(struct cpucycles_out *o, char *buf, unsigned long size);
void cpucycles_out_str(struct cpucycles_out *o, const char *s);
void cpucycles_out_int(struct cpucycles_out *o, long long n);
/* %.10g, with '.' as the decimal point */
void cpucycles_out_double(struct cpucycles_out *o, double x);
/* quotes, backslashes and control characters escaped, bytes that are not
 * UTF-8 as U+FFFD; NULL as null */
void cpucycles_out_json_string(struct cpucycles_out *o, const char *s);
/* RFC 4180: quoted when it holds a comma, a quote or a line break */
void cpucycles_out_csv_field(struct cpucycles_out *o, const char *s);

#endif
