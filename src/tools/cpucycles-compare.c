/* SPDX-License-Identifier: MIT */
/* cpucycles-compare - is a new build of a function slower than the old one?
 *
 *   cpucycles-compare [options] OLD.so NEW.so
 *
 * Loads both shared objects, each in a link-map namespace of its own
 * (dlmopen: two versions of one soname coexist, and neither binds to the
 * other's symbols), and compares their `benchmark` functions (or those
 * --symbol names) with cpucycles_bench_compare(): NEW/OLD, a 99% interval
 * and a verdict.  Exit 1 when NEW is slower (beyond --tolerance), 0
 * otherwise, 2 on any error.
 *
 * Why not one cpucycles_bench_compare() in this process: its interval is
 * this process's, and where the code happens to be placed (the addresses
 * ASLR chose for each object, the stack's, the physical pages under them,
 * and so the branch predictors' and caches' aliasing) moves a function by
 * about 0.1% from one process to the next; a within-process interval is
 * far narrower than that, so identical builds were called different half
 * of the time.  Placement is treated as a random effect (Kalibera and
 * Jones, "Rigorous benchmarking in reasonable time", ISMM 2013): the
 * measurement is repeated in E executions, each a fresh process (this
 * program exec'ed again in an internal mode) that differs in layout:
 *   - exec: ASLR maps both objects, the harness and the stack anew;
 *   - a fresh copy of each file (a memfd), so new physical pages back the
 *     code (the page cache would give every execution the same ones),
 *     and on x86-64 the copy's code moved to a random offset within its
 *     pages (elf-shift.h: which cache lines and fetch blocks a hot loop
 *     spans changes from one execution to the next); the libraries a
 *     build finds through $ORIGIN (a build tree's own), which the copy's
 *     origin (/proc/self/fd) would not find, are loaded from the file's
 *     directory into its namespace first, where the copy finds them (so
 *     their own references to a symbol the build also defines bind to
 *     theirs, not the build's: --no-copy where that matters);
 *   - each function entered through a jump at a random address (the
 *     branch predictors see the harness's call go elsewhere: a build with
 *     300 bytes of padding before its code measured 0.01% faster in every
 *     execution without this, and within the spread with it);
 *   - the environment padded by a variable of random length, and a
 *     random amount of stack taken before measuring (stack alignment,
 *     4 KiB aliasing between the stack and the code's data);
 *   - the order in which the two objects are loaded alternates.
 * Where the code cannot be moved (other architectures, an object
 * elf-shift.c refuses) or no copy can be made (--no-copy, no memfd, a
 * file over 256 MiB, a copy the loader refuses: then the file itself is
 * loaded, as named, never searched for on the library path), its offsets
 * within its pages are the build's, and each execution reports how each
 * build was loaded and why, which the output says: a change that moves a
 * hot loop across a cache-line boundary is then measured as what it is.
 * The functions measured are the build's own: dlsym() also finds its
 * dependencies' (libc's getpid), which count as missing.
 * Each execution gives a log-ratio; their mean is the estimate, their
 * spread (which holds the noise within an execution too) its standard
 * error, and Student's t at E - 1 degrees of freedom the 99% interval.
 *
 * Each execution reports over a pipe, a line at a time; a benchmark that
 * crashes or hangs kills only its execution, and the report says which
 * build, which symbol, and which signal or how long.  The parent reads
 * until the execution ends, not until the pipe closes (a process the
 * benchmark leaves behind may hold it), and the execution ends with the
 * parent (a signal's handler, PR_SET_PDEATHSIG). */
#include "cpucycles-bench.h"
#include "elf-shift.h"
#include "format.h"
#include "readfile.h"
#include "rng.h"
#include "stats.h"
#include <dlfcn.h>
#include <link.h> /* struct link_map */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
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

#define PROGRAM "cpucycles-compare"
#define INTERNAL "--cpucycles-compare-execution" /* the executions' mode */
#define MAX_SYMBOLS 64
#define MAX_EXECUTIONS 1000
#define PAD_VARIABLE "CPUCYCLES_COMPARE_PAD"
#define PAD_MAX 4096   /* bytes of environment padding, at most */
#define STACK_MAX 4096 /* bytes of stack taken before measuring, at most */
#define SYMBOL_MAX 1024 /* bytes of a --symbol name: a line of the report holds it */
#define STR_(x) #x
#define STR(x) STR_(x)
/* a line of an execution's report: a path (PATH_MAX), a symbol and words */
#define LINE_MAX_ 8192
/* cpucycles-bench.h: a comparison whose time decides keeps at least 200
 * pairs; one with a count asked for takes at least 100 (2 blocks) */
#define HARNESS_MIN_PAIRS 200
#define HARNESS_FEWEST_PAIRS 100
/* calls the harness makes before its pairs, in pairs of calls: 8 pairs to
 * warm up, and choosing the calls per run times up to 8 runs of each */
#define SETUP_PAIRS 16
#define PROGRESS_AFTER 2.0 /* seconds: a run expected to be longer shows progress */
#define EAGAIN_TRIES 3

static const char usage[] =
    "usage: cpucycles-compare [options] OLD.so NEW.so\n"
    "  NEW's benchmark against OLD's: each build loaded in a namespace of its\n"
    "  own (dlmopen), interleaved, in several executions that differ in\n"
    "  layout (fresh processes: addresses, copies of the files, environment\n"
    "  size, stack offset), so that the 99% interval covers code placement\n"
    "  --symbol NAME      the function to compare, void NAME(void *) called\n"
    "                     with a null argument (default benchmark); repeat\n"
    "                     it for a suite: one row per symbol (each name\n"
    "                     once, at most 1024 bytes)\n"
    "  --executions N     executions (processes) to measure in, 2 to 1000\n"
    "                     (default 10)\n"
    "  --seconds S        the time of each symbol's comparison in each\n"
    "                     execution (default 0.5); calls too slow for 200\n"
    "                     pairs in it get those that fit, at least 100\n"
    "  --tolerance P      exit 1 only when the whole interval is beyond +P%\n"
    "                     (default 0)\n"
    "  --timeout S        the longest a benchmark's call may take, or its\n"
    "                     comparison beyond --seconds, before its execution\n"
    "                     is killed (default 60)\n"
    "  --no-copy          load the files themselves, not a fresh copy in each\n"
    "                     execution (to measure the code where the linker put\n"
    "                     it within its pages)\n"
    "  --json             the result as one JSON object\n"
    "  --progress         progress on stderr (default: on a terminal, for a\n"
    "                     run of over 2 s)\n"
    "  --help             this text\n"
    "  --version          the version\n"
    "Exit 0 when NEW is not slower, 1 when it is, 2 on an error (a file that\n"
    "is missing or no shared object of this machine, a missing symbol, a bad\n"
    "option, a benchmark that crashes, does not return, or is too slow for\n"
    "100 pairs in --seconds).  cpucycles-compare(1).\n";

/* ---- what the executions report ---- */

struct measured {    /* one symbol in one execution */
  double ratio;      /* NEW/OLD; NaN when OLD measures nothing */
  double a, b;       /* cycles per call */
  double difference, difference_error;
  long long pairs, disturbed;
  unsigned int flags;
  double pair_seconds; /* a pair's, when its pairs were counted (slow calls); else 0 */
};

struct options {
  const char *old_path, *new_path;
  const char *symbols[MAX_SYMBOLS];
  int nsymbols;
  long executions;
  double seconds, tolerance, timeout;
  int json, progress, copy;
};

static const char *build_path(const struct options *o, int new) { return new ? o->new_path : o->old_path; }

/* ---- the execution's side (the internal mode) ---- */

static int report_fd = -1;

/* How a path or name is printed: control bytes as '?' (a newline would
 * cut a report line or a message, an escape sequence reach a terminal). */
static char clean_char(char c) { return (unsigned char)c < 0x20 || c == 0x7f ? '?' : c; }
static void put_clean(FILE *f, const char *s);

/* A line to the parent; the pipe is its only channel (a benchmark's own
 * output goes to stderr, never to the parent's stdout).  What it holds is
 * cleaned (dlerror()'s text holds a path): one line is one line. */
static void say(const char *format, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *format, ...)
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

/* The whole of a file (at most MAX_FILE bytes), malloc'ed; 0 with *why
 * on failure.  Opened and read as readfile.h reads the library's files: a
 * regular file only (one replaced by a FIFO since the parent's check is
 * never opened, which would wait for a writer). */
