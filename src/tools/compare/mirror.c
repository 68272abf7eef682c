/* SPDX-License-Identifier: MIT */
/* mirror.c - where cpucycles-compare puts a build's fresh copy: a file in
 * a directory of its own that mirrors the build's path, so that the copy
 * finds at run time what the build itself finds.
 *
 * A build may find its siblings at run time: through $ORIGIN (its
 * DT_RUNPATH, or dlopen("$ORIGIN/plug.so"), which glibc expands from the
 * directory of the name the object was loaded by), or through its own
 * path (dladdr(), then a file beside it).  A copy loaded from elsewhere
 * (a memory file's /proc/self/fd) finds nothing there.  So the copy of
 * /a/b/c/libx.so lies at ROOT/LABEL/a/b/c/libx.so, and every directory
 * on that path mirrors the real one: ROOT/LABEL/a/b/c holds a symbolic
 * link to each entry of /a/b/c but libx.so, ROOT/LABEL/a/b one to each
 * entry of /a/b but c, and so on up to ROOT/LABEL, which mirrors /.  A
 * path relative to the copy's directory ("plug.so", "../lib/libw.so.1",
 * "../share/data") then leads to the same file as from the build's.
 * What differs: the copy's own path (dladdr(), /proc/self/maps), and a
 * file the build creates beside itself, which lands in the mirror.
 *
 * ROOT is a fresh directory in the first of $TMPDIR, /tmp, /var/tmp and
 * /dev/shm that exists, can be written and allows running code (not
 * mounted noexec: the copy is mapped executable), made by the parent once
 * a run and removed at its end, or when a signal ends it (the links, never
 * what they lead to). */
#include "compare-tool.h"
#include "elf-shift.h"
#include "rng.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The copy written (compare-tool.h says what it holds). */
int mirror_copy(const unsigned char *image, size_t image_size, const char *copy, unsigned long long *seed,
                long *offset, unsigned long *step, char *why, size_t why_size)
{
  unsigned char *moved = 0;
  const unsigned char *bytes;
  const char *unmoved = "not on x86-64 (only there is its code moved within its pages)";
  size_t moved_size = 0, done, length;
  ssize_t w;
  int out, tries;
  *offset = -1, *step = 0;
#if defined(__x86_64__)
  *step = cpucycles_elf_shift_step(image, image_size, &unmoved);
  /* an offset at which two segments would share a page badly is
   * refused: another draw, a few times */
  for (tries = 0; *step && tries < 8 && !moved; tries++) {
    *offset = (long)((cpucycles_xorshift(seed) >> 11) % (4096 / *step) * *step);
    if (cpucycles_elf_shift(image, image_size, (unsigned long)*offset, &moved, &moved_size, &unmoved) != 0)
      *offset = -1;
  }
#else
  (void)tries, (void)seed;
#endif
  unlink(copy);
  out = open(copy, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0700);
  if (out < 0) {
    snprintf(why, why_size, "cannot make its copy: %s", strerror(errno));
    free(moved);
    *offset = -1;
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
      snprintf(why, why_size, "cannot write its copy: %s", w < 0 ? strerror(errno) : "no room");
      free(moved);
      close(out);
      *offset = -1;
      return -1;
    }
  free(moved);
  if (close(out) != 0) {
    snprintf(why, why_size, "cannot write its copy: %s", strerror(errno));
    *offset = -1;
    return -1;
  }
  if (*offset < 0) snprintf(why, why_size, "%s", unmoved);
  return 0;
}

/* ROOT made: 0, or -1 with why. */
int mirror_root(char *root, size_t size, char *why, size_t why_size)
{
  const char *places[] = {getenv("TMPDIR"), "/tmp", "/var/tmp", "/dev/shm"};
  struct statvfs fs;
  size_t i;
  for (i = 0; i < sizeof places / sizeof places[0]; i++) {
    const char *dir = places[i];
    if (!dir || dir[0] != '/' || access(dir, W_OK | X_OK) != 0) continue;
#if defined(ST_NOEXEC)
    if (statvfs(dir, &fs) == 0 && (fs.f_flag & ST_NOEXEC)) continue;
#else
    (void)fs;
#endif
    if ((size_t)snprintf(root, size, "%s/cpucycles-compare.XXXXXX", dir) >= size) continue;
    if (mkdtemp(root)) return 0;
  }
  snprintf(why, why_size,
           "no directory for its copy that can be written and runs code ($TMPDIR, /tmp, /var/tmp, "
           "/dev/shm: missing, read-only or mounted noexec)");
  return -1;
}

/* dir (a mirror of real, a directory) filled with a link to each entry of
 * real but skip: 0, or -1 with why. */
