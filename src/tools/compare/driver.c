/* SPDX-License-Identifier: MIT */
/* driver.c - cpucycles-compare's parent side: it starts each execution
 * (this program's own file, exec'ed in the internal mode: execution.c)
 * with the environment padded by a variable of random length (the stack
 * then starts elsewhere), reads its report, and says where it stopped
 * when it did not end well.
 *
 * Each execution reports over a pipe, a line at a time; a benchmark that
 * crashes or hangs kills only its execution, and the report says which
 * build, which symbol, and which signal or how long.  The parent reads
 * until the execution ends, not until the pipe closes (a process the
 * benchmark leaves behind may hold it), and the execution ends with the
 * parent (a signal's handler, PR_SET_PDEATHSIG). */
#include "compare-tool.h"
#include "rng.h"
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#if defined(__linux__)
#include <link.h>
#include <sys/auxv.h>
#include <sys/prctl.h>
#endif

extern char **environ;

#define PROGRESS_AFTER 2.0 /* seconds: a run expected to be longer shows progress */

/* ---- this program's own file, which the executions run ---- */

#if defined(__linux__)
/* the program's PT_INTERP: dl_iterate_phdr() gives the program first */
static int interpreter_of_program(struct dl_phdr_info *info, size_t size, void *data)
{
  int k;
  (void)size;
  for (k = 0; k < info->dlpi_phnum; k++)
    if (info->dlpi_phdr[k].p_type == PT_INTERP)
      *(const char **)data = (const char *)(info->dlpi_addr + info->dlpi_phdr[k].p_vaddr);
  return 1;
}
#endif

