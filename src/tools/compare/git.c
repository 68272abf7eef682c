/* SPDX-License-Identifier: MIT */
/* git.c - cpucycles-compare --git: OLD and NEW are revisions of the git
 * repository that holds the working directory ("." its working tree as
 * it stands), each checked out in a clone of its own in the cache, built
 * there by the user's command (--build), and its artifact (--artifact,
 * relative to the checkout) is the file compared.
 *
 * The cache: $XDG_CACHE_HOME/cpucycles/git (~/.cache/cpucycles/git where
 * XDG_CACHE_HOME is unset or not absolute), never inside the repository.
 * One entry a directory NAME, and NAME.lock beside it:
 *   NAME/key        what the entry is the build of: the commit (for ".",
 *                   the tree of the working tree's content), the command,
 *                   the host (uname's node name and machine)
 *   NAME/checkout/  the clone (git clone --shared --no-checkout: the
 *                   repository's objects read through its alternates),
 *                   the commit checked out detached; for ".", the working
 *                   tree's content read into its index and files on top
 *   NAME/objects/   for ".": the snapshot's objects, an alternate of the
 *                   checkout's
 *   NAME/build.log  the command's output (stdout and stderr)
 *   NAME/complete   written once the command has succeeded: an entry
 *                   without it (a failed or interrupted build) is built
 *                   anew by the next run
 * NAME is the commit's (or tree's) first 12 digits and a 64-bit FNV-1a
 * hash of the key; an entry whose key file says otherwise is built anew.
 * A complete entry is reused without running the command; --rebuild
 * builds it anew (a fresh clone).
 *
 * Locks, flock() on NAME.lock: shared while an entry is used (from its
 * check until this process ends, its artifact measured), exclusive while
 * it is built.  A run never waits for a lock while it holds another:
 * before it waits for NEW's it lets OLD's go, then takes it again and
 * checks that OLD is still complete, so that two runs never wait for
 * each other.
 *
 * The user's repository is only read.  git rev-parse names the commits;
 * for ".", git add -A and git write-tree write into an index and an
 * object directory of the run's own in the cache (GIT_INDEX_FILE, a copy
 * of the repository's index; GIT_OBJECT_DIRECTORY, without the
 * repository's objects as an alternate: snapshot() says why); no command takes the index's optional lock
 * (GIT_OPTIONAL_LOCKS=0), and every one runs without hooks, fsmonitor,
 * split index, untracked cache or automatic gc (-c).  The clones and the
 * build see none of git's variables that name a repository (GIT_DIR and
 * the others of git rev-parse --local-env-vars): the user's, they would
 * turn a checkout's git commands to the repository.  Every command is run
 * by fork and exec, its arguments an array, its exit status checked. */
#include "git.h"
#include "compare-tool.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define TAIL_LINES 20     /* of a failed build's output, in its message */
#define TAIL_BYTES 16384  /* read from the log's end for them */
#define ID_MAX 128        /* a commit's id: 40 hex digits (SHA-1) or 64 (SHA-256) */
#define ERR_MAX 4096      /* what a git command said on stderr, kept */

/* git's variables that name a repository, its index or its objects (git
 * rev-parse --local-env-vars): the clones' commands and the build run
 * without them */
static const char *const repository_variables[] = {
    "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_CONFIG", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT",
    "GIT_OBJECT_DIRECTORY", "GIT_DIR", "GIT_WORK_TREE", "GIT_IMPLICIT_WORK_TREE", "GIT_GRAFT_FILE",
    "GIT_INDEX_FILE", "GIT_NO_REPLACE_OBJECTS", "GIT_REPLACE_REF_BASE", "GIT_PREFIX",
    "GIT_INTERNAL_SUPER_PREFIX", "GIT_SHALLOW_FILE", "GIT_COMMON_DIR", 0};

/* given to every git command: nothing it runs or starts, nothing it
 * writes beyond what it is asked to (an empty core.fsmonitor is off, as
 * a hook's path before git 2.36 and as a boolean since) */
static const char *const quiet_config[] = {
    "core.hooksPath=/dev/null", "core.fsmonitor=", "core.splitIndex=false", "core.untrackedCache=false",
    "gc.auto=0", "maintenance.auto=false", "advice.detachedHead=false", 0};

struct git {
  char path[GIT_PATH_MAX];    /* the git program */
  char top[GIT_PATH_MAX];     /* the working tree's top directory */
  char common[GIT_PATH_MAX];  /* the repository's (common) git directory: what is cloned */
  char objects[GIT_PATH_MAX]; /* its object directory */
  char index[GIT_PATH_MAX];   /* its index file */
  char cache[GIT_PATH_MAX];   /* the cache: .../cpucycles/git */
  char host[2 * 65 + 2];      /* uname's node name and machine */
  char **user_env;            /* for commands on the repository: the environment, no optional locks */
  char **clean_env;           /* for the clones and the builds: without git's repository variables */
  char err[ERR_MAX];          /* the last git command's stderr */
};

struct revision {
  const char *label;        /* OLD or NEW */
  const char *given;        /* as given */
  int worktree;             /* "." */
  char commit[ID_MAX];      /* its commit; for ".", HEAD's */
  char tree[ID_MAX];        /* for ".": the working tree's content, as a tree */
  char snapshot[GIT_PATH_MAX]; /* for ".": this run's directory of that tree's objects, or "" */
  char *key;                /* the cache entry's key (malloc'ed) */
  char name[ID_MAX];        /* the entry's name */
  char entry[GIT_PATH_MAX], checkout[GIT_PATH_MAX], log[GIT_PATH_MAX], lock[GIT_PATH_MAX];
  int lock_fd;              /* NAME.lock, held shared once the entry is ready; or -1 */
};

