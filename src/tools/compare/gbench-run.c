/* SPDX-License-Identifier: MIT */
/* gbench-run.c - gbench-run.h's runs of a Google Benchmark program: each
 * a child made as below, its stdout read whole, its end judged.
 *
 * The child, between fork() and exec (async-signal-safe calls only: all
 * it needs is prepared before the fork): its own process group (the
 * timeout kills the group: a program that forks leaves nothing behind),
 * killed if this process dies first (PR_SET_PDEATHSIG), the parent's
 * signal handlers reset and every signal unblocked (a handler of the
 * caller's must not run in it, nor a mask outlive the exec), stdin from
 * /dev/null, stdout a pipe, stderr the caller's log or a pipe, the
 * working directory, the CPU, the personality filter (gbench-run.h says
 * why; install_filter() says how); then a word on a close-on-exec pipe
 * that says whether the filter is in place, and exec.  When exec (or
 * chdir, or the pin) fails, a word on the same pipe says which and why,
 * so that the parent can tell "cannot run it" from "it failed".
 *
 * --benchmark_min_time is written as a plain number of seconds ("0.05"):
 * GB 1.7.1 (Debian 12's) reads the flag as a double and refuses "0.05s"
 * (exit status 1, "unrecognized command-line flag"); GB >= 1.8 reads
 * "<float>s" or "<integer>x", and still takes a plain number as seconds,
 * with a line on stderr ("Value passed to --benchmark_min_time should
 * have a suffix", its benchmark_runner.cc's ParseBenchMinTime()).  A plain
 * number is the one form every version runs. */
#include "gbench-run.h"
#include "compare-tool.h" /* PAD_VARIABLE, clean_char(), now() */
#include "utf8.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/prctl.h>
#include <sys/syscall.h>
#endif
/* the kernel's seccomp headers, where the toolchain has them (Debian's
 * musl-gcc has none), as tests/seccomp-filter.h decides */
#if defined(__linux__) && defined(__has_include)
#if __has_include(<linux/filter.h>) && __has_include(<linux/seccomp.h>) && __has_include(<linux/audit.h>)
#define GBENCH_HAVE_SECCOMP 1
#endif
#elif defined(__linux__)
#define GBENCH_HAVE_SECCOMP 1
#endif
#if defined(GBENCH_HAVE_SECCOMP)
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#endif

extern char **environ;

#define OUTPUT_MAX (256L << 20) /* bytes of stdout kept: GB's JSON of a large suite is MBs */
#define OUTPUT_MAX_TEXT "256 MiB"
#define HEAD_MAX 512            /* bytes of stderr's beginning kept, for its first line */
#define TAIL_MAX 4096           /* and of its end, for its last line */
#define SHOWN 120               /* bytes of a program's line in a message */

void cpucycles_gbench_default_options(struct cpucycles_gbench_options *o)
{
  memset(o, 0, sizeof *o);
  o->cpu = -1, o->pad_length = -1, o->stderr_fd = -1, o->timeout = 0, o->directory = 0;
}

/* ---- the personality filter ---- */

#if defined(GBENCH_HAVE_SECCOMP)
/* personality's system-call number under each architecture the kernel may
 * run a program of this machine's family as (seccomp_data.arch: an x86-64
 * kernel runs i386 and x32 programs too, an arm64 kernel arm's), from
 * each one's table: x86-64 135, x32 the same with bit 30, i386, arm,
 * powerpc and s390 136, asm-generic's (arm64, riscv, loongarch) 92.  One
 * architecture's numbers next to each other. */
#if defined(__x86_64__) || defined(__i386__)
#define PERSONALITY_CALLS \
  {AUDIT_ARCH_X86_64, 135}, {AUDIT_ARCH_X86_64, 0x40000000u | 135}, {AUDIT_ARCH_I386, 136}
#elif (defined(__aarch64__) && defined(__AARCH64EL__)) || (defined(__arm__) && defined(__ARMEL__))
#define PERSONALITY_CALLS {AUDIT_ARCH_AARCH64, 92}, {AUDIT_ARCH_ARM, 136}
#elif defined(__riscv) && defined(AUDIT_ARCH_RISCV64) && defined(AUDIT_ARCH_RISCV32)
#define PERSONALITY_CALLS {AUDIT_ARCH_RISCV64, 92}, {AUDIT_ARCH_RISCV32, 92}
#elif defined(__powerpc__) && defined(AUDIT_ARCH_PPC64LE)
#define PERSONALITY_CALLS {AUDIT_ARCH_PPC64LE, 136}, {AUDIT_ARCH_PPC64, 136}, {AUDIT_ARCH_PPC, 136}
#elif defined(__s390__)
#define PERSONALITY_CALLS {AUDIT_ARCH_S390X, 136}, {AUDIT_ARCH_S390, 136}
#elif defined(__loongarch64) && defined(AUDIT_ARCH_LOONGARCH64)
#define PERSONALITY_CALLS {AUDIT_ARCH_LOONGARCH64, 92}
#else
/* (mips: each of its ABIs numbers its calls apart; not done) */
#define GBENCH_NO_ARCH 1
#endif
#if !defined(GBENCH_NO_ARCH)
struct arch_call {
  unsigned int arch, nr;
};
static const struct arch_call personality_calls[] = {PERSONALITY_CALLS};
#define CALLS (sizeof personality_calls / sizeof personality_calls[0])
#endif

