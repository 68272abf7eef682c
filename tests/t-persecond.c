/* SPDX-License-Identifier: MIT */
/* t-persecond - cpucycles_persecond()'s sources in order, and every kind of
 * bad value skipped (and reported), never trusted.  The file at
 * /etc/cpucyclespersecond is read whole, only when it is a regular file,
 * without blocking or touching the program's standard input; and the
 * resolution leaves errno alone. */
#include "persecond.h"
#include "tap.h"
#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

static char etc_path[256];
static char other_path[256]; /* a second scratch file */

static void write_bytes(const char *path, const char *bytes, size_t len)
{
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(bytes, 1, len, f) != len || fclose(f) != 0) {
    perror(path);
    exit(1);
  }
}

/* Stand-ins for the host's own mechanisms (CPUID, cpufreq, /proc). */
static long long host_answers(const char **source)
{
  *source = "the test's host";
  return 2100000000LL;
}
static long long host_silent(const char **source)
{
  (void)source;
  return 0;
}

static void write_etc(const char *text)
{
  write_bytes(etc_path, text, strlen(text));
}

/* n bytes of c, then text, at the path; or text, then c up to n bytes in
 * all when after is set. */
static void write_etc_padded(const char *text, char c, size_t n, int after)
{
  static char buf[8192];
  size_t len = strlen(text), pad = after ? n - len : n;
  if (len + pad > sizeof buf) exit(1);
  memset(buf + (after ? len : 0), c, pad);
  memcpy(buf + (after ? 0 : pad), text, len);
  write_bytes(etc_path, buf, len + pad);
}

/* Whether the report names the file and says what. */
static int reported(const struct cpucycles_persecond_report *r, const char *path,
                    const char *what)
{
  return strstr(r->problems, path) != 0 && strstr(r->problems, what) != 0;
}

/* The resolution with the scratch file, 1500000000 as the fall-back. */
static long long resolve_etc(struct cpucycles_persecond_report *r)
{
  long long hz = cpucycles_persecond_resolve(etc_path, 0, 1500000000, r);
  if (r->problems[0]) tap_diag("report: %s", r->problems);
  return hz;
}

/* check() in a child with a 5 s alarm, so that a hang shows as a failure
 * rather than as a test that never ends; 1 when it returned nonzero. */