/* ---- small helpers ---- */

/* snprintf into a path buffer: 0, or -1 (with a message) when cut short */
static int path_of(char *buf, size_t size, const char *format, ...) __attribute__((format(printf, 3, 4)));
static int path_of(char *buf, size_t size, const char *format, ...)
{
  va_list ap;
  int n;
  va_start(ap, format);
  n = vsnprintf(buf, size, format, ap);
  va_end(ap);
  if (n < 0 || (size_t)n >= size) {
    complain("--git: a path over %zu bytes: %.200s...", size - 1, buf);
    return -1;
  }
  return 0;
}

/* the first line of text, without "fatal: " or "error: " */
static const char *first_line(char *text)
{
  char *nl = strchr(text, '\n');
  if (nl) *nl = 0;
  if (!strncmp(text, "fatal: ", 7)) return text + 7;
  if (!strncmp(text, "error: ", 7)) return text + 7;
  return *text ? text : "(it said nothing)";
}

static void trim(char *s)
{
  size_t n = strlen(s);
  while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' ')) s[--n] = 0;
}

/* what a wait status says: "exit status 3", "signal 9 (Killed)" */
static void describe_status(char *buf, size_t size, int status)
{
  if (WIFEXITED(status)) snprintf(buf, size, "exit status %d", WEXITSTATUS(status));
  else if (WIFSIGNALED(status))
    snprintf(buf, size, "killed by signal %d (%s)", WTERMSIG(status),
             strsignal(WTERMSIG(status)) ? strsignal(WTERMSIG(status)) : "?");
  else snprintf(buf, size, "wait status %d", status);
}

/* 64-bit FNV-1a */
static uint64_t fnv1a(const char *s)
{
  uint64_t h = 0xcbf29ce484222325ULL;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
  return h;
}

/* The environment base without the variables extra names (and, with
 * strip, without git's repository variables), then extra's: malloc'ed
 * (the strings are base's and extra's), or 0. */
static char **environment(char **base, int strip, const char *const *extra)
{
  size_t n = 0, k = 0, i, j, len;
  char **env;
  int skip;
  while (base && base[n]) n++;
  while (extra && extra[k]) k++;
  if (!(env = calloc(n + k + 1, sizeof *env))) return 0;
  for (i = 0, j = 0; i < n; i++) {
    const char *eq = strchr(base[i], '=');
    size_t at;
    len = eq ? (size_t)(eq - base[i]) : strlen(base[i]);
    skip = 0;
    for (at = 0; strip && repository_variables[at] && !skip; at++)
      skip = strlen(repository_variables[at]) == len && !strncmp(base[i], repository_variables[at], len);
    for (at = 0; at < k && !skip; at++)
      skip = !strncmp(base[i], extra[at], len) && extra[at][len] == '=';
    if (!skip) env[j++] = base[i];
  }
  for (i = 0; i < k; i++) env[j++] = (char *)extra[i];
  env[j] = 0;
  return env;
}

/* ---- running a command ---- */

/* What a descriptor gives, into buf[size] (NUL-terminated, cut short;
 * the rest read and dropped).  1 while it gives, 0 at its end. */
static int drain(int fd, char *buf, size_t size, size_t *used)
{
  char scrap[4096];
  ssize_t got;
  if (*used + 1 < size) got = read(fd, buf + *used, size - 1 - *used);
  else got = read(fd, scrap, sizeof scrap);
  if (got < 0 && errno == EINTR) return 1;
  if (got <= 0) return 0;
  if (*used + 1 < size) *used += (size_t)got, buf[*used] = 0;
  return 1;
}

/* program with args (args[0] its name) and env, standard input
 * /dev/null; its stdout into out[out_size], its stderr into
 * err[err_size].  Its wait status, or -1 with why in err. */
static int capture(const char *program, char *const args[], char *const env[], char *out,
                   size_t out_size, char *err, size_t err_size)
{
  int o[2], e[2], status, open_ends = 2;
  size_t used[2] = {0, 0};
  pid_t pid;
  out[0] = err[0] = 0;
  if (pipe(o) != 0) {
    snprintf(err, err_size, "pipe: %s", strerror(errno));
    return -1;
  }
  if (pipe(e) != 0) {
    snprintf(err, err_size, "pipe: %s", strerror(errno));
    close(o[0]), close(o[1]);
    return -1;
  }
  fflush(stdout), fflush(stderr);
  if ((pid = fork()) < 0) {
    snprintf(err, err_size, "fork: %s", strerror(errno));
    close(o[0]), close(o[1]), close(e[0]), close(e[1]);
    return -1;
  }
  if (pid == 0) {
    char message[GIT_PATH_MAX + 100];
    int null = open("/dev/null", O_RDONLY), n;
    if (null < 0 || dup2(null, 0) < 0 || dup2(o[1], 1) < 0 || dup2(e[1], 2) < 0) _exit(127);
    close(o[0]), close(o[1]), close(e[0]), close(e[1]);
    if (null > 2) close(null);
    execve(program, args, env);
    n = snprintf(message, sizeof message, "cannot run %s: %s\n", program, strerror(errno));
    if (n > 0 && write(2, message, (size_t)n < sizeof message ? (size_t)n : sizeof message - 1) < 0) _exit(127);
    _exit(127);
  }
  close(o[1]), close(e[1]);
  while (open_ends > 0) {
    struct pollfd p[2];
    int k;
    p[0].fd = o[0], p[1].fd = e[0];
    p[0].events = p[1].events = POLLIN;
    p[0].revents = p[1].revents = 0;
    if (poll(p, 2, -1) < 0) {
      if (errno == EINTR) continue;
      break; /* (then the process's end is awaited) */
    }
    for (k = 0; k < 2; k++)
      if (p[k].fd >= 0 && p[k].revents &&
          !drain(p[k].fd, k ? err : out, k ? err_size : out_size, &used[k])) {
        close(p[k].fd);
        if (k) e[0] = -1;
        else o[0] = -1;
        open_ends--;
      }
  }
  if (o[0] >= 0) close(o[0]);
  if (e[0] >= 0) close(e[0]);
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) {
      snprintf(err, err_size, "waitpid: %s", strerror(errno));
      return -1;
    }
  return status;
}