/* The filter (in the child, before exec): for each listed architecture,
 * personality(x) with x's low 32 bits (the kernel reads an unsigned int)
 * anything but 0xffffffff, the query, fails with EPERM; every other call,
 * and every call of an architecture not listed, is allowed.  EPERM, not
 * another error: glibc's personality() gives back the kernel's -errno
 * itself, and -EPERM is the -1 GB tests for.  0, or an errno value. */
static int install_filter(void)
{
#if defined(GBENCH_NO_ARCH)
  return ENOSYS; /* (said as such by say_filter()) */
#else
  /* LD arch; per architecture: JEQ arch (else the next), LD nr, JEQ each
   * number (to the check), RET ALLOW; then RET ALLOW (another
   * architecture), the check: LD the low word of args[0], JEQ 0xffffffff
   * (to ALLOW), RET ERRNO(EPERM), RET ALLOW */
  struct sock_filter code[1 + CALLS * 4 + 5];
  struct sock_fprog program;
  unsigned int n = 0, i, j, check;
  unsigned int low = (unsigned int)offsetof(struct seccomp_data, args[0]);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  low += 4;
#endif
  /* where the check starts: the blocks' sizes (each architecture once,
   * its numbers in one block) */
  check = 1;
  for (i = 0; i < CALLS; i++) {
    if (i > 0 && personality_calls[i].arch == personality_calls[i - 1].arch) continue;
    for (j = i; j < CALLS && personality_calls[j].arch == personality_calls[i].arch; j++) continue;
    check += 3 + (j - i);
  }
  check += 1;
  code[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch));
  for (i = 0; i < CALLS; i++) {
    unsigned int m;
    if (i > 0 && personality_calls[i].arch == personality_calls[i - 1].arch) continue;
    for (j = i; j < CALLS && personality_calls[j].arch == personality_calls[i].arch; j++) continue;
    m = j - i;
    code[n] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, personality_calls[i].arch, 0,
                                           (unsigned char)(m + 2));
    n++;
    code[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
    for (j = i; j < i + m; j++, n++)
      code[n] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, personality_calls[j].nr,
                                             (unsigned char)(check - (n + 1)), 0);
    code[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
  }
  code[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
  /* the check, at code[check] */
  code[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, low);
  code[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0xffffffffu, 1, 0);
  code[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA));
  code[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
  program.len = (unsigned short)n;
  program.filter = code;
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return errno ? errno : EINVAL;
  if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program) != 0) return errno ? errno : EINVAL;
  return 0;
#endif
}
#endif

/* ---- a child: prepared, started, collected ---- */

/* What the child says on its status pipe before it execs (or fails to). */
enum { STAGE_READY = 1, STAGE_CHDIR, STAGE_AFFINITY, STAGE_EXEC };
struct word {
  int stage, error;
  int filter_error; /* 0: the filter is installed; else why not (an errno value) */
};

/* Bytes read from one of the child's pipes. */
struct capture {
  int fd;              /* -1: closed (or never open) */
  char *buf;
  size_t used, room, max;
  int over;            /* more than max came: the rest was read and dropped */
  int tail;            /* keep the end (stderr's last line), not the beginning */
  char head[HEAD_MAX]; /* stderr: its beginning, for its first line */
  size_t head_used;
};

struct child {
  char shown[SHOWN + 8]; /* the program as messages name it (cleaned) */
  char path[4096];   /* the program's file, as execve() takes it */
  char **argv, **envp, *pad;
  int null_fd, out_w, err_w, status_w, status_r; /* (-1 when not open) */
  int log_fd;        /* the caller's stderr_fd, or -1 */
  long long log_from; /* where the child's lines in a regular-file log begin, or -1 */
  pid_t pid;
  int pidfd;         /* pollable at the child's end (Linux >= 5.3), or -1 */
  double started, ended;
  struct word word;  /* what it said last before exec */
  struct capture out, err;
  int status, timed_out;
};

/* fd moved above 2, close-on-exec (a pipe made where the caller closed
 * stdin, stdout or stderr would be one of 0, 1, 2, which the child's
 * dup2() would overwrite): the fd, or -1 */
static int high_fd(int fd)
{
  int moved;
  if (fd < 0 || fd > 2) return fd;
  moved = fcntl(fd, F_DUPFD_CLOEXEC, 3);
  close(fd);
  return moved;
}

