/* SPDX-License-Identifier: MIT */
/* load.c - cpucycles-compare's builds: the parent's check of each file
 * (check_file()), and in each execution the loading of each build in a
 * link-map namespace of its own (load_build()) and the check that a
 * symbol found in it is its own (defined_by()).
 *
 * An execution loads a fresh copy of each file (a memfd), so new physical
 * pages back the code (the page cache would give every execution the same
 * ones), and on x86-64 the copy's code moved to a random offset within
 * its pages (elf-shift.h: which cache lines and fetch blocks a hot loop
 * spans changes from one execution to the next); the libraries a build
 * finds through $ORIGIN (a build tree's own), which the copy's origin
 * (/proc/self/fd) would not find, are loaded from the file's directory
 * into its namespace first, where the copy finds them (so their own
 * references to a symbol the build also defines bind to theirs, not the
 * build's: --no-copy where that matters).
 *
 * Where the code cannot be moved (other architectures, an object
 * elf-shift.c refuses) or no copy can be made (--no-copy, no memfd, a
 * file over 256 MiB, a copy the loader refuses: then the file itself is
 * loaded, as named, never searched for on the library path), its offsets
 * within its pages are the build's, and each execution reports how each
 * build was loaded and why, which the output says: a change that moves a
 * hot loop across a cache-line boundary is then measured as what it is.
 *
 * The functions measured are the build's own: dlsym() also finds its
 * dependencies' (libc's getpid), which count as missing. */
#include "compare-tool.h"
#include "elf-shift.h"
#include "readfile.h"
#include "rng.h"
#include <dlfcn.h>
#include <link.h> /* struct link_map */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

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
  int origin_deps;    /* the libraries it finds through $ORIGIN, loaded
                         first as they are (not copied, not moved) */
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

/* The dependencies found through $ORIGIN loaded into one namespace, a
 * new one (*namespace -1) that the first of them opens, its id then in
 * *namespace.  Returns how many loaded: ndeps when all did, else fewer
 * with l->why (those loaded, preloaded[0 .. n), left to the caller). */
static int preload(char deps[][4096], int ndeps, void **preloaded, long *namespace, struct loading *l)
{
  const char *error;
  int i, n = 0;
  for (i = 0; i < ndeps; i++) {
    dlerror();
    if (!(preloaded[n] = open_in(*namespace, deps[i], RTLD_NOW | RTLD_LOCAL))) {
      error = dlerror();
      snprintf(l->why, sizeof l->why, "its dependency %s, found through $ORIGIN, did not load beside its copy: %s",
               deps[i], error ? error : "(no reason given)");
      break;
    }
#if defined(LM_ID_NEWLM)
    if (*namespace < 0) {
      Lmid_t id;
      if (dlinfo(preloaded[n], RTLD_DI_LMID, &id) != 0) {
        dlclose(preloaded[n]);
        snprintf(l->why, sizeof l->why, "its dependency %s: no namespace", deps[i]);
        break;
      }
      *namespace = (long)id;
    }
#endif
    n++;
  }
  return n;
}

/* A fresh copy of the build loaded: its handle, with *fd_out the copy's
 * descriptor and l saying where its code lies; or 0 with l->why, nothing
 * left loaded or open.  A build that finds its own libraries through
 * $ORIGIN has them loaded first, from its file's directory, into the
 * namespace its copy then goes into: the copy's DT_NEEDED finds them
 * there by soname. */
static void *load_copy(const char *path, unsigned long long *seed, struct loading *l, int *fd_out)
{
  static char deps[MAX_PRELOAD][4096];
  char name[64], why[200];
  void *h = 0, *preloaded[MAX_PRELOAD];
  unsigned char *image;
  size_t image_size = 0;
  const char *error;
  long namespace = -1;
  int fd, ndeps, npreloaded;

  if (!(image = read_all(path, &image_size, l->why, sizeof l->why))) return 0;
  if ((ndeps = origin_dependencies(path, image, image_size, deps, why, sizeof why)) < 0) {
    snprintf(l->why, sizeof l->why, "its dependencies are unknown: %.160s", why);
    free(image);
    return 0;
  }
  if ((fd = fresh_copy(image, image_size, name, sizeof name, seed, l)) < 0) {
    free(image);
    return 0;
  }
  npreloaded = preload(deps, ndeps, preloaded, &namespace, l);
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
      snprintf(l->why, sizeof l->why, "the loader refused its copy: %s", error ? error : "(no reason given)");
    }
  }
  if (h) {
    l->copied = 1;
    l->origin_deps = ndeps;
  } else {
    close(fd), fd = -1;
    l->offset = -1;
    while (npreloaded > 0) dlclose(preloaded[--npreloaded]);
  }
  free(image);
  *fd_out = fd;
  return h;
}

/* Loads one build in a namespace of its own, or ends the execution with
 * a message; *fd is its copy's descriptor (or -1), to be closed once both
 * are loaded: a descriptor closed at once would give the other build's
 * copy the same /proc/self/fd name, and where there are no namespaces
 * dlopen() would take that name for the build already loaded.
 *
 * A copy is loaded where one can be made and the loader takes it; else
 * the file itself, and its "placement" line says why. */
void *load_build(const char *label, const char *path, int copy, int *fd_out, unsigned long long *seed)
{
  char bare[4096 + 3];
  struct loading l;
  const char *error;
  void *h = 0;

  memset(&l, 0, sizeof l);
  l.offset = -1;
  *fd_out = -1;
  say("step load %s", label);
  if (!copy)
    snprintf(l.why, sizeof l.why, "--no-copy");
  else
    h = load_copy(path, seed, &l, fd_out);
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
    say("placement %s - %s: %s", label, l.copied ? PLACEMENT_COPIED : PLACEMENT_FILE, l.why);
  /* a copy's own libraries, found through $ORIGIN, are the files as
   * they are: the report says so (their code is not moved) */
  if (l.origin_deps) say("dependencies %s %d", label, l.origin_deps);
  return h;
}

/* Whether p, which dlsym() found for handle, lies in the object handle
 * loaded itself: dlsym() searches that object's dependencies too (libc's
 * getpid for a build without one).  When not, *elsewhere names the object
 * it lies in (0 when none). */
int defined_by(void *handle, void *p, const char **elsewhere)
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

/* For cpucycles_readfile_lines over /proc/self/maps: whether the mapping
 * that holds where->p may be executed ("start-end perms ..."). */
struct mapping_of {
  uintptr_t p;
  int found, executable;
};
static int mapping_line(void *ctx, const char *line, size_t len)
{
  struct mapping_of *m = ctx;
  unsigned long long start, end;
  char perms[5];
  (void)len;
  if (sscanf(line, "%llx-%llx %4s", &start, &end, perms) != 3) return 0;
  if (m->p < start || m->p >= end) return 0;
  m->found = 1, m->executable = perms[2] == 'x';
  return 1;
}

/* 1 when p lies in memory that may not be executed (a data object: an
 * array, a variable, which a call would run as code: the execution would
 * die of SIGSEGV); 0 for code, or where nothing says (no /proc).  The
 * mappings, not the symbol table: musl has no dladdr1() to give a
 * symbol's type, and a moved copy's symbols are where its segments now
 * are. */
int is_data(void *p)
{
  char buf[512];
  struct mapping_of m;
  m.p = (uintptr_t)p, m.found = 0, m.executable = 1;
  if (cpucycles_readfile_lines("/proc/self/maps", buf, sizeof buf, mapping_line, &m) < 0) return 0;
  return m.found && !m.executable;
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
int check_file(const char *label, const char *path)
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
