/* SPDX-License-Identifier: MIT */
/*
 * cpucycles/counter.h - what every counter file shares.
 *
 * Each counter lives in one header, include/cpucycles/NAME.h, which is the single
 * source of its read sequence and setup.  It is included by its configure
 * probe, by the library's run-time table, and (for the chosen counter) by the
 * installed <cpucycles.h>.  A counter file for architecture A compiles to
 * nothing elsewhere and defines CPUCYCLES_HAVE_<ID> when it does compile.
 *
 * For a counter with identifier ID (name with '-' turned into '_') it defines:
 *   CPUCYCLES_ALWAYS_INLINE long long cpucycles_ID_read(void);
 *   static inline int cpucycles_ID_setup(struct cpucycles_setup *s);
 *   enum { cpucycles_ID_kind = CPUCYCLES_KIND_... };
 * setup returns 0 when the counter may be read, or -1 with s->reason set.
 * A scaled counter also sets s->nominal_hz, the rate it ticks at.
 *
 * Beside CPUCYCLES_HAVE_<ID>, a counter file states what else is true of it
 * (<ID> is the identifier in capitals), each only when it is, the first
 * two defined to 1 (probes/probe.c tests LIBRARY_READ with #if):
 *   CPUCYCLES_<ID>_LIBRARY_READ  its read cannot be inlined in a program
 *                                (state the library owns): cpucycles()
 *                                calls the library for it;
 *   CPUCYCLES_<ID>_HAS_STATE     its setup takes descriptors or mappings,
 *                                which static inline void
 *                                cpucycles_ID_release(int zero_page) gives back;
 *   CPUCYCLES_<ID>_INSTRUCTION   "word": its read is inline and one
 *                                instruction, whose disassembly shows word
 *                                (tests/t-installed.sh looks for it);
 *   CPUCYCLES_<ID>_FAULTS        the fault signals its read and setup can
 *                                raise, CPUCYCLES_FAULT_* or'ed, when they
 *                                are fewer than all three on every CPU,
 *                                kernel and emulator: the guard then
 *                                catches only those (each signal it
 *                                catches costs the first call three system
 *                                calls).  A fault it does not catch kills
 *                                the program: only where it cannot happen
 *                                (RDTSC; not RDPMC, which valgrind and
 *                                older qemu answer with SIGILL).
 * The list of counters, in order of preference, is m4/cpucycles_counters.m4:
 * a new counter is this one file and one line there.
 */
#ifndef CPUCYCLES_COUNTER_H
#define CPUCYCLES_COUNTER_H

/* CPUCYCLES_HAVE_LINUX_PERF: Linux, and a toolchain with the kernel's
 * <linux/perf_event.h> (Debian's musl-gcc has none of the kernel's
 * headers): the perf counters are available.  The one place that says so:
 * the perf counters' files, configure (the tests' perf shim) and the tests
 * read this macro.  A compiler without __has_include is taken to have the
 * header. */
#if defined(__linux__) && defined(__has_include)
#if __has_include(<linux/perf_event.h>)
#define CPUCYCLES_HAVE_LINUX_PERF 1
#endif
#elif defined(__linux__)
#define CPUCYCLES_HAVE_LINUX_PERF 1
#endif

/* A conversion that C++ (-Wold-style-cast) accepts too: the installed
 * headers compile in other people's programs, under their flags. */
#if defined(__cplusplus)
#define CPUCYCLES_CAST(type, value) (static_cast<type>(value))
#else
#define CPUCYCLES_CAST(type, value) ((type)(value))
#endif

/* The read of a counter and what it calls, forced inline even at -O0 or
 * -Os: a call around the measured code would be measured with it, and a
 * compiler that chooses an out-of-line copy breaks the "one inline
 * instruction" promise. */
#if defined(__GNUC__)
#define CPUCYCLES_ALWAYS_INLINE static inline __attribute__((__always_inline__))
#else
#define CPUCYCLES_ALWAYS_INLINE static inline
#endif