static int pipe_high(int fds[2])
{
  if (pipe(fds) != 0) return -1;
  fds[0] = high_fd(fds[0]), fds[1] = high_fd(fds[1]);
  if (fds[0] < 0 || fds[1] < 0 || fcntl(fds[0], F_SETFD, FD_CLOEXEC) != 0 ||
      fcntl(fds[1], F_SETFD, FD_CLOEXEC) != 0) {
    if (fds[0] >= 0) close(fds[0]);
    if (fds[1] >= 0) close(fds[1]);
    return -1;
  }
  return 0;
}

static void close_fd(int *fd)
{
  if (*fd >= 0) close(*fd);
  *fd = -1;
}

/* s printable on one line, at most n bytes of it, into out[size]: control
 * bytes as '?', cut at a whole UTF-8 character ("..." after it). */
static void clean(char *out, size_t size, const char *s, size_t n)
{
  size_t i, k = n < SHOWN ? n : SHOWN;
  if (size == 0) return;
  while (k < n && k > 0 && ((unsigned char)s[k] & 0xc0) == 0x80) k--;
  for (i = 0; i < k && i + 4 < size; i++) out[i] = clean_char(s[i]);
  if (k < n && i + 4 < size) memcpy(out + i, "...", 3), i += 3;
  out[i] = 0;
}

/* The first non-empty line of s[0..n-1], cleaned, into out; "" when none. */
static void first_line(char *out, size_t size, const char *s, size_t n)
{
  const char *end = s + n, *nl;
  while (s < end && (*s == '\n' || *s == '\r' || *s == ' ' || *s == '\t')) s++;
  nl = memchr(s, '\n', (size_t)(end - s));
  n = (size_t)((nl ? nl : end) - s);
  while (n > 0 && (s[n - 1] == '\r' || s[n - 1] == ' ' || s[n - 1] == '\t')) n--;
  clean(out, size, s, n);
}

/* The last non-empty line of s[0..n-1], cleaned, into out; "" when none. */
static void last_line(char *out, size_t size, const char *s, size_t n)
{
  const char *p;
  while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' ' || s[n - 1] == '\t')) n--;
  for (p = s + n; p > s && p[-1] != '\n'; p--) continue;
  clean(out, size, p, (size_t)(s + n - p));
}

/* "why" as snprintf() writes it; -1 */
static int say_why(char *why, size_t size, const char *format, ...) __attribute__((format(printf, 3, 4)));
static int say_why(char *why, size_t size, const char *format, ...)
{
  va_list ap;
  if (size == 0) return -1;
  va_start(ap, format);
  vsnprintf(why, size, format, ap);
  va_end(ap);
  return -1;
}

/* name as execvp() would find it, into path: itself when it holds a '/',
 * else the first executable regular file of that name in PATH.  0, or
 * -1 (none). */
static int find_program(const char *name, char *path, size_t size)
{
  const char *dirs = getenv("PATH"), *end;
  struct stat st;
  int n;
  if (strchr(name, '/')) {
    n = snprintf(path, size, "%s", name);
    return n > 0 && (size_t)n < size ? 0 : -1;
  }
  if (!dirs) dirs = "/bin:/usr/bin";
  for (;; dirs = end + 1) {
    if (!(end = strchr(dirs, ':'))) end = dirs + strlen(dirs);
    n = end > dirs ? snprintf(path, size, "%.*s/%s", (int)(end - dirs), dirs, name)
                   : snprintf(path, size, "./%s", name);
    if (n > 0 && (size_t)n < size && stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
        access(path, X_OK) == 0)
      return 0;
    if (!*end) return -1;
  }
}

/* The child's environment: this one without GB's BENCHMARK_* variables
 * (its flags' defaults: BENCHMARK_OUT would have it write a file,
 * BENCHMARK_LIST_TESTS list instead of run) and without the padding
 * variable, then the padding variable of pad_length bytes (none when
 * pad_length < 0).  0, or -1 when out of memory. */
static int make_environment(struct child *c, const char *pad_name, long pad_length)
{
  size_t n_env = 0, k, name_length;
  int i = 0;
  if (!pad_name) pad_name = PAD_VARIABLE;
  name_length = strlen(pad_name);
  while (environ && environ[n_env]) n_env++;
  if (!(c->envp = calloc(n_env + 2, sizeof *c->envp))) return -1;
  for (k = 0; k < n_env; k++)
    if (strncmp(environ[k], "BENCHMARK_", 10) != 0 &&
        !(strncmp(environ[k], pad_name, name_length) == 0 && environ[k][name_length] == '='))
      c->envp[i++] = environ[k];
  if (pad_length >= 0) {
    if (!(c->pad = malloc(name_length + 1 + (size_t)pad_length + 1))) return -1;
    memcpy(c->pad, pad_name, name_length);
    c->pad[name_length] = '=';
    memset(c->pad + name_length + 1, 'x', (size_t)pad_length);
    c->pad[name_length + 1 + (size_t)pad_length] = 0;
    c->envp[i++] = c->pad;
  }
  c->envp[i] = 0;
  return 0;
}

