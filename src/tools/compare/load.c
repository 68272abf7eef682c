/* SPDX-License-Identifier: MIT */
/* load.c - cpucycles-compare's builds: the parent's check of each file
 * (file_kind()), and in each execution the loading of each build in a
 * link-map namespace of its own (load_build()) and the check that a
 * symbol found in it is its own (defined_by()).
 *
 * An execution loads a fresh copy of each file, written anew where the
 * parent's mirror of the build's directory puts it (mirror.c: so that the
 * copy finds at run time the files the build finds beside itself), so
 * new physical pages back the code (the page cache would give every
 * execution the same ones), and on x86-64 the copy's code moved to a
 * random offset within its pages (elf-shift.h: which cache lines and
 * fetch blocks a hot loop spans changes from one execution to the next).
 *
 * Where the code cannot be moved (other architectures, an object
 * elf-shift.c refuses) or no copy can be made (--no-copy, no directory
 * for it, a file over 256 MiB, a copy the loader refuses: then the file itself is
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
  unsigned long code_align, data_align; /* (elf-shift.h) 0: unknown */
  char why[200];
};

/* A name dlopen() takes as the file itself: one without a slash would be
 * searched for on the library path (another file of that name, or none),
 * not in the working directory where the parent found it. */
static const char *as_path(const char *path, char *buf, size_t size)
{
  if (strchr(path, '/')) return path;
  snprintf(buf, size, "./%s", path);
  return buf;
}

/* dlmopen() or, without namespaces, dlopen() (not glibc: each build local
 * to its own handle; but a dependency both builds name by one soname,
 * their own versions of a library, is loaded once, the first build's:
 * cpucycles-compare(1)). */
static void *open_in(const char *file, int flags)
{
#if defined(LM_ID_NEWLM)
  return dlmopen(LM_ID_NEWLM, file, flags);
#else
  return dlopen(file, flags);
#endif
}

/* A fresh copy of the build loaded from copy: its handle, with l saying
 * where its code lies; or 0 with l->why, nothing left loaded. */
static void *load_copy(const char *path, const char *copy, unsigned long long *seed, struct loading *l)
{
  void *h = 0;
  unsigned char *image;
  size_t image_size = 0;
  const char *error;

  if (!(image = read_all(path, &image_size, l->why, sizeof l->why))) return 0;
  if (cpucycles_elf_alignments(image, image_size, &l->code_align, &l->data_align) != 0)
    l->code_align = l->data_align = 0;
  if (mirror_copy(image, image_size, copy, seed, &l->offset, &l->step, l->why, sizeof l->why) == 0) {
    dlerror();
    if (!(h = open_in(copy, RTLD_NOW | RTLD_LOCAL))) {
      error = dlerror();
      snprintf(l->why, sizeof l->why, "the loader refused its copy: %s", error ? error : "(no reason given)");
      l->offset = -1;
    }
  }
  if (h) l->copied = 1;
  free(image);
  return h;
}

/* Loads one build in a namespace of its own, or ends the execution with
 * a message.  copy is where its fresh copy goes (an absolute path, in a
 * directory that mirrors the build's: mirror.c), or why none is made.
 * A copy is loaded where one can be made and the loader takes it; else
 * the file itself, and its "placement" line says why. */
void *load_build(const char *label, const char *path, const char *copy, unsigned long long *seed)
{
  char bare[4096 + 3];
  struct loading l;
  const char *error;
  void *h = 0;

  memset(&l, 0, sizeof l);
  l.offset = -1;
  say("step load %s", label);
  if (copy[0] != '/')
    snprintf(l.why, sizeof l.why, "%s", copy);
  else
    h = load_copy(path, copy, seed, &l);
  if (!h) {
    dlerror();
    h = open_in(as_path(path, bare, sizeof bare), RTLD_NOW | RTLD_LOCAL);
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
  /* what its sections' alignment allows the move (a copy's only: a file
   * loaded as it is never moves, for whatever reason, and says so) */
  if (l.copied) say("alignment %s %lu %lu", label, l.code_align, l.data_align);
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

/* An ELF file's number of bytes at h (2, 4 or 8), in its byte order. */
static unsigned long long elf_number(const unsigned char *h, int bytes, int big)
{
  unsigned long long x = 0;
  int k;
  for (k = 0; k < bytes; k++) x |= (unsigned long long)h[big ? bytes - 1 - k : k] << (8 * k);
  return x;
}

/* Whether the ELF file open on fd, whose header is h[0..64), names a
 * dynamic loader (PT_INTERP): a program, position-independent or not. */
static int has_interpreter(int fd, const unsigned char *h)
{
  int wide = h[4] == 2, big = h[5] == 2;
  unsigned long long phoff = elf_number(h + (wide ? 32 : 28), wide ? 8 : 4, big);
  unsigned long long entsize = elf_number(h + (wide ? 54 : 42), 2, big), count = elf_number(h + (wide ? 56 : 44), 2, big);
  unsigned char ph[4];
  unsigned long long k;
  if (entsize < 4 || count > 4096) return 0;
  for (k = 0; k < count; k++)
    if (pread(fd, ph, 4, (off_t)(phoff + k * entsize)) == 4 && elf_number(ph, 4, big) == 3 /* PT_INTERP */)
      return 1;
  return 0;
}

/* A file comparable in principle: a regular file (never opened otherwise:
 * a FIFO's open() would wait for a writer), readable, an ELF file of this
 * program's class, byte order and machine, and either a shared object
 * (ET_DYN without an interpreter: loaded with dlmopen(), which says the
 * rest, a missing dependency, in the execution) or a program (ET_EXEC, or
 * ET_DYN with one: a position-independent executable, run).  Its KIND_*,
 * or -1 with a message. */
int file_kind(const char *label, const char *path)
{
  unsigned char h[64];
  const unsigned char *own;
  char theirs[96], ours[96], kind[256];
  struct stat st;
  ssize_t n;
  int fd = -1, type, found = -1;
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
    if (n < 20 || memcmp(h, "\177ELF", 4) != 0) {
      why = "not an ELF file (no shared object, no program)";
    } else if ((own = own_header()) != 0 &&
               (memcmp(h + 4, own + 4, 2) != 0 || memcmp(h + 18, own + 18, 2) != 0)) {
      /* (dlmopen() would say "wrong ELF class" or the like, of the copy) */
      machine_text(h, theirs, sizeof theirs), machine_text(own, ours, sizeof ours);
      snprintf(kind, sizeof kind, "built for %s; this tool runs %s objects", theirs, ours);
      why = kind;
    } else {
      type = h[5] == 2 ? h[16] << 8 | h[17] : h[17] << 8 | h[16]; /* e_type, in its byte order */
      if (type == 2) found = KIND_PROGRAM;
      else if (type == 3 && n == (ssize_t)sizeof h) found = has_interpreter(fd, h) ? KIND_PROGRAM : KIND_SHARED_OBJECT;
      else
        why = type == 1 ? "an ELF file but neither a shared object nor a program (a relocatable object: "
                          "link it with -shared)"
                        : "an ELF file but neither a shared object nor a program";
    }
  }
  if (fd >= 0) close(fd);
  if (!why) return found;
  fprintf(stderr, PROGRAM ": %s ", label), put_clean(stderr, path), fprintf(stderr, ": %s\n", why);
  return -1;
}