/* Code that runs once or rarely, never a read: the library's first-call
 * decision, the frequency's sources, a counter's setup and release, the
 * reports.  GCC and Clang optimize a cold function for size and keep it
 * apart from the hot code (.text.unlikely), and take a call to it as
 * unlikely; the reads stay as the user's flags compile them.  This is
 * what keeps the library within its size budget (HACKING.md). */
#if defined(__GNUC__) && \
    (__GNUC__ > 4 || (__GNUC__ == 4 && __GNUC_MINOR__ >= 3) || defined(__clang__))
#define CPUCYCLES_COLD __attribute__((__cold__))
#else
#define CPUCYCLES_COLD
#endif

/* The kind decides the penalty added to the measured precision and whether
 * the ticks are scaled to cycles (rules of libcpucycles' selection). */
enum cpucycles_kind {
  CPUCYCLES_KIND_ONCORE = 1,  /* counts core cycles: no penalty, unscaled */
  CPUCYCLES_KIND_OFFCORE = 2, /* off-core clock read as cycles (TSC): +100 */
  CPUCYCLES_KIND_SCALED = 3,  /* off-core clock at a known rate, scaled to
                                 cycles; kept only if timing confirms the
                                 rate (cpucycles_scale_for): +100 */
  CPUCYCLES_KIND_SYSCALL = 4, /* cycles counted by the kernel, read through a
                                 system call: +100 */
  CPUCYCLES_KIND_OSCLOCK = 5, /* fixed-resolution OS clock, scaled: +200 */
  CPUCYCLES_KIND_NONE = 6     /* the last resort that always returns 0 */
};

/* The fault signals a counter's read or setup can raise (a counter file's
 * CPUCYCLES_<ID>_FAULTS): an instruction the CPU lacks or the OS forbids
 * (SIGILL), RDTSC/RDPMC forbidden or a perf page unmapped (SIGSEGV), a perf
 * page gone (SIGBUS).  0 means all three. */
#define CPUCYCLES_FAULT_SIGILL 1
#define CPUCYCLES_FAULT_SIGSEGV 2
#define CPUCYCLES_FAULT_SIGBUS 4

struct cpucycles_setup {
  long long persecond; /* in: the CPU frequency estimate, cycles/second */
  const char *reason;  /* out: why setup failed, for config.log and -info */
  double nominal_hz;   /* out: ticks per second of a scaled counter, else 0 */
  int rate_timed;      /* out: 1 when nominal_hz was timed (the OS states
                          no rate), else 0 */
  int defer_open;      /* in: 1 in a fork's child: a per-thread perf event
                          opens at its thread's first read, not now */
};

/* The state the 32-bit counters' extension keeps (extend32.h's anchor and
 * per-thread records: arm32-cortex, arm32-1176, mips64-cc) is defined
 * exactly once: by the library (src/core/table.c) or by a probe program, which
 * define CPUCYCLES_STATE_STORAGE as empty before including counter files;
 * anywhere else it is extern.  (The perf counters keep their state in
 * static variables under CPUCYCLES_COUNTER_SETUP instead.) */
#ifndef CPUCYCLES_STATE_STORAGE
#define CPUCYCLES_STATE_STORAGE extern
#endif

/* Cycles from the ticks of a scaled counter: ticks * scale, with scale a
 * fixed-point number with 32 fractional bits (cpucycles_scale_q32).  Not a
 * double multiply: a double holds 53 bits, so a tick count beyond 2^53
 * (the s390x TOD clock, or a 1 GHz timer after 100 days of uptime) would
 * come back rounded to hundreds of cycles.  The four 32x32-bit products
 * are exact; only the last fraction is dropped, so the result is exact to
 * within a cycle for any result below 2^63. */