/* git (the options of quiet_config first) with the arguments that follow,
 * up to a null one; its output in out[out_size], trimmed.  0 when it
 * exits 0; else -1, what it said in g->err. */
static int git(struct git *g, char **env, char *out, size_t out_size, ...)
{
  char *args[64], scrap[256];
  const char *a;
  va_list ap;
  int n = 0, k, status;
  args[n++] = (char *)"git";
  for (k = 0; quiet_config[k]; k++) args[n++] = (char *)"-c", args[n++] = (char *)quiet_config[k];
  va_start(ap, out_size);
  while ((a = va_arg(ap, const char *)) != 0 && n < (int)(sizeof args / sizeof *args) - 1)
    args[n++] = (char *)a;
  va_end(ap);
  args[n] = 0;
  if (!out) out = scrap, out_size = sizeof scrap;
  status = capture(g->path, args, env, out, out_size, g->err, sizeof g->err);
  trim(out);
  if (status == -1) return -1;
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return 0;
  if (!g->err[0]) describe_status(g->err, sizeof g->err, status);
  return -1;
}

/* ---- files ---- */

/* path as a directory, made with its parents where missing (those 0700,
 * as the XDG base directory specification asks): 0, or -1 with errno */
static int make_directories(const char *path)
{
  char buf[GIT_PATH_MAX];
  struct stat st;
  size_t i, n = strlen(path);
  if (n >= sizeof buf) return errno = ENAMETOOLONG, -1;
  memcpy(buf, path, n + 1);
  for (i = 1; i <= n; i++)
    if (buf[i] == '/' || buf[i] == 0) {
      char c = buf[i];
      buf[i] = 0;
      if (mkdir(buf, 0700) != 0 && errno != EEXIST) return -1;
      buf[i] = c;
    }
  if (stat(path, &st) != 0) return -1;
  if (!S_ISDIR(st.st_mode)) return errno = ENOTDIR, -1;
  return 0;
}

/* the tree at path[len] (a buffer of GIT_PATH_MAX bytes), never following
 * a symbolic link; a directory a build made read-only made writable
 * first.  0, or -1 with errno. */
static int remove_at(char *path, size_t len)
{
  struct stat st;
  struct dirent *d;
  DIR *dir;
  int failed = 0;
  if (lstat(path, &st) != 0) return errno == ENOENT ? 0 : -1;
  if (!S_ISDIR(st.st_mode)) return unlink(path);
  if ((st.st_mode & S_IRWXU) != S_IRWXU) chmod(path, (st.st_mode & 07777) | S_IRWXU);
  if (!(dir = opendir(path))) return -1;
  while (!failed && (d = readdir(dir)) != 0) {
    size_t n = strlen(d->d_name);
    if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, "..")) continue;
    if (len + 1 + n >= GIT_PATH_MAX) {
      errno = ENAMETOOLONG, failed = 1;
      break;
    }
    path[len] = '/';
    memcpy(path + len + 1, d->d_name, n + 1);
    if (remove_at(path, len + 1 + n) != 0) failed = 1;
    path[len] = 0;
  }
  closedir(dir);
  return failed ? -1 : rmdir(path);
}

static int remove_tree(const char *path)
{
  char buf[GIT_PATH_MAX];
  size_t n = strlen(path);
  if (!n || n >= sizeof buf) return errno = ENAMETOOLONG, -1;
  memcpy(buf, path, n + 1);
  return remove_at(buf, n);
}

/* text written to path (created or emptied): 0, or -1 with errno */
static int write_text(const char *path, const char *text, int append)
{
  size_t n = strlen(text), done = 0;
  int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | (append ? O_APPEND : O_TRUNC), 0644), saved;
  if (fd < 0) return -1;
  while (done < n) {
    ssize_t w = write(fd, text + done, n - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      saved = errno, close(fd), errno = saved;
      return -1;
    }
    done += (size_t)w;
  }
  return close(fd);
}

/* 1 when path holds exactly text (a regular file) */
static int holds(const char *path, const char *text)
{
  size_t n = strlen(text), got = 0;
  char *buf = malloc(n + 2);
  ssize_t r;
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK), same = 0;
  struct stat st;
  if (fd >= 0 && buf && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (size_t)st.st_size == n) {
    while (got < n + 1 && ((r = read(fd, buf + got, n + 1 - got)) > 0 || (r < 0 && errno == EINTR)))
      if (r > 0) got += (size_t)r;
    same = got == n && !memcmp(buf, text, n);
  }
  if (fd >= 0) close(fd);
  free(buf);
  return same;
}

/* from (a regular file, or none) copied to to, with its times: 0, or -1
 * with errno */