#define MAX_FILE (256UL << 20)
static unsigned char *read_all(const char *path, size_t *size, char *why, size_t why_size)
{
  unsigned char *buf = 0, *grown;
  size_t used = 0, room = 0;
  struct stat st;
  const char *reason;
  ssize_t r;
  int in = cpucycles_readfile_open(path, &reason);
  if (in < 0) {
    snprintf(why, why_size, "cannot read it: %s", reason ? reason : "no such file");
    return 0;
  }
  /* refused before reading: a copy of a larger file would cost as much */
  if (fstat(in, &st) == 0 && (unsigned long long)st.st_size > MAX_FILE) {
    snprintf(why, why_size, "larger than 256 MiB, the most it copies");
    close(in);
    return 0;
  }
  for (;;) {
    if (used == room) {
      if (room >= MAX_FILE) {
        snprintf(why, why_size, "larger than 256 MiB, the most it copies");
        goto fail;
      }
      if (!(grown = realloc(buf, room ? 2 * room : 65536))) {
        snprintf(why, why_size, "no memory for its copy");
        goto fail;
      }
      buf = grown, room = room ? 2 * room : 65536;
    }
    /* (it fills what it is given, but at the file's end) */
    if ((r = cpucycles_readfile_fill(in, (char *)buf + used, room - used)) < 0) {
      snprintf(why, why_size, "cannot read it: %s", cpucycles_readfile_error(errno));
      goto fail;
    }
    used += (size_t)r;
    if (used < room) break;
  }
  close(in);
  *size = used;
  return buf;
fail:
  close(in);
  free(buf);
  return 0;
}

/* How one build was loaded, as its "placement" line says it: a copy with
 * its code moved (offset >= 0), a copy as it is (why: why not moved), or
 * the file itself (why: why not copied). */
struct loading {
  int copied;
  long offset;        /* the code's offset within its pages, or -1 */
  unsigned long step; /* the step offset was drawn in */
  char why[200];
};

/* A fresh copy of the file's bytes in a memfd (new physical pages for
 * the code), its /proc/self/fd name in name; -1 with l->why when there is
 * no memfd.  On x86-64 the copy's code is also moved to a random offset
 * within its pages, a multiple of the step its alignment allows
 * (elf-shift.h): l->offset and l->step, or -1 with l->why when the object
 * cannot be moved (then the copy is the file as it is). */
static int fresh_copy(const unsigned char *image, size_t image_size, char *name, size_t size,
                      unsigned long long *seed, struct loading *l)
{
#if defined(MFD_CLOEXEC)
  unsigned char *moved = 0;
  const unsigned char *bytes;
  const char *why = "not on x86-64 (only there is its code moved within its pages)";
  size_t moved_size = 0, done, length;
  ssize_t w;
  int out, tries;
  l->offset = -1;
#if defined(__x86_64__)
  l->step = cpucycles_elf_shift_step(image, image_size, &why);
  /* an offset at which two segments would share a page badly is
   * refused: another draw, a few times */
  for (tries = 0; l->step && tries < 8 && !moved; tries++) {
    l->offset = (long)((cpucycles_xorshift(seed) >> 11) % (4096 / l->step) * l->step);
    if (cpucycles_elf_shift(image, image_size, (unsigned long)l->offset, &moved, &moved_size, &why) != 0)
      l->offset = -1;
  }
#else
  (void)tries, (void)seed;
#endif
  out = memfd_create("cpucycles-compare", MFD_CLOEXEC);
  if (out < 0) {
    snprintf(l->why, sizeof l->why, "no memory file for its copy (memfd_create: %s)", strerror(errno));
    free(moved);
    l->offset = -1;
    return -1;
  }
  bytes = moved ? moved : image;
  length = moved ? moved_size : image_size;
  for (done = 0; done < length; done += (size_t)w)
    if ((w = write(out, bytes + done, length - done)) <= 0) {
      if (w < 0 && errno == EINTR) {
        w = 0;
        continue;
      }
      snprintf(l->why, sizeof l->why, "cannot write its copy: %s", w < 0 ? strerror(errno) : "no room");
      free(moved);
      close(out);
      l->offset = -1;
      return -1;
    }
  free(moved);
  if (l->offset < 0) snprintf(l->why, sizeof l->why, "%s", why);
  snprintf(name, size, "/proc/self/fd/%d", out);
  return out;
#else
  (void)image, (void)image_size, (void)name, (void)size, (void)seed;
  l->offset = -1;
  snprintf(l->why, sizeof l->why, "no memory files (memfd_create) here");
  return -1;
#endif
}

/* A name dlopen() takes as the file itself: one without a slash would be
 * searched for on the library path (another file of that name, or none),
 * not in the working directory where the parent found it. */
static const char *as_path(const char *path, char *buf, size_t size)
{
  if (strchr(path, '/')) return path;
  snprintf(buf, size, "./%s", path);
  return buf;
}

/* Whether dir/name is an object of this process's ELF class and machine,
 * as the loader takes one found on a search path (it passes over others). */
static int loadable_at(const char *dir, size_t dir_length, const char *name, const unsigned char *ident,
                       char *file, size_t size)
{
  unsigned char h[20];
  int fd, ok;
  if ((size_t)snprintf(file, size, "%.*s/%s", (int)dir_length, dir, name) >= size) return 0;
  if ((fd = open(file, O_RDONLY | O_CLOEXEC)) < 0) return 0;
  ok = read(fd, h, sizeof h) == (ssize_t)sizeof h && !memcmp(h, ident, 6) && !memcmp(h + 18, ident + 18, 2);
  close(fd);
  return ok;
}

/* dir's first length bytes with $ORIGIN (or ${ORIGIN}) as origin, into
 * buf; 0, or -1 when it holds another substitution ($LIB, $PLATFORM),
 * which only the loader knows. *had says whether $ORIGIN was there. */
static int expand_origin(const char *dir, size_t length, const char *origin, char *buf, size_t size,
                         int *had)
{
  size_t i = 0, n = 0, k;
  *had = 0;
  while (i < length) {
    if (dir[i] != '$') {
      if (n + 1 >= size) return -1;
      buf[n++] = dir[i++];
      continue;
    }
    if (length - i >= 7 && !memcmp(dir + i, "$ORIGIN", 7) &&
        !(i + 7 < length && (dir[i + 7] == '_' || (dir[i + 7] >= 'a' && dir[i + 7] <= 'z') ||
                             (dir[i + 7] >= 'A' && dir[i + 7] <= 'Z') ||
                             (dir[i + 7] >= '0' && dir[i + 7] <= '9'))))
      k = 7;
    else if (length - i >= 9 && !memcmp(dir + i, "${ORIGIN}", 9))
      k = 9;
    else
      return -1;
    if (n + strlen(origin) + 1 >= size) return -1;
    memcpy(buf + n, origin, strlen(origin));
    n += strlen(origin), i += k, *had = 1;
  }
  buf[n] = 0;
  return 0;
}

/* The dependencies of the object at path (its bytes image) that the
 * loader finds through $ORIGIN: a copy loaded from /proc/self/fd has
 * another origin, and would not find them (or find others).  Each is
 * resolved here as the loader resolves it for the file (its DT_RPATH,
 * or LD_LIBRARY_PATH then its DT_RUNPATH; the first directory holding an
 * object of this machine's), and when that directory came from $ORIGIN,
 * its path goes into files[].  Returns how many, or -1 with why. */
#define MAX_PRELOAD 16
static int origin_dependencies(const char *path, const unsigned char *image, size_t image_size,
                               char files[][4096], char *why, size_t why_size)
{
  struct cpucycles_elf_needs needs;
  const char *reason, *slash, *library_path = getenv("LD_LIBRARY_PATH");
  char origin[4096], dir[4096], file[4096];
  int i, n = 0, had;
#if !defined(LM_ID_NEWLM)
  /* without namespaces (musl) a DT_NEEDED name finds a library loaded by
   * its path only where that path came from a search: nothing to gain,
   * and such a build is loaded as it is (the code below compiled all the
   * same, for its warnings) */
  return 0;
#endif
  if (cpucycles_elf_needs(image, image_size, &needs, &reason) != 0) {
    snprintf(why, why_size, "%s", reason);
    return -1;
  }
  if (!needs.search || (!strstr(needs.search, "$ORIGIN") && !strstr(needs.search, "${ORIGIN}")))
    return 0;
  /* the loader's $ORIGIN: the directory of the name it was given */
  slash = strrchr(path, '/');
  if (!slash) snprintf(origin, sizeof origin, ".");
  else if (slash == path) snprintf(origin, sizeof origin, "/");
  else snprintf(origin, sizeof origin, "%.*s", (int)(slash - path), path);
  for (i = 0; i < needs.nneeded; i++) {
    const char *name = needs.needed[i], *p, *end;
    int pass, found = 0;
    if (strchr(name, '/')) continue; /* a path: not searched for */
    /* with DT_RUNPATH, LD_LIBRARY_PATH first: found there, the copy finds
     * it there too */
    for (pass = needs.runpath ? 0 : 1; pass < 2 && !found; pass++) {
      const char *list = pass ? needs.search : library_path;
      for (p = list; p && *p && !found; p = *end ? end + 1 : end) {
        if (!(end = strchr(p, ':'))) end = p + strlen(p);
        if (end == p) continue;
        if (expand_origin(p, (size_t)(end - p), origin, dir, sizeof dir, &had) != 0) {
          found = -1; /* only the loader knows where this one leads: left to it */
          break;
        }
        if (!loadable_at(dir, strlen(dir), name, image, file, sizeof file)) continue;
        found = 1;
        if (pass && had) {
          if (n == MAX_PRELOAD) {
            snprintf(why, why_size, "more than %d dependencies found through $ORIGIN", MAX_PRELOAD);
            return -1;
          }
          snprintf(files[n++], 4096, "%s", file);
        }
      }
    }
  }
  return n;
}

