/* SPDX-License-Identifier: MIT */
/* table.h - the counters compiled into the library, best-first order. */
#ifndef CPUCYCLES_TABLE_H
#define CPUCYCLES_TABLE_H
#include "measure.h"
#include "hidden.h"
CPUCYCLES_HIDDEN_BEGIN

/* In the order of m4/cpucycles_counters.m4's list (configure probes them
 * in that order too), for this target; default-zero is always last. */
extern const struct cpucycles_counter cpucycles_table[];
extern const int cpucycles_table_size;

/* Index of the counter called name, or -1. */
int cpucycles_table_find(const char *name);

/* Gives back what every counter but table[keep] took in its setup
 * (descriptors, mappings, thread keys); keep -1 releases all.  zero_page:
 * other threads may still be reading (exit, dlclose), so a page they read
 * becomes a page of zeros instead of going away. */
void cpucycles_table_release_others(int keep, int zero_page);

/* For pthread_atfork, around fork(): no change to the counters' shared
 * state is under way while the child is made. */
void cpucycles_table_fork_prepare(void);
void cpucycles_table_fork_parent(void);

/* In the child of a fork() (after cpucycles_table_fork_prepare): forgets the parent's perf events and sets the
 * chosen counter (or none, -1) up again for the child. */
void cpucycles_table_after_fork(int chosen, long long persecond);

CPUCYCLES_HIDDEN_END
#endif
