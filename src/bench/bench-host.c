/* SPDX-License-Identifier: MIT */
/* bench-host.c - cpucycles_bench() on this host: the reads around each
 * run (fenced reads of the TSC when cpucycles() reads the TSC, else
 * cpucycles() itself), the CPU a read ran on, the thread's context
 * switches, and what the host says about the counter's rate. */
#include "bench.h"
#include "core.h"
#include "readfile.h"
#include "text.h"
#include <errno.h>
#include <sched.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

static unsigned int current_cpu(void)
{
#if defined(__linux__)
  int cpu = sched_getcpu();
  if (cpu >= 0) return (unsigned int)cpu + 1;
#endif
  return 0;
}

/* getrusage(RUSAGE_THREAD) where there is one (Linux); else the whole
 * process's, which also counts other threads' switches: more runs are
 * excluded than need be, none is kept that should not be. */
static long long thread_switches(void)
{
  struct rusage ru;
#if defined(RUSAGE_THREAD)
  if (getrusage(RUSAGE_THREAD, &ru) != 0) return -1;
#else
  if (getrusage(RUSAGE_SELF, &ru) != 0) return -1;
#endif
  return (long long)ru.ru_nvcsw + (long long)ru.ru_nivcsw;
}

/* Any counter: cpucycles() itself.  The barriers keep the compiler from
 * moving code across the reads; nothing keeps the CPU from doing so. */
static long long plain_start(unsigned long long *cpu)
{
  long long t;
  *cpu = current_cpu();
  CPUCYCLES_COMPILER_BARRIER();
  t = cpucycles();
  CPUCYCLES_COMPILER_BARRIER();
  return t;
}

static long long plain_end(unsigned long long *cpu)
{
  long long t;
  CPUCYCLES_COMPILER_BARRIER();
  t = cpucycles();
  CPUCYCLES_COMPILER_BARRIER();
  *cpu = current_cpu();
  return t;
}

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>

/* The TSC, read so that the measured code cannot leak out of the bracket
 * (Intel's SDM on RDTSC and RDTSCP).  RDTSCP waits until every
 * earlier instruction has executed before it reads, so the end read
 * comes after all of fn; but later instructions may start before it, so
 * an LFENCE follows, and fn cannot start before the start read.  (On
 * AMD, LFENCE holds later instructions back only once the kernel has set
 * DE_CFG[1], which Linux does as a Spectre mitigation.)  RDTSCP also
 * gives IA32_TSC_AUX, which Linux sets to (node << 12) | cpu, read at the
 * very instant of the TSC; but nothing sets it under qemu-user, where it
 * stays 0 on every CPU, so sched_getcpu() is compared too (outside the
 * fences, so the bracket does not grow).  The read is counter.h's
 * cpucycles_rdtscp_lfence(), the same as amd64-tscp's. */

static long long tscp_start(unsigned long long *cpu)
{
  unsigned long long here = current_cpu();
  unsigned int aux;
  long long t = cpucycles_rdtscp_lfence(&aux);
  *cpu = here << 32 | aux;
  return t;
}

static long long tscp_end(unsigned long long *cpu)
{
  unsigned int aux;
  long long t = cpucycles_rdtscp_lfence(&aux);
  *cpu = (unsigned long long)current_cpu() << 32 | aux;
  return t;
}

/* Without RDTSCP: RDTSC is ordered with nothing, so a fence on each side
 * (the one before waits for fn to finish, the one after keeps fn from
 * starting); the CPU comes from sched_getcpu(), outside the fences. */
static long long fenced_rdtsc(void)
{
  unsigned int lo, hi;
  __asm__ __volatile__("lfence\n\trdtsc\n\tlfence" : "=a"(lo), "=d"(hi) : : "memory");
  return (long long)(((unsigned long long)hi << 32) | lo);
}

static long long tsc_start(unsigned long long *cpu)
{
  *cpu = current_cpu();
  return fenced_rdtsc();
}

static long long tsc_end(unsigned long long *cpu)
{
  long long t = fenced_rdtsc();
  *cpu = current_cpu();
  return t;
}