/* dlmopen() or, without namespaces, dlopen() (not glibc: each build local
 * to its own handle; but a dependency both builds name by one soname,
 * their own versions of a library, is loaded once, the first build's:
 * cpucycles-compare(1)). */
static void *open_in(long namespace, const char *file, int flags)
{
#if defined(LM_ID_NEWLM)
  return dlmopen(namespace < 0 ? LM_ID_NEWLM : (Lmid_t)namespace, file, flags);
#else
  (void)namespace;
  return dlopen(file, flags);
#endif
}

/* Loads one build in a namespace of its own, or ends the execution with
 * a message; *fd is its copy's descriptor (or -1), to be closed once both
 * are loaded: a descriptor closed at once would give the other build's
 * copy the same /proc/self/fd name, and where there are no namespaces
 * dlopen() would take that name for the build already loaded.
 *
 * A copy is loaded where one can be made and the loader takes it; else
 * the file itself, and its "placement" line says why.  A build that
 * finds its own libraries through $ORIGIN has them loaded first, from
 * its file's directory, into the namespace its copy then goes into: the
 * copy's DT_NEEDED finds them there by soname. */
static void *load(const char *label, const char *path, int copy, int *fd_out,
                  unsigned long long *seed)
{
  static char deps[MAX_PRELOAD][4096];
  char name[64], bare[4096 + 3], why[200];
  void *h = 0, *preloaded[MAX_PRELOAD];
  struct loading l;
  unsigned char *image = 0;
  size_t image_size = 0;
  const char *error;
  long namespace = -1;
  int fd = -1, i, ndeps = 0, npreloaded = 0;

  memset(&l, 0, sizeof l);
  l.offset = -1;
  say("step load %s", label);
  if (!copy)
    snprintf(l.why, sizeof l.why, "--no-copy");
  else if (!(image = read_all(path, &image_size, l.why, sizeof l.why)))
    ;
  else if ((ndeps = origin_dependencies(path, image, image_size, deps, why, sizeof why)) < 0)
    snprintf(l.why, sizeof l.why, "its dependencies are unknown: %.160s", why);
  else if ((fd = fresh_copy(image, image_size, name, sizeof name, seed, &l)) >= 0) {
    for (i = 0; i < ndeps; i++) {
      dlerror();
      if (!(preloaded[npreloaded] = open_in(namespace, deps[i], RTLD_NOW | RTLD_LOCAL))) {
        error = dlerror();
        snprintf(l.why, sizeof l.why, "its dependency %s, found through $ORIGIN, did not load beside its copy: %s",
                 deps[i], error ? error : "(no reason given)");
        break;
      }
#if defined(LM_ID_NEWLM)
      if (namespace < 0) {
        Lmid_t id;
        if (dlinfo(preloaded[npreloaded], RTLD_DI_LMID, &id) != 0) {
          dlclose(preloaded[npreloaded]);
          snprintf(l.why, sizeof l.why, "its dependency %s: no namespace", deps[i]);
          break;
        }
        namespace = (long)id;
      }
#endif
      npreloaded++;
    }
    if (npreloaded == ndeps) {
      dlerror();
      /* the first object loaded into a namespace is its global scope,
       * which lookups try first: here that is a dependency, which would
       * then come before the copy's own definitions; RTLD_DEEPBIND has
       * the copy look in its own scope first (itself, then its
       * dependencies), the order a build loaded first has */
      h = open_in(namespace, name, RTLD_NOW | RTLD_LOCAL
#if defined(RTLD_DEEPBIND)
                                       | (npreloaded ? RTLD_DEEPBIND : 0)
#endif
      );
      if (!h) {
        error = dlerror();
        snprintf(l.why, sizeof l.why, "the loader refused its copy: %s", error ? error : "(no reason given)");
      }
    }
    if (h) {
      l.copied = 1;
    } else {
      close(fd), fd = -1;
      l.offset = -1;
      while (npreloaded > 0) dlclose(preloaded[--npreloaded]);
    }
  }
  free(image);
  *fd_out = fd;
  if (!h) {
    dlerror();
    h = open_in(-1, as_path(path, bare, sizeof bare), RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      error = dlerror();
      say("error %s %s: cannot load it: %s", label, path, error ? error : "(no reason given)");
      _exit(2);
    }
  }
  /* how it was loaded: where within its pages the code now lies, or why
   * it was not moved, or why not copied */
  if (l.offset >= 0)
    say("placement %s %ld %lu", label, l.offset, l.step);
  else
    say("placement %s - %s: %s", label, l.copied ? "copied, not moved" : "loaded as it is", l.why);
  return h;
}

static volatile char *stack_taken; /* keeps the stack padding in place */

/* Entry points at a random place: each function is called through a
 * trampoline of its own (an absolute jump) at a random byte offset within
 * a fresh page, so the address the harness's one call site jumps to, and
 * so how the indirect-branch predictor tells the two apart, changes from
 * one execution to the next, as it would when other code moves.  Only
 * where the jump is written here (x86-64, arm64); elsewhere, and when no
 * page can be made executable, the functions are called directly. */
#if defined(__x86_64__)
#define TRAMPOLINE_SIZE 12
static void trampoline_write(unsigned char *at, void *target)
{
  at[0] = 0x48, at[1] = 0xb8; /* movabs $target, %rax */
  memcpy(at + 2, &target, 8);
  at[10] = 0xff, at[11] = 0xe0; /* jmp *%rax */
}
#define TRAMPOLINE_ALIGN 1
#elif defined(__aarch64__)
#define TRAMPOLINE_SIZE 16
static void trampoline_write(unsigned char *at, void *target)
{
  static const unsigned int code[2] = {0x58000050u, 0xd61f0200u}; /* ldr x16, 8; br x16 */
  memcpy(at, code, 8);
  memcpy(at + 8, &target, 8);
}
#define TRAMPOLINE_ALIGN 8
#endif

