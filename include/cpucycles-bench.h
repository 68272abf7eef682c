/* SPDX-License-Identifier: MIT */
/* cpucycles-bench.h - measure a function, and answer "is B faster than A?".
 *
 *   #include <cpucycles-bench.h>
 *   cc prog.c $(pkg-config --cflags --libs cpucycles-bench)
 *
 * The harness of cpucycles, a library of its own (libcpucycles-bench) above
 * the counter (libcpucycles, <cpucycles.h>): it reads cpucycles() and
 * asks the counter library what it knows of the counter.  It also runs on
 * libcpucycles' own library (djb's, the same soname), which cannot say
 * where its frequency came from or which host it is: the results then say
 * "unknown" for those, and the reads are unfenced.  Reference:
 * cpucycles_bench(3). */
#ifndef CPUCYCLES_BENCH_H
#define CPUCYCLES_BENCH_H

#include "cpucycles.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Measuring a function: cpucycles_bench() ---------------------------
 *
 *   static void work(void *arg) { ... }
 *   struct cpucycles_bench_result r;
 *   if (cpucycles_bench(work, &data, 0, &r) == 0)
 *     printf("%.0f cycles, median of %lld runs\n", r.median, r.count);
 *
 * cpucycles_bench() calls fn(arg) warm_ups times (discarded), then
 * iterations times, each run alone between two reads of the counter
 * cpucycles() uses.  With the TSC (amd64-tsc, amd64-tscp, x86-tsc) the
 * reads are fenced, RDTSCP;LFENCE (LFENCE;RDTSC;LFENCE without RDTSCP),
 * so none of fn's instructions executes before the first read or after
 * the second; with any other counter they are cpucycles() between
 * compiler barriers and the result has CPUCYCLES_BENCH_UNFENCED.
 *
 * The null overhead (the "null benchmark": runs of an empty function,
 * i.e. the two reads and the calls, at the same call site as fn with the
 * same calls per run) is subtracted from every run, so an empty fn
 * measures 0, give or take the precision.  Each measured run of fn has a
 * null run beside it, before or after in turn, and the median of those
 * is what is subtracted (result->overhead): a clock, a frequency or a
 * neighbour that changes while fn runs moves both alike.  (A first null
 * benchmark, 512 runs before fn's, chooses the calls.)  The measured runs
 * take about twice fn's time for it.
 * A run is excluded, and counted in disturbed, when it migrated to
 * another CPU (sched_getcpu() before and after it, and RDTSCP's CPU
 * number where there is one) or when the thread was switched out
 * (getrusage(): voluntary plus involuntary switches) during its batch.  The switches are read around
 * batches of runs, each as short as keeps the check under 1/20 of its
 * time: once fn takes 20 times as long as getrusage() (a fraction of a
 * microsecond), every run is checked on its own;
 * result->runs_per_switch_check is the largest batch.  Interrupts that do not switch the thread out cannot
 * be seen: that is what the median and the interquartile mean are for.
 *
 * Tiny functions: a run of one call must span many times the harness's
 * precision (result->precision), or the figures are its grid rather
 * than fn (a 5-cycle function on a TSC that moves 26 at a time measures
 * 0 or 26).  With options->calls 0, each timed run is of k calls, the
 * smallest power of 2 for which k calls (the fastest of 8 tries, less
 * the null overhead) span 64 times the precision and 8 null overheads; the null
 * benchmark is then k calls of an empty function, and every figure is
 * divided by k (result->calls).  CPUCYCLES_BENCH_BELOW_RESOLUTION says
 * when a run is still too short to trust (k is at most 65536).
 k calls
 * in a row overlap in the core (out of order, the next call starts before
 * the last one's work is done): a batched figure is fn's throughput, the
 * cycles a call adds to a stream of them, not its latency; a dependent
 * chain through fn's argument or a call of one (calls 1) measures that.
 *
 * Where fn lies: what a call costs depends on where its target is (on
 * recent Intel cores a call from the harness, in its library, to a
 * function in the executable, in another 4 GiB region, costs about 2
 * cycles more than one to the library's own empty function), and a
 * function that does work hides some or all of that (the core works on
 * while the front end catches up), so no empty function measures what the
 * calls of fn cost around its work.  The null benchmark is the library's
 * own empty function; beside it the harness measures empty functions it
 * places beside fn (a page of code mapped next to fn's, on x86 and arm64
 * Linux: one at fn's offset within its page, two at others), and the
 * spread among them all is the subtraction's uncertainty.
 * CPUCYCLES_BENCH_NULL_PLACEMENT says when it matters: over half a cycle
 * a call, and over 1/20 of the figure; or unknown (no page could be mapped
 * beside fn, on a system that refuses executable memory, and fn lies in
 * another 4 GiB region than the library).  The figure per call may then be
 * off by that spread.  To measure such a function, call it from code of
 * your own beside it: a loop in the same file that calls it k times
 * (through a volatile pointer, so that the compiler calls it as yours
 * would), compared by cpucycles_bench_compare() with the same loop calling
 * an empty function of that file (the difference over k is fn's); or give
 * each call more work (a loop of the tiny operation inside fn).
 *
 * Memory: nothing comes from malloc().  With options->samples (room for
 * options->iterations long longs, which must then be given), every kept
 * run is stored there and the statistics are exact; without, at most
 * CPUCYCLES_BENCH_RESERVOIR kept runs are kept, every k-th in run order
 * once there are more (k doubles as needed: CPUCYCLES_BENCH_SAMPLED);
 * min, max, mean and count are exact either way.  The working memory (16
 * KiB: the null benchmark's runs, then those kept and the null runs beside
 * them) is a private mapping,
 * unmapped before it returns; the stack it needs is under 7 KiB (a 16 KiB
 * thread will do).  Any number of iterations works: 10^7 runs of an
 * empty function, one call each (calls 1), take 0.85 s (with the null run
 * beside each) on a 2.6 GHz x86-64; with automatic calls each run is
 * result->calls calls (up to 65536) and takes that much longer.
 * Not for signal handlers; the calling thread's affinity is changed only
 * with pin, and restored.  Thread-safe. */

/* Samples kept without a buffer of the caller's. */
#define CPUCYCLES_BENCH_RESERVOIR 1024

struct cpucycles_bench_options {
  long long iterations; /* measured runs; 0: 1000 */
  long long warm_ups;   /* discarded runs before them; 0: 2, negative: none */
  long long *samples;   /* 0, or room for iterations long longs (then
                           iterations may not be 0): its first count
                           entries receive the kept runs' cycles,
                           sorted ascending */
  int pin;              /* nonzero: pin the thread to its current CPU
                           during the runs, then restore its affinity */
  int keep_overhead;    /* nonzero: do not subtract the null overhead */
  long long calls;      /* calls of fn per timed run; 0: automatic, 1
                           unless one call is too short for the counter
                           (see "Tiny functions" above) */
};

struct cpucycles_bench_result {
  long long count;           /* runs kept: the statistics are theirs */
  long long disturbed;       /* runs excluded (migrated or switched out) */
  double min, max;           /* cycles per call, null overhead subtracted */
  double mean;
  double median;             /* mean of the two middle ones for even count */
  double interquartile_mean; /* mean after dropping count/4 (rounded down)
                                runs at each end */
  double interquartile_mean_error; /* its standard error (from the
                                variance winsorized at the same cuts) */
  long long overhead;        /* the null overhead subtracted from each
                                run of calls calls (0 if none) */
  long long precision;       /* smallest nonzero difference of a run's
                                two fenced reads around nothing: the
                                finest figure a run can show (not
                                cpucycles-info's step, of bare reads) */
  long long runs_per_switch_check; /* most runs covered by one context-
                                switch check (1: each run checked alone) */
  long long calls;           /* calls of fn per timed run; the figures
                                above are per call (divided by it) */
  unsigned int flags;        /* CPUCYCLES_BENCH_* below */
};

/* How it was measured. */
#define CPUCYCLES_BENCH_SUBTRACTED 0x1u /* the null overhead was subtracted */
#define CPUCYCLES_BENCH_UNFENCED 0x2u   /* not the TSC: cpucycles() between
                                           compiler barriers; the CPU may
                                           overlap fn with the reads */
#define CPUCYCLES_BENCH_PINNED 0x4u     /* pinned as asked, mask restored */
#define CPUCYCLES_BENCH_SAMPLED 0x8u    /* median, interquartile mean, drift
                                           and spread from every k-th run */
/* What disturbed runs (those runs are excluded and counted). */
#define CPUCYCLES_BENCH_MIGRATED 0x10u  /* a run moved to another CPU */
#define CPUCYCLES_BENCH_SWITCHED 0x20u  /* the thread was switched out */
/* Why the statistics may be wrong (nothing excluded: judge them). */
#define CPUCYCLES_BENCH_DRIFT 0x40u     /* the medians of the first and
                                           second half of the kept runs
                                           differ by over 5% (and over
                                           the precision) */
#define CPUCYCLES_BENCH_SPREAD 0x80u    /* the middle half spans over 10%
                                           of the median (and over twice
                                           the precision): two modes, or
                                           noise */
#define CPUCYCLES_BENCH_FREQ_SCALING 0x100u /* an off-core counter (it
                                           counts time) while the CPU's
                                           frequency may change: cpufreq
                                           governor not performance and
                                           min != max, turbo on, or the
                                           CPU below its maximum */
#define CPUCYCLES_BENCH_FREQ_UNKNOWN 0x200u /* an off-core counter and no
                                           cpufreq to ask (most VMs) */
#define CPUCYCLES_BENCH_TSC_NOT_INVARIANT 0x400u /* the TSC's rate follows
                                           the core clock (CPUID
                                           0x80000007 EDX bit 8 clear) */
#define CPUCYCLES_BENCH_BELOW_RESOLUTION 0x800u /* a timed run (all its
                                           calls, overhead subtracted)
                                           is under 8 times the
                                           precision, or some run measured
                                           below 0: the figures are mostly
                                           the counter's grid */
#define CPUCYCLES_BENCH_OTHER_LIBRARY 0x1000u /* the counter library is
                                           libcpucycles' own, not
                                           cpucycles': the counter's unit,
                                           the frequency's source and the
                                           host are unknown, the reads
                                           unfenced */
#define CPUCYCLES_BENCH_NULL_PLACEMENT 0x2000u /* empty functions beside fn
                                           and the library's cost
                                           different amounts (by over
                                           0.5 cycles a call), and the
                                           figure per call is under 20
                                           times that spread, or none
                                           could be placed beside a far
                                           fn: it may be off by that
                                           much ("Where fn lies" above) */
#define CPUCYCLES_BENCH_PLACEMENT_NOT_COVERED 0x4000u /* a comparison in one
                                           process: its interval covers
                                           this process's placement of
                                           the code only (see "What the
                                           interval covers" below);
                                           cpucycles-compare covers
                                           placement across processes */

/* Measures fn(arg) as described above; options may be 0 (defaults).
 * Returns 0 with result filled; -1 with errno EINVAL (fn or result 0,
 * iterations or calls negative, samples without iterations), ENOMEM (no
 * memory to map), ENOTSUP (the counter never moves:
 * default-zero), or EAGAIN (every run was disturbed: result->count is 0,
 * flags say why). */
CPUCYCLES_API int cpucycles_bench(void (*fn)(void *), void *arg, const struct cpucycles_bench_options *options,
                    struct cpucycles_bench_result *result);

/* ---- The host's speed beside a result: cpucycles_bench_with_speed() ----
 *
 * The same code measures in other cycles when the host runs at another
 * speed: a virtual CPU whose core another guest shares (a fixed chain took
 * 5,600 or 9,300 TSC ticks, by vCPU and minute, on a 2-core VM), a
 * frequency that changed between two saves.  cpucycles_bench_with_speed()
 * measures as cpucycles_bench() does, and times the harness's reference
 * beside fn's runs (one run of it to 8 of fn's, on the same CPU and
 * counter): a fixed chain of 256 dependent multiply-adds, the same work in
 * every build of this library.  A result divided by its reference compares
 * across speeds as the code does (for code the core's clock drives; memory
 * latency scales otherwise); cpucycles_bench_format_with_speed() saves it
 * beside the result, and cpucycles-info --compare divides each execution's
 * figure by it.  The reference's runs are disturbed and excluded as fn's
 * are; each has a run of the null benchmark beside it, as many calls,
 * whose cycles are taken off (the reads' cost is not the chain's). */
struct cpucycles_bench_speed {
  double reference;         /* cycles a chain of the reference took: the median
                               of the runs kept, less the null runs' beside them,
                               over the chains a run made (0 when none was kept) */
  long long reference_runs; /* runs of it made and kept */
  unsigned int flags;       /* CPUCYCLES_BENCH_DRIFT: its first and second halves
                               differ by over 5% (the speed changed while fn was
                               measured); CPUCYCLES_BENCH_SPREAD: its middle half
                               spans over 10% (two speeds, or noise) */
};

/* The reference alone, now, on the calling thread's CPU (64 runs of it,
 * the undisturbed ones' median): for a tool that runs the code elsewhere
 * (another process, pinned to the same CPU) and measures the host's speed
 * beside it.  0 with speed filled, or -1 with errno EINVAL (speed 0),
 * ENOTSUP (the counter never moves) or EAGAIN (every run disturbed). */
CPUCYCLES_API int cpucycles_bench_speed_now(struct cpucycles_bench_speed *speed);

/* cpucycles_bench() with the reference beside (speed must not be 0):
 * returns as cpucycles_bench() does, speed filled when it returns 0. */
CPUCYCLES_API int cpucycles_bench_with_speed(void (*fn)(void *), void *arg,
                                             const struct cpucycles_bench_options *options,
                                             struct cpucycles_bench_result *result,
                                             struct cpucycles_bench_speed *speed);

/* The statistics cpucycles_bench() computes, on n >= 1 samples of your
 * own in run order: sorts samples ascending (in place) and sets count,
 * min, max, mean, median, interquartile_mean and the DRIFT and SPREAD
 * flags (with at least 8 samples; precision is the absolute floor of
 * both tests) and interquartile_mean_error, leaving the other fields alone.  Returns 0, or -1 (EINVAL)
 * for n < 1. */
CPUCYCLES_API int cpucycles_bench_statistics(long long *samples, long long n, long long precision,
                               struct cpucycles_bench_result *result);

/* A flag's name ("migrated", ...), or 0 for anything but one known flag. */
CPUCYCLES_API const char *cpucycles_bench_flag_name(unsigned int flag);

/* ---- "Is B faster than A?": cpucycles_bench_compare() ------------------
 *
 *   struct cpucycles_compare_result r;
 *   if (cpucycles_bench_compare(old_version, &data, new_version, &data, 0, &r) == 0)
 *     printf("new/old %.4f [%.4f, %.4f]: %s\n", r.ratio, r.ratio_low, r.ratio_high,
 *            cpucycles_compare_verdict_name(r.verdict));
 *
 * A and B run interleaved in one thread: pairs of timed runs, A then B or
 * B then A (a pseudo-random order, so neither is always first), so that
 * drift, frequency phases and a noisy neighbour hit both alike.  Each run
 * is bracketed as in cpucycles_bench() (fences, the same calls per run for
 * both, chosen for the faster one); a pair in which either run migrated
 * or the thread was switched out is excluded and counted.  The pairs'
 * differences B - A are taken in blocks of 50 pairs in run order; each
 * block gives a 20%-trimmed mean (interrupts that no check can see fall
 * in the trimmed tails); the blocks' means give the estimate and its
 * standard error, and the 99% interval with Student's t (the blocks,
 * not the pairs, are what is independent enough to count).  Every pair
 * counts, so a difference smaller than one step of the counter shows.
 * The ratio is B/A per call: 1 + difference / A's trimmed mean; where A's
 * trimmed mean is not positive (an empty function, below the counter's
 * resolution) there is none: ratio, ratio_low and ratio_high are NaN
 * (null in JSON).
 *
 * The verdict is B_SLOWER when the difference's interval lies above 0,
 * B_FASTER when below, else INDISTINGUISHABLE (at this noise, with these
 * pairs); with A positive, that is the ratio's interval against 1.  99%,
 * not 95%: A against A is then called different once in 100 comparisons,
 * not once in 20 (a 95% interval gave 3 false alarms in 40 here), and
 * a +1% change at 2000 cycles still lies thousands of standard errors
 * out (20 cycles, standard error 0.01, in 0.25 s on an x86-64 VM).
 * Nothing comes from malloc() (its working memory is mapped, as
 * cpucycles_bench()'s); not for signal handlers; thread-safe.
 *
 * What the interval covers: this process only, the code where it lies
 * now (every result has CPUCYCLES_BENCH_PLACEMENT_NOT_COVERED, and its
 * JSON and CSV say so in words beside the verdict, "verdict_covers").  Where a function is placed (the addresses ASLR chose, the
 * physical pages, the stack's offset: how predictors and caches alias)
 * moves it by about 0.1% from one process to the next, far beyond this
 * interval's width, so a byte-identical copy of A loaded at another
 * address is called different about half of the time.  The verdict
 * answers "is b faster than a here, in this process"; to compare two
 * builds, or to claim that a code change is faster, use
 * cpucycles-compare(1), whose interval comes from several processes that
 * differ in layout and so covers placement. */

struct cpucycles_compare_options {
  long long pairs;  /* 0: as many as fit in seconds, and at least 200
                       kept (disturbed ones made up for, up to 600
                       run); else 100 (2 blocks) to 10^8 run */
  double seconds;   /* the time for the pairs when pairs is 0; 0: 0.25;
                       at most 86400 */
  long long calls;  /* calls per timed run (both); 0: automatic */
  int pin;          /* as in cpucycles_bench_options */
};

struct cpucycles_compare_result {
  double ratio;              /* B/A, per call; NaN when a <= 0 */
  double ratio_low, ratio_high; /* its 99% confidence interval (NaN too) */
  int verdict;               /* CPUCYCLES_COMPARE_* below */
  double a, b;               /* cycles per call (trimmed means, null
                                overhead subtracted) */
  double difference;         /* b - a, cycles per call: the verdict's */
  double difference_error;   /* its standard error */
  long long pairs;           /* pairs kept */
  long long blocks;          /* blocks of pairs behind the interval */
  long long disturbed;       /* pairs excluded (migrated, switched out) */
  long long calls;           /* calls per timed run */
  long long overhead;        /* null overhead of a run (subtracted) */
  long long precision;       /* as cpucycles_bench_result's */
  long long b_first;         /* pairs in which B ran first */
  unsigned int flags;        /* CPUCYCLES_BENCH_* */
};

#define CPUCYCLES_COMPARE_INDISTINGUISHABLE 0
#define CPUCYCLES_COMPARE_B_FASTER 1
#define CPUCYCLES_COMPARE_B_SLOWER 2
/* Not given by cpucycles_bench_compare(), which measures until it can
 * answer or fails (EAGAIN); the tools' word where their data cannot
 * support a verdict, and cpucycles_compare_verdict_name()'s. */
#define CPUCYCLES_COMPARE_CANNOT_JUDGE 3

/* Compares b(arg_b) against a(arg_a) as described above; options may be 0.
 * Returns 0 with result filled; -1 with errno EINVAL (a, b or result 0,
 * pairs, seconds or calls outside the ranges above, seconds NaN),
 * ENOMEM (no memory to map), ENOTSUP (the counter never moves), or EAGAIN (fewer than 2 blocks of
 * pairs were undisturbed: this time; another try may do). */
CPUCYCLES_API int cpucycles_bench_compare(void (*a)(void *), void *arg_a, void (*b)(void *), void *arg_b,
                            const struct cpucycles_compare_options *options,
                            struct cpucycles_compare_result *result);

/* The statistics cpucycles_bench_compare() computes, on pairs of your own:
 * a[i] and b[i] (i < n, in run order) are the cycles of the i-th pair's
 * runs, calls calls each, null overhead already subtracted.  Sets ratio,
 * its interval, verdict, a, b, difference, its error, pairs and blocks;
 * leaves the other fields alone; sets BELOW_RESOLUTION by precision, and
 * PLACEMENT_NOT_COVERED.
 * Returns 0, or -1 (EINVAL) when n is under 100 (2 blocks) or calls < 1.
 * Nothing is allocated, the arrays are not changed. */
CPUCYCLES_API int cpucycles_compare_statistics(const long long *a, const long long *b, long long n,
                                 long long calls, long long precision,
                                 struct cpucycles_compare_result *result);

/* The verdict's word, as every comparison of cpucycles says it (JSON, and
 * the first word of each text verdict): "indistinguishable", "faster" (B
 * faster than A), "slower", "cannot judge"; 0 for anything else. */
CPUCYCLES_API const char *cpucycles_compare_verdict_name(int verdict);

/* ---- Results as data ----------------------------------------------------
 *
 * One result, or one comparison, as a JSON object or a CSV row, with the
 * environment that matters to compare it later: the counter, its unit,
 * cycles per second and where that figure came from, the flags, the host
 * (its fingerprint: CPU vendor, family, model) and the version.  name
 * (and name_b) label it; any text, escaped as each format needs.  Written
 * into buf[size] as snprintf() does: the return value is the length of
 * the whole text (write again with a larger buf if it is >= size), -1 for
 * an unknown format.  `cpucycles-info --compare OLD NEW` compares two
 * saved JSON results. */
#define CPUCYCLES_FORMAT_JSON 1
#define CPUCYCLES_FORMAT_CSV 2        /* one row, ending in a newline */
#define CPUCYCLES_FORMAT_CSV_HEADER 3 /* the header line for those rows */

CPUCYCLES_API long cpucycles_bench_format(char *buf, unsigned long size, int format, const char *name,
                            const struct cpucycles_bench_result *result);
/* The same with the reference measured beside it (cpucycles_bench_with_speed();
 * speed 0 writes none, as cpucycles_bench_format() does). */
CPUCYCLES_API long cpucycles_bench_format_with_speed(char *buf, unsigned long size, int format,
                                                     const char *name,
                                                     const struct cpucycles_bench_result *result,
                                                     const struct cpucycles_bench_speed *speed);
CPUCYCLES_API long cpucycles_compare_format(char *buf, unsigned long size, int format, const char *name_a,
                              const char *name_b, const struct cpucycles_compare_result *result);

#ifdef __cplusplus
}
#endif

#endif