static int same_file(const char *a, const char *b)
{
  struct stat sa, sb;
  return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* name as execvp() finds it: itself when it holds a '/', else the first
 * executable regular file of that name in PATH; 0 or -1 */
static int find_program(const char *name, char *path, size_t size)
{
  const char *dirs = getenv("PATH"), *end;
  struct stat st;
  int n;
  if (!name || !*name) return -1;
  if (strchr(name, '/')) {
    n = snprintf(path, size, "%s", name);
    return n > 0 && (size_t)n < size && stat(path, &st) == 0 && S_ISREG(st.st_mode) ? 0 : -1;
  }
  if (!dirs) dirs = "/bin:/usr/bin";
  for (;; dirs = end + 1) {
    if (!(end = strchr(dirs, ':'))) end = dirs + strlen(dirs);
    /* an empty entry is the current directory */
    n = end > dirs ? snprintf(path, size, "%.*s/%s", (int)(end - dirs), dirs, name)
                   : snprintf(path, size, "./%s", name);
    if (n > 0 && (size_t)n < size && stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
        access(path, X_OK) == 0)
      return 0;
    if (!*end) return -1;
  }
}

/* This program's file: /proc/self/exe; where that cannot be read (no
 * /proc), the name it was started by (AT_EXECFN, else argv[0]) as
 * execvp() finds it (a bare name through PATH).  Started through the
 * dynamic loader by name (ld.so ./cpucycles-compare), /proc/self/exe is
 * the loader, and the program is the name it ran: the executions are
 * started through the loader too.  0, or -1 with why. */
int find_self(const char *argv0, struct self *self, char *why, size_t size)
{
  const char *interp = 0, *named = 0;
  ssize_t n = readlink("/proc/self/exe", self->path, sizeof self->path);
  int proc = n > 0 && (size_t)n < sizeof self->path, via_loader = 0;
  self->loader[0] = 0;
  if (proc) self->path[n] = 0;
#if defined(__linux__)
  dl_iterate_phdr(interpreter_of_program, &interp);
  named = (const char *)getauxval(AT_EXECFN);
  /* the loader run as a program: the kernel mapped no interpreter */
  if (interp) via_loader = proc ? same_file(self->path, interp) : getauxval(AT_BASE) == 0;
#endif
  if (proc && !via_loader) return 0;
  /* (glibc's loader, run by name, sets AT_EXECFN to the program's name;
   * an older one leaves its own) */
  if (!(find_program(named, self->path, sizeof self->path) == 0 &&
        !(interp && same_file(self->path, interp))) &&
      !(find_program(argv0, self->path, sizeof self->path) == 0 &&
        !(interp && same_file(self->path, interp)))) {
    snprintf(why, size,
             "cannot find its own file, which each execution runs: %s, and '%s' is no file%s",
             proc ? "/proc/self/exe is the dynamic loader" : "/proc/self/exe cannot be read",
             argv0, strchr(argv0, '/') ? "" : " in PATH");
    return -1;
  }
  if (via_loader) snprintf(self->loader, sizeof self->loader, "%s", interp);
  return 0;
}

/* ---- the tool's end ends the execution running ---- */

static volatile sig_atomic_t running; /* the execution's pid, or 0 */
static int wake[2] = {-1, -1};        /* written on SIGCHLD: poll() sees an execution end */

static void on_child(int sig)
{
  int saved = errno;
  (void)sig;
  if (write(wake[1], "", 1) < 0) errno = saved; /* full: a wake-up is pending anyway */
  errno = saved;
}

/* SIGTERM, SIGINT, SIGHUP: the execution killed (a hung benchmark would
 * run for ever), then this process ended by the same signal */
static const char *mirrors; /* the copies' directory, removed at the end */
static void on_end(int sig)
{
  sigset_t set;
  if (running > 0) kill((pid_t)running, SIGKILL);
  mirror_remove(mirrors);
  signal(sig, SIG_DFL);
  sigemptyset(&set);
  sigaddset(&set, sig);
  sigprocmask(SIG_UNBLOCK, &set, 0);
  raise(sig);
  _exit(128 + sig);
}

static const int ending_signals[] = {SIGTERM, SIGINT, SIGHUP};

/* 0, or -1 with errno; root (the copies' directory, or "") is removed
 * when a signal ends the run */
int catch_signals(const char *root)
{
  struct sigaction sa, old;
  sigset_t set;
  size_t i;
  int k;
  mirrors = root;
  if (pipe(wake) != 0) return -1;
  for (k = 0; k < 2; k++)
    if (fcntl(wake[k], F_SETFD, FD_CLOEXEC) != 0 || fcntl(wake[k], F_SETFL, O_NONBLOCK) != 0)
      return -1;
  memset(&sa, 0, sizeof sa);
  sigemptyset(&sa.sa_mask);
  sa.sa_handler = on_child;
  sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
  if (sigaction(SIGCHLD, &sa, 0) != 0) return -1;
  /* (blocked by whoever started this, it would never wake poll()) */
  sigemptyset(&set);
  sigaddset(&set, SIGCHLD);
  if (sigprocmask(SIG_UNBLOCK, &set, 0) != 0) return -1;
  sa.sa_handler = on_end;
  sa.sa_flags = 0;
  for (i = 0; i < sizeof ending_signals / sizeof *ending_signals; i++)
    /* one ignored when this started stays so (nohup) */
    if (sigaction(ending_signals[i], 0, &old) == 0 && old.sa_handler != SIG_IGN &&
        sigaction(ending_signals[i], &sa, 0) != 0)
      return -1;
  return 0;
}

/* ---- one execution: started, its report read, its end judged ---- */

static const char *signal_text(int sig)
{
  const char *s = strsignal(sig);
  return s ? s : "a signal";
}

/* Where an execution stood when it stopped: "while loading NEW x.so". */
static void where(char *buf, size_t size, const struct options *o, const char *step)
{
  char what[16], label[8], symbol[SYMBOL_MAX + 1];
  if (sscanf(step, "%15s %7s %" STR(SYMBOL_MAX) "s", what, label, symbol) >= 2 && !strcmp(what, "load"))
    snprintf(buf, size, "while loading %s %s", label, build_path(o, !strcmp(label, "NEW")));
  else if (sscanf(step, "%15s %7s %" STR(SYMBOL_MAX) "s", what, label, symbol) == 3 && !strcmp(what, "call"))
    snprintf(buf, size, "in %s's %s (%s), called alone", label, symbol,
             build_path(o, !strcmp(label, "NEW")));
  else if (sscanf(step, "%15s %" STR(SYMBOL_MAX) "s", what, symbol) == 2 && !strcmp(what, "measure"))
    snprintf(buf, size, "in %s, OLD's or NEW's, during the interleaved runs", symbol);
  else if (!strcmp(step, "done"))
    snprintf(buf, size, "after its results, while ending");
  else
    snprintf(buf, size, "while starting");
}

/* src into dst[size], cut short when it does not fit */
static void keep(char *dst, size_t size, const char *src)
{
  size_t n = strlen(src);
  if (n >= size) n = size - 1;
  memcpy(dst, src, n);
  dst[n] = 0;
}

/* What an execution has said so far. */
struct report {
  char buf[LINE_MAX_ * 4];
  size_t used;
  char step[LINE_MAX_], error[LINE_MAX_];
  int done; /* its last word: nothing after it counts */
  double deadline;
};

/* The whole lines in r->buf, taken into r and out. */
static void take_lines(const struct options *o, struct outcome *out, struct report *r)
{
  char *nl, *line = r->buf;
  int i;
  while ((nl = memchr(r->buf, '\n', r->used)) != 0) {
    *nl = 0;
    if (r->done) {
      /* a process the benchmark forked, writing on: not the execution's */
    } else if (!strncmp(line, "step ", 5)) {
      keep(r->step, sizeof r->step, line + 5);
      /* each step may take the timeout; a measurement its seconds too */
      r->deadline = now() + o->timeout + (!strncmp(r->step, "measure ", 8) ? o->seconds : 0);
    } else if (!strncmp(line, "error ", 6)) {
      keep(r->error, sizeof r->error, line + 6);
    } else if (!strncmp(line, "result ", 7)) {
      char symbol[SYMBOL_MAX + 1];
      struct measured m;
      if (sscanf(line + 7, "%" STR(SYMBOL_MAX) "s %lg %lg %lg %lg %lg %lld %lld %u %lg", symbol,
                 &m.ratio, &m.a, &m.b, &m.difference, &m.difference_error, &m.pairs, &m.disturbed,
                 &m.flags, &m.pair_seconds) == 10)
        for (i = 0; i < o->nsymbols; i++)
          if (!strcmp(symbol, o->symbols[i])) out->m[i] = m, out->got++;
    } else if (!strncmp(line, "placement ", 10)) {
      int j = !strncmp(line + 10, "NEW ", 4);
      if (line[14] == '-')
        keep(out->why[j], sizeof out->why[j], line + 14 + (line[15] == ' ' ? 2 : 1));
      else if (sscanf(line + 14, "%ld %lu", &out->offset[j], &out->step[j]) != 2)
        out->offset[j] = -1;
    } else if (!strncmp(line, "alignment ", 10)) {
      int j = !strncmp(line + 10, "NEW ", 4);
      if (sscanf(line + 14, "%lu %lu", &out->code_align[j], &out->data_align[j]) != 2)
        out->code_align[j] = out->data_align[j] = 0;
    } else if (!strcmp(line, "done")) {
      r->done = 1;
      keep(r->step, sizeof r->step, "done");
    }
    r->used -= (size_t)(nl + 1 - r->buf);
    memmove(r->buf, nl + 1, r->used);
  }
  if (r->used == sizeof r->buf - 1) r->used = 0; /* a line too long: not ours */
}

/* How one execution is started: its command line (execution.c's argv)
 * and its environment. */
struct invocation {
  char fd[24], index[24], stack[24], seconds[32]; /* arguments' text */
  char *args[11 + MAX_SYMBOLS + 1]; /* the loader, this program, 9 arguments, the symbols */
  char **env, *pad;
};

/* This environment, padded by a variable of pad_length bytes: the stack
 * then starts elsewhere.  0, or -1 (out of memory: v->env and v->pad to
 * be freed all the same). */
static int padded_environment(struct invocation *v, long pad_length)
{
  size_t n_env = 0, k;
  int i;
  while (environ && environ[n_env]) n_env++;
  v->env = calloc(n_env + 2, sizeof *v->env);
  v->pad = malloc(sizeof PAD_VARIABLE + (size_t)pad_length + 1);
  if (!v->env || !v->pad) return -1;
  for (k = 0, i = 0; k < n_env; k++)
    if (strncmp(environ[k], PAD_VARIABLE "=", sizeof PAD_VARIABLE) != 0) v->env[i++] = environ[k];
  memcpy(v->pad, PAD_VARIABLE "=", sizeof PAD_VARIABLE);
  memset(v->pad + sizeof PAD_VARIABLE, 'x', (size_t)pad_length);
  v->pad[sizeof PAD_VARIABLE + pad_length] = 0;
  v->env[i++] = v->pad, v->env[i] = 0;
  return 0;
}

static void command_line(struct invocation *v, const struct options *o, const struct self *self,
                         int report_fd, long index, long stack)
{
  int i, nargs = 0;
  snprintf(v->fd, sizeof v->fd, "%d", report_fd);
  snprintf(v->index, sizeof v->index, "%ld", index);
  snprintf(v->stack, sizeof v->stack, "%ld", stack);
  snprintf(v->seconds, sizeof v->seconds, "%.17g", o->seconds);
  /* through the loader when this was started so: ld.so PROGRAM ARGS */
  if (self->loader[0]) v->args[nargs++] = (char *)self->loader;
  v->args[nargs++] = (char *)self->path;
  v->args[nargs++] = (char *)INTERNAL;
  v->args[nargs++] = v->fd;
  v->args[nargs++] = v->index;
  v->args[nargs++] = v->stack;
  v->args[nargs++] = v->seconds;
  v->args[nargs++] = (char *)o->copies[0];
  v->args[nargs++] = (char *)o->copies[1];
  v->args[nargs++] = (char *)o->old_path;
  v->args[nargs++] = (char *)o->new_path;
  for (i = 0; i < o->nsymbols; i++) v->args[nargs++] = (char *)o->symbols[i];
  v->args[nargs] = 0;
}

/* The new process's part: the execution, or an error line for the parent
 * on report_fd. */
static void become_execution(const struct invocation *v, int report_fd, pid_t parent)
{
  char message[LINE_MAX_];
  int i, len;
#if defined(__linux__) && defined(PR_SET_PDEATHSIG)
  /* however this process ends (SIGKILL too), the execution ends with
   * it; a parent already gone is not told */
  if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent) _exit(2);
#else
  (void)parent;
#endif
  execve(v->args[0], v->args, v->env);
  len = snprintf(message, sizeof message, "error cannot run %s: %s", v->args[0], strerror(errno));
  if (len > 0) {
    if ((size_t)len >= sizeof message - 1) len = (int)sizeof message - 2;
    for (i = 6; i < len; i++) message[i] = clean_char(message[i]);
    message[len++] = '\n';
    if (write(report_fd, message, (size_t)len) < 0) _exit(2);
  }
  _exit(2);
}

