/* SPDX-License-Identifier: MIT */
/* loong64-bare.c - loong64-rdtime's read and its CPUCFG rate, run for real
 * under qemu-loongarch64.
 *
 * Debian has no loongarch64 C library, so this is a freestanding program
 * (clang --target=loongarch64-linux-gnu, linked by lld) that talks to Linux
 * with `syscall 0`.  It includes the counter's own header without
 * CPUCYCLES_COUNTER_SETUP, which leaves out only tickrate.h's libc fallback:
 * the read, cpucycles_loong64_cpucfg and cpucycles_loong64_rdtime_hz (the
 * rate the setup uses) are the header's, unchanged.  It prints CPUCFG words
 * 2, 4, 5, the rate, and the timer's rate over 20 ms of CLOCK_MONOTONIC
 * (clock_gettime by system call), and exits with
 *   0 never backwards, increased, the rate within 1% of the timed one;
 *   1 went backwards;  2 never increased;  3 no rate from CPUCFG;
 *   4 read and CPUCFG fine, but RDTIME.D does not tick at the rate CPUCFG
 *     states (qemu-user 7.2: it ticks at the host's rate, ~2.6 GHz here,
 *     while CPUCFG says 100 MHz; cross-matrix.sh reports this, not a failure);
 *   5 clock_gettime failed. */
#include "cpucycles/loong64-rdtime.h"

#if !defined(CPUCYCLES_HAVE_LOONG64_RDTIME)
#error "loong64-rdtime.h does not compile for this target"
#endif

void _start(void);

struct bare_timespec {
  long tv_sec;
  long tv_nsec;
};

static long bare_syscall3(long n, long a, long b, long c)
{
  register long a0 __asm__("$a0") = a;
  register long a1 __asm__("$a1") = b;
  register long a2 __asm__("$a2") = c;
  register long a7 __asm__("$a7") = n;
  __asm__ __volatile__("syscall 0"
                       : "+r"(a0)
                       : "r"(a1), "r"(a2), "r"(a7)
                       : "$t0", "$t1", "$t2", "$t3", "$t4", "$t5", "$t6", "$t7", "$t8", "memory");
  return a0;
}

static void sys_exit(long code)
{
  for (;;) bare_syscall3(94, code, 0, 0); /* exit_group */
}

static unsigned long bare_len;
static char bare_buf[512];

static void put(const char *s)
{
  while (*s && bare_len < sizeof bare_buf) bare_buf[bare_len++] = *s++;
}

static void put_u(unsigned long long v)
{
  char d[24];
  int n = 0;
  do d[n++] = (char)('0' + v % 10); while ((v /= 10) != 0);
  while (n > 0 && bare_len < sizeof bare_buf) bare_buf[bare_len++] = d[--n];
}

static void put_x(unsigned int v)
{
  int i;
  put("0x");
  for (i = 28; i >= 0; i -= 4)
    if (bare_len < sizeof bare_buf) bare_buf[bare_len++] = "0123456789abcdef"[(v >> i) & 15];
}

static void finish(long code)
{
  put(code == 0 ? "; ok\n" : code == 4 ? "; read and CPUCFG ok, rates differ\n" : "; FAILED\n");
  bare_syscall3(64, 1, (long)bare_buf, (long)bare_len); /* write */
  sys_exit(code);
}

static long long now_ns(void)
{
  struct bare_timespec ts;
  if (bare_syscall3(113, 1 /* CLOCK_MONOTONIC */, (long)&ts, 0) != 0) { /* clock_gettime */
    put("clock_gettime failed");
    finish(5);
  }
  return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

void _start(void)
{
  long long first, prev, now, ns0, ns1, t0, t1;
  unsigned long i, reads = 0;
  double hz, timed;

  put("loong64-bare: cpucfg2 ");
  put_x(cpucycles_loong64_cpucfg(2));
  put(" (LLFTP ");
  put_u((cpucycles_loong64_cpucfg(2) >> 14) & 1);
  put(") cpucfg4 ");
  put_u(cpucycles_loong64_cpucfg(4));
  put(" cpucfg5 ");
  put_x(cpucycles_loong64_cpucfg(5));
  hz = cpucycles_loong64_rdtime_hz();
  put("; header's rate ");
  put_u((unsigned long long)hz);
  put(" Hz");

  first = prev = cpucycles_loong64_rdtime_read();
  for (i = 0; i < 10000000UL; i++) {
    now = cpucycles_loong64_rdtime_read();
    if (now < prev) {
      put("; went backwards");
      finish(1);
    }
    prev = now;
  }
  reads = i;
  put("; ");
  put_u(reads);
  put(" reads, ");
  put_u((unsigned long long)(prev - first));
  put(" ticks, never backwards");
  if (prev == first) finish(2);

  ns0 = now_ns();
  t0 = cpucycles_loong64_rdtime_read();
  do {
    ns1 = now_ns();
    t1 = cpucycles_loong64_rdtime_read();
  } while (ns1 - ns0 < 20000000LL);
  timed = (double)(t1 - t0) * 1e9 / (double)(ns1 - ns0);
  put("; timed rate ");
  put_u((unsigned long long)timed);
  put(" Hz");
  if (hz <= 0) {
    put("; no rate from CPUCFG");
    finish(3);
  }
  if (timed < hz * 0.99 || timed > hz * 1.01) {
    put("; RDTIME.D does not tick at CPUCFG's rate");
    finish(4);
  }
  finish(0);
}