static int copy_file(const char *from, const char *to)
{
  struct timespec times[2];
  char buf[65536];
  ssize_t got;
  int in = open(from, O_RDONLY | O_CLOEXEC | O_NONBLOCK), out, saved;
  struct stat st;
  if (in < 0) return errno == ENOENT ? 0 : -1;
  if (fstat(in, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(in);
    return errno = EINVAL, -1;
  }
  if ((out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)) < 0) {
    saved = errno, close(in), errno = saved;
    return -1;
  }
  while ((got = read(in, buf, sizeof buf)) > 0 || (got < 0 && errno == EINTR)) {
    ssize_t done = 0, w;
    while (done < got) {
      if ((w = write(out, buf + done, (size_t)(got - done))) < 0 && errno == EINTR) continue;
      if (w <= 0) {
        saved = errno, close(in), close(out), errno = saved;
        return -1;
      }
      done += w;
    }
  }
  saved = errno;
  close(in);
  if (got < 0) return close(out), errno = saved, -1;
  /* its time too: git takes a file whose time is not before the index's
   * as perhaps changed since, and looks at its content ("racy git");
   * written within the same clock tick as the index, a file changed in
   * place (its size, inode and times those it had) would seem unchanged
   * beside a newer copy */
  times[0] = st.st_atim, times[1] = st.st_mtim;
  if (futimens(out, times) != 0) return saved = errno, close(out), errno = saved, -1;
  return close(out);
}

/* path with its longest existing part resolved (symbolic links, "..")
 * and the rest as given: 0, or -1 */
static int resolved(const char *path, char *out, size_t size)
{
  char buf[GIT_PATH_MAX], *real;
  size_t cut = strlen(path);
  int n;
  if (cut >= sizeof buf || path[0] != '/') return -1;
  memcpy(buf, path, cut + 1);
  for (;;) {
    if ((real = realpath(cut ? buf : "/", 0)) != 0) {
      n = snprintf(out, size, "%s%s", strcmp(real, "/") ? real : "", path + cut);
      free(real);
      return n > 0 && (size_t)n < size ? 0 : -1;
    }
    if ((errno != ENOENT && errno != ENOTDIR) || cut == 0) return -1;
    while (cut > 0 && buf[--cut] != '/') continue;
    buf[cut] = 0;
  }
}

/* 1 when path is dir or lies in it */
static int within(const char *path, const char *dir)
{
  size_t n = strlen(dir);
  if (n == 1 && dir[0] == '/') return 1;
  return !strncmp(path, dir, n) && (path[n] == '/' || path[n] == 0);
}

/* ---- the repository, the cache, the host ---- */

/* the git program, as execvp() would find it in PATH: 0, or -1 */
static int find_git(char *path, size_t size)
{
  const char *dirs = getenv("PATH"), *end;
  struct stat st;
  int n;
  if (!dirs) dirs = "/usr/bin:/bin";
  for (;; dirs = end + 1) {
    if (!(end = strchr(dirs, ':'))) end = dirs + strlen(dirs);
    n = end > dirs ? snprintf(path, size, "%.*s/git", (int)(end - dirs), dirs) : snprintf(path, size, "./git");
    if (n > 0 && (size_t)n < size && stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0)
      return 0;
    if (!*end) return -1;
  }
}

/* $XDG_CACHE_HOME/cpucycles/git, or $HOME/.cache/cpucycles/git: 0, or 2
 * with a message */
static int cache_directory(struct git *g)
{
  const char *base = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
  struct passwd *pw;
  if (base && base[0] == '/') return path_of(g->cache, sizeof g->cache, "%s/cpucycles/git", base) ? 2 : 0;
  if (!home || home[0] != '/') home = (pw = getpwuid(getuid())) != 0 ? pw->pw_dir : 0;
  if (!home || home[0] != '/') {
    complain("--git: no cache directory: XDG_CACHE_HOME and HOME are unset (or not absolute paths)");
    return 2;
  }
  return path_of(g->cache, sizeof g->cache, "%s/.cache/cpucycles/git", home) ? 2 : 0;
}

/* a path git printed (relative to the working directory, cwd) made
 * absolute, into out */
static int absolute(const char *cwd, const char *path, char *out, size_t size)
{
  if (path[0] == '/') return path_of(out, size, "%s", path);
  return path_of(out, size, "%s/%s", cwd, path);
}