/* CPUID says an instruction exists; a hypervisor may still refuse it. */
struct probe {
  long long ticks;
  unsigned int aux;
};
static void try_tscp(void *arg) { ((struct probe *)arg)->ticks = cpucycles_rdtscp_lfence(&((struct probe *)arg)->aux); }
static void try_lfence(void *arg) { ((struct probe *)arg)->ticks = fenced_rdtsc(); }

/* Which TSC read works here: RDTSCP, LFENCE around RDTSC, or neither
 * (found once; threads that race find the same).  Neither without the
 * core's guard to try them (libcpucycles' own library). */
enum { TSC_UNKNOWN, TSC_RDTSCP, TSC_LFENCE, TSC_NEITHER };
static int tsc_read_here = TSC_UNKNOWN;

static int find_tsc_read(void)
{
  unsigned int a, b, cx, d, max_ext = 0, rdtscp = 0, sse2 = 0;
  struct probe scratch;
  if (__get_cpuid(0x80000000, &max_ext, &b, &cx, &d) && max_ext >= 0x80000001 &&
      __get_cpuid(0x80000001, &a, &b, &cx, &d))
    rdtscp = (d >> 27) & 1;
  if (__get_cpuid(1, &a, &b, &cx, &d)) sse2 = (d >> 26) & 1; /* LFENCE came with SSE2 */
  if (rdtscp && sse2 && cpucycles_bench_core_guarded_call(try_tscp, &scratch) == 0) return TSC_RDTSCP;
  if (sse2 && cpucycles_bench_core_guarded_call(try_lfence, &scratch) == 0) return TSC_LFENCE;
  return TSC_NEITHER;
}

/* The TSC bracket that works here, or 0 to use cpucycles(). */
static int tsc_clock(struct cpucycles_bench_clock *c)
{
  unsigned int a, b, cx, d, max_ext = 0;
  int how = __atomic_load_n(&tsc_read_here, __ATOMIC_RELAXED);
  if (how == TSC_UNKNOWN) {
    how = find_tsc_read();
    __atomic_store_n(&tsc_read_here, how, __ATOMIC_RELAXED);
  }
  c->flags = 0;
  if (!(__get_cpuid(0x80000000, &max_ext, &b, &cx, &d) && max_ext >= 0x80000007 &&
        __get_cpuid(0x80000007, &a, &b, &cx, &d) && (d >> 8) & 1))
    c->flags |= CPUCYCLES_BENCH_TSC_NOT_INVARIANT;
  if (how == TSC_RDTSCP) c->start = tscp_start, c->end = tscp_end;
  if (how == TSC_LFENCE) c->start = tsc_start, c->end = tsc_end;
  return how == TSC_RDTSCP || how == TSC_LFENCE;
}
#endif

/* The kHz figure in text (cpufreq's "3500000\n"), as Hz; 0 when it is
 * not one number. */
static long long khz(const char *text)
{
  const char *end;
  double value = cpucycles_parse_decimal(text, &end);
  while (*end == ' ' || *end == '\n') end++;
  return end != text && !*end && value > 0 && value < 1e9 ? (long long)(value * 1e3) : 0;
}

/* A cpufreq file of this cpu into buf (empty when missing). */
static void read_cpufreq(const char *sysfs, unsigned int cpu, const char *file, char *buf,
                         size_t size)
{
  char path[256];
  const char *why;
  path[0] = 0;
  cpucycles_text_add_str(path, sizeof path, sysfs);
  cpucycles_text_add_str(path, sizeof path, "/devices/system/cpu/cpu");
  cpucycles_text_add_number(path, sizeof path, cpu);
  cpucycles_text_add_str(path, sizeof path, "/cpufreq/");
  cpucycles_text_add_str(path, sizeof path, file);
  if (cpucycles_readfile(path, buf, size, &why) < 0) buf[0] = 0;
}

static int file_starts(const char *sysfs, const char *file, const char *text)
{
  char path[256], buf[64];
  const char *why;
  path[0] = 0;
  cpucycles_text_add_str(path, sizeof path, sysfs);
  cpucycles_text_add_str(path, sizeof path, file);
  return cpucycles_readfile(path, buf, sizeof buf, &why) > 0 &&
         strncmp(buf, text, strlen(text)) == 0;
}

