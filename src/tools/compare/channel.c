/* SPDX-License-Identifier: MIT */
/* channel.c - an execution's one channel to the parent (driver.c): the
 * pipe it was given, a line at a time (say()).  execution.c says what the
 * lines are; load.c says how each build was loaded on it too. */
#include "compare-tool.h"
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

static int report_fd = -1;

void say_to(int fd) { report_fd = fd; }

/* A line to the parent; the pipe is its only channel (a benchmark's own
 * output goes to stderr, never to the parent's stdout).  What it holds is
 * cleaned (dlerror()'s text holds a path): one line is one line.  The
 * execution ends (exit 2) when the parent can no longer be told. */
void say(const char *format, ...)
{
  char line[LINE_MAX_];
  va_list ap;
  size_t done = 0, n;
  ssize_t w;
  int len;
  va_start(ap, format);
  len = vsnprintf(line, sizeof line - 1, format, ap);
  va_end(ap);
  if (len < 0) return;
  n = (size_t)len < sizeof line - 2 ? (size_t)len : sizeof line - 2;
  for (done = 0; done < n; done++) line[done] = clean_char(line[done]);
  done = 0;
  line[n++] = '\n';
  while (done < n) {
    w = write(report_fd, line + done, n - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) _exit(2);
    done += (size_t)w;
  }
}