/* The child's side: never returns. */
static void become_program(struct child *c, const struct cpucycles_gbench_options *o, pid_t parent)
{
  struct sigaction sa, old;
  sigset_t none;
  struct word w;
  int sig;
  memset(&w, 0, sizeof w);
  setpgid(0, 0);
#if defined(__linux__) && defined(PR_SET_PDEATHSIG)
  if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent) _exit(127);
#else
  (void)parent;
#endif
  /* the caller's handlers reset (those set to be ignored stay so, as exec
   * keeps them), then every signal unblocked */
  memset(&sa, 0, sizeof sa);
  sigemptyset(&sa.sa_mask);
  sa.sa_handler = SIG_DFL;
  for (sig = 1; sig < NSIG; sig++)
    if (sig != SIGKILL && sig != SIGSTOP && sigaction(sig, 0, &old) == 0 &&
        old.sa_handler != SIG_DFL && old.sa_handler != SIG_IGN)
      sigaction(sig, &sa, 0);
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, 0);
  /* stderr first: the caller's log may be fd 0 or 1 */
  if (dup2(c->log_fd >= 0 ? c->log_fd : c->err_w >= 0 ? c->err_w : c->null_fd, 2) < 0 ||
      dup2(c->null_fd, 0) < 0 || dup2(c->out_w, 1) < 0) {
    w.stage = STAGE_EXEC, w.error = errno;
    if (write(c->status_w, &w, sizeof w) < 0) _exit(127);
    _exit(127);
  }
  if (o->directory && chdir(o->directory) != 0) {
    w.stage = STAGE_CHDIR, w.error = errno;
    if (write(c->status_w, &w, sizeof w) < 0) _exit(127);
    _exit(127);
  }
#if defined(__linux__) && defined(CPU_SET)
  if (o->cpu >= 0) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(o->cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0) {
      w.stage = STAGE_AFFINITY, w.error = errno;
      if (write(c->status_w, &w, sizeof w) < 0) _exit(127);
      _exit(127);
    }
  }
#endif
#if defined(GBENCH_HAVE_SECCOMP)
  w.filter_error = install_filter();
#else
  w.filter_error = ENOSYS;
#endif
  w.stage = STAGE_READY;
  if (write(c->status_w, &w, sizeof w) < 0) _exit(127);
  execve(c->path, c->argv, c->envp);
  w.stage = STAGE_EXEC, w.error = errno;
  if (write(c->status_w, &w, sizeof w) < 0) _exit(127);
  _exit(127);
}

/* Where a regular-file log stands before the child writes to it, so that
 * its lines can be read back: -1 when it is no regular file. */
static long long log_position(int fd)
{
  struct stat st;
  int flags;
  off_t at;
  if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return -1;
  flags = fcntl(fd, F_GETFL);
  if (flags >= 0 && (flags & O_APPEND)) return (long long)st.st_size;
  at = lseek(fd, 0, SEEK_CUR);
  return at < 0 ? -1 : (long long)at;
}

/* The child started, or -1 with why.  argv[0] becomes the program's path. */
static int start(struct child *c, const char *program, char **argv,
                 const struct cpucycles_gbench_options *o, int capture_stderr, char *why, size_t size)
{
  int out[2], err[2] = {-1, -1}, status[2];
  sigset_t all, saved;
  pid_t parent = getpid();
  struct stat st;
  char *shown = c->shown;
  clean(c->shown, sizeof c->shown, program, strlen(program));
  c->null_fd = c->out_w = c->err_w = c->status_w = c->status_r = c->pidfd = -1;
  c->out.fd = c->err.fd = -1;
  c->log_fd = capture_stderr ? -1 : o->stderr_fd;
  c->log_from = log_position(c->log_fd);
  if (!*program || find_program(program, c->path, sizeof c->path) != 0)
    return say_why(why, size, "'%s': no such program%s", shown, strchr(program, '/') ? "" : " in PATH");
  if (stat(c->path, &st) != 0) return say_why(why, size, "'%s': %s", shown, strerror(errno));
  if (S_ISDIR(st.st_mode)) return say_why(why, size, "'%s': a directory, not a program", shown);
  argv[0] = c->path;
  c->argv = argv;
#if defined(__linux__) && defined(CPU_SETSIZE)
  if (o->cpu >= CPU_SETSIZE)
    return say_why(why, size, "cannot pin '%s' to CPU %d: beyond CPU_SETSIZE", shown, o->cpu);
#endif
  if (make_environment(c, o->pad_name, o->pad_length) != 0) return say_why(why, size, "out of memory");
  if ((c->null_fd = high_fd(open("/dev/null", O_RDWR | O_CLOEXEC))) < 0)
    return say_why(why, size, "/dev/null: %s", strerror(errno));
  if (pipe_high(out) != 0 || (capture_stderr && pipe_high(err) != 0) || pipe_high(status) != 0)
    return say_why(why, size, "pipe: %s", strerror(errno));
  c->out.fd = out[0], c->out_w = out[1];
  c->err.fd = err[0], c->err_w = err[1], c->err.tail = 1;
  c->status_r = status[0], c->status_w = status[1];
  c->out.max = OUTPUT_MAX, c->err.max = TAIL_MAX;
  fflush(stdout), fflush(stderr);
  /* no signal handler of the caller's runs in the child before its
   * handlers are reset */
  sigfillset(&all);
  sigprocmask(SIG_BLOCK, &all, &saved);
  c->started = now();
  c->pid = fork();
  if (c->pid == 0) become_program(c, o, parent);
  sigprocmask(SIG_SETMASK, &saved, 0);
  if (c->pid < 0) return say_why(why, size, "fork: %s", strerror(errno));
  setpgid(c->pid, c->pid); /* (as the child does: whichever comes first) */
  close_fd(&c->out_w), close_fd(&c->err_w), close_fd(&c->status_w);
#if defined(__linux__) && defined(SYS_pidfd_open)
  c->pidfd = (int)syscall(SYS_pidfd_open, (int)c->pid, 0);
  if (c->pidfd < 0) c->pidfd = -1;
#endif
  return 0;
}

