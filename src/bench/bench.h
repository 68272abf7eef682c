/* SPDX-License-Identifier: MIT */
/* bench.h - cpucycles_bench()'s insides, for the tests: the harness runs
 * on a clock given as a parameter, so that a fake counter can drive every
 * path (overhead, exclusions, sampling) with numbers known in advance. */
#ifndef CPUCYCLES_BENCH_INTERNAL_H
#define CPUCYCLES_BENCH_INTERNAL_H
#include "cpucycles-bench.h"
#include <sched.h>

/* Empty functions at fn's place (a call's cost depends on where its
 * target lies: on recent Intel cores a call into another 4 GiB region
 * than the call site's costs about 2 cycles more, so that the library's
 * own empty function is no null benchmark for a function in the
 * executable): fn[0] at fn's offset within its page, the others at other
 * offsets; the spread of their null overheads and the library's is the
 * subtraction's uncertainty.  page: the mapping that holds them, given
 * back with the harness's memory. */
#define CPUCYCLES_BENCH_PLACED 3
#define CPUCYCLES_BENCH_NULLS_PAGE 4096 /* the size of page */
struct cpucycles_bench_nulls {
  void (*fn[CPUCYCLES_BENCH_PLACED])(void *);
  int n;            /* placed (0: none) */
  void *page;       /* 0, or a page of code to unmap */
};

struct cpucycles_bench_clock {
  /* The reads before and after a run, in cycles; each also sets *cpu to
   * a number that differs between CPUs (0 when unknown). */
  long long (*start)(unsigned long long *cpu);
  long long (*end)(unsigned long long *cpu);
  /* Context switches of this thread so far, or -1 when unknown. */
  long long (*switches)(void);
  unsigned int flags; /* what is known of the counter: UNFENCED, FREQ_*, ... */
  /* Empty functions placed where fn lies, into *nulls (bench-host.c:
   * beside fn in memory); 0, or none placed: the library's own only. */
  void (*place_nulls)(void (*fn)(void *), struct cpucycles_bench_nulls *nulls);
};

/* The harness's parts, shared by cpucycles_bench() and the comparison
 * (bench.c): the precision (the smallest nonzero difference of a run's
 * fenced reads; 0: the counter never moves), the cost of a
 * context-switch check, the null overhead (the median cost of a run of
 * calls empty calls: the reads and the calls, which every run pays) (-1: every run disturbed), the calls per run for fn ("Tiny
 * functions" in cpucycles.h), and whether a run is too short to trust. */
long long cpucycles_bench_precision(const struct cpucycles_bench_clock *c);
long long cpucycles_bench_switch_cost(const struct cpucycles_bench_clock *c);
long long cpucycles_bench_null_overhead(const struct cpucycles_bench_clock *c, long long calls,
                                        long long switch_cost, long long *scratch);
long long cpucycles_bench_choose_calls(const struct cpucycles_bench_clock *c, void (*fn)(void *),
                                       void *arg, long long precision, long long overhead);
int cpucycles_bench_below_resolution(double median, double min, long long precision);
/* Whether a median per call is within the uncertainty of a null overhead
 * whose empty functions' spread is spread per run of calls calls (-1:
 * unknown): CPUCYCLES_BENCH_NULL_PLACEMENT. */
int cpucycles_bench_null_placement(double median, long long spread, long long calls);

/* The harness's working memory: room for CPUCYCLES_BENCH_SCRATCH long
 * longs (the null benchmark's runs, then the reservoir of kept runs and
 * one of the null runs made beside them, the reference's runs and the
 * null runs made beside those), in a private mapping, not on
 * the stack (12 KiB there kept cpucycles_bench() off a 16 KiB thread) and
 * not from malloc() (the measured code's heap is left as it is).  0 when
 * the system has no memory to map. */
#define CPUCYCLES_BENCH_REFERENCES 256 /* runs of the reference kept at most */
#define CPUCYCLES_BENCH_SCRATCH (2 * CPUCYCLES_BENCH_RESERVOIR + 2 * CPUCYCLES_BENCH_REFERENCES)
long long *cpucycles_bench_scratch(void);
void cpucycles_bench_scratch_free(long long *scratch);

/* Pinning the thread to the CPU it is on (active: it was), and back. */
struct cpucycles_bench_pin {
  int active;
#if defined(__linux__)
  cpu_set_t saved;
#endif
};
void cpucycles_bench_pin_here(struct cpucycles_bench_pin *p);
void cpucycles_bench_unpin(struct cpucycles_bench_pin *p);

/* What a call holds while the program's function runs: the working
 * memory and, with pin, the thread's affinity.  The function may leave by
 * unwinding (a C++ exception, a cancelled thread, pthread_exit()), and
 * then the harness still gives them back: a variable declared
 * CPUCYCLES_BENCH_HELD is released as the unwind passes it (the files are
 * compiled with -fexceptions: configure.ac), and the code between
 * pthread_cleanup_push(cpucycles_bench_release_arg, ...) and its pop is
 * where a C library whose cancellation does not unwind (musl) releases it.
 * cpucycles_bench_take(): 0, with *flags the clock's and PINNED when it
 * pinned, or -1 with errno ENOMEM when there is no memory to map (h then
 * holds nothing); cpucycles_bench_release() may be called again. */
struct cpucycles_bench_hold {
  long long *scratch;
  struct cpucycles_bench_pin pin;
  struct cpucycles_bench_nulls nulls;
};
int cpucycles_bench_take(struct cpucycles_bench_hold *h, int pin, unsigned int clock_flags,
                         unsigned int *flags);
void cpucycles_bench_release(struct cpucycles_bench_hold *h);
void cpucycles_bench_release_arg(void *h);
#if defined(__GNUC__)
#define CPUCYCLES_BENCH_HELD __attribute__((cleanup(cpucycles_bench_release)))
#else
#define CPUCYCLES_BENCH_HELD
#endif

/* The standard error of the mean of sorted a[cut, n - cut) (bench-stats.c). */
double cpucycles_trimmed_mean_error(const long long *a, long long n, long long cut);

/* cpucycles_bench() on clock c; with speed (or 0), the reference beside
 * fn's runs (cpucycles_bench_with_speed()). */
int cpucycles_bench_with(const struct cpucycles_bench_clock *c, void (*fn)(void *), void *arg,
                         const struct cpucycles_bench_options *options,
                         struct cpucycles_bench_result *result, struct cpucycles_bench_speed *speed);

/* cpucycles_bench_compare() on clock c; persecond (0: unknown) turns
 * options->seconds into ticks. */
int cpucycles_bench_compare_with(const struct cpucycles_bench_clock *c, long long persecond,
                                 void (*a)(void *), void *arg_a, void (*b)(void *), void *arg_b,
                                 const struct cpucycles_compare_options *options,
                                 struct cpucycles_compare_result *result);

/* cpucycles_bench_speed_now() on clock c: 0, or an errno value. */
int cpucycles_bench_speed_with(const struct cpucycles_bench_clock *c, struct cpucycles_bench_speed *speed);

/* The clock cpucycles_bench() uses on this host (bench-host.c). */
void cpucycles_bench_host_clock(struct cpucycles_bench_clock *c);

/* CPUCYCLES_BENCH_FREQ_SCALING, _FREQ_UNKNOWN or 0, from cpufreq's files
 * for this cpu under sysfs (normally "/sys"). */
unsigned int cpucycles_bench_frequency_flags(const char *sysfs, unsigned int cpu);

#endif
