/* SPDX-License-Identifier: MIT */
/* compare-nomkdir - runs a program under a seccomp filter that refuses
 * to make directories (mkdir, mkdirat: EROFS, as on a read-only system
 * with no writable temporary directory): tests/t-compare-tool.sh runs
 * cpucycles-compare under it, which can then make no copy of a build.
 *   compare-nomkdir PROGRAM ARGS...
 * Exit 77 when no filter can be installed here (the test SKIPs). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "seccomp-filter.h"
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
#if defined(TEST_HAVE_SECCOMP_FILTER) && defined(SYS_mkdirat)
#if !defined(SYS_mkdir)
#define SYS_mkdir SYS_mkdirat /* (arm64 and riscv have mkdirat only) */
#endif
  struct sock_filter code[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_mkdirat, 1, 0),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_mkdir, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EROFS & SECCOMP_RET_DATA)),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  struct sock_fprog program;
  if (argc < 2) return 2;
  program.len = (unsigned short)(sizeof code / sizeof code[0]);
  program.filter = code;
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program) != 0) {
    perror("compare-nomkdir: no seccomp filter");
    return 77;
  }
  execvp(argv[1], argv + 1);
  perror("compare-nomkdir: exec");
  return 2;
#else
  (void)argc, (void)argv;
  fputs("compare-nomkdir: " TEST_NO_SECCOMP_FILTER_REASON "\n", stderr);
  return 77;
#endif
}