/* The child's words until exec closes the pipe (or it ends). */
static void read_words(struct child *c)
{
  struct word w;
  ssize_t got;
  for (;;) {
    got = read(c->status_r, &w, sizeof w);
    if (got < 0 && errno == EINTR) continue;
    if (got != (ssize_t)sizeof w) break;
    c->word = w;
  }
  close_fd(&c->status_r);
}

/* What k's pipe has now, appended to k: 1 when something came, 2 when
 * nothing is there yet, 0 at its end (closed). */
static int take(struct capture *k)
{
  char chunk[65536];
  ssize_t got = read(k->fd, chunk, sizeof chunk);
  size_t n;
  if (got < 0 && (errno == EINTR || errno == EAGAIN)) return 2;
  if (got <= 0) {
    close_fd(&k->fd);
    return 0;
  }
  n = (size_t)got;
  if (k->tail) {
    /* stderr: its first HEAD_MAX bytes, and its last max */
    if (k->head_used < HEAD_MAX) {
      size_t h = n < HEAD_MAX - k->head_used ? n : HEAD_MAX - k->head_used;
      memcpy(k->head + k->head_used, chunk, h), k->head_used += h;
    }
    if (n >= k->max) {
      memmove(chunk, chunk + n - k->max, k->max);
      n = k->max, k->used = 0;
    } else if (k->used + n > k->max) {
      size_t keep = k->max - n;
      memmove(k->buf, k->buf + k->used - keep, keep);
      k->used = keep;
    }
  } else if (k->over || k->used + n > k->max) {
    k->over = 1; /* (read on, so that the child is not stopped on a full pipe) */
    return 1;
  }
  if (k->used + n + 1 > k->room) {
    size_t room = k->room ? k->room : 65536;
    char *more;
    while (room < k->used + n + 1) room *= 2;
    if (!(more = realloc(k->buf, room))) {
      k->over = 1;
      return 1;
    }
    k->buf = more, k->room = room;
  }
  memcpy(k->buf + k->used, chunk, n);
  k->used += n;
  k->buf[k->used] = 0;
  return 1;
}

/* The child's output, until it ends or its timeout: read, reaped, its
 * process group killed (what it leaves behind must not run beside the
 * next run).  0, or -1 with why (poll failed: it was killed). */
static int collect(struct child *c, double timeout, char *why, size_t size)
{
  double deadline = timeout > 0 ? c->started + timeout : 0;
  int reaped = 0, r, i;
  pid_t w;
  while (!reaped) {
    struct pollfd p[3];
    int n = 0, wait_ms = c->pidfd >= 0 ? 1000 : c->out.fd >= 0 || c->err.fd >= 0 ? 20 : 2;
    if (deadline > 0) {
      double left = deadline - now();
      if (left <= 0) {
        c->timed_out = 1;
        break;
      }
      if (left * 1000 < wait_ms) wait_ms = (int)(left * 1000) + 1;
    }
    if (c->out.fd >= 0) p[n].fd = c->out.fd, p[n].events = POLLIN, p[n].revents = 0, n++;
    if (c->err.fd >= 0) p[n].fd = c->err.fd, p[n].events = POLLIN, p[n].revents = 0, n++;
    if (c->pidfd >= 0) p[n].fd = c->pidfd, p[n].events = POLLIN, p[n].revents = 0, n++;
    r = poll(p, (nfds_t)n, wait_ms);
    if (r < 0 && errno != EINTR) {
      say_why(why, size, "'%s': poll: %s", c->shown, strerror(errno));
      c->timed_out = -1;
      break;
    }
    for (i = 0; r > 0 && i < n; i++) {
      if (!p[i].revents) continue;
      if (p[i].fd == c->out.fd) take(&c->out);
      else if (p[i].fd == c->err.fd) take(&c->err);
    }
    if ((w = waitpid(c->pid, &c->status, WNOHANG)) == c->pid) reaped = 1;
    else if (w < 0 && errno == ECHILD) {
      /* reaped by someone else: SIGCHLD ignored (SIG_IGN reaps every
       * child at once), or a handler that waits for any child */
      say_why(why, size, "'%s': its end cannot be waited for (this process ignores SIGCHLD, or "
                         "reaps its children elsewhere)", c->shown);
      c->timed_out = -1;
      reaped = 1;
    }
  }
  if (!reaped) {
    kill(-c->pid, SIGKILL), kill(c->pid, SIGKILL);
    while (waitpid(c->pid, &c->status, 0) < 0 && errno == EINTR) continue;
  }
  c->ended = now();
  /* what it wrote before it ended is all in the pipes */
  if (c->out.fd >= 0) fcntl(c->out.fd, F_SETFL, O_NONBLOCK);
  if (c->err.fd >= 0) fcntl(c->err.fd, F_SETFL, O_NONBLOCK);
  while (c->out.fd >= 0 && take(&c->out) == 1) continue;
  while (c->err.fd >= 0 && take(&c->err) == 1) continue;
  kill(-c->pid, SIGKILL); /* (ESRCH: nothing left) */
  return c->timed_out < 0 ? -1 : 0;
}