/* An off-core counter counts time, so a cycle count in its
 * units is only as steady as the CPU's frequency.  It is held when the
 * governor is "performance" or the minimum is the maximum, with turbo
 * off (intel_pstate's no_turbo, or cpufreq's boost), and the CPU is at
 * its maximum now (not throttled). */
unsigned int cpucycles_bench_frequency_flags(const char *sysfs, unsigned int cpu)
{
  char governor[64], text[64];
  long long min, max, now;
  read_cpufreq(sysfs, cpu, "scaling_governor", governor, sizeof governor);
  if (!governor[0]) return CPUCYCLES_BENCH_FREQ_UNKNOWN;
  read_cpufreq(sysfs, cpu, "scaling_min_freq", text, sizeof text);
  min = khz(text);
  read_cpufreq(sysfs, cpu, "scaling_max_freq", text, sizeof text);
  max = khz(text);
  read_cpufreq(sysfs, cpu, "scaling_cur_freq", text, sizeof text);
  now = khz(text);
  if (strncmp(governor, "performance", 11) != 0 && !(min > 0 && min == max))
    return CPUCYCLES_BENCH_FREQ_SCALING;
  if (file_starts(sysfs, "/devices/system/cpu/intel_pstate/no_turbo", "0") ||
      file_starts(sysfs, "/devices/system/cpu/cpufreq/boost", "1"))
    return CPUCYCLES_BENCH_FREQ_SCALING;
  if (now > 0 && max > 0 && now < max - max / 20) return CPUCYCLES_BENCH_FREQ_SCALING;
  return 0;
}

/* Empty functions beside fn (bench.h, struct cpucycles_bench_nulls): a
 * page mapped near fn's page, in the same 4 GiB region (the first free
 * one 2 MiB, 4 MiB... away), written, then made executable and no longer
 * writable; an empty function at fn's offset in its page, and two at
 * offsets that differ in the half of the page and the half of the cache
 * line.  None where the system refuses to map code (SELinux's execmem,
 * systemd's MemoryDenyWriteExecute) or the target is another. */
#if defined(__linux__) && (defined(__x86_64__) || defined(__i386__) || defined(__aarch64__))
#define PAGE CPUCYCLES_BENCH_NULLS_PAGE
#define NEAR_TRIES 16
#define NEAR_STEP (2UL << 20)
#if defined(MAP_FIXED_NOREPLACE)
#define NEAR_FLAGS (MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE)
#else
#define NEAR_FLAGS (MAP_PRIVATE | MAP_ANONYMOUS) /* a hint, checked below */
#endif

static void *page_near(size_t fn_page)
{
  size_t want, got;
  void *p;
  int i;
  for (i = 1; i <= 2 * NEAR_TRIES; i++) {
    want = i % 2 ? fn_page - (size_t)(i + 1) / 2 * NEAR_STEP : fn_page + (size_t)i / 2 * NEAR_STEP;
    p = mmap((void *)want, PAGE, PROT_READ | PROT_WRITE, NEAR_FLAGS, -1, 0);
    if (p == MAP_FAILED) continue;
    got = (size_t)p;
    if (got == want && (unsigned long long)got >> 16 >> 16 == (unsigned long long)fn_page >> 16 >> 16)
      return p;
    munmap(p, PAGE);
  }
  return 0;
}

