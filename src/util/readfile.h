/* SPDX-License-Identifier: MIT */
/* readfile.h - setup-time reading of the few small files the library
 * consults (/etc/cpucyclespersecond, cpufreq in /sys, /proc/cpuinfo,
 * /proc/sys/kernel/perf_user_access) with open, read and close only.
 *
 * The library's first call runs this code and may itself run in a signal
 * handler or in a child after fork(), so it must be async-signal-safe: no
 * stdio, no malloc; the caller provides the (stack) buffer, and errno is
 * left as the caller had it.
 *
 * Only regular files are read.  /proc and /sys pseudo-files are regular too
 * (with st_size 0, so the size is found by reading, never from fstat()).
 * Anything else at the path (a FIFO with no writer, a terminal, a pipe or
 * a tty behind a symlink to /dev/stdin, a device) is refused before it is
 * opened, and again after, in case the path changed in between: opening
 * it could block or have side effects, reading it could block or eat the
 * program's own input.  A regular file reached through /dev/stdin
 * (/proc/self/fd/0) is opened anew on Linux, with an offset of its own.
 * (util-fn.h: where the functions' code is.) */
#ifndef CPUCYCLES_READFILE_H
#define CPUCYCLES_READFILE_H
#include "util-fn.h"
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#if defined(O_CLOEXEC)
#define CPUCYCLES_READFILE_CLOEXEC O_CLOEXEC
#else
#define CPUCYCLES_READFILE_CLOEXEC 0
#endif

/* What cpucycles_readfile() returns when it has no contents to give. */
#define CPUCYCLES_READFILE_MISSING (-1)   /* no such file (ENOENT) */
#define CPUCYCLES_READFILE_FAILED (-2)    /* *why says why */
#define CPUCYCLES_READFILE_TOO_LARGE (-3) /* more than the buffer holds */

/* cpucycles_readfile_lines() stops after this many bytes: /proc/cpuinfo
 * takes about 1.5 KB per CPU on x86 and 100 bytes on POWER. */
#define CPUCYCLES_READFILE_LINES_MAX (4L << 20)

/* errno as a reason, for reports: strerror() is not async-signal-safe. */
CPUCYCLES_UTIL_FN const char *cpucycles_readfile_error(int e);

/* Why a file of this type is not read. */
CPUCYCLES_UTIL_FN const char *cpucycles_readfile_type(mode_t mode);

/* A descriptor of the regular file at path, or -1 with *why set (to 0 when
 * the file does not exist).  Changes errno. */
CPUCYCLES_UTIL_FN int cpucycles_readfile_open(const char *path, const char **why);

/* Reads until size bytes or the end of the file; returns the count, or -1
 * on a read error. */
CPUCYCLES_UTIL_FN ssize_t cpucycles_readfile_fill(int fd, char *buf, size_t size);

/* The whole regular file at path into buf (size >= 1), followed by a NUL.
 * Returns its length (at most size - 1), or CPUCYCLES_READFILE_MISSING
 * (*why is 0), CPUCYCLES_READFILE_TOO_LARGE or CPUCYCLES_READFILE_FAILED
 * (*why says why), with "" in buf.  The contents may hold NULs of their
 * own: the length, not strlen(), says where they end. */
CPUCYCLES_UTIL_FN ssize_t cpucycles_readfile(const char *path, char *buf, size_t size,
                                             const char **why);

/* Splits text that arrives in chunks (reads of a file) into lines, inside
 * the caller's buffer.  A line longer than size - 1 bytes is passed cut to
 * its first size - 1 bytes and the rest of it is dropped. */
struct cpucycles_lines {
  char *buf;
  size_t size; /* at least 2 */
  size_t used; /* an unfinished line is at buf[0 .. used) */
  int cut;     /* the rest of a cut line is being dropped */
  /* called with each line, its '\n' replaced by a NUL (the line may hold
   * NULs of its own); nonzero stops the splitting */
  int (*line)(void *ctx, const char *text, size_t len);
  void *ctx;
};

/* Where the next chunk goes: *room (at least 1) bytes at the result. */
CPUCYCLES_UTIL_FN char *cpucycles_lines_room(const struct cpucycles_lines *l, size_t *room);

/* Takes the got bytes just written at cpucycles_lines_room(), got 0 at the
 * end of the text (which ends its last line).  Returns 1 when l->line
 * asked to stop, else 0. */
CPUCYCLES_UTIL_FN int cpucycles_lines_feed(struct cpucycles_lines *l, size_t got);

/* Each line of the regular file at path to line(ctx, text, len), read in
 * chunks through buf (size >= 2; longer lines are cut, see
 * cpucycles_lines), until line() returns nonzero or after
 * CPUCYCLES_READFILE_LINES_MAX bytes.  Returns 1 when line() stopped it,
 * 0 at the end of the file, -1 when the file cannot be read. */