/* git, the repository, the cache: 0, or 2 with a message */
static int setup(struct git *g)
{
  static const char *const no_optional_locks[] = {"GIT_OPTIONAL_LOCKS=0", 0};
  char out[4 * GIT_PATH_MAX + 16], cwd[GIT_PATH_MAX], *line[4], *at;
  char real_cache[GIT_PATH_MAX], real_top[GIT_PATH_MAX], real_common[GIT_PATH_MAX];
  struct utsname u;
  int k;
  if (find_git(g->path, sizeof g->path) != 0) {
    complain("--git: git is not installed: no git in PATH (%s)", getenv("PATH") ? getenv("PATH") : "unset");
    return 2;
  }
  if (!(g->user_env = environment(environ, 0, no_optional_locks)) ||
      !(g->clean_env = environment(environ, 1, 0))) {
    complain("--git: out of memory");
    return 2;
  }
  if (!getcwd(cwd, sizeof cwd)) {
    complain("--git: the working directory: %s", strerror(errno));
    return 2;
  }
  if (git(g, g->user_env, out, sizeof out, "rev-parse", "--show-toplevel", "--git-common-dir", "--git-path",
          "objects", "--git-path", "index", (char *)0) != 0) {
    complain("--git: not inside a git repository's working tree (%s): %s", cwd, first_line(g->err));
    return 2;
  }
  for (k = 0, at = out; k < 4; k++) {
    line[k] = at;
    if ((at = strchr(at, '\n')) != 0) *at++ = 0;
    else if (k < 3) {
      complain("--git: git rev-parse gave %d lines, not 4", k + 1);
      return 2;
    }
  }
  if (!line[0][0]) {
    complain("--git: not inside a git repository's working tree (%s)", cwd);
    return 2;
  }
  if (absolute(cwd, line[0], g->top, sizeof g->top) || absolute(cwd, line[1], g->common, sizeof g->common) ||
      absolute(cwd, line[2], g->objects, sizeof g->objects) || absolute(cwd, line[3], g->index, sizeof g->index) ||
      cache_directory(g))
    return 2;
  /* never in the working tree, nor in the repository */
  if (resolved(g->cache, real_cache, sizeof real_cache) || resolved(g->top, real_top, sizeof real_top) ||
      resolved(g->common, real_common, sizeof real_common)) {
    complain("--git: cannot resolve the cache's path (%s) or the repository's (%s)", g->cache, g->top);
    return 2;
  }
  if (within(real_cache, real_top) || within(real_cache, real_common)) {
    complain("--git: the cache %s lies inside the repository %s, where nothing is written: set XDG_CACHE_HOME "
             "to a directory outside it",
             g->cache, g->top);
    return 2;
  }
  if (make_directories(g->cache) != 0) {
    complain("--git: cannot make the cache %s: %s", g->cache, strerror(errno));
    return 2;
  }
  if (uname(&u) != 0) {
    complain("--git: uname: %s", strerror(errno));
    return 2;
  }
  snprintf(g->host, sizeof g->host, "%.64s %.64s", u.nodename, u.machine);
  return 0;
}

/* ---- a revision: its commit, its content, its entry ---- */

static int is_id(const char *s)
{
  size_t n = strspn(s, "0123456789abcdef");
  return (n == 40 || n == 64) && !s[n];
}

/* ".": the working tree's content as a tree (tracked files as they are
 * now, untracked ones that .gitignore does not ignore), its objects in
 * a directory of this run's own in the cache: 0, or 2 with a message.
 * git add -A starts from a copy of the repository's index (so that only
 * the files changed since are read and hashed) and writes the blobs of
 * those into the directory of its own; the repository's objects are not
 * its alternate: git "freshens" an object it would write that exists
 * already, its file's time set to now, and that would be a write in the
 * repository.  So the tree is written with --missing-ok (the blobs of
 * files unchanged since the index are the repository's; the clone has
 * both), and a file with CRLF in the index under text=auto may be
 * normalized where git add in the repository would keep it (git add
 * reads the index's blob to decide, and does not find it). */
static int snapshot(struct git *g, struct revision *v)
{
  char tmp[GIT_PATH_MAX], index[GIT_PATH_MAX], objects[GIT_PATH_MAX];
  char index_variable[GIT_PATH_MAX + 32], objects_variable[GIT_PATH_MAX + 32];
  const char *extra[5];
  char **env;
  int failed;
  if (git(g, g->user_env, v->commit, sizeof v->commit, "rev-parse", "--verify", "--quiet", "HEAD^{commit}",
          (char *)0) != 0 ||
      !is_id(v->commit)) {
    complain("%s revision '.': the repository %s has no commit yet (HEAD names none)", v->label, g->top);
    return 2;
  }
  if (path_of(tmp, sizeof tmp, "%s/tmp", g->cache) ||
      path_of(v->snapshot, sizeof v->snapshot, "%s/tmp/snapshot.XXXXXX", g->cache))
    return 2;
  if ((mkdir(tmp, 0700) != 0 && errno != EEXIST) || !mkdtemp(v->snapshot)) {
    complain("%s revision '.': cannot make a directory in %s: %s", v->label, tmp, strerror(errno));
    v->snapshot[0] = 0;
    return 2;
  }
  if (path_of(index, sizeof index, "%s/index", v->snapshot) ||
      path_of(objects, sizeof objects, "%s/objects", v->snapshot))
    return 2;
  if (mkdir(objects, 0755) != 0 || copy_file(g->index, index) != 0) {
    complain("%s revision '.': cannot copy the index %s into %s: %s", v->label, g->index, v->snapshot,
             strerror(errno));
    return 2;
  }
  snprintf(index_variable, sizeof index_variable, "GIT_INDEX_FILE=%s", index);
  snprintf(objects_variable, sizeof objects_variable, "GIT_OBJECT_DIRECTORY=%s", objects);
  extra[0] = index_variable, extra[1] = objects_variable, extra[2] = "GIT_ALTERNATE_OBJECT_DIRECTORIES=",
  extra[3] = 0;
  if (!(env = environment(g->user_env, 0, extra))) {
    complain("--git: out of memory");
    return 2;
  }
  failed = git(g, env, 0, 0, "-C", g->top, "add", "-A", (char *)0) != 0;
  if (failed) complain("%s revision '.': git add -A (into an index of its own) failed: %s", v->label, first_line(g->err));
  else if ((failed = git(g, env, v->tree, sizeof v->tree, "-C", g->top, "write-tree", "--missing-ok", (char *)0) != 0 || !is_id(v->tree)))
    complain("%s revision '.': git write-tree failed: %s", v->label, first_line(g->err));
  free(env);
  return failed ? 2 : 0;
}

/* The revision's commit (and for ".", its content), its key and its
 * entry's paths: 0, or 2 with a message. */