static void trampolines(void (**fns)(void *), void (**saved)(void *), int n, unsigned long long seed)
{
#if defined(TRAMPOLINE_SIZE)
  long page = sysconf(_SC_PAGESIZE);
  unsigned char *code;
  unsigned long slots, slot;
  int i;
  if (page <= 0 || (unsigned long)n * TRAMPOLINE_SIZE * 2 > (unsigned long)page) return;
  code = mmap(0, (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (code == MAP_FAILED) return;
  /* n disjoint slots of TRAMPOLINE_SIZE at random places: the page cut in
   * n parts, each trampoline at a random offset within its part */
  slots = (unsigned long)page / (unsigned long)n;
  for (i = 0; i < n; i++) {
    slot = (unsigned long)(cpucycles_xorshift(&seed) % (slots - TRAMPOLINE_SIZE)) / TRAMPOLINE_ALIGN *
           TRAMPOLINE_ALIGN;
    {
      void *target, *entry = code + (unsigned long)i * slots + slot;
      memcpy(&target, &fns[i], sizeof target);
      trampoline_write(code + (unsigned long)i * slots + slot, target);
      memcpy(&fns[i], &entry, sizeof entry);
    }
  }
  __builtin___clear_cache((char *)code, (char *)code + page);
  if (mprotect(code, (size_t)page, PROT_READ | PROT_EXEC) != 0) { /* W^X: called directly */
    memcpy(fns, saved, (size_t)n * sizeof *fns);
    munmap(code, (size_t)page);
  }
#else
  (void)fns, (void)saved, (void)n, (void)seed;
#endif
}

static double now(void);

/* One call of fn alone, in seconds; the step is said first, so that a
 * call that crashes or hangs is named. */
static double call_alone(const char *label, const char *symbol, void (*fn)(void *))
{
  double t;
  say("step call %s %s", label, symbol);
  t = now();
  fn(0);
  return now() - t;
}

static int run_symbols(int nsymbols, char **symbols, void (**fns)(void *), void (**entries)(void *),
                       double seconds)
{
  struct cpucycles_compare_options co;
  struct cpucycles_compare_result r;
  double old_call, new_call, pair;
  long long fit;
  int i, tries, rc;
  for (i = 0; i < nsymbols; i++) {
    memset(&co, 0, sizeof co);
    co.seconds = seconds;
    /* one call of each alone first: a build that crashes or hangs is
     * then named, not lost in the interleaving */
    old_call = call_alone("OLD", symbols[i], fns[2 * i]);
    new_call = call_alone("NEW", symbols[i], fns[2 * i + 1]);
    /* The harness keeps at least 200 pairs however long they take: a
     * slow function would overrun --seconds by far (a 200 ms call: 80 s,
     * and a --timeout's kill).  Where 200 do not fit, the pairs that fit
     * are asked for (at least 100: 2 blocks); where not even those fit,
     * the time it would take is said.  A slow first call may be a cold
     * one: the estimate is the faster of two. */
    if ((old_call + new_call) * (HARNESS_MIN_PAIRS + SETUP_PAIRS) > seconds) {
      double t = call_alone("OLD", symbols[i], fns[2 * i]);
      if (t < old_call) old_call = t;
      t = call_alone("NEW", symbols[i], fns[2 * i + 1]);
      if (t < new_call) new_call = t;
    }
    pair = old_call + new_call;
    if (pair * (HARNESS_MIN_PAIRS + SETUP_PAIRS) > seconds) {
      fit = (long long)(seconds / pair) - SETUP_PAIRS;
      if (fit < HARNESS_FEWEST_PAIRS) {
        say("error %s: a call takes %.3g s (OLD) and %.3g s (NEW): the fewest pairs a comparison "
            "takes (%d, and %d to set up) need %.3g s: give --seconds %.3g or more",
            symbols[i], old_call, new_call, HARNESS_FEWEST_PAIRS, SETUP_PAIRS,
            pair * (HARNESS_FEWEST_PAIRS + SETUP_PAIRS),
            1.05 * pair * (HARNESS_FEWEST_PAIRS + SETUP_PAIRS));
        return 2;
      }
      co.pairs = fit;
      /* a run of one call spans a counter's steps many times over: the
       * harness need not time runs of 1, 2, 4... calls to find that */
      if (old_call >= 1e-3 && new_call >= 1e-3) co.calls = 1;
    }
    for (tries = 0; tries < EAGAIN_TRIES; tries++) {
      /* each try may take the time: the parent's deadline starts again */
      say("step measure %s", symbols[i]);
      rc = cpucycles_bench_compare(entries[2 * i], 0, entries[2 * i + 1], 0, &co, &r);
      if (rc == 0 || errno != EAGAIN) break;
    }
    if (rc != 0) {
      say("error %s: cpucycles_bench_compare: %s", symbols[i],
          errno == EAGAIN ? "every try was disturbed (a busy machine?)" : strerror(errno));
      return 2;
    }
    /* its last field: a pair's seconds when the pairs were counted (fewer
     * than the harness keeps when the time decides), else 0 */
    say("result %s %.17g %.17g %.17g %.17g %.17g %lld %lld %u %.6g", symbols[i], r.ratio, r.a, r.b,
        r.difference, r.difference_error, r.pairs, r.disturbed, r.flags, co.pairs ? pair : 0.0);
  }
  say("done");
  return 0;
}

/* Whether p, which dlsym() found for handle, lies in the object handle
 * loaded itself: dlsym() searches that object's dependencies too (libc's
 * getpid for a build without one).  When not, *elsewhere names the object
 * it lies in (0 when none). */
static int defined_by(void *handle, void *p, const char **elsewhere)
{
  Dl_info info;
  *elsewhere = 0;
#if defined(__GLIBC__) /* dladdr1(); RTLD_DL_LINKMAP and RTLD_DI_LINKMAP are enumerators there */
  {
    struct link_map *own = 0, *found = 0;
    if (!dladdr1(p, &info, (void **)&found, RTLD_DL_LINKMAP) || !found) return 0;
    *elsewhere = info.dli_fname;
    return dlinfo(handle, RTLD_DI_LINKMAP, &own) == 0 && own == found;
  }
#elif defined(RTLD_DI_LINKMAP)
  {
    /* no dladdr1() (musl): the object's name, which the loader gives
     * both, the same string.  An address dladdr() gives to no object is
     * taken as the build's: musl's finds an object by its program
     * headers, and a moved copy's lie outside its segments (elf-shift.c),
     * so it knows nothing in one; a dependency is never such a copy. */
    struct link_map *own = 0;
    if (!dladdr(p, &info) || !info.dli_fname) return 1;
    if (dlinfo(handle, RTLD_DI_LINKMAP, &own) != 0 || !own || !own->l_name) return 1;
    *elsewhere = info.dli_fname;
    return !strcmp(own->l_name, info.dli_fname);
  }
#else
  (void)handle, (void)p, (void)info;
  return 1; /* cannot tell */
#endif
}

/* argv: INTERNAL fd index stack copy seconds old new symbol... */
static int execution(int argc, char **argv)
{
  void *h[2];
  void (*fns[2 * MAX_SYMBOLS])(void *), (*entries[2 * MAX_SYMBOLS])(void *);
  const char *paths[2], *end, *elsewhere;
  struct timespec t;
  int i, k, first, copy, nsymbols = argc - 9, fds[2];
  long stack;
  double seconds;
  unsigned long long seed;
  if (argc < 10 || nsymbols > MAX_SYMBOLS) return 2;
  report_fd = atoi(argv[2]);
  first = atoi(argv[3]) % 2; /* which build is loaded first */
  stack = atol(argv[4]);
  copy = atoi(argv[5]);
  seconds = cpucycles_parse_decimal(argv[6], &end);
  paths[0] = argv[7], paths[1] = argv[8];
  if (report_fd < 0 || stack < 0 || stack >= STACK_MAX || !(seconds > 0)) return 2;
  /* inherited to be written here, and nowhere else: a helper a benchmark
   * starts (system("... &")) must not hold the parent's pipe open */
  if (fcntl(report_fd, F_SETFD, FD_CLOEXEC) != 0) return 2;
  /* a benchmark's output goes to stderr: stdout may be JSON */
  if (dup2(2, 1) < 0) return 2;
  clock_gettime(CLOCK_MONOTONIC, &t);
  seed = ((unsigned long long)t.tv_nsec * 0x9e3779b97f4a7c15ULL ^ (unsigned long long)getpid()) | 1;
  for (k = 0; k < 2; k++) {
    int j = k ^ first;
    h[j] = load(j ? "NEW" : "OLD", paths[j], copy, &fds[j], &seed);
  }
  /* the mappings hold the copies */
  for (k = 0; k < 2; k++)
    if (fds[k] >= 0) close(fds[k]);
  for (i = 0; i < nsymbols; i++)
    for (k = 0; k < 2; k++) {
      void *p;
      dlerror();
      p = dlsym(h[k], argv[9 + i]);
      if (!p) {
        say("error %s %s: no symbol %s", k ? "NEW" : "OLD", paths[k], argv[9 + i]);
        return 2;
      }
      if (!defined_by(h[k], p, &elsewhere)) {
        if (elsewhere)
          say("error %s %s: no symbol %s of its own (that one is %s's, a library it loads)",
              k ? "NEW" : "OLD", paths[k], argv[9 + i], elsewhere);
        else
          say("error %s %s: no symbol %s of its own (its address lies in no loaded object)",
              k ? "NEW" : "OLD", paths[k], argv[9 + i]);
        return 2;
      }
      /* dlsym's void * to a function pointer: POSIX requires it to work */
      memcpy(&fns[2 * i + k], &p, sizeof p);
    }
  {
    /* this execution's stack offset: a variable-length array of stack
     * bytes, so that every frame of the measurement lies that much lower
     * (a fixed-size array would move nothing) */
    char taken[stack + 1];
    taken[stack] = 1;
    stack_taken = taken + stack;
    memcpy(entries, fns, sizeof entries);
    trampolines(entries, fns, 2 * nsymbols, seed);
    return run_symbols(nsymbols, argv + 9, fns, entries, seconds) == 0 ? 0 : 2;
  }
}

/* ---- the parent ---- */

struct outcome {
  struct measured *m; /* [symbol] of this execution */
  int got;            /* results received */
  long offset[2];     /* OLD's and NEW's code offset within its pages, or -1 */
  unsigned long step[2]; /* the steps those offsets were drawn in */
  char why[2][200];   /* why not moved, when -1 */
};

static double now(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static unsigned long long rng_state; /* the layouts' draws (rng.h), seeded in main() */
static unsigned long long rng(void) { return cpucycles_xorshift(&rng_state); }

/* ---- this program's own file, which the executions run ---- */

struct self {
  char path[4096];   /* this program */
  char loader[4096]; /* the dynamic loader it was started through by name, or "" */
};

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
static int find_self(const char *argv0, struct self *self, char *why, size_t size)
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
static void on_end(int sig)
{
  sigset_t set;
  if (running > 0) kill((pid_t)running, SIGKILL);
  signal(sig, SIG_DFL);
  sigemptyset(&set);
  sigaddset(&set, sig);
  sigprocmask(SIG_UNBLOCK, &set, 0);
  raise(sig);
  _exit(128 + sig);
}

static const int ending_signals[] = {SIGTERM, SIGINT, SIGHUP};

/* 0, or -1 with errno */
static int catch_signals(void)
{
  struct sigaction sa, old;
  sigset_t set;
  size_t i;
  int k;
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

static const char *signal_text(int sig)
{
  const char *s = strsignal(sig);
  return s ? s : "a signal";
}

/* A message on stderr, its paths and names cleaned as the output's are. */
static void complain(const char *format, ...) __attribute__((format(printf, 1, 2)));
static void complain(const char *format, ...)
{
  char text[3 * LINE_MAX_];
  va_list ap;
  va_start(ap, format);
  vsnprintf(text, sizeof text, format, ap);
  va_end(ap);
  fputs(PROGRAM ": ", stderr), put_clean(stderr, text), fputc('\n', stderr);
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
    } else if (!strcmp(line, "done")) {
      r->done = 1;
      keep(r->step, sizeof r->step, "done");
    }
    r->used -= (size_t)(nl + 1 - r->buf);
    memmove(r->buf, nl + 1, r->used);
  }
  if (r->used == sizeof r->buf - 1) r->used = 0; /* a line too long: not ours */
}

/* One execution: 0 with out filled, or 2 with a message. */
static int run_execution(const struct options *o, const struct self *self, long index,
                         struct outcome *out)
{
  int fds[2], status = 0, i, nargs;
  pid_t pid, parent = getpid();
  char fd_text[24], index_text[24], stack_text[24], copy_text[4], seconds_text[32];
  char *args[10 + MAX_SYMBOLS + 1], **env, *pad, place[LINE_MAX_ + 200];
  static struct report r; /* (large) */
  sigset_t ends, saved;
  size_t n_env = 0, k;
  ssize_t got;
  int timed_out = 0, reaped = 0, eof = 0;
  long pad_length = (long)(rng() % PAD_MAX), stack = (long)(rng() % (STACK_MAX / 16)) * 16;

  out->offset[0] = out->offset[1] = -1;
  out->why[0][0] = out->why[1][0] = 0;
  memset(&r, 0, sizeof r);
  if (pipe(fds) != 0) {
    fprintf(stderr, PROGRAM ": pipe: %s\n", strerror(errno));
    return 2;
  }
  fcntl(fds[0], F_SETFD, FD_CLOEXEC);
  /* the environment, padded: the stack then starts elsewhere */
  while (environ && environ[n_env]) n_env++;
  env = calloc(n_env + 2, sizeof *env);
  pad = malloc(sizeof PAD_VARIABLE + (size_t)pad_length + 1);
  if (!env || !pad) {
    fprintf(stderr, PROGRAM ": out of memory\n");
    return 2;
  }
  for (k = 0, i = 0; k < n_env; k++)
    if (strncmp(environ[k], PAD_VARIABLE "=", sizeof PAD_VARIABLE) != 0) env[i++] = environ[k];
  memcpy(pad, PAD_VARIABLE "=", sizeof PAD_VARIABLE);
  memset(pad + sizeof PAD_VARIABLE, 'x', (size_t)pad_length);
  pad[sizeof PAD_VARIABLE + pad_length] = 0;
  env[i++] = pad, env[i] = 0;

  snprintf(fd_text, sizeof fd_text, "%d", fds[1]);
  snprintf(index_text, sizeof index_text, "%ld", index);
  snprintf(stack_text, sizeof stack_text, "%ld", stack);
  snprintf(copy_text, sizeof copy_text, "%d", o->copy);
  snprintf(seconds_text, sizeof seconds_text, "%.17g", o->seconds);
  nargs = 0;
  /* through the loader when this was started so: ld.so PROGRAM ARGS */
  if (self->loader[0]) args[nargs++] = (char *)self->loader;
  args[nargs++] = (char *)self->path;
  args[nargs++] = (char *)INTERNAL;
  args[nargs++] = fd_text;
  args[nargs++] = index_text;
  args[nargs++] = stack_text;
  args[nargs++] = copy_text;
  args[nargs++] = seconds_text;
  args[nargs++] = (char *)o->old_path;
  args[nargs++] = (char *)o->new_path;
  for (i = 0; i < o->nsymbols; i++) args[nargs++] = (char *)o->symbols[i];
  args[nargs] = 0;

  fflush(stdout), fflush(stderr);
  /* no ending signal between the fork and running's pid: its handler
   * would leave the new process behind */
  sigemptyset(&ends);
  for (k = 0; k < sizeof ending_signals / sizeof *ending_signals; k++)
    sigaddset(&ends, ending_signals[k]);
  sigprocmask(SIG_BLOCK, &ends, &saved);
  pid = fork();
  if (pid == 0) {
    char message[LINE_MAX_];
    int len;
    sigprocmask(SIG_SETMASK, &saved, 0);
#if defined(__linux__) && defined(PR_SET_PDEATHSIG)
    /* however this process ends (SIGKILL too), the execution ends with
     * it; a parent already gone is not told */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent) _exit(2);
#else
    (void)parent;
#endif
    execve(args[0], args, env);
    len = snprintf(message, sizeof message, "error cannot run %s: %s", args[0], strerror(errno));
    if (len > 0) {
      if ((size_t)len >= sizeof message - 1) len = (int)sizeof message - 2;
      for (i = 6; i < len; i++) message[i] = clean_char(message[i]);
      message[len++] = '\n';
      if (write(fds[1], message, (size_t)len) < 0) _exit(2);
    }
    _exit(2);
  }
  if (pid > 0) running = pid;
  sigprocmask(SIG_SETMASK, &saved, 0);
  close(fds[1]);
  free(env), free(pad);
  if (pid < 0) {
    fprintf(stderr, PROGRAM ": fork: %s\n", strerror(errno));
    close(fds[0]);
    return 2;
  }

  /* Read until the execution ends, not until the pipe closes: a process
   * its benchmark forked may hold the pipe open for as long as it likes. */
  r.deadline = now() + o->timeout;
  while (!reaped) {
    struct pollfd p[2];
    double left = r.deadline - now();
    if (left <= 0) {
      timed_out = 1;
      break;
    }
    p[0].fd = wake[0], p[0].events = POLLIN, p[0].revents = 0;
    p[1].fd = fds[0], p[1].events = POLLIN, p[1].revents = 0;
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
    if (waitpid(pid, &status, WNOHANG) == pid) reaped = 1;
    else if (!eof && p[1].revents) {
      got = read(fds[0], r.buf + r.used, sizeof r.buf - r.used - 1);
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) eof = 1; /* (the end is the process's, awaited) */
      else r.used += (size_t)got, take_lines(o, out, &r);
    }
  }
  if (reaped) {
    /* what it wrote before it ended is all in the pipe */
    fcntl(fds[0], F_SETFL, O_NONBLOCK);
    while ((got = read(fds[0], r.buf + r.used, sizeof r.buf - r.used - 1)) > 0 ||
           (got < 0 && errno == EINTR))
      if (got > 0) r.used += (size_t)got, take_lines(o, out, &r);
  } else {
    kill(pid, SIGKILL);
    while (waitpid(pid, &status, 0) < 0)
      if (errno != EINTR) {
        fprintf(stderr, PROGRAM ": waitpid: %s\n", strerror(errno));
        break;
      }
  }
  running = 0;
  close(fds[0]);
  if (timed_out < 0) return 2;
  where(place, sizeof place, o, r.step);
  if (timed_out) {
    complain("execution %ld: no word for %g s %s: killed (--timeout %g)", index + 1, o->timeout,
             place, o->timeout);
    return 2;
  }
  if (r.error[0]) {
    complain("%s", r.error);
    return 2;
  }
  if (WIFSIGNALED(status)) {
    complain("execution %ld: killed by signal %d (%s) %s", index + 1, WTERMSIG(status),
             signal_text(WTERMSIG(status)), place);
    return 2;
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || !r.done || out->got != o->nsymbols) {
    complain("execution %ld: ended (exit status %d) %s, before its results", index + 1,
             WIFEXITED(status) ? WEXITSTATUS(status) : -1, place);
    return 2;
  }
  return 0;
}

