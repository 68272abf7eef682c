/* table.h - the counters compiled into the library, best-first order. */
#ifndef CPUCYCLES_TABLE_H
#define CPUCYCLES_TABLE_H
#include "select.h"

/* In configure.ac's probe order; default-zero is always last. */
extern const struct cpucycles_counter cpucycles_table[];
extern const int cpucycles_table_size;

/* Index of the counter called name, or -1. */
int cpucycles_table_find(const char *name);

#endif