static int in_child(int (*check)(void))
{
  int status;
  pid_t pid;
  fflush(stdout);
  pid = fork();
  if (pid < 0) return 0;
  if (pid == 0) {
    alarm(5);
    status = check();
    fflush(stdout);
    _exit(status ? 0 : 1);
  }
  if (waitpid(pid, &status, 0) != pid) return 0;
  if (WIFSIGNALED(status))
    tap_diag("the check was killed by signal %d%s", WTERMSIG(status),
             WTERMSIG(status) == SIGALRM ? " (it hung for 5 s)" : "");
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* A FIFO with no writer: open() would wait for one forever. */
static int fifo_check(void)
{
  struct cpucycles_persecond_report r;
  return resolve_etc(&r) == 1500000000LL && reported(&r, etc_path, "FIFO");
}

/* A pipe on standard input behind a symlink to /dev/stdin: refused
 * without a read, so the program still gets all of its input. */
static int stdin_pipe_check(void)
{
  static const char value[] = "3000000000\n";
  struct cpucycles_persecond_report r;
  char back[sizeof value];
  ssize_t got;
  long long hz;
  int p[2];
  if (pipe(p) != 0 || write(p[1], value, sizeof value - 1) != (ssize_t)sizeof value - 1) return 0;
  close(p[1]);
  if (dup2(p[0], 0) != 0) return 0;
  hz = resolve_etc(&r);
  got = read(0, back, sizeof back);
  tap_diag("standard input still holds %ld of %ld bytes", (long)got, (long)sizeof value - 1);
  return hz == 1500000000LL && reported(&r, etc_path, "pipe") && got == (ssize_t)sizeof value - 1;
}

/* A regular file on standard input, read at offset 4: opened again
 * through /dev/stdin it has an offset of its own, which is read whole,
 * and standard input's offset stays where the program left it. */
static int stdin_file_check(void)
{
  struct cpucycles_persecond_report r;
  long long hz;
  off_t offset;
  int fd = open(other_path, O_RDONLY);
  if (fd < 0 || dup2(fd, 0) != 0 || lseek(0, 4, SEEK_SET) != 4) return 0;
  hz = resolve_etc(&r);
  offset = lseek(0, 0, SEEK_CUR);
  tap_diag("got %lld; standard input's offset is %ld", hz, (long)offset);
  return hz == 3000000000LL && offset == 4;
}

/* The value as one printable line, for test names. */
static const char *shown(const char *text)
{
  static char buf[64];
  size_t i;
  for (i = 0; text[i] && i < sizeof buf - 1; i++) buf[i] = text[i] == '\n' ? '|' : text[i];
  buf[i] = 0;
  return buf;
}

static const char *const invalid[] = {
  "", "   \n", "abc", "2.4GHz", "2400000000 cycles", "0", "-2400000000", "nan", "NaN",
  "inf", "-inf", "1e400", "1e30", "999", "0x", "2400000000\n\n junk",
};
#define NINVALID ((int)(sizeof invalid / sizeof invalid[0]))

/* What is at the path: a FIFO, a pipe or regular file on standard input
 * (through a symlink to /dev/stdin), a directory. */
static void check_file_kinds(void)
{
  struct cpucycles_persecond_report r;
  const char *stdin_link = access("/dev/stdin", F_OK) == 0 ? "/dev/stdin" : "/proc/self/fd/0";

  remove(etc_path);
  if (mkfifo(etc_path, 0600) != 0) perror("mkfifo");
  tap_ok(in_child(fifo_check), "a FIFO with no writer at the path returns at once and is reported");
  remove(etc_path);

  if (symlink(stdin_link, etc_path) != 0) perror("symlink");
  tap_ok(in_child(stdin_pipe_check),
         "a pipe on stdin behind a symlink to %s is refused, reported and not read", stdin_link);
  write_bytes(other_path, "3000000000\n", 11);
  tap_ok(in_child(stdin_file_check),
         "a regular file on stdin behind the symlink is read whole; stdin's offset does not move");
  remove(etc_path);

  if (mkdir(etc_path, 0700) != 0) perror("mkdir");
  tap_ok(resolve_etc(&r) == 1500000000LL && reported(&r, etc_path, "directory"),
         "a directory at the path is reported as one");
  rmdir(etc_path);
}

/* The whole file must parse, and the whole file is read (up to 4096 bytes). */
static void check_whole_file(void)
{
  struct cpucycles_persecond_report r;
  char buf[135];
  long long hz;

  write_bytes(etc_path, "2400000000\0junk", 15);
  tap_ok(resolve_etc(&r) == 1500000000LL && reported(&r, etc_path, "NUL"),
         "2400000000, a NUL and junk: refused and reported");
  memset(buf, ' ', sizeof buf);
  memcpy(buf, "3000000000", 10);
  memcpy(buf + 130, "junk\n", 5);
  write_bytes(etc_path, buf, 135);
  tap_ok(resolve_etc(&r) == 1500000000LL && reported(&r, etc_path, "trailing junk"),
         "junk after byte 127 is refused and reported");
  write_etc_padded("3000000000\n", '\n', 200, 0);
  hz = resolve_etc(&r);
  tap_ok(hz == 3000000000LL && strcmp(r.source, etc_path) == 0,
         "200 newlines, then 3000000000: the whole file gives %lld", hz);
  write_etc_padded("30000000000\n", '\n', 117, 0);
  hz = resolve_etc(&r);
  tap_ok(hz == 30000000000LL, "117 newlines, then 30000000000: not cut to 3000000000 (%lld)", hz);
  write_etc_padded("3000000000", ' ', 5000, 1);
  tap_ok(resolve_etc(&r) == 1500000000LL && reported(&r, etc_path, "too large"),
         "a 5000-byte file is reported as too large and ignored");
  write_etc_padded("3000000000", ' ', CPUCYCLES_PERSECOND_FILE_MAX, 1);
  hz = resolve_etc(&r);
  tap_ok(hz == 3000000000LL && r.problems[0] == 0, "a file of exactly %d bytes is read (%lld)",
         CPUCYCLES_PERSECOND_FILE_MAX, hz);
}

/* A file that exists but cannot be opened is reported, with the reason. */
static void check_unreadable(void)
{
  struct cpucycles_persecond_report r;
  char below[sizeof etc_path + 2];
  long long hz;

  write_etc("3000000000\n");
  snprintf(below, sizeof below, "%s/x", etc_path);
  hz = cpucycles_persecond_resolve(below, 0, 1500000000, &r);
  tap_diag("report: %s", r.problems);
  tap_ok(hz == 1500000000LL && reported(&r, below, "not a directory"),
         "a path through a regular file (ENOTDIR) is reported");
  remove(etc_path);
  if (symlink(etc_path, etc_path) != 0) perror("symlink");
  tap_ok(resolve_etc(&r) == 1500000000LL && reported(&r, etc_path, "symbolic links"),
         "a symlink loop at the path (ELOOP) is reported");
  remove(etc_path);
  write_etc("3000000000\n");
  chmod(etc_path, 0);
  hz = resolve_etc(&r);
  if (geteuid() == 0)
    tap_ok(hz == 3000000000LL, "a file of mode 000 is read by root (%lld)", hz);
  else
    tap_ok(hz == 1500000000LL && reported(&r, etc_path, "permission denied"),
           "a file of mode 000 is reported as unreadable");
  remove(etc_path);
}

/* The README's own form, 2.4e9, under a locale whose decimal point is a
 * comma (a program that called setlocale(LC_ALL, "")): still 2.4 GHz, and
 * "2,4e9" still junk. */
static void check_locale(void)
{
  static const char *const commas[] = {"de_DE.UTF-8", "fr_FR.UTF-8", "ru_RU.UTF-8", "de_DE"};
  long long hz = 0, comma_hz = 0;
  const char *why, *name = 0;
  size_t i;
  int dot, comma;
  for (i = 0; i < sizeof commas / sizeof commas[0] && !name; i++)
    if (setlocale(LC_ALL, commas[i]) && strcmp(localeconv()->decimal_point, ",") == 0)
      name = commas[i];
  if (!name) {
    setlocale(LC_ALL, "C");
    tap_skip("numbers are read in the C locale under a comma locale",
             "no locale with a decimal comma is installed (localedef -i de_DE -f UTF-8 de_DE.UTF-8)");
    return;
  }
  dot = cpucycles_parse_persecond("2.4e9", &hz, &why);
  comma = cpucycles_parse_persecond("2,4e9", &comma_hz, &why);
  tap_ok(dot && hz == 2400000000LL && !comma, "under %s, 2.4e9 reads as %lld and 2,4e9 is %s",
         name, dot ? hz : 0, comma ? "accepted" : "refused");
  setlocale(LC_ALL, "C");
}

int main(void)
{
  struct cpucycles_persecond_report r;
  long long hz, os = cpucycles_persecond_from_os();
  const char *why, *scratch;
  int i, rejected = 0, reported;

  /* Scratch files in $TMPDIR, else here (a guest of the system-emulation
   * tier sets /tmp: its 9p shares cannot hold a FIFO). */
  scratch = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : ".";
  snprintf(etc_path, sizeof etc_path, "%s/t-persecond-%ld.tmp", scratch, (long)getpid());
  snprintf(other_path, sizeof other_path, "%s/t-persecond-%ld.other", scratch, (long)getpid());
  tap_plan(32 + 2 * NINVALID);
  check_locale();
  /* /proc/cpuinfo's value starts with a blank after the colon */
  tap_ok(cpucycles_parse_cpuinfo_mhz("cpu MHz\t\t: 2599.998") == 2599998000LL,
         "a /proc/cpuinfo line \"cpu MHz\\t\\t: 2599.998\" reads as %lld Hz",
         cpucycles_parse_cpuinfo_mhz("cpu MHz\t\t: 2599.998"));

  tap_ok(cpucycles_parse_persecond("2400000000\n", &hz, &why) && hz == 2400000000LL,
         "a plain number with a newline parses");
  tap_ok(cpucycles_parse_persecond(" 2.5e9 ", &hz, &why) && hz == 2500000000LL,
         "2.5e9 with blanks parses");
  for (i = 0; i < NINVALID; i++) {
    why = 0;
    rejected = !cpucycles_parse_persecond(invalid[i], &hz, &why);
    tap_ok(rejected && why != 0, "'%s' is rejected (%s)", shown(invalid[i]), why ? why : "accepted!");
  }

  /* libcpucycles' order: the file, then (ours) the configure-time
   * figure, then the host's own mechanisms, then the variable, only when
   * they say nothing, then the default.  The host here is a stand-in that
   * answers, or not. */
  write_etc("3000000000\n");
  tap_ok(cpucycles_persecond_resolve_with(etc_path, "2000000000", 1500000000, host_answers, &r) ==
             3000000000LL && strcmp(r.source, etc_path) == 0,
         "the file comes first");
  tap_ok(cpucycles_persecond_resolve_with("/nonexistent/x", "2000000000", 1500000000, host_answers,
                                          &r) == 1500000000LL,
         "then the configure-time figure");
  hz = cpucycles_persecond_resolve_with("/nonexistent/x", "2000000000", 0, host_answers, &r);
  tap_ok(hz == 2100000000LL && strcmp(r.source, "the test's host") == 0,
         "then the host's mechanisms, before the variable (%lld from %s)", hz, r.source);
  hz = cpucycles_persecond_resolve_with("/nonexistent/x", "2000000000", 0, host_silent, &r);
  tap_ok(hz == 2000000000LL && !strcmp(r.source, "environment variable cpucyclespersecond"),
         "the variable only when the host says nothing (%lld from %s)", hz, r.source);
  hz = cpucycles_persecond_resolve_with("/nonexistent/x", 0, 0, host_silent, &r);
  tap_ok(hz == CPUCYCLES_PERSECOND_DEFAULT && !strcmp(r.source, "default"),
         "then the default (%lld)", hz);
  hz = cpucycles_persecond_resolve("/nonexistent/x", 0, 0, &r);
  if (os)
    tap_ok(hz == os && strcmp(r.source, "operating system") == 0, "the real host: the OS (%lld)", os);
  else
    tap_ok(hz >= CPUCYCLES_PERSECOND_MIN, "the real host: %lld from %s", hz, r.source);
  tap_ok(r.problems[0] == 0, "nothing to report when nothing is wrong");

  /* Bad values are skipped, reported, and the next source is used. */
  for (i = 0; i < NINVALID; i++) {
    write_etc(invalid[i]);
    hz = cpucycles_persecond_resolve_with(etc_path, invalid[i], 0, host_silent, &r);
    reported = strstr(r.problems, etc_path) != 0 && strstr(r.problems, "environment") != 0;
    tap_ok(hz == CPUCYCLES_PERSECOND_DEFAULT && reported,
           "'%s' in the file and the environment is skipped and reported", shown(invalid[i]));
  }
  write_etc("garbage\n");
  hz = cpucycles_persecond_resolve_with(etc_path, "2000000000", 0, host_silent, &r);
  tap_ok(hz == 2000000000LL, "a bad file falls through to a good environment variable");
  tap_diag("report: %s", r.problems);
  tap_ok(strstr(r.problems, "garbage") != 0 && strstr(r.problems, "not a number") != 0,
         "the report quotes the value and says what is wrong");
  /* echo writes a newline after the value: it is not shown as '?' (a
   * control character inside the value still is) */
  write_etc("1\n");
  cpucycles_persecond_resolve_with(etc_path, 0, 0, host_silent, &r);
  tap_diag("report: %s", r.problems);
  tap_ok(strstr(r.problems, "'1': ") != 0, "a file written by echo is quoted without its newline");
  write_etc("1\t2\n");
  cpucycles_persecond_resolve_with(etc_path, 0, 0, host_silent, &r);
  tap_diag("report: %s", r.problems);
  tap_ok(strstr(r.problems, "'1?2': ") != 0, "a tab inside the value is still quoted as '?'");
  hz = cpucycles_persecond_resolve(0, 0, 0, &r);
  tap_ok(hz >= CPUCYCLES_PERSECOND_MIN && hz <= CPUCYCLES_PERSECOND_MAX,
         "with no overrides the result is in range (%lld from %s)", hz, r.source);
  hz = cpucycles_persecond_resolve_with(etc_path, "", 0, host_silent, &r);
  tap_ok(hz >= CPUCYCLES_PERSECOND_MIN && strstr(r.problems, "empty") != 0,
         "an empty variable is reported as empty");
  remove(etc_path);

  check_file_kinds();
  check_whole_file();
  check_unreadable();

  /* The configure-time figure is range-checked like the others. */
  hz = cpucycles_persecond_resolve("/nonexistent/x", 0, 5, &r);
  tap_diag("report: %s", r.problems);
  tap_ok(hz != 5 && strstr(r.problems, "configure-time figure 5: outside 1 MHz to 100 GHz") != 0,
         "a configure-time figure of 5 is rejected and reported (%lld from %s)", hz, r.source);

  /* errno as the caller had it, through a missing file and the OS. */
  errno = EDOM;
  hz = cpucycles_persecond_resolve("/nonexistent/x", 0, 0, &r);
  i = errno;
  tap_ok(i == EDOM, "errno is unchanged by a resolution that hit ENOENT (%d, want %d)", i, EDOM);
  remove(etc_path);
  remove(other_path);
  return tap_done();
}