/* ---- combining the executions ---- */

struct row {
  const char *symbol;
  double ratio, low, high; /* NEW/OLD and its 99% interval; NaN without a ratio */
  double old_cycles, new_cycles; /* means over the executions */
  double difference, difference_low, difference_high; /* cycles per call */
  double placement_sd;    /* between executions beyond the noise within
                             them: relative (0.001 is 0.1%) */
  double placement_share; /* of the variance between executions */
  double within_sd;       /* the noise within an execution, relative */
  int verdict;            /* CPUCYCLES_COMPARE_* */
  int beyond;             /* slower beyond the tolerance: exit 1 */
  long long pairs;        /* kept, in the execution that kept the fewest */
  double pair_seconds;    /* the slowest pair of calls, where the pairs were
                             counted (too slow for 200 in --seconds); else 0 */
};

/* mean and sample variance of x[0..n-1] */
static void moments(const double *x, long n, double *mean, double *variance)
{
  double m = 0, v = 0;
  long i;
  for (i = 0; i < n; i++) m += x[i];
  m /= (double)n;
  for (i = 0; i < n; i++) v += (x[i] - m) * (x[i] - m);
  *mean = m, *variance = v / (double)(n - 1);
}

/* Each execution is one draw of the layout: the executions' log-ratios
 * are the sample, and their variance already holds the noise within
 * each (a random-effects model with executions as its level). */