/* The execution started, running set to its pid; or -1 (errno). */
static pid_t start(const struct invocation *v, int report_fd)
{
  pid_t pid, parent = getpid();
  sigset_t ends, saved;
  size_t k;
  fflush(stdout), fflush(stderr);
  /* no ending signal between the fork and running's pid: its handler
   * would leave the new process behind */
  sigemptyset(&ends);
  for (k = 0; k < sizeof ending_signals / sizeof *ending_signals; k++)
    sigaddset(&ends, ending_signals[k]);
  sigprocmask(SIG_BLOCK, &ends, &saved);
  pid = fork();
  if (pid == 0) {
    sigprocmask(SIG_SETMASK, &saved, 0);
    become_execution(v, report_fd, parent);
  }
  if (pid > 0) running = pid;
  sigprocmask(SIG_SETMASK, &saved, 0);
  return pid;
}

/* The execution's report, from fd into r and out, until the execution
 * ends, not until the pipe closes: a process its benchmark forked may
 * hold the pipe open for as long as it likes.  Its wait status in
 * *status; 0 when it ended, 1 when it was killed at its deadline, -1
 * (with a message) when poll() failed and it was killed. */
static int collect(const struct options *o, struct outcome *out, struct report *r, pid_t pid, int fd,
                   int *status)
{
  ssize_t got;
  int timed_out = 0, reaped = 0, eof = 0;
  r->deadline = now() + o->timeout;
  while (!reaped) {
    struct pollfd p[2];
    double left = r->deadline - now();
    if (left <= 0) {
      timed_out = 1;
      break;
    }
    p[0].fd = wake[0], p[0].events = POLLIN, p[0].revents = 0;
    p[1].fd = fd, p[1].events = POLLIN, p[1].revents = 0;
    /* (at least once a second: the end is also looked for without a wake-up) */
    if (poll(p, eof ? 1 : 2, left > 1 ? 1000 : (int)(left * 1000) + 1) < 0) {
      if (errno == EINTR) continue;
      fprintf(stderr, PROGRAM ": poll: %s\n", strerror(errno));
      timed_out = -1;
      break;
    }
    if (p[0].revents) {
      char drained[64];
      while (read(wake[0], drained, sizeof drained) > 0) continue;
    }
    if (waitpid(pid, status, WNOHANG) == pid) reaped = 1;
    else if (!eof && p[1].revents) {
      got = read(fd, r->buf + r->used, sizeof r->buf - r->used - 1);
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) eof = 1; /* (the end is the process's, awaited) */
      else r->used += (size_t)got, take_lines(o, out, r);
    }
  }
  if (reaped) {
    /* what it wrote before it ended is all in the pipe */
    fcntl(fd, F_SETFL, O_NONBLOCK);
    while ((got = read(fd, r->buf + r->used, sizeof r->buf - r->used - 1)) > 0 ||
           (got < 0 && errno == EINTR))
      if (got > 0) r->used += (size_t)got, take_lines(o, out, r);
  } else {
    kill(pid, SIGKILL);
    while (waitpid(pid, status, 0) < 0)
      if (errno != EINTR) {
        fprintf(stderr, PROGRAM ": waitpid: %s\n", strerror(errno));
        break;
      }
  }
  return timed_out;
}