CPUCYCLES_UTIL_FN int cpucycles_readfile_lines(const char *path, char *buf, size_t size,
                                               int (*line)(void *, const char *, size_t),
                                               void *ctx);

/* The value of a /proc/cpuinfo line "key<spaces or tabs>: value" with
 * exactly this key ("cpu" does not match "cpu family"): the text after the
 * colon.  0 for any other line. */
CPUCYCLES_UTIL_FN const char *cpucycles_cpuinfo_value(const char *line, const char *key);

/* The decimal number at the start of text (after blanks: "2.4e9", "-3",
 * " 3000.000"),
 * in the C locale whatever the program's (strtod() follows LC_NUMERIC: a
 * program that calls setlocale(LC_ALL, "") under de_DE would read "2.4e9"
 * as 2 followed by junk).  *end is set after it, or to text when there is
 * no number.  Digits past the 19th only count in the exponent: these are
 * frequencies, rounded to whole Hz.  No hexadecimal, inf or nan. */
CPUCYCLES_UTIL_FN double cpucycles_parse_decimal(const char *text, const char **end);

#if defined(CPUCYCLES_UTIL_BODIES)
CPUCYCLES_UTIL_FN const char *cpucycles_readfile_error(int e)
{
  switch (e) {
  case EACCES: return "permission denied";
  case EPERM: return "operation not permitted";
  case EISDIR: return "is a directory";
  case ENOTDIR: return "a component of the path is not a directory";
  case ELOOP: return "too many levels of symbolic links";
  case ENAMETOOLONG: return "file name too long";
  case EIO: return "input/output error";
  case EMFILE: return "too many open files in this process";
  case ENFILE: return "too many open files in the system";
  case ENOMEM: return "out of kernel memory";
  case ENXIO: return "no such device or address";
  case EOVERFLOW: return "value too large";
  default: return "cannot be opened or read";
  }
}

CPUCYCLES_UTIL_FN const char *cpucycles_readfile_type(mode_t mode)
{
  if (S_ISDIR(mode)) return "not a regular file: a directory";
  if (S_ISFIFO(mode)) return "not a regular file: a FIFO or pipe";
  if (S_ISCHR(mode)) return "not a regular file: a character device";
  if (S_ISBLK(mode)) return "not a regular file: a block device";
  return "not a regular file";
}

CPUCYCLES_UTIL_FN int cpucycles_readfile_open(const char *path, const char **why)
{
  struct stat st;
  int fd;
  *why = 0;
  if (stat(path, &st) != 0) {
    if (errno != ENOENT) *why = cpucycles_readfile_error(errno);
    return -1;
  }
  if (!S_ISREG(st.st_mode)) {
    *why = cpucycles_readfile_type(st.st_mode);
    return -1;
  }
  /* O_NONBLOCK: should the path have become a FIFO since stat(), open()
   * returns at once instead of waiting for a writer. */
  do fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | CPUCYCLES_READFILE_CLOEXEC);
  while (fd < 0 && errno == EINTR);
  if (fd < 0) {
    *why = errno == ENOENT ? 0 : cpucycles_readfile_error(errno);
    return -1;
  }
  if (fstat(fd, &st) != 0)
    *why = cpucycles_readfile_error(errno);
  else if (!S_ISREG(st.st_mode))
    *why = cpucycles_readfile_type(st.st_mode);
  if (*why) {
    close(fd);
    return -1;
  }
  return fd;
}

