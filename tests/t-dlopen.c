/* SPDX-License-Identifier: MIT */
/* t-dlopen - a plugin host loads and unloads the shared library 1000
 * times; each time it makes the first call and calls
 * cpucycles_tracesetup(), which measures every counter (setting each up,
 * perf events included: under tests/perfshim on a machine without a PMU).  Unloading must give
 * everything back: no descriptor or mapping of a perf event, no growth in
 * descriptors or resident memory, and no thread-exit handler left pointing
 * into the unloaded code (a thread that read a perf counter exits after
 * the unload).  And a load maps the library's read-only data, so that the
 * first call does not fault on it (/proc/self/pagemap: each page present),
 * and allocates the loading thread's block of its thread-local variables
 * (dl_iterate_phdr's dlpi_tls_data), so that the first call does not. */
#include "pagemap.h"
#include "perf-util.h"
#include "tap.h"
#include <fcntl.h>
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define CYCLES 1000
#define WARM_UP 100

/* Open descriptors of this process. */
static int open_fds(void)
{
  DIR *d = opendir("/proc/self/fd");
  struct dirent *e;
  int n = 0;
  if (!d) return -1;
  while ((e = readdir(d)) != 0) n += e->d_name[0] != '.';
  closedir(d);
  return n - 1; /* the directory's own descriptor */
}

/* Resident memory in KiB. */
static long rss_kib(void)
{
  FILE *f = fopen("/proc/self/statm", "r");
  long size = 0, resident = 0;
  if (!f) return -1;
  if (fscanf(f, "%ld %ld", &size, &resident) != 2) resident = -1;
  fclose(f);
  return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

struct library {
  long long (*count)(void);
  void (*tracesetup)(void);
};

/* A thread that reads the count and exits only after the library is
 * unloaded. */
static volatile int unloaded, read_done;
static void *read_in_thread(void *arg)
{
  struct library *l = arg;
  l->count();
  __atomic_store_n(&read_done, 1, __ATOMIC_RELEASE);
  while (!__atomic_load_n(&unloaded, __ATOMIC_ACQUIRE)) sched_yield();
  return 0;
}

/* The library's read-only data segments (not its first, the loader's),
 * page by page, their first 16 (the most the library maps at load): how
 * many are not in the page tables yet. */
struct read_only_pages {
  const char *path;
  int pagemap;            /* 1: count the pages (not under qemu-user) */
  long pages, absent;
  const char *why;
  int found;              /* the library was among the loaded objects */
  size_t tls_module;      /* its TLS module (0: none) */
  void *tls_block;        /* this thread's block of it, or NULL */
};

static int count_absent_pages(struct dl_phdr_info *info, size_t size, void *arg)
{
  struct read_only_pages *p = arg;
  long page = sysconf(_SC_PAGESIZE);
  int i;
  (void)size;
  if (!info->dlpi_name || strcmp(info->dlpi_name, p->path) != 0) return 0;
  p->found = 1;
  p->tls_module = info->dlpi_tls_modid;
  p->tls_block = info->dlpi_tls_data;
  if (!p->pagemap) return 1;
  for (i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    uintptr_t at, end;
    if (ph->p_type != PT_LOAD || ph->p_offset == 0 || (ph->p_flags & (PF_W | PF_X))) continue;
    at = (info->dlpi_addr + ph->p_vaddr) / (uintptr_t)page * (uintptr_t)page;
    end = info->dlpi_addr + ph->p_vaddr + ph->p_filesz;
    for (; at < end && p->pages < 16; at += (uintptr_t)page) {
      int present = test_page_present((const void *)at);
      if (present < 0) {
        p->why = "/proc/self/pagemap cannot be read here";
        return 1;
      }
      p->pages++;
      p->absent += !present;
    }
  }
  return 1;
}

/* One load, first call, tracesetup (its lines to /dev/null), a read in a
 * thread that outlives the unload, unload.  0, or -1 with *why. */
static int cycle(const char *path, const char **why, pthread_t *late_thread)
{
  struct library l;
  int out, null;
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    *why = dlerror();
    return -1;
  }
  *(void **)&l.count = dlsym(h, "cpucycles_function");
  *(void **)&l.tracesetup = dlsym(h, "cpucycles_tracesetup");
  if (!l.count || !l.tracesetup) {
    *why = "the library does not export cpucycles_function and cpucycles_tracesetup";
    dlclose(h);
    return -1;
  }
  l.count();
  fflush(stdout);
  out = dup(1);
  null = open("/dev/null", O_WRONLY);
  dup2(null, 1);
  l.tracesetup();
  dup2(out, 1);
  close(out);
  close(null);
  unloaded = read_done = 0;
  if (late_thread && pthread_create(late_thread, 0, read_in_thread, &l) != 0) late_thread = 0;
  while (late_thread && !__atomic_load_n(&read_done, __ATOMIC_ACQUIRE)) sched_yield();
  dlclose(h);
  if (late_thread) {
    __atomic_store_n(&unloaded, 1, __ATOMIC_RELEASE);
    pthread_join(*late_thread, 0);
  }
  return 0;
}