/* 0 when the execution gave every result and ended well; else 2, with a
 * message that says where it stopped. */
static int ended_well(const struct options *o, long index, const struct outcome *out,
                      const struct report *r, int status, int timed_out)
{
  char place[LINE_MAX_ + 200];
  where(place, sizeof place, o, r->step);
  if (timed_out) {
    complain("execution %ld: no word for %g s %s: killed (--timeout %g)", index + 1, o->timeout,
             place, o->timeout);
    return 2;
  }
  if (r->error[0]) {
    complain("%s", r->error);
    return 2;
  }
  if (WIFSIGNALED(status)) {
    complain("execution %ld: killed by signal %d (%s) %s", index + 1, WTERMSIG(status),
             signal_text(WTERMSIG(status)), place);
    return 2;
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || !r->done || out->got != o->nsymbols) {
    complain("execution %ld: ended (exit status %d) %s, before its results", index + 1,
             WIFEXITED(status) ? WEXITSTATUS(status) : -1, place);
    return 2;
  }
  return 0;
}

/* One execution: 0 with out filled, or 2 with a message. */
static int run_execution(const struct options *o, const struct self *self, long index,
                         struct outcome *out, unsigned long long *rng)
{
  static struct report r; /* (large) */
  struct invocation v;
  int fds[2], status = 0, timed_out;
  pid_t pid;
  long pad_length = (long)(cpucycles_xorshift(rng) % PAD_MAX),
       stack = (long)(cpucycles_xorshift(rng) % (STACK_MAX / 16)) * 16;