CPUCYCLES_ALWAYS_INLINE long long cpucycles_scale_ticks(long long ticks, unsigned long long scale_q32)
{
  unsigned long long t = CPUCYCLES_CAST(unsigned long long, ticks);
  unsigned long long th = t >> 32, tl = t & 0xffffffffULL;
  unsigned long long sh = scale_q32 >> 32, sl = scale_q32 & 0xffffffffULL;
  return CPUCYCLES_CAST(long long, (((th * sh) << 32) + th * sl + tl * sh + ((tl * sl) >> 32)));
}

/* scale (cycles per tick, 0 < scale < 2^31) as cpucycles_scale_ticks wants it. */
#define CPUCYCLES_SCALE_Q32(scale) (CPUCYCLES_CAST(unsigned long long, ((scale) * 4294967296.0 + 0.5)))

/* Fences and clobbers: one rule for every read.
 *
 * A read is __volatile__ asm, so the compiler neither drops, merges nor
 * reorders it against other volatile asm.  Whether it is ordered against
 * the measured code is the counter's choice, and comes in one piece:
 *   - A read that orders itself against the code being measured has a
 *     fence in its asm (LFENCE, RDTSCP+LFENCE, ISB) AND a "memory"
 *     clobber.  The fence stops the CPU from running the measured code's
 *     instructions on the wrong side of the read; the clobber stops the
 *     compiler from moving the measured code's loads and stores across the
 *     asm.  Either alone orders nothing: without the clobber the compiler
 *     may have moved the code the fence was meant to hold back.
 *     (amd64-pmcff, amd64-tscp, arm64-vct.)
 *   - A read without such a fence has no "memory" clobber either: the CPU
 *     may run it early or late anyway, and the clobber would only make the
 *     compiler spill and reload registers around every read, a cost in the
 *     measurement that buys no ordering.  (amd64-tsc, arm64-pmc, mftb,
 *     rdcycle, rdtime, rdtick, ...)
 *   - A barrier that orders only the read's own steps (arm64-perfpmc's ISB
 *     between selecting and reading an event counter) is not a fence in
 *     this sense and takes no clobber.  Clobbers that state what the
 *     instruction writes ("cc" for s390x's STCKF, "rcx" for RDTSCP) are
 *     always given: they are correctness, not ordering.
 * Each asm sequence is written once: a counter that reads the same
 * register as another (a perf variant, the same instruction on 32 and
 * 64 bits) calls that counter's read or a shared helper below. */

/* A counter file whose setup has nothing to do (the guarded read finds out
 * whether the counter works) says why in a comment and uses this. */
#define CPUCYCLES_SETUP_NOTHING(id)                                                    \
  CPUCYCLES_COLD static inline int cpucycles_##id##_setup(struct cpucycles_setup *s) \
  {                                                                                  \
    (void)s;                                                                         \
    return 0;                                                                        \
  }

#if defined(__x86_64__) || defined(__i386__)
/* RDTSC, unordered (no fence, hence no clobber): amd64-tsc and x86-tsc. */
CPUCYCLES_ALWAYS_INLINE long long cpucycles_rdtsc(void)
{
  unsigned int lo, hi;
  __asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
  return CPUCYCLES_CAST(long long, ((CPUCYCLES_CAST(unsigned long long, hi) << 32) | lo));
}

/* RDTSCP then LFENCE, ordered against the code around it (amd64-tscp's
 * read; see there): *aux gets IA32_TSC_AUX, which RDTSCP writes to ECX. */
CPUCYCLES_ALWAYS_INLINE long long cpucycles_rdtscp_lfence(unsigned int *aux)
{
  unsigned int lo, hi;
  __asm__ __volatile__("rdtscp\n\tlfence" : "=a"(lo), "=d"(hi), "=c"(*aux) : : "memory");
  return CPUCYCLES_CAST(long long, ((CPUCYCLES_CAST(unsigned long long, hi) << 32) | lo));
}
#endif

#if defined(__GNUC__)
#define CPUCYCLES_COMPILER_BARRIER() __asm__ __volatile__("" ::: "memory")
#else
#define CPUCYCLES_COMPILER_BARRIER() ((void)0)
#endif

#endif