static void finish(struct child *c)
{
  close_fd(&c->null_fd), close_fd(&c->out_w), close_fd(&c->err_w), close_fd(&c->status_w);
  close_fd(&c->status_r), close_fd(&c->out.fd), close_fd(&c->err.fd), close_fd(&c->pidfd);
  free(c->envp), free(c->pad), free(c->out.buf), free(c->err.buf);
  c->envp = 0, c->pad = 0, c->out.buf = c->err.buf = 0;
}

/* The last line the child wrote to stderr, where it can be read: the
 * captured pipe's, or a regular-file log's (read back through the log's
 * descriptor, or a new one on it when that one is write-only). */
static void stderr_last_line(const struct child *c, char *out, size_t size)
{
  char tail[TAIL_MAX];
  long long end, from;
  ssize_t got;
  struct stat st;
  int fd;
  out[0] = 0;
  if (c->err.used) {
    last_line(out, size, c->err.buf, c->err.used);
    return;
  }
  if (c->log_from < 0 || fstat(c->log_fd, &st) != 0) return;
  end = (long long)st.st_size, from = c->log_from;
  if (end <= from) return;
  /* its last TAIL_MAX bytes */
  if (end - c->log_from > (long long)sizeof tail) from = end - (long long)sizeof tail;
  got = pread(c->log_fd, tail, (size_t)(end - from), (off_t)from);
  if (got < 0) {
    char proc[64];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", c->log_fd);
    if ((fd = open(proc, O_RDONLY | O_CLOEXEC)) < 0) return;
    got = pread(fd, tail, (size_t)(end - from), (off_t)from);
    close(fd);
  }
  if (got > 0) last_line(out, size, tail, (size_t)got);
}

/* How the child ended, when not well: 0 (exit status 0), or -1 with why.
 * what: what was run ("'PROG' --benchmark_list_tests=true"); first: 1
 * to show its first line of stderr (or of output), else its last. */
static int judge_end(const struct child *c, const char *what, int first, double timeout, char *why,
                     size_t size)
{
  char line[SHOWN + 8] = "";
  const char *sep = "";
  if (c->word.stage != STAGE_READY) {
    /* it never ran: the word says why (none: the child died before) */
    int e = c->word.error;
    if (c->word.stage == STAGE_CHDIR)
      return say_why(why, size, "%s: cannot enter its working directory: %s", what, strerror(e));
    if (c->word.stage == STAGE_AFFINITY)
      return say_why(why, size, "%s: cannot be pinned to its CPU: %s", what, strerror(e));
    if (c->word.stage == STAGE_EXEC)
      return say_why(why, size, "%s: cannot be run: %s%s", what, strerror(e),
                     e == ENOENT ? " (its interpreter, the dynamic loader or the #! line's program it names)"
                     : e == ENOEXEC ? " (not a program for this machine)"
                                    : "");
    return say_why(why, size, "%s: ended before it could be run", what);
  }
  if (c->timed_out > 0)
    return say_why(why, size, "%s: still running after the timeout of %g s: killed", what, timeout);
  if (first && c->err.head_used) first_line(line, sizeof line, c->err.head, c->err.head_used);
  if (first && !line[0] && c->out.used) first_line(line, sizeof line, c->out.buf, c->out.used);
  if (!first) stderr_last_line(c, line, sizeof line);
  if (line[0]) sep = ": ";
  if (WIFSIGNALED(c->status)) {
    const char *name = strsignal(WTERMSIG(c->status));
    return say_why(why, size, "%s: killed by signal %d (%s)%s%s", what, WTERMSIG(c->status),
                   name ? name : "a signal", sep, line);
  }
  if (!WIFEXITED(c->status) || WEXITSTATUS(c->status) != 0)
    return say_why(why, size, "%s: exit status %d%s%s", what,
                   WIFEXITED(c->status) ? WEXITSTATUS(c->status) : -1, sep, line);
  return 0;
}