static int link_entries(const char *dir, const char *real, const char *skip, char *why, size_t why_size)
{
  char target[4096], link[4096];
  struct dirent *e;
  DIR *d = opendir(*real ? real : "/");
  if (!d) {
    snprintf(why, why_size, "cannot list %s for its copy's directory: %s", *real ? real : "/", strerror(errno));
    return -1;
  }
  while ((e = readdir(d)) != 0) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || !strcmp(e->d_name, skip)) continue;
    if ((size_t)snprintf(target, sizeof target, "%s/%s", real, e->d_name) >= sizeof target ||
        (size_t)snprintf(link, sizeof link, "%s/%s", dir, e->d_name) >= sizeof link)
      continue; /* a name too long to reach through the mirror anyway */
    if (symlink(target, link) != 0 && errno != EEXIST) {
      snprintf(why, why_size, "cannot link %s in its copy's directory: %s", target, strerror(errno));
      closedir(d);
      return -1;
    }
  }
  closedir(d);
  return 0;
}

/* The mirror of path's directory under ROOT/label, and in copy the path
 * its copy goes at: 0, or -1 with why.  The directory is taken as the
 * system resolves it (realpath(): no "." or "..", no link): a path
 * relative to it then leads where it leads from the name the build was
 * given, and each directory of the mirror is one this function made. */
int mirror_make(const char *root, const char *label, const char *path, char *copy, size_t size, char *why,
                size_t why_size)
{
  char given[4096], absolute[PATH_MAX], real[4096], dir[4096 + 256];
  const char *p, *next, *base = strrchr(path, '/');
  size_t n;
  snprintf(given, sizeof given, "%.*s", base ? (int)(base - path) : 1, base ? (base == path ? "/" : path) : ".");
  base = base ? base + 1 : path;
  if (!realpath(given, absolute)) {
    snprintf(why, why_size, "cannot resolve its directory: %s", strerror(errno));
    return -1;
  }
  if ((size_t)snprintf(dir, sizeof dir, "%s/%s", root, label) >= sizeof dir || mkdir(dir, 0700) != 0) {
    snprintf(why, why_size, "no directory for its copy: %s", strerror(errno));
    return -1;
  }
  real[0] = 0;
  /* each component: its parent mirrored but for it, then it made a
   * directory of the mirror ("/" has none) */
  for (p = absolute + 1; *p; p = *next ? next + 1 : next) {
    char name[256];
    if (!(next = strchr(p, '/'))) next = p + strlen(p);
    if ((size_t)(next - p) >= sizeof name) {
      snprintf(why, why_size, "a name in its path is too long");
      return -1;
    }
    memcpy(name, p, (size_t)(next - p)), name[next - p] = 0;
    if (link_entries(dir, real, name, why, why_size) != 0) return -1;
    n = strlen(real), snprintf(real + n, sizeof real - n, "/%s", name);
    n = strlen(dir), snprintf(dir + n, sizeof dir - n, "/%s", name);
    if (mkdir(dir, 0700) != 0) {
      snprintf(why, why_size, "no directory for its copy: %s", strerror(errno));
      return -1;
    }
  }
  if (link_entries(dir, real, base, why, why_size) != 0) return -1;
  if ((size_t)snprintf(copy, size, "%s/%s", dir, base) >= size) {
    snprintf(why, why_size, "its copy's path is too long");
    return -1;
  }
  return 0;
}

/* dir's entries removed, then dir itself: links and files unlinked (what
 * a link leads to is never touched), directories emptied the same way.
 * Only system calls (open, getdents64, unlinkat), so that a signal's
 * handler may call it: the run ended by SIGINT leaves nothing behind. */
static void remove_tree(int parent, const char *name, int depth)
{
#if defined(__linux__) && defined(SYS_getdents64)
  char buf[4096];
  long n, at;
  int fd;
  if (depth > 64) return;
  fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return;
  while ((n = syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0)
    for (at = 0; at < n;) {
      /* struct linux_dirent64: ino 8, off 8, reclen 2, type 1, name */
      unsigned short reclen;
      const char *entry = buf + at + 19;
      unsigned char type = (unsigned char)buf[at + 18];
      memcpy(&reclen, buf + at + 16, sizeof reclen);
      at += reclen;
      if (!strcmp(entry, ".") || !strcmp(entry, "..")) continue;
      if (type == DT_DIR) remove_tree(fd, entry, depth + 1);
      else unlinkat(fd, entry, 0);
    }
  close(fd);
  unlinkat(parent, name, AT_REMOVEDIR);
#else
  (void)parent, (void)name, (void)depth;
#endif
}

/* ROOT and all in it. */
void mirror_remove(const char *root)
{
  if (root && root[0] == '/') remove_tree(AT_FDCWD, root, 0);
}
