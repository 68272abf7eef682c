/* SPDX-License-Identifier: MIT */
/* t-seccomp - a seccomp filter that kills the process (or traps) on
 * perf_event_open and on the clock_gettime system call: a run-time
 * selection must not make those calls, must say why it skipped the
 * counters that need them, and must still find a counter.  Each case runs
 * in a child, which the filter would kill. */
#include "decide.h"
#include "table.h"
#include "tap.h"
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* The clock_gettime system call the library would make (32-bit targets
 * with a 64-bit time_t use clock_gettime64). */
#if defined(SYS_clock_gettime64)
#define CLOCK_SYSCALL SYS_clock_gettime64
#else
#define CLOCK_SYSCALL SYS_clock_gettime
#endif

/* Installs a filter answering perf_event_open and clock_gettime with
 * action, allowing everything else.  Returns 0 or -1. */
static int install_filter(unsigned int action)
{
  struct sock_filter code[] = {
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_perf_event_open, 2, 0),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, CLOCK_SYSCALL, 1, 0),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    BPF_STMT(BPF_RET | BPF_K, action),
  };
  struct sock_fprog program = {(unsigned short)(sizeof code / sizeof code[0]), code};
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return -1;
  return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program);
}

/* Exit status of a child that installs the filter and decides afresh:
 * 0 fine, 2 a perf counter was not skipped for the filter, 3 nothing
 * found, 4 no filter could be installed. */
static int child(unsigned int action)
{
  struct cpucycles_plan plan;
  struct cpucycles_decision d;
  int i;
  if (install_filter(action) != 0) _exit(4);
  cpucycles_build_plan(&plan);
  plan.build_counter = -1; /* a full run-time selection */
  cpucycles_decide(cpucycles_table, cpucycles_table_size, &plan, 0, 0, &d);
  for (i = 0; i < cpucycles_table_size; i++) {
    struct cpucycles_result r = d.results[i];
    /* the selection may skip the system-call clock behind a working
     * CLOCK_MONOTONIC: measure it alone too */
    if (strstr(cpucycles_table[i].name, "syscall"))
      cpucycles_measure(&cpucycles_table[i], d.persecond, 0, &r);
    if ((strstr(cpucycles_table[i].name, "perf") || strstr(cpucycles_table[i].name, "syscall")) &&
        (r.available || !strstr(r.reason, "seccomp")))
      _exit(2);
  }
  if (strcmp(cpucycles_table[d.index].name, "default-zero") == 0) _exit(3);
  _exit(0);
}

static void run(unsigned int action, const char *name)
{
  int status = 0;
  pid_t pid;
  fflush(stdout);
  pid = fork();
  if (pid == 0) child(action);
  if (pid < 0 || waitpid(pid, &status, 0) != pid) {
    tap_ok(0, "%s: could not run the child", name);
    return;
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 4) {
    tap_skip(name, "no seccomp filter here (an emulator, or seccomp is off)");
    return;
  }
  tap_ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
         "%s: a run-time selection survives, skips the system-call counters and says why (%s %d)",
         name, WIFEXITED(status) ? "exit" : "killed by signal",
         WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
}

int main(void)
{
  tap_plan(3);
  run(SECCOMP_RET_KILL_PROCESS, "SECCOMP_RET_KILL_PROCESS");
  run(SECCOMP_RET_TRAP, "SECCOMP_RET_TRAP");
  run(SECCOMP_RET_ERRNO | EPERM, "SECCOMP_RET_ERRNO(EPERM)");
  return tap_done();
}