static int resolve(struct git *g, struct revision *v, const char *build)
{
  char spec[GIT_PATH_MAX], hash[20];
  size_t size;
  int status;
  v->worktree = !strcmp(v->given, ".");
  if (v->worktree) {
    if ((status = snapshot(g, v)) != 0) return status;
  } else {
    /* (never an option to git: it would read "--output=..." as one) */
    if (!v->given[0] || v->given[0] == '-') {
      complain("%s revision '%s': not a revision's name (empty, or starts with '-')", v->label, v->given);
      return 2;
    }
    if (path_of(spec, sizeof spec, "%s^{commit}", v->given)) return 2;
    if (git(g, g->user_env, v->commit, sizeof v->commit, "rev-parse", "--verify", "--quiet", spec, (char *)0) !=
            0 ||
        !is_id(v->commit)) {
      complain("%s revision '%s' does not exist: no commit of that name in %s", v->label, v->given, g->top);
      return 2;
    }
  }
  size = strlen(build) + strlen(g->host) + 2 * ID_MAX + 128;
  if (!(v->key = malloc(size))) {
    complain("--git: out of memory");
    return 2;
  }
  snprintf(v->key, size, "cpucycles-compare --git, entry format 1\n%s %s\nhost %s\nbuild %s\n",
           v->worktree ? "tree" : "commit", v->worktree ? v->tree : v->commit, g->host, build);
  snprintf(hash, sizeof hash, "%016llx", (unsigned long long)fnv1a(v->key));
  snprintf(v->name, sizeof v->name, "%s%.12s-%s", v->worktree ? "worktree-" : "", v->worktree ? v->tree : v->commit,
           hash);
  if (path_of(v->entry, sizeof v->entry, "%s/%s", g->cache, v->name) ||
      path_of(v->checkout, sizeof v->checkout, "%s/checkout", v->entry) ||
      path_of(v->log, sizeof v->log, "%s/build.log", v->entry) ||
      path_of(v->lock, sizeof v->lock, "%s.lock", v->entry))
    return 2;
  return 0;
}

/* 1 when the entry is a complete build of the revision's key */
static int complete(const struct revision *v)
{
  char path[GIT_PATH_MAX + 16], key[GIT_PATH_MAX + 16];
  struct stat st;
  snprintf(path, sizeof path, "%s/complete", v->entry);
  snprintf(key, sizeof key, "%s/key", v->entry);
  return stat(path, &st) == 0 && S_ISREG(st.st_mode) && holds(key, v->key);
}

/* ---- the build ---- */

static volatile sig_atomic_t build_group; /* the build's process group, or 0 */
static const int ending_signals[] = {SIGTERM, SIGINT, SIGHUP};

/* the tool ended while a build runs: the build ended too (it runs in a
 * process group of its own, which a terminal's ^C does not reach) */
static void on_end(int sig)
{
  sigset_t set;
  if (build_group > 0) kill(-(pid_t)build_group, sig);
  signal(sig, SIG_DFL);
  sigemptyset(&set);
  sigaddset(&set, sig);
  sigprocmask(SIG_UNBLOCK, &set, 0);
  raise(sig);
  _exit(128 + sig);
}

/* The last TAIL_LINES lines of the log, on stderr, cleaned. */
static void show_tail(const char *log)
{
  static char buf[TAIL_BYTES + 1];
  char *p, *start;
  off_t size;
  ssize_t got;
  size_t used = 0;
  int fd = open(log, O_RDONLY | O_CLOEXEC), lines = 0;
  if (fd < 0) return;
  size = lseek(fd, 0, SEEK_END);
  if (size > TAIL_BYTES) lseek(fd, size - TAIL_BYTES, SEEK_SET);
  else lseek(fd, 0, SEEK_SET);
  while (used < TAIL_BYTES && ((got = read(fd, buf + used, TAIL_BYTES - used)) > 0 || (got < 0 && errno == EINTR)))
    if (got > 0) used += (size_t)got;
  close(fd);
  while (used > 0 && buf[used - 1] == '\n') used--;
  buf[used] = 0;
  for (p = buf + used, start = buf; p > buf; p--)
    if (p[-1] == '\n' && ++lines == TAIL_LINES) {
      start = p;
      break;
    }
  if (!used) {
    fputs("  (no output)\n", stderr);
    return;
  }
  /* (a NUL in the output ends the tail there) */
  for (p = start; p && *p; start = p) {
    if ((p = strchr(start, '\n')) != 0) *p++ = 0;
    fputs("  ", stderr), put_clean(stderr, start), fputc('\n', stderr);
  }
}

/* The user's command, run by /bin/sh -c in the checkout with the
 * revision's variables, its output into the log: its wait status, or -1
 * with a message. */