static void combine(const struct options *o, struct outcome *runs, int s, struct row *r, double *x)
{
  long e, n = o->executions;
  double mean, variance, half, within = 0, t = cpucycles_t99(n - 1), tol = o->tolerance / 100;
  int ratios = 1;
  r->symbol = o->symbols[s];
  r->old_cycles = r->new_cycles = 0;
  r->pairs = -1, r->pair_seconds = 0;
  for (e = 0; e < n; e++) {
    const struct measured *m = &runs[e].m[s];
    r->old_cycles += m->a / (double)n, r->new_cycles += m->b / (double)n;
    if (r->pairs < 0 || m->pairs < r->pairs) r->pairs = m->pairs;
    if (m->pair_seconds > r->pair_seconds) r->pair_seconds = m->pair_seconds;
    if (!(m->ratio > 0) || !(m->b > 0) || !isfinite(m->ratio)) ratios = 0;
  }
  /* the differences' interval, the same way: the verdict's when OLD
   * measures nothing (an empty function: no ratio) */
  for (e = 0; e < n; e++) x[e] = runs[e].m[s].difference;
  moments(x, n, &mean, &variance);
  half = t * cpucycles_sqrt(variance / (double)n);
  r->difference = mean, r->difference_low = mean - half, r->difference_high = mean + half;
  r->ratio = r->low = r->high = NAN;
  r->placement_sd = r->placement_share = r->within_sd = NAN;
  r->verdict = CPUCYCLES_COMPARE_INDISTINGUISHABLE;
  if (ratios) {
    for (e = 0; e < n; e++) {
      const struct measured *m = &runs[e].m[s];
      double w = m->difference_error / m->b; /* the log-ratio's error within */
      x[e] = log(m->ratio);
      within += w * w / (double)n;
    }
    moments(x, n, &mean, &variance);
    half = t * cpucycles_sqrt(variance / (double)n);
    r->ratio = exp(mean), r->low = exp(mean - half), r->high = exp(mean + half);
    r->within_sd = cpucycles_sqrt(within);
    r->placement_sd = variance > within ? cpucycles_sqrt(variance - within) : 0;
    r->placement_share = variance > 0 ? (variance > within ? variance - within : 0) / variance : 0;
    if (r->low > 1) r->verdict = CPUCYCLES_COMPARE_B_SLOWER;
    if (r->high < 1) r->verdict = CPUCYCLES_COMPARE_B_FASTER;
    r->beyond = r->low > 1 + tol;
  } else {
    if (r->difference_low > 0) r->verdict = CPUCYCLES_COMPARE_B_SLOWER;
    if (r->difference_high < 0) r->verdict = CPUCYCLES_COMPARE_B_FASTER;
    /* no ratio, no percentage: only a tolerance of 0 can be exceeded */
    r->beyond = r->verdict == CPUCYCLES_COMPARE_B_SLOWER && tol == 0;
  }
}

static const char *verdict_word(int verdict)
{
  return verdict == CPUCYCLES_COMPARE_B_SLOWER   ? "slower"
         : verdict == CPUCYCLES_COMPARE_B_FASTER ? "faster"
                                                 : "indistinguishable";
}

/* ---- output ---- */

#define COVERS "placement: each execution a fresh process (ASLR), with its own copy of each file, entry addresses, environment size and stack offset"
#define COVERS_NO_COPY "placement: each execution a fresh process (ASLR), with its own entry addresses, environment size and stack offset"

/* How a build was loaded in one execution, from its "placement" line:
 * MOVED (a copy, its code moved), COPIED (a copy as it is), FILE (the
 * file itself); *why says why not moved or not copied. */
enum { MOVED, COPIED, FILE_ITSELF };
#define SAID_COPIED "copied, not moved: "
#define SAID_FILE "loaded as it is: "
static int loaded_how(const struct outcome *run, int j, const char **why)
{
  const char *w = run->why[j];
  *why = 0;
  if (run->offset[j] >= 0) return MOVED;
  if (!strncmp(w, SAID_COPIED, strlen(SAID_COPIED))) {
    *why = w + strlen(SAID_COPIED);
    return COPIED;
  }
  *why = !strncmp(w, SAID_FILE, strlen(SAID_FILE)) ? w + strlen(SAID_FILE) : w[0] ? w : "not reported";
  return FILE_ITSELF;
}

/* One build's part of why the code's offset is not covered: "OLD: why"
 * for copies not moved, "OLD loaded as it is: why" for the file itself,
 * each with "in k of E executions" when not in all; "" when moved in
 * every execution. */
static void not_moved(const struct options *o, const struct outcome *runs, int j, char *text, size_t size)
{
  const char *why, *first[3] = {0, 0, 0}, *who = j ? "NEW" : "OLD";
  long e, count[3] = {0, 0, 0};
  size_t n = 0;
  int how;
  text[0] = 0;
  for (e = 0; e < o->executions; e++) {
    how = loaded_how(&runs[e], j, &why);
    if (!count[how]++) first[how] = why;
  }
  for (how = FILE_ITSELF; how >= COPIED && n < size; how--) {
    char times[64] = "";
    if (!count[how]) continue;
    if (count[how] < o->executions)
      snprintf(times, sizeof times, " in %ld of %ld executions", count[how], o->executions);
    n += (size_t)snprintf(text + n, size - n, "%s%s%s%s: %s", n ? "; " : "", who,
                          how == FILE_ITSELF ? " loaded as it is" : "", times, first[how]);
  }
}

/* What the intervals cover: COVERS, and the code's offset within its
 * pages where both builds were moved in every execution, or why not: a
 * copy of each file only where each was copied in every execution. */
static void covers(const struct options *o, const struct outcome *runs, char *text, size_t size)
{
  char why[2][300];
  const char *unused;
  long e;
  int j, all_copied = 1;
  if (!o->copy) {
    snprintf(text, size, "%s; not the code's offset within its pages (--no-copy)", COVERS_NO_COPY);
    return;
  }
  for (e = 0; e < o->executions; e++)
    for (j = 0; j < 2; j++)
      if (loaded_how(&runs[e], j, &unused) == FILE_ITSELF) all_copied = 0;
  not_moved(o, runs, 0, why[0], sizeof why[0]);
  not_moved(o, runs, 1, why[1], sizeof why[1]);
  if (!why[0][0] && !why[1][0])
    snprintf(text, size, "%s, and the code's offset within its pages", COVERS);
  else
    snprintf(text, size, "%s; not %sthe code's offset within its pages (%s%s%s)",
             all_copied ? COVERS : COVERS_NO_COPY, all_copied ? "" : "a fresh copy of each file or ",
             why[0], why[0][0] && why[1][0] ? "; " : "", why[1]);
}

static void json_string(const char *s)
{
  struct cpucycles_out out;
  size_t size = 6 * strlen(s) + 3;
  char *buf = malloc(size);
  if (!buf) {
    fputs("null", stdout);
    return;
  }
  cpucycles_out_start(&out, buf, size);
  cpucycles_out_json_string(&out, s);
  fputs(buf, stdout);
  free(buf);
}

static void json_number(double x)
{
  struct cpucycles_out out;
  char buf[64];
  if (!isfinite(x)) {
    fputs("null", stdout); /* JSON has no NaN */
    return;
  }
  cpucycles_out_start(&out, buf, sizeof buf);
  cpucycles_out_double(&out, x);
  fputs(buf, stdout);
}

static void json_key(const char *key, int first)
{
  printf("%s\n  \"%s\": ", first ? "{" : ",", key);
}

/* "old_code_offsets": [...] (null where not moved), "old_code_step": N
 * (0 when never moved), "old_loaded": ["moved copy" | "copy" | "file"...],
 * "old_loaded_why": [null | why not moved or not copied...], and NEW's. */
static void json_code(const struct options *o, const struct outcome *runs, int j, const char *who)
{
  char key[32];
  unsigned long step = 0;
  long e;
  snprintf(key, sizeof key, "%s_code_offsets", who);
  json_key(key, 0), fputs("[", stdout);
  for (e = 0; e < o->executions; e++) {
    if (e) fputs(", ", stdout);
    if (runs[e].offset[j] >= 0)
      printf("%ld", runs[e].offset[j]), step = runs[e].step[j];
    else
      fputs("null", stdout);
  }
  fputs("]", stdout);
  snprintf(key, sizeof key, "%s_code_step", who);
  json_key(key, 0), printf("%lu", step);
  /* how it was loaded in each execution, and why not moved or copied */
  snprintf(key, sizeof key, "%s_loaded", who);
  json_key(key, 0), fputs("[", stdout);
  for (e = 0; e < o->executions; e++) {
    const char *why;
    int how = loaded_how(&runs[e], j, &why);
    printf("%s\"%s\"", e ? ", " : "", how == MOVED ? "moved copy" : how == COPIED ? "copy" : "file");
  }
  fputs("]", stdout);
  snprintf(key, sizeof key, "%s_loaded_why", who);
  json_key(key, 0), fputs("[", stdout);
  for (e = 0; e < o->executions; e++) {
    const char *why;
    if (e) fputs(", ", stdout);
    loaded_how(&runs[e], j, &why);
    if (why) json_string(why);
    else fputs("null", stdout);
  }
  fputs("]", stdout);
}