/* The filter's state into run. */
static void say_filter(const struct child *c, int *kept, char *text, size_t size)
{
  int e = c->word.filter_error;
  *kept = c->word.stage == STAGE_READY && e == 0;
  text[0] = 0;
  if (c->word.stage != STAGE_READY) snprintf(text, size, "the program did not start");
  if (c->word.stage != STAGE_READY || e == 0) return;
#if defined(GBENCH_HAVE_SECCOMP) && !defined(GBENCH_NO_ARCH)
  snprintf(text, size, "the seccomp filter that keeps address-space randomization was not "
                       "installed (%s): GB >= 1.9.3 may turn it off", strerror(e));
#else
  (void)e;
  snprintf(text, size, "no seccomp filter here (%s): GB >= 1.9.3 may turn address-space "
                       "randomization off",
#if defined(GBENCH_HAVE_SECCOMP)
           "this architecture's system-call numbers are not known to cpucycles"
#else
           "no kernel seccomp headers in this build"
#endif
  );
#endif
}

/* ---- the list ---- */

/* Why text[0..n-1], printed by a program asked for its list, is no list
 * of names, or 0.  GB prints each name on a line of its own, and nothing
 * else; a program that is not GB may exit 0 all the same, printing its
 * usage, or its arguments. */
static const char *not_a_list(const char *text, size_t n, char *const *args)
{
  const char *line = text, *end = text + n, *nl;
  size_t k, len;
  int i;
  if (n == 0) return "it lists no benchmark";
  for (k = 0; k < n; k += len) {
    unsigned char c = (unsigned char)text[k];
    len = 1;
    if (c == '\n') continue;
    if (c < 0x20 || c == 0x7f) return "its output holds control characters: not a list of names";
    if (!(len = cpucycles_utf8_length((const unsigned char *)text + k, n - k)))
      return "its output is not UTF-8: not a list of names";
  }
  for (; line < end; line = nl + 1) {
    if (!(nl = memchr(line, '\n', (size_t)(end - line)))) nl = end;
    len = (size_t)(nl - line);
    if (len == 0) return "its output has an empty line: not a list of names";
    if ((len >= 6 && (memcmp(line, "usage:", 6) == 0 || memcmp(line, "Usage:", 6) == 0 ||
                      memcmp(line, "USAGE:", 6) == 0)) ||
        (len >= 6 && memcmp(line, "usage ", 6) == 0))
      return "it prints a usage text: not a Google Benchmark program";
    for (i = 0; args[i]; i++)
      if (strlen(args[i]) == len && memcmp(args[i], line, len) == 0)
        return "it prints its arguments back: not a Google Benchmark program";
  }
  return 0;
}

int cpucycles_gbench_list(const char *program, const char *filter,
                          const struct cpucycles_gbench_options *o,
                          struct cpucycles_gbench_names *names, char *why, size_t size)
{
  struct cpucycles_gbench_options defaults;
  struct child c;
  char *argv[4], filter_arg[32 + 4096], what[SHOWN + 64], shown[SHOWN + 8];
  const char *problem;
  size_t i, count = 0;
  char *p, *end;
  int r;
  memset(names, 0, sizeof *names);
  memset(&c, 0, sizeof c);
  if (!o) cpucycles_gbench_default_options(&defaults), o = &defaults;
  argv[0] = (char *)program;
  argv[1] = (char *)"--benchmark_list_tests=true";
  argv[2] = argv[3] = 0;
  if (filter) {
    if ((size_t)snprintf(filter_arg, sizeof filter_arg, "--benchmark_filter=%s", filter) >= sizeof filter_arg)
      return say_why(why, size, "the filter is too long (over 4096 bytes)");
    argv[2] = filter_arg;
  }
  clean(shown, sizeof shown, program, strlen(program));
  snprintf(what, sizeof what, "'%s' --benchmark_list_tests=true", shown);
  /* (its stderr read for a message, whatever the caller's log) */
  if (start(&c, program, argv, o, 1, why, size) != 0) {
    finish(&c);
    return -1;
  }
  read_words(&c);
  r = collect(&c, o->timeout, why, size);
  if (r == 0) r = judge_end(&c, what, 1, o->timeout, why, size);
  if (r == 0 && c.out.over) r = say_why(why, size, "%s: more than " OUTPUT_MAX_TEXT " of output: not a list", what);
  if (r == 0 && (problem = not_a_list(c.out.buf ? c.out.buf : "", c.out.used, argv))) {
    char line[SHOWN + 8] = "";
    if (c.err.head_used) first_line(line, sizeof line, c.err.head, c.err.head_used);
    if (!line[0] && c.out.used) first_line(line, sizeof line, c.out.buf, c.out.used);
    r = say_why(why, size, "%s: %s%s%s", what, problem, line[0] ? ": " : "", line);
  }
  if (r == 0) {
    for (i = 0; i < c.out.used; i++) count += c.out.buf[i] == '\n';
    if (c.out.buf[c.out.used - 1] != '\n') count++;
    if (!(names->names = calloc(count, sizeof *names->names)))
      r = say_why(why, size, "out of memory");
  }
  if (r == 0) {
    names->text = c.out.buf, c.out.buf = 0;
    for (p = names->text, end = p + c.out.used; p < end; p++) {
      names->names[names->count++] = p;
      while (p < end && *p != '\n') p++;
      *p = 0; /* (the buffer has a byte after its text) */
    }
  }
  finish(&c);
  return r;
}