int main(int argc, char **argv)
{
  char path[4096];
  const char *top = getenv("top_builddir"), *why = 0;
  int i, fds0, fds1, failed = 0;
  long rss0, rss1;

  (void)argc;
  perf_util_preload_shim(argv);
  tap_plan(5);
  snprintf(path, sizeof path, "%s/.libs/libcpucycles.so", top ? top : ".");
  {
    struct read_only_pages ro = {path, 1, 0, 0, 0, 0, 0, 0};
    void *h = access(path, R_OK) == 0 ? dlopen(path, RTLD_NOW | RTLD_LOCAL) : 0;
    const char *tls_why = 0;
    ro.pagemap = !tap_under_qemu_user();
    if (!h)
      ro.why = tls_why = "no shared library in this build";
    else
      dl_iterate_phdr(count_absent_pages, &ro);
    if (h && !ro.found) ro.why = tls_why = "the loaded library is not among dl_iterate_phdr's objects";
    if (!ro.why && !ro.pagemap) ro.why = "under qemu-user, /proc/self/pagemap is qemu's";
    if (!ro.why && ro.pages == 0) ro.why = "no read-only data segment found";
    if (ro.why)
      tap_skip("a load maps the library's read-only data", ro.why);
    else
      tap_ok(ro.absent == 0, "a load maps the library's read-only data: %ld of its %ld pages absent",
             ro.absent, ro.pages);
    if (!tls_why && ro.tls_module == 0) tls_why = "the library has no thread-local variables";
    if (tls_why)
      tap_skip("a load allocates the loading thread's block of the library's thread-local variables", tls_why);
    else
      tap_ok(ro.tls_block != 0, "a load allocates the loading thread's block of the library's "
             "thread-local variables (%s)", ro.tls_block ? "allocated" : "not yet");
    if (h) dlclose(h);
  }
  if (access(path, R_OK) != 0 || cycle(path, &why, 0) != 0) {
    const char *reason = why ? why : "no shared library in this build";
    tap_skip("dlopen/dlclose gives back every descriptor", reason);
    tap_skip("dlopen/dlclose: resident memory does not grow", reason);
    tap_skip("dlopen/dlclose: no perf event is left", reason);
    return tap_done();
  }
  tap_diag("perf events are %s", getenv("LD_PRELOAD") ? "task-clock events (tests/perfshim)" : "real, or none");
  for (i = 1; i < WARM_UP; i++) failed |= cycle(path, &why, 0);
  fds0 = open_fds();
  rss0 = rss_kib();
  for (i = WARM_UP; i < CYCLES; i++) {
    pthread_t t;
    failed |= cycle(path, &why, i % 10 == 0 ? &t : 0);
  }
  fds1 = open_fds();
  rss1 = rss_kib();
  tap_ok(!failed && fds1 == fds0, "%d loads and unloads: %d descriptors open, then %d%s%s", CYCLES,
         fds0, fds1, failed ? "; a load failed: " : "", failed && why ? why : "");
#if defined(TAP_UNDER_SANITIZER)
  tap_skip("resident memory does not grow",
           "a sanitizer keeps shadow memory (and ASan a quarantine) for every load");
  (void)rss0;
  (void)rss1;
#else
  /* qemu-user's resident memory holds its translation cache: each load of
   * the library maps its code afresh, qemu translates it again, and the
   * cache grows by some 160 KiB a cycle until qemu flushes it (a loop of
   * 1000 faults without loads grows by 0.2 KiB a fault: the guard is not
   * it).  The system-emulation tier runs this check on a real kernel. */
  if (tap_under_qemu_user()) {
    tap_skip("resident memory does not grow",
             "under qemu-user, whose resident memory includes its translation cache");
    (void)rss0;
    (void)rss1;
  } else {
    tap_ok(rss1 - rss0 < 512, "resident memory over the last %d cycles: %ld KiB, then %ld KiB",
           CYCLES - WARM_UP, rss0, rss1);
  }
#endif
#if defined(CPUCYCLES_HAVE_LINUX_PERF)
  tap_ok(perf_fds() == 0 && perf_maps() == 0, "no perf event descriptor or mapping is left (%d, %d)",
         perf_fds(), perf_maps());
#else
  /* a library without perf events would pass it without trying */
  tap_skip("dlopen/dlclose: no perf event is left", PERF_UTIL_NONE_REASON);
#endif
  return tap_done();
}
