/* seccomp.h - setup-time check: is this thread under a seccomp filter?
 *
 * A filter may answer a system call it does not allow by killing the
 * process (SECCOMP_RET_KILL_PROCESS) or with SIGSYS (SECCOMP_RET_TRAP),
 * and there is no way to ask it beforehand whether it allows a call.  So
 * the counters that need system calls a program does not usually make
 * (perf_event_open, a raw clock_gettime) are not tried under a filter.
 * Filters belong to threads (a thread inherits its creator's), hence
 * /proc/thread-self.  Read with open/read: no stdio, no allocation. */
#ifndef CPUCYCLES_SECCOMP_H
#define CPUCYCLES_SECCOMP_H
#if defined(CPUCYCLES_COUNTER_SETUP) && defined(__linux__)
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#define CPUCYCLES_SECCOMP_REASON "skipped: a seccomp filter is active (the system call could kill the process)"

/* 1 when "Seccomp: 2" (filter mode) or 1 (strict mode), else 0. */
static inline int cpucycles_seccomp_active(void)
{
  char buf[4096];
  const char *line;
  ssize_t got;
  size_t used = 0;
  int fd, saved_errno = errno;

  fd = open("/proc/thread-self/status", O_RDONLY | O_CLOEXEC);
  if (fd < 0) fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    errno = saved_errno;
    return 0; /* no /proc: nothing says so */
  }
  while (used < sizeof buf - 1) {
    got = read(fd, buf + used, sizeof buf - 1 - used);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    used += (size_t)got;
  }
  close(fd);
  errno = saved_errno;
  buf[used] = 0;
  line = strstr(buf, "\nSeccomp:");
  if (!line) return 0;
  line += strlen("\nSeccomp:");
  while (*line == ' ' || *line == '\t') line++;
  return *line == '1' || *line == '2';
}
#endif
#endif