static int run_build(struct git *g, const struct revision *v, const struct git_request *r)
{
  char revision[GIT_PATH_MAX + 32], commit[ID_MAX + 32], checkout[GIT_PATH_MAX + 32];
  char *args[4];
  const char *extra[4];
  char **env;
  struct sigaction sa, old[3];
  sigset_t ends, saved;
  int fd, status = -1, ignored[3];
  size_t k;
  pid_t pid;
  snprintf(revision, sizeof revision, "CPUCYCLES_REVISION=%s", v->given);
  snprintf(commit, sizeof commit, "CPUCYCLES_COMMIT=%s", v->commit);
  snprintf(checkout, sizeof checkout, "CPUCYCLES_CHECKOUT=%s", v->checkout);
  extra[0] = revision, extra[1] = commit, extra[2] = checkout, extra[3] = 0;
  args[0] = (char *)"sh", args[1] = (char *)"-c", args[2] = (char *)r->build, args[3] = 0;
  if ((fd = open(v->log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) < 0) {
    complain("%s revision '%s': cannot write the log %s: %s", v->label, v->given, v->log, strerror(errno));
    return -1;
  }
  if (!(env = environment(g->clean_env, 0, extra))) {
    complain("--git: out of memory");
    close(fd);
    return -1;
  }
  /* an ending signal kills the build's process group, from the fork on */
  memset(&sa, 0, sizeof sa);
  sigemptyset(&sa.sa_mask);
  sa.sa_handler = on_end;
  sigemptyset(&ends);
  for (k = 0; k < 3; k++) {
    sigaddset(&ends, ending_signals[k]);
    /* (one ignored when this started stays so: nohup) */
    ignored[k] = sigaction(ending_signals[k], 0, &old[k]) != 0 || old[k].sa_handler == SIG_IGN;
    if (!ignored[k]) sigaction(ending_signals[k], &sa, 0);
  }
  sigprocmask(SIG_BLOCK, &ends, &saved);
  fflush(stdout), fflush(stderr);
  pid = fork();
  if (pid == 0) {
    int null = open("/dev/null", O_RDONLY);
    for (k = 0; k < 3; k++)
      if (!ignored[k]) signal(ending_signals[k], SIG_DFL);
    sigprocmask(SIG_SETMASK, &saved, 0);
    setpgid(0, 0);
    if (null < 0 || dup2(null, 0) < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0 || chdir(v->checkout) != 0) {
      dprintf(fd, PROGRAM ": cannot start the build in %s: %s\n", v->checkout, strerror(errno));
      _exit(127);
    }
    execve("/bin/sh", args, env);
    dprintf(2, PROGRAM ": cannot run /bin/sh: %s\n", strerror(errno));
    _exit(127);
  }
  if (pid > 0) {
    setpgid(pid, pid); /* (as the child does: whichever runs first) */
    build_group = pid;
  }
  sigprocmask(SIG_SETMASK, &saved, 0);
  close(fd);
  free(env);
  if (pid < 0) complain("fork: %s", strerror(errno));
  else
    while (waitpid(pid, &status, 0) < 0)
      if (errno != EINTR) {
        complain("waitpid: %s", strerror(errno));
        status = -1;
        break;
      }
  build_group = 0;
  for (k = 0; k < 3; k++)
    if (!ignored[k]) sigaction(ending_signals[k], &old[k], 0);
  return status;
}

/* The entry made anew: the clone, the revision checked out, the command
 * run, the entry marked complete: 0, or 2 with a message. */
static int build(struct git *g, const struct revision *v, const struct git_request *r, int show)
{
  char path[GIT_PATH_MAX + 64], objects[GIT_PATH_MAX + 16], line[GIT_PATH_MAX + 32], how[160];
  char stamp[GIT_PATH_MAX + 2 * ID_MAX + 64];
  int status;
  if (remove_tree(v->entry) != 0) {
    complain("%s revision '%s': cannot remove the former cache entry %s: %s", v->label, v->given, v->entry,
             strerror(errno));
    return 2;
  }
  snprintf(path, sizeof path, "%s/key", v->entry);
  if (mkdir(v->entry, 0755) != 0 || write_text(path, v->key, 0) != 0) {
    complain("%s revision '%s': cannot make the cache entry %s: %s", v->label, v->given, v->entry, strerror(errno));
    return 2;
  }
  if (git(g, g->clean_env, 0, 0, "clone", "--quiet", "--shared", "--no-checkout", "--", g->common, v->checkout,
          (char *)0) != 0) {
    complain("%s revision '%s': git clone --shared %s %s failed: %s", v->label, v->given, g->common, v->checkout,
             first_line(g->err));
    return 2;
  }
  if (git(g, g->clean_env, 0, 0, "-C", v->checkout, "checkout", "--quiet", "--detach", v->commit, (char *)0) != 0) {
    complain("%s revision '%s': git checkout --detach %s in %s failed: %s", v->label, v->given, v->commit,
             v->checkout, first_line(g->err));
    return 2;
  }
  if (v->worktree) {
    /* the snapshot's objects into the entry, an alternate of the clone's;
     * its tree read into the index and the files over HEAD's */
    snprintf(path, sizeof path, "%s/objects", v->snapshot);
    snprintf(objects, sizeof objects, "%s/objects", v->entry);
    snprintf(line, sizeof line, "%s\n", objects);
    if (rename(path, objects) != 0) {
      complain("%s revision '.': cannot move %s to %s: %s", v->label, path, objects, strerror(errno));
      return 2;
    }
    snprintf(path, sizeof path, "%s/.git/objects/info/alternates", v->checkout);
    if (write_text(path, line, 1) != 0) {
      complain("%s revision '.': cannot write %s: %s", v->label, path, strerror(errno));
      return 2;
    }
    if (git(g, g->clean_env, 0, 0, "-C", v->checkout, "read-tree", "--reset", "-u", v->tree, (char *)0) != 0) {
      complain("%s revision '.': git read-tree --reset -u %s in %s failed: %s", v->label, v->tree, v->checkout,
               first_line(g->err));
      return 2;
    }
  }
  if (show)
    complain("building %s revision '%s' (%.12s%s) in %s; its output: %s", v->label, v->given, v->commit,
             v->worktree ? " and the working tree's changes" : "", v->checkout, v->log);
  status = run_build(g, v, r);
  if (status == -1) return 2;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    describe_status(how, sizeof how, status);
    complain("the build of %s revision '%s' (%.12s) failed (%s); the last lines of its output:", v->label, v->given,
             v->commit, how);
    show_tail(v->log);
    complain("its whole output: %s", v->log);
    return 2;
  }
  snprintf(path, sizeof path, "%s/complete.tmp", v->entry);
  snprintf(line, sizeof line, "%s/complete", v->entry);
  snprintf(stamp, sizeof stamp, "revision %s\ncommit %s\nbuilt %lld\n", v->given, v->commit, (long long)time(0));
  if (write_text(path, stamp, 0) != 0 || rename(path, line) != 0) {
    complain("%s revision '%s': cannot write %s: %s", v->label, v->given, line, strerror(errno));
    return 2;
  }
  return 0;
}