static void print_json(const struct options *o, const struct row *rows, struct outcome *runs,
                       int status)
{
  char covered[1024];
  int s;
  long e;
  covers(o, runs, covered, sizeof covered);
  json_key("type", 1), json_string("cpucycles-compare");
  json_key("version", 0), json_string(CPUCYCLES_VERSION);
  json_key("old", 0), json_string(o->old_path);
  json_key("new", 0), json_string(o->new_path);
  json_key("executions", 0), printf("%ld", o->executions);
  json_key("seconds", 0), json_number(o->seconds);
  json_key("tolerance", 0), json_number(o->tolerance);
  json_key("confidence", 0), json_number(0.99);
  json_key("interval_covers", 0), json_string(covered);
  json_code(o, runs, 0, "old"), json_code(o, runs, 1, "new");
  json_key("results", 0), fputs("[", stdout);
  for (s = 0; s < o->nsymbols; s++) {
    const struct row *r = &rows[s];
    printf("%s\n    {\"symbol\": ", s ? "," : "");
    json_string(r->symbol);
    printf(", \"verdict\": \"%s\", \"beyond_tolerance\": %s", verdict_word(r->verdict),
           r->beyond ? "true" : "false");
    fputs(",\n     \"ratio\": ", stdout), json_number(r->ratio);
    fputs(", \"ratio_low\": ", stdout), json_number(r->low);
    fputs(", \"ratio_high\": ", stdout), json_number(r->high);
    fputs(",\n     \"old_cycles\": ", stdout), json_number(r->old_cycles);
    fputs(", \"new_cycles\": ", stdout), json_number(r->new_cycles);
    fputs(", \"difference\": ", stdout), json_number(r->difference);
    fputs(", \"difference_low\": ", stdout), json_number(r->difference_low);
    fputs(", \"difference_high\": ", stdout), json_number(r->difference_high);
    printf(",\n     \"pairs\": %lld", r->pairs);
    fputs(", \"placement_sd\": ", stdout), json_number(r->placement_sd);
    fputs(", \"placement_share\": ", stdout), json_number(r->placement_share);
    fputs(", \"within_sd\": ", stdout), json_number(r->within_sd);
    fputs(",\n     \"execution_ratios\": [", stdout);
    for (e = 0; e < o->executions; e++) {
      if (e) fputs(", ", stdout);
      json_number(runs[e].m[s].ratio);
    }
    fputs("]}", stdout);
  }
  fputs("\n  ]", stdout);
  json_key("status", 0), printf("%d", status);
  fputs("\n}\n", stdout);
}

/* a printable form of a path or name: control bytes as '?' */
static void put_clean(FILE *f, const char *s)
{
  for (; *s; s++) putc(clean_char(*s), f);
}

static void print_text(const struct options *o, const struct row *rows, const struct outcome *runs)
{
  char covered[1024];
  int s, width = 6;
  covers(o, runs, covered, sizeof covered);
  for (s = 0; s < o->nsymbols; s++)
    if ((int)strlen(o->symbols[s]) > width) width = (int)strlen(o->symbols[s]);
  fputs("NEW ", stdout), put_clean(stdout, o->new_path);
  fputs(" against OLD ", stdout), put_clean(stdout, o->old_path);
  printf(": %ld executions of %g s per symbol\n", o->executions, o->seconds);
  printf("the 99%% intervals cover the noise within each execution and %s\n", covered);
  printf("%-*s  %9s  %-21s  %10s  %10s  %9s  %5s  %s\n", width, "symbol", "new/old",
         "99% interval", "old cycles", "new cycles", "placement", "share", "verdict");
  for (s = 0; s < o->nsymbols; s++) {
    const struct row *r = &rows[s];
    char interval[64], sd[32], share[16];
    if (isfinite(r->ratio))
      snprintf(interval, sizeof interval, "[%.4f, %.4f]", r->low, r->high);
    else
      snprintf(interval, sizeof interval, "(no ratio: OLD ~0)");
    if (isfinite(r->placement_sd)) {
      snprintf(sd, sizeof sd, "%.3f%%", 100 * r->placement_sd);
      snprintf(share, sizeof share, "%.0f%%", 100 * r->placement_share);
    } else {
      snprintf(sd, sizeof sd, "-"), snprintf(share, sizeof share, "-");
    }
    put_clean(stdout, r->symbol);
    printf("%*s  %9.4f  %-21s  %10.1f  %10.1f  %9s  %5s  %s", width - (int)strlen(r->symbol), "",
           r->ratio, interval, r->old_cycles, r->new_cycles, sd, share, verdict_word(r->verdict));
    if (r->verdict == CPUCYCLES_COMPARE_B_SLOWER && o->tolerance > 0)
      printf(r->beyond ? " (beyond %g%%)" : " (within the tolerance of %g%%)", o->tolerance);
    putchar('\n');
  }
  puts("(placement: the standard deviation of NEW/OLD between executions beyond the noise\n"
       " within them; share: its part of the variance between executions)");
  for (s = 0; s < o->nsymbols; s++)
    if (rows[s].pair_seconds > 0) {
      fputc('(', stdout), put_clean(stdout, rows[s].symbol);
      printf(": %lld pairs in an execution, fewer than the %d kept when --seconds allows: a pair\n"
             " of calls takes %.3g s; --seconds %.3g for %d)\n",
             rows[s].pairs, HARNESS_MIN_PAIRS, rows[s].pair_seconds,
             1.05 * rows[s].pair_seconds * (HARNESS_MIN_PAIRS + SETUP_PAIRS), HARNESS_MIN_PAIRS);
    }
}

/* ---- the command line ---- */

static int bad(const char *what, const char *value, const char *why)
{
  fprintf(stderr, PROGRAM ": %s", what);
  if (value) fputs(" '", stderr), put_clean(stderr, value), fputc('\'', stderr);
  fprintf(stderr, ": %s\n", why);
  fputs(usage, stderr);
  return 2;
}

static int number(const char *option, const char *text, double low, double high, int whole,
                  double *x)
{
  const char *end;
  *x = cpucycles_parse_decimal(text, &end);
  if (end == text || *end || !(*x >= low && *x <= high) || (whole && *x != (double)(long)*x)) {
    char why[128];
    snprintf(why, sizeof why, "not %s from %g to %g", whole ? "a whole number" : "a number", low,
             high);
    return bad(option, text, why);
  }
  return 0;
}

/* a symbol goes into a line of the report: a C identifier's characters
 * (and those of versioned or mangled names), nothing else */
static int symbol_ok(const char *s)
{
  if (!*s) return 0;
  for (; *s; s++)
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
          *s == '_' || *s == '$' || *s == '.' || *s == '@'))
      return 0;
  return 1;
}

/* "aarch64 (64-bit, little-endian)": an ELF header's machine, class and
 * byte order, for a message */
static void machine_text(const unsigned char *h, char *buf, size_t size)
{
  static const struct {
    unsigned short machine;
    const char *name32, *name64; /* by ELF class */
  } names[] = {
      {62, "x32", "x86-64"},          {3, "i386", "i386"},
      {183, "aarch64", "aarch64"},    {40, "arm", "arm"},
      {243, "riscv32", "riscv64"},    {258, "loongarch32", "loongarch64"},
      {21, "powerpc64", "powerpc64"}, {20, "powerpc", "powerpc"},
      {22, "s390", "s390x"},          {8, "mips", "mips64"},
      {43, "sparc64", "sparc64"},     {2, "sparc", "sparc"},
      {50, "ia64", "ia64"},           {15, "hppa", "hppa64"},
      {4, "m68k", "m68k"},            {42, "sh", "sh"},
      {0x9026, "alpha", "alpha"},     {247, "bpf", "bpf"},
  };
  unsigned machine = h[5] == 2 ? (unsigned)h[18] << 8 | h[19] : (unsigned)h[19] << 8 | h[18];
  const char *name = 0;
  char number[32];
  size_t i;
  for (i = 0; i < sizeof names / sizeof *names; i++)
    if (names[i].machine == machine) name = h[4] == 2 ? names[i].name64 : names[i].name32;
  if (!name) snprintf(number, sizeof number, "machine %u", machine), name = number;
  snprintf(buf, size, "%s (%s, %s)", name,
           h[4] == 1 ? "32-bit" : h[4] == 2 ? "64-bit" : "an unknown class",
           h[5] == 1 ? "little-endian" : h[5] == 2 ? "big-endian" : "an unknown byte order");
}

/* This program's own ELF header (its class, byte order and machine are
 * those of the objects it can load), or 0. */
static const unsigned char *own_header(void)
{
  static const char here = 0;
  Dl_info info;
  if (!dladdr(&here, &info) || !info.dli_fbase || memcmp(info.dli_fbase, "\177ELF", 4) != 0)
    return 0;
  return info.dli_fbase;
}

/* A file both loadable in principle: a regular file (never opened
 * otherwise: a FIFO's open() would wait for a writer), readable, an ELF
 * shared object (ET_DYN) of this program's class, byte order and machine.
 * dlmopen() says the rest (a missing dependency) in the execution. */