void cpucycles_gbench_names_free(struct cpucycles_gbench_names *names)
{
  free(names->names);
  free(names->text);
  memset(names, 0, sizeof *names);
}

/* ---- one run ---- */

/* seconds as a plain decimal number ("0.05", "2"), as GB 1.7.1 reads it */
static void seconds_text(char *buf, size_t size, double seconds)
{
  size_t n;
  snprintf(buf, size, "%.9f", seconds);
  /* (the C locale's point: snprintf follows LC_NUMERIC; GB reads with strtod() in its own,
     which is "C" unless the program set another) */
  for (n = 0; buf[n]; n++)
    if (buf[n] == ',') buf[n] = '.';
  n = strlen(buf);
  while (n > 1 && buf[n - 1] == '0') buf[--n] = 0;
  if (n > 1 && buf[n - 1] == '.') buf[--n] = 0;
}

int cpucycles_gbench_run_once(const char *program, const char *filter, double min_time,
                              const struct cpucycles_gbench_options *o,
                              struct cpucycles_gbench_run *run, char *why, size_t size)
{
  struct cpucycles_gbench_options defaults;
  struct child c;
  char *argv[7], filter_arg[32 + 4096], time_arg[64], what[SHOWN + 32], shown[SHOWN + 8];
  char seconds[40], parse_why[256];
  int r;
  memset(run, 0, sizeof *run);
  memset(&c, 0, sizeof c);
  if (!o) cpucycles_gbench_default_options(&defaults), o = &defaults;
  snprintf(run->aslr_why, sizeof run->aslr_why, "not run");
  if (!(min_time >= 1e-9) || min_time > 1e6)
    return say_why(why, size, "a minimum time of %g s: not a number of seconds from 1e-9 to 1e6", min_time);
  seconds_text(seconds, sizeof seconds, min_time);
  snprintf(time_arg, sizeof time_arg, "--benchmark_min_time=%s", seconds);
  if ((size_t)snprintf(filter_arg, sizeof filter_arg, "--benchmark_filter=%s", filter ? filter : ".") >=
      sizeof filter_arg)
    return say_why(why, size, "the filter is too long (over 4096 bytes)");
  argv[0] = (char *)program;
  argv[1] = (char *)"--benchmark_format=json";
  argv[2] = filter_arg;
  argv[3] = time_arg;
  argv[4] = (char *)"--benchmark_repetitions=1";
  argv[5] = argv[6] = 0;
  clean(shown, sizeof shown, program, strlen(program));
  snprintf(what, sizeof what, "'%s'", shown);
  if (start(&c, program, argv, o, o->stderr_fd < 0, why, size) != 0) {
    finish(&c);
    return -1;
  }
  read_words(&c);
  say_filter(&c, &run->aslr_kept, run->aslr_why, sizeof run->aslr_why);
  r = collect(&c, o->timeout, why, size);
  run->wall_seconds = c.ended - c.started;
  if (r == 0) r = judge_end(&c, what, 0, o->timeout, why, size);
  if (r == 0 && c.out.over)
    r = say_why(why, size, "%s: more than " OUTPUT_MAX_TEXT " on stdout: not Google Benchmark's JSON", what);
  if (r == 0 && c.out.used == 0) {
    char line[SHOWN + 8];
    stderr_last_line(&c, line, sizeof line);
    r = say_why(why, size, "%s: printed nothing on stdout%s%s", what, line[0] ? ": " : " (is it a Google Benchmark program?)", line);
  }
  if (r == 0 && cpucycles_gbench_parse(&run->parsed, c.out.buf, c.out.used, parse_why, sizeof parse_why) != 0) {
    char begins[SHOWN + 8];
    clean(begins, sizeof begins, c.out.buf, c.out.used < 60 ? c.out.used : 60);
    r = say_why(why, size, "%s: its output is not Google Benchmark's JSON (%s); it begins \"%s\"", what,
                parse_why, begins);
  }
  finish(&c);
  return r;
}

void cpucycles_gbench_run_free(struct cpucycles_gbench_run *run)
{
  cpucycles_gbench_free(&run->parsed);
  memset(run, 0, sizeof *run);
}