  out->offset[0] = out->offset[1] = -1;
  out->why[0][0] = out->why[1][0] = 0;
  out->code_align[0] = out->code_align[1] = out->data_align[0] = out->data_align[1] = 0;
  memset(&r, 0, sizeof r);
  if (pipe(fds) != 0) {
    fprintf(stderr, PROGRAM ": pipe: %s\n", strerror(errno));
    return 2;
  }
  fcntl(fds[0], F_SETFD, FD_CLOEXEC);
  if (padded_environment(&v, pad_length) != 0) {
    fprintf(stderr, PROGRAM ": out of memory\n");
    free(v.env), free(v.pad), close(fds[0]), close(fds[1]);
    return 2;
  }
  command_line(&v, o, self, fds[1], index, stack);
  pid = start(&v, fds[1]);
  close(fds[1]);
  free(v.env), free(v.pad);
  if (pid < 0) {
    fprintf(stderr, PROGRAM ": fork: %s\n", strerror(errno));
    close(fds[0]);
    return 2;
  }
  timed_out = collect(o, out, &r, pid, fds[0], &status);
  running = 0;
  close(fds[0]);
  if (timed_out < 0) return 2;
  return ended_well(o, index, out, &r, status, timed_out);
}

/* ---- the executions in turn ---- */

int run_executions(const struct options *o, const struct self *self, struct outcome *runs, long first,
                   long count)
{
  /* the layouts' draws (rng.h) */
  unsigned long long rng =
      (unsigned long long)time(0) * 0x9e3779b97f4a7c15ULL ^ (unsigned long long)getpid() << 20 ^
      (unsigned long long)first;
  /* (each execution also pays a process, two loads and a first call) */
  double expected = (double)count * ((double)o->nsymbols * (o->seconds + 0.05) + 0.05);
  double started = now();
  int tty = isatty(2), show_progress = o->progress || (tty && expected > PROGRESS_AFTER);
  long e;
  if (!rng) rng = 1;
  for (e = first; e < first + count; e++) {
    if (run_execution(o, self, e, &runs[e], &rng) != 0) {
      if (show_progress && tty) fputs("\r\033[K", stderr);
      return 2;
    }
    if (show_progress)
      fprintf(stderr, PROGRAM ": execution %ld of %ld done, %.1f s%s", e + 1, first + count,
              now() - started, tty ? "\r" : "\n");
  }
  if (show_progress && tty) fputs("\r\033[K", stderr);
  return 0;
}