CPUCYCLES_UTIL_FN ssize_t cpucycles_readfile_fill(int fd, char *buf, size_t size)
{
  size_t got = 0;
  ssize_t n;
  while (got < size) {
    n = read(fd, buf + got, size - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return -1;
    if (n == 0) break;
    got += (size_t)n;
  }
  return (ssize_t)got;
}

CPUCYCLES_UTIL_FN ssize_t cpucycles_readfile(const char *path, char *buf, size_t size,
                                             const char **why)
{
  int saved = errno, fd = cpucycles_readfile_open(path, why);
  ssize_t len, more = 0;
  char extra;
  buf[0] = 0;
  if (fd < 0) {
    errno = saved;
    return *why ? CPUCYCLES_READFILE_FAILED : CPUCYCLES_READFILE_MISSING;
  }
  len = cpucycles_readfile_fill(fd, buf, size - 1);
  /* one byte more tells a file that just fits from a larger one */
  if (len == (ssize_t)(size - 1)) more = cpucycles_readfile_fill(fd, &extra, 1);
  if (len < 0 || more < 0) {
    *why = cpucycles_readfile_error(errno);
    len = CPUCYCLES_READFILE_FAILED;
  } else if (more > 0) {
    *why = "too large";
    len = CPUCYCLES_READFILE_TOO_LARGE;
  }
  buf[len >= 0 ? len : 0] = 0;
  close(fd);
  errno = saved;
  return len;
}

CPUCYCLES_UTIL_FN char *cpucycles_lines_room(const struct cpucycles_lines *l, size_t *room)
{
  *room = l->size - 1 - l->used;
  return l->buf + l->used;
}

CPUCYCLES_UTIL_FN int cpucycles_lines_feed(struct cpucycles_lines *l, size_t got)
{
  size_t start = 0, from = l->used, end = l->used + got, len;
  char *nl;
  while ((nl = (char *)memchr(l->buf + from, '\n', end - from)) != 0) {
    len = (size_t)(nl - l->buf) - start;
    *nl = 0;
    if (!l->cut && l->line(l->ctx, l->buf + start, len)) return 1;
    l->cut = 0;
    start = from = start + len + 1;
  }
  len = end - start; /* of the unfinished line at buf + start */
  if (got == 0 || len == l->size - 1) {
    /* the end of the text, or a line that fills the buffer (start is 0) */
    l->buf[start + len] = 0;
    if (len > 0 && !l->cut && l->line(l->ctx, l->buf + start, len)) return 1;
    l->cut = got != 0;
    len = 0;
  }
  if (l->cut) len = 0;
  memmove(l->buf, l->buf + start, len);
  l->used = len;
  return 0;
}

CPUCYCLES_UTIL_FN int cpucycles_readfile_lines(const char *path, char *buf, size_t size,
                                               int (*line)(void *, const char *, size_t), void *ctx)
{
  struct cpucycles_lines l;
  const char *why;
  char *at;
  size_t room;
  long total = 0;
  ssize_t got;
  int saved = errno, fd = cpucycles_readfile_open(path, &why), stop = 0;
  if (fd < 0) {
    errno = saved;
    return -1;
  }
  l.buf = buf;
  l.size = size;
  l.used = 0;
  l.cut = 0;
  l.line = line;
  l.ctx = ctx;
  do {
    at = cpucycles_lines_room(&l, &room);
    got = cpucycles_readfile_fill(fd, at, room);
    if (got < 0) break;
    total += (long)got;
    stop = cpucycles_lines_feed(&l, (size_t)got);
  } while (!stop && got > 0 && total < CPUCYCLES_READFILE_LINES_MAX);
  close(fd);
  errno = saved;
  return stop ? 1 : got < 0 ? -1 : 0;
}

CPUCYCLES_UTIL_FN const char *cpucycles_cpuinfo_value(const char *line, const char *key)
{
  size_t n = strlen(key);
  if (strncmp(line, key, n) != 0) return 0;
  line += n;
  while (*line == ' ' || *line == '\t') line++;
  return *line == ':' ? line + 1 : 0;
}

CPUCYCLES_UTIL_FN double cpucycles_parse_decimal(const char *text, const char **end)
{
  const char *p = text;
  unsigned long long mantissa = 0; /* the number is mantissa * 10^scale */
  int scale = 0, kept = 0, seen = 0, negative = 0, exponent = 0, exponent_negative = 0;
  double power = 1;
  while (*p == ' ' || *p == '\t') p++; /* "cpu MHz\t: 2600.000": the value starts with a blank */
  if (*p == '+' || *p == '-') negative = *p++ == '-';
  for (; *p >= '0' && *p <= '9'; p++, seen = 1) {
    if (kept == 19) scale++;
    else if ((mantissa = mantissa * 10 + (unsigned)(*p - '0')) != 0) kept++;
  }
  if (*p == '.')
    for (p++; *p >= '0' && *p <= '9'; p++, seen = 1)
      if (kept < 19) {
        if ((mantissa = mantissa * 10 + (unsigned)(*p - '0')) != 0) kept++;
        scale--;
      }
  *end = text;
  if (!seen) return 0;
  if (*p == 'e' || *p == 'E') {
    const char *q = p + 1;
    if (*q == '+' || *q == '-') exponent_negative = *q++ == '-';
    if (*q >= '0' && *q <= '9') {
      for (; *q >= '0' && *q <= '9'; q++)
        if (exponent < 100000) exponent = exponent * 10 + (*q - '0');
      scale += exponent_negative ? -exponent : exponent;
      p = q;
    }
  }
  *end = p;
  if (mantissa == 0) return 0;
  /* 10^|scale| in one piece (exact up to 10^22), then one rounding */
  for (exponent = scale < 0 ? -scale : scale; exponent > 0 && power < 1e308; exponent--) power *= 10;
  return (negative ? -1.0 : 1.0) * (scale < 0 ? (double)mantissa / power : (double)mantissa * power);
}
#endif

#endif