static void host_place_nulls(void (*fn)(void *), struct cpucycles_bench_nulls *nulls)
{
  size_t at = (size_t)fn, offset[CPUCYCLES_BENCH_PLACED], i;
  unsigned char *page;
#if defined(__aarch64__)
  static const unsigned char ret[] = {0xc0, 0x03, 0x5f, 0xd6}; /* ret */
#else
  static const unsigned char ret[] = {0xc3}; /* ret */
#endif
  long system_page = sysconf(_SC_PAGESIZE); /* 64 KiB on some arm64 kernels */
  nulls->n = 0, nulls->page = 0;
  if (system_page < PAGE) system_page = PAGE;
  /* a hint must be a multiple of the system's page; the first 4 KiB of
   * one are enough */
  if (!(page = page_near(at & ~(size_t)(system_page - 1)))) return;
  offset[0] = (at & (PAGE - 1)) & ~(size_t)(sizeof ret - 1);
  if (offset[0] > PAGE - sizeof ret) offset[0] = PAGE - sizeof ret;
  offset[1] = offset[0] ^ 2048 ^ 32;
  offset[2] = offset[0] ^ 1024 ^ 16;
  for (i = 0; i < CPUCYCLES_BENCH_PLACED; i++) memcpy(page + offset[i], ret, sizeof ret);
  __builtin___clear_cache((char *)page, (char *)page + PAGE);
  if (mprotect(page, PAGE, PROT_READ | PROT_EXEC) != 0) {
    munmap(page, PAGE);
    return;
  }
  nulls->page = page;
  for (i = 0; i < CPUCYCLES_BENCH_PLACED; i++) {
    void *p = page + offset[i];
    memcpy(&nulls->fn[i], &p, sizeof p); /* data to function pointer (ISO C has no cast) */
  }
  nulls->n = CPUCYCLES_BENCH_PLACED;
}
#endif

void cpucycles_bench_host_clock(struct cpucycles_bench_clock *c)
{
  const char *name = cpucycles_implementation();
  int unit = cpucycles_bench_core_unit(), fenced = 0;
  unsigned int cpu;

#if defined(__x86_64__) || defined(__i386__)
  if (!strcmp(name, "amd64-tsc") || !strcmp(name, "amd64-tscasm") || !strcmp(name, "amd64-tscp") ||
      !strcmp(name, "x86-tsc"))
    fenced = tsc_clock(c);
#else
  (void)name;
#endif
  if (!fenced) {
    c->start = plain_start, c->end = plain_end;
    c->flags = CPUCYCLES_BENCH_UNFENCED;
  }
  c->switches = thread_switches;
#if defined(__linux__) && (defined(__x86_64__) || defined(__i386__) || defined(__aarch64__))
  c->place_nulls = host_place_nulls;
#else
  c->place_nulls = 0;
#endif
  if (!cpucycles_bench_core_known()) c->flags |= CPUCYCLES_BENCH_OTHER_LIBRARY;
  /* Counters that count time, not the core's cycles (and one that cannot
   * say which it counts). */
  if (unit != CPUCYCLES_UNIT_CORE_CYCLES && unit != CPUCYCLES_UNIT_NONE) {
    cpu = current_cpu();
    c->flags |= cpu ? cpucycles_bench_frequency_flags("/sys", cpu - 1) : CPUCYCLES_BENCH_FREQ_UNKNOWN;
  }
}

int cpucycles_bench(void (*fn)(void *), void *arg, const struct cpucycles_bench_options *options,
                    struct cpucycles_bench_result *result)
{
  struct cpucycles_bench_clock c;
  cpucycles_bench_host_clock(&c);
  return cpucycles_bench_with(&c, fn, arg, options, result, 0);
}

int cpucycles_bench_with_speed(void (*fn)(void *), void *arg, const struct cpucycles_bench_options *options,
                               struct cpucycles_bench_result *result, struct cpucycles_bench_speed *speed)
{
  struct cpucycles_bench_clock c;
  if (!speed) {
    errno = EINVAL;
    return -1;
  }
  cpucycles_bench_host_clock(&c);
  return cpucycles_bench_with(&c, fn, arg, options, result, speed);
}

int cpucycles_bench_speed_now(struct cpucycles_bench_speed *speed)
{
  struct cpucycles_bench_clock c;
  int rc;
  if (!speed) {
    errno = EINVAL;
    return -1;
  }
  cpucycles_bench_host_clock(&c);
  if ((rc = cpucycles_bench_speed_with(&c, speed)) != 0) {
    errno = rc;
    return -1;
  }
  return 0;
}

int cpucycles_bench_compare(void (*a)(void *), void *arg_a, void (*b)(void *), void *arg_b,
                            const struct cpucycles_compare_options *options,
                            struct cpucycles_compare_result *result)
{
  struct cpucycles_bench_clock c;
  cpucycles_bench_host_clock(&c);
  return cpucycles_bench_compare_with(&c, cpucycles_persecond(), a, arg_a, b, arg_b, options,
                                      result);
}