static int check_file(const char *label, const char *path)
{
  unsigned char h[20];
  const unsigned char *own;
  char theirs[96], ours[96], kind[256];
  struct stat st;
  ssize_t n;
  int fd = -1, type;
  const char *why = 0;
  if (stat(path, &st) != 0) {
    why = strerror(errno);
  } else if (!S_ISREG(st.st_mode)) {
    snprintf(kind, sizeof kind, "not a regular file (%s)",
             S_ISDIR(st.st_mode)    ? "a directory"
             : S_ISFIFO(st.st_mode) ? "a FIFO"
             : S_ISCHR(st.st_mode)  ? "a character device"
             : S_ISBLK(st.st_mode)  ? "a block device"
             : S_ISSOCK(st.st_mode) ? "a socket"
                                    : "of another type");
    why = kind;
    /* (O_NONBLOCK: replaced by a FIFO since, it is not waited on) */
  } else if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) < 0) {
    why = strerror(errno);
  } else if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    why = "not a regular file";
  } else {
    n = read(fd, h, sizeof h);
    if (n < (ssize_t)sizeof h || memcmp(h, "\177ELF", 4) != 0) {
      why = "not an ELF file (no shared object)";
    } else {
      type = h[5] == 2 ? h[16] << 8 | h[17] : h[17] << 8 | h[16]; /* e_type, in its byte order */
      if (type != 3) /* ET_DYN */
        why = type == 1   ? "an ELF file but not a shared object (a relocatable object: link it with -shared)"
              : type == 2 ? "an ELF file but not a shared object (an executable)"
                          : "an ELF file but not a shared object";
      else if ((own = own_header()) != 0 &&
               (memcmp(h + 4, own + 4, 2) != 0 || memcmp(h + 18, own + 18, 2) != 0)) {
        /* (dlmopen() would say only "No such file" of a memfd copy) */
        machine_text(h, theirs, sizeof theirs), machine_text(own, ours, sizeof ours);
        snprintf(kind, sizeof kind, "built for %s; this tool runs %s objects", theirs, ours);
        why = kind;
      }
    }
  }
  if (fd >= 0) close(fd);
  if (!why) return 0;
  fprintf(stderr, PROGRAM ": %s ", label), put_clean(stderr, path), fprintf(stderr, ": %s\n", why);
  return 2;
}

static int finish(int status)
{
  if (fflush(stdout) != 0 || ferror(stdout)) {
    fprintf(stderr, PROGRAM ": cannot write the output: %s\n", strerror(errno));
    return 2;
  }
  return status;
}

/* Descriptors 0, 1 and 2 open (on /dev/null where closed): a pipe given
 * one of them would carry a benchmark's output, or the report would
 * reach the terminal.  0, or -1. */
static int standard_fds(void)
{
  int fd, got;
  for (fd = 0; fd <= 2; fd++)
    if (fcntl(fd, F_GETFD) < 0 && errno == EBADF) {
      if ((got = open("/dev/null", fd ? O_WRONLY : O_RDONLY)) < 0) return -1;
      if (got != fd) { /* (the lowest free number: fd, but for a race) */
        if (dup2(got, fd) < 0) return -1;
        close(got);
      }
    }
  return 0;
}

int main(int argc, char **argv)
{
  static struct self self; /* (large) */
  struct options o;
  struct outcome *runs;
  struct row rows[MAX_SYMBOLS];
  const char *files[2];
  char why[300];
  double x, expected, started;
  long e;
  int i, s, nfiles = 0, status = 0, show_progress, tty;

  if (standard_fds() != 0) {
    /* (stderr may be the closed one: the status says it all then) */
    fprintf(stderr, PROGRAM ": a closed standard descriptor, and /dev/null: %s\n", strerror(errno));
    return 2;
  }
  if (argc >= 2 && !strcmp(argv[1], INTERNAL)) return execution(argc, argv);

  memset(&o, 0, sizeof o);
  o.executions = 10, o.seconds = 0.5, o.tolerance = 0, o.timeout = 60, o.copy = 1;
  for (i = 1; i < argc; i++) {
    const char *a = argv[i];
    int takes = !strcmp(a, "--symbol") || !strcmp(a, "--executions") || !strcmp(a, "--seconds") ||
                !strcmp(a, "--tolerance") || !strcmp(a, "--timeout");
    if (takes && i + 1 >= argc) return bad(a, 0, "needs a value");
    if (!strcmp(a, "--help")) {
      fputs(usage, stdout);
      return finish(0);
    } else if (!strcmp(a, "--version")) {
      printf(PROGRAM " %s\n", CPUCYCLES_VERSION);
      return finish(0);
    } else if (!strcmp(a, "--symbol")) {
      if (!symbol_ok(argv[++i])) return bad(a, argv[i], "not a symbol's name");
      if (strlen(argv[i]) > SYMBOL_MAX) return bad(a, 0, "a name over " STR(SYMBOL_MAX) " bytes");
      for (s = 0; s < o.nsymbols; s++)
        if (!strcmp(o.symbols[s], argv[i])) return bad(a, argv[i], "named twice");
      if (o.nsymbols == MAX_SYMBOLS) return bad(a, argv[i], "more than 64 symbols");
      o.symbols[o.nsymbols++] = argv[i];
    } else if (!strcmp(a, "--executions")) {
      if (number(a, argv[++i], 2, MAX_EXECUTIONS, 1, &x)) return 2;
      o.executions = (long)x;
    } else if (!strcmp(a, "--seconds")) {
      if (number(a, argv[++i], 0.001, 3600, 0, &x)) return 2;
      o.seconds = x;
    } else if (!strcmp(a, "--tolerance")) {
      if (number(a, argv[++i], 0, 99.999, 0, &x)) return 2;
      o.tolerance = x;
    } else if (!strcmp(a, "--timeout")) {
      if (number(a, argv[++i], 0.001, 86400, 0, &x)) return 2;
      o.timeout = x;
    } else if (!strcmp(a, "--json")) {
      o.json = 1;
    } else if (!strcmp(a, "--progress")) {
      o.progress = 1;
    } else if (!strcmp(a, "--no-copy")) {
      o.copy = 0;
    } else if (a[0] == '-' && a[1]) {
      return bad("unknown option", a, "see --help");
    } else if (nfiles < 2) {
      files[nfiles++] = a;
    } else {
      return bad("unexpected argument", a, "give two files, OLD and NEW");
    }
  }
  if (nfiles < 2) return bad("missing", 0, nfiles ? "NEW.so" : "OLD.so and NEW.so");
  o.old_path = files[0], o.new_path = files[1];
  if (!o.nsymbols) o.symbols[o.nsymbols++] = "benchmark";
  if (check_file("OLD", o.old_path) || check_file("NEW", o.new_path)) return 2;
  if (find_self(argv[0], &self, why, sizeof why) != 0) {
    complain("%s", why);
    return 2;
  }
#if defined(MFD_CLOEXEC)
  /* the executions load their fresh copies by their /proc/self/fd names */
  if (o.copy && access("/proc/self/fd", X_OK) != 0) {
    complain("the fresh copies of OLD and NEW are loaded through /proc/self/fd, which cannot be "
             "read here (%s): mount /proc, or give --no-copy", strerror(errno));
    return 2;
  }
#endif
  if (catch_signals() != 0) {
    complain("signals: %s", strerror(errno));
    return 2;
  }

  runs = calloc((size_t)o.executions, sizeof *runs);
  if (!runs) return bad("out of memory", 0, "the executions' results");
  for (e = 0; e < o.executions; e++)
    if (!(runs[e].m = calloc((size_t)o.nsymbols, sizeof *runs[e].m))) {
      status = bad("out of memory", 0, "the executions' results");
      goto out;
    }

  rng_state = (unsigned long long)time(0) * 0x9e3779b97f4a7c15ULL ^ (unsigned long long)getpid() << 20;
  if (!rng_state) rng_state = 1;
  /* (each execution also pays a process, two loads and a first call) */
  expected = (double)o.executions * ((double)o.nsymbols * (o.seconds + 0.05) + 0.05);
  tty = isatty(2);
  show_progress = o.progress || (tty && expected > PROGRESS_AFTER);
  started = now();
  for (e = 0; e < o.executions; e++) {
    if (run_execution(&o, &self, e, &runs[e]) != 0) {
      if (show_progress && tty) fputs("\r\033[K", stderr);
      status = 2;
      goto out;
    }
    if (show_progress)
      fprintf(stderr, PROGRAM ": execution %ld of %ld done, %.1f s%s", e + 1, o.executions,
              now() - started, tty ? "\r" : "\n");
  }
  if (show_progress && tty) fputs("\r\033[K", stderr);

  {
    double *scratch = calloc((size_t)o.executions, sizeof *scratch);
    if (!scratch) {
      status = bad("out of memory", 0, "the statistics");
      goto out;
    }
    for (s = 0; s < o.nsymbols; s++) {
      combine(&o, runs, s, &rows[s], scratch);
      if (rows[s].beyond) status = 1;
    }
    free(scratch);
  }
  if (o.json) print_json(&o, rows, runs, status);
  else print_text(&o, rows, runs);
  status = finish(status);
out:
  for (e = 0; e < o.executions; e++) free(runs[e].m);
  free(runs);
  return status;
}