/* ---- an entry, locked, built if need be ---- */

/* flock(fd, mode), waiting when another run holds it (said); *other (the
 * other entry's lock, or 0) let go first then: 0, or -1 with errno */
static int take_lock(const struct revision *v, int mode, int *other, int *let_go)
{
  if (flock(v->lock_fd, mode | LOCK_NB) == 0) return 0;
  if (errno != EWOULDBLOCK && errno != EINTR) return -1;
  if (other && *other >= 0 && !*let_go) flock(*other, LOCK_UN), *let_go = 1;
  complain("waiting for another run %s the cache entry of %s revision '%s' (%s)",
           mode == LOCK_EX ? "that uses" : "that builds", v->label, v->given, v->entry);
  while (flock(v->lock_fd, mode) != 0)
    if (errno != EINTR) return -1;
  return 0;
}

/* the artifact's path in the revision's checkout, a regular file: 0, or
 * 2 with a message */
static int artifact(const struct revision *v, const struct git_request *r, int built, char *path)
{
  struct stat st;
  if (path_of(path, GIT_PATH_MAX, "%s/%s", v->checkout, r->artifact)) return 2;
  if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
    complain("%s revision '%s' (%.12s): the artifact '%s' is %s %s (%s)%s", v->label, v->given, v->commit,
             r->artifact, stat(path, &st) != 0 ? "missing" : "not a regular file",
             built ? "after its build" : "in its build, made before", path,
             built ? "" : " (--rebuild builds it again)");
    return 2;
  }
  return 0;
}

/* The revision's entry ready, locked shared, its artifact in path: 0, or
 * 2 with a message.  other: OLD's, already taken, when this is NEW. */
static int take(struct git *g, struct revision *v, const struct git_request *r, struct revision *other,
                int show, char *path)
{
  int let_go = 0, built = 0, status;
  int *held = other ? &other->lock_fd : 0;
  if ((v->lock_fd = open(v->lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644)) < 0) {
    complain("%s revision '%s': cannot open the lock %s: %s", v->label, v->given, v->lock, strerror(errno));
    return 2;
  }
  if (take_lock(v, LOCK_SH, held, &let_go) != 0) goto lock_failed;
  if (r->rebuild || !complete(v)) {
    /* (a conversion may let go before it waits: so, explicitly) */
    flock(v->lock_fd, LOCK_UN);
    if (take_lock(v, LOCK_EX, held, &let_go) != 0) goto lock_failed;
    if (r->rebuild || !complete(v)) { /* (else another run built it meanwhile) */
      if ((status = build(g, v, r, show)) != 0) return status;
      built = 1;
    }
    if (flock(v->lock_fd, LOCK_SH) != 0) goto lock_failed;
  }
  if (!built && show)
    complain("%s revision '%s' (%.12s): built before, in %s", v->label, v->given, v->commit, v->checkout);
  if (let_go) {
    /* OLD's again: still complete, unless a run that rebuilt it failed */
    while (flock(other->lock_fd, LOCK_SH) != 0)
      if (errno != EINTR) goto lock_failed;
    if (!complete(other)) {
      complain("%s revision '%s': its cache entry %s was being rebuilt by another run, which failed: run again",
               other->label, other->given, other->entry);
      return 2;
    }
  }
  return artifact(v, r, built, path);
lock_failed:
  complain("%s revision '%s': cannot lock %s: %s", v->label, v->given, v->lock, strerror(errno));
  return 2;
}

int git_artifacts(struct git_request *r, char paths[2][GIT_PATH_MAX])
{
  static struct git g; /* (large) */
  static struct revision v[2];
  int show = r->progress || isatty(2), i, status = 0;
  memset(&g, 0, sizeof g);
  memset(v, 0, sizeof v);
  for (i = 0; i < 2; i++) v[i].label = i ? "NEW" : "OLD", v[i].given = r->revisions[i], v[i].lock_fd = -1;
  if (r->artifact[0] == '/' || !r->artifact[0]) {
    complain("--artifact '%s': not a path relative to the checkout", r->artifact);
    return 2;
  }
  if ((status = setup(&g)) != 0) goto end;
  /* both named before either is built: a misspelt NEW costs no build */
  for (i = 0; i < 2 && status == 0; i++) status = resolve(&g, &v[i], r->build);
  if (status != 0) goto end;
  for (i = 0; i < 2; i++)
    snprintf(r->names[i], sizeof r->names[i], v[i].worktree ? "%s (uncommitted changes on %.12s)" : "%s (%.12s)",
             v[i].given, v[i].commit);
  status = take(&g, &v[0], r, 0, show, paths[0]);
  if (status == 0 && !strcmp(v[0].name, v[1].name)) /* one build for both */
    memcpy(paths[1], paths[0], GIT_PATH_MAX);
  else if (status == 0)
    status = take(&g, &v[1], r, &v[0], show, paths[1]);
end:
  /* (the lock descriptors stay open: the entries in use until the end) */
  for (i = 0; i < 2; i++) {
    if (v[i].snapshot[0] && remove_tree(v[i].snapshot) != 0)
      complain("cannot remove %s: %s", v[i].snapshot, strerror(errno));
    free(v[i].key);
  }
  free(g.user_env), free(g.clean_env);
  return status;
}
