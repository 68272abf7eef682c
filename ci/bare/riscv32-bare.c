/* SPDX-License-Identifier: MIT */
/* riscv32-bare.c - riscv32-rdcycle's read, run for real under qemu-riscv32.
 *
 * Debian has no riscv32 C library, so this is a freestanding program (clang
 * --target=riscv32, linked by riscv64-linux-gnu-ld -m elf32lriscv) that
 * talks to Linux with ecall.  It reads the counter until its high half has
 * changed twice, which proves the RDCYCLEH/RDCYCLE/RDCYCLEH retry across
 * real carries, and exits with
 *   0 never backwards, increased, carried;  1 went backwards;
 *   2 never increased;  3 no carry within 2^31 reads. */
#include "cpucycles/riscv32-rdcycle.h"

void _start(void);

static void sys_exit(long code)
{
  register long a0 __asm__("a0") = code;
  register long a7 __asm__("a7") = 93; /* exit */
  for (;;) __asm__ __volatile__("ecall" : "+r"(a0) : "r"(a7));
}

void _start(void)
{
  long long first = cpucycles_riscv32_rdcycle_read(), prev = first, now;
  unsigned long i;
  int carries = 0;
  for (i = 0; i < 0x80000000UL && carries < 2; i++) {
    now = cpucycles_riscv32_rdcycle_read();
    if (now < prev) sys_exit(1);
    if ((now >> 32) != (prev >> 32)) carries++;
    prev = now;
  }
  if (prev == first) sys_exit(2);
  sys_exit(carries < 2 ? 3 : 0);
}
