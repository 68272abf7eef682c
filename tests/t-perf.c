/* SPDX-License-Identifier: MIT */
/* t-perf - the perf-event counters count for the thread that reads them,
 * survive a program that closes their descriptor (and never read or close
 * the file that takes its number), and leave nothing
 * behind: no descriptor or mapping of a counter that was not chosen, of a
 * thread that exited, or of a failed setup; every descriptor close-on-exec.
 *
 * This machine has no PMU, so the test runs itself again with
 * tests/perfshim preloaded, which turns the library's cycles request into
 * a task-clock event: the same perf code paths, counting nanoseconds.
 * Where neither a PMU nor the shim gives an event, it SKIPs.  The shim
 * also plays a PMU that cannot exclude the kernel (riscv's SBI PMU): the
 * event is asked for again counting every mode, and when that fails too,
 * the reason names the errno.  And the shared library has no
 * initial-exec TLS, which a late dlopen() may find no room for
 * (t-namespaces): its per-thread variables, the event every such read
 * looks up among them, are TLS descriptors or the default model
 * (src/core/tls.h says where a read's event is not).  A thread with a cancellation
 * pending makes its first reads: the library's code has no unwind tables
 * (configure.ac), so none of the cancellation points a thread's first read
 * reaches (the seccomp check's open() and read(), the event's read()) may
 * act: the reads return, and the thread is cancelled after them. */
#include "cpucycles.h"
#include "decide.h"
#include "perf-util.h"
#include "readfile.h"
#include "table.h"
#include "tap.h"
#include "tls.h"
#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <string.h>
#include <sys/wait.h>

#define PLAN 17
#define BUSY_MS 20
/* 20 ms of running counts at least this much: nanoseconds (task clock)
 * or cycles (a real PMU at 50 MHz or more). */
#define COUNTED_IN_BUSY 1000000

static const struct cpucycles_counter *counter(const char *name)
{
  int i = cpucycles_table_find(name);
  return i < 0 ? 0 : &cpucycles_table[i];
}

static void *count_busy(void *arg)
{
  const struct cpucycles_counter *c = counter("default-perfevent");
  long long *counted = arg, t0 = c->read();
  busy_ms(BUSY_MS);
  *counted = c->read() - t0;
  return 0;
}

/* A thread whose own cancellation is pending makes its first two reads
 * (the first opens its event), then reaches a cancellation point of its
 * own.  *arg: 1 when both reads returned and the second is later. */
static void *cancelled_reader(void *arg)
{
  const struct cpucycles_counter *c = counter("default-perfevent");
  long long a, b;
  pthread_cancel(pthread_self());
  a = c->read();
  busy_ms(1);
  b = c->read();
  *(volatile int *)arg = b > a ? 1 : 2;
  pthread_testcancel();
  return 0;
}

/* The one perf descriptor open in this process, or -1. */
static int the_perf_fd(void)
{
  char path[64], link[64];
  int fd;
  for (fd = 3; fd < 1024; fd++) {
    ssize_t len;
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    len = readlink(path, link, sizeof link - 1);
    if (len > 0 && (link[len] = 0, strstr(link, "perf_event"))) return fd;
  }
  return -1;
}

/* In a child: 0 when a selection with default-perfevent in use (c, set
 * up) leaves its one event counting on, and the release ends. */
static int select_while_in_use(const struct cpucycles_counter *c, struct cpucycles_setup *s)
{
  struct cpucycles_result results[CPUCYCLES_MAX_COUNTERS];
  long long before, after;
  int fds;
  c->setup(s);
  before = c->read();
  busy_ms(2);
  cpucycles_select(cpucycles_table, cpucycles_table_size, 2600000000LL,
                   cpucycles_table_find("default-perfevent"), results);
  after = c->read();
  fds = perf_fds();
  cpucycles_table_release_others(-1, 0);
  tap_diag("%d descriptors during the selection, %lld then %lld, %d after the release", fds,
           before, after, perf_fds());
  return fds == 1 && after > before && perf_fds() == 0 ? 0 : 1;
}

/* The child's exit status, or -1 when it had to be killed after `seconds`. */
static int wait_killing_after(pid_t pid, int seconds)
{
  int status, i;
  for (i = 0; i < seconds * 100; i++) {
    if (waitpid(pid, &status, WNOHANG) == pid) return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    usleep(10000);
  }
  kill(pid, SIGKILL);
  waitpid(pid, &status, 0);
  tap_diag("the child hung for %d s: killed", seconds);
  return -1;
}

/* The test of the thread-local model: the shared library's file holds no
 * dynamic relocation of the kind only initial-exec variables get (a
 * thread-pointer offset, filled in at load time; the other models' are
 * module and offset pairs, or TLS descriptors), and its DT_FLAGS has no
 * DF_STATIC_TLS (which aarch64's linker does not set: hence both). */
#if __SIZEOF_POINTER__ == 8
#define RELOCATION_TYPE(info) ELF64_R_TYPE(info)
#else
#define RELOCATION_TYPE(info) ELF32_R_TYPE(info)
#endif
#if defined(__x86_64__)
#define IE_RELOCATION R_X86_64_TPOFF64
#elif defined(__aarch64__)
#define IE_RELOCATION R_AARCH64_TLS_TPREL
#elif defined(__riscv) && __riscv_xlen == 64
#define IE_RELOCATION R_RISCV_TLS_TPREL64
#elif defined(__riscv)
#define IE_RELOCATION R_RISCV_TLS_TPREL32
#endif

#if defined(IE_RELOCATION) && !defined(CPUCYCLES_TLS_READ_INITIAL_EXEC)
/* How many of the file's relocations (SHT_RELA sections) have the type
 * IE_RELOCATION, plus one when its DT_FLAGS has DF_STATIC_TLS; -1 with
 * *why when it cannot be read as an ELF file of this class.  (4 MiB: a
 * library built -O0 -g is some 250 KB.) */
static long static_tls_marks(const char *path, const char **why)
{
  static char image[4 << 20] __attribute__((__aligned__(16)));
  const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)image;
  const ElfW(Shdr) *sh;
  ssize_t size = cpucycles_readfile(path, image, sizeof image, why);
  long count = 0;
  int i;
  if (size < (ssize_t)sizeof *eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
      eh->e_shentsize != sizeof *sh ||
      eh->e_shoff + (unsigned long)eh->e_shnum * sizeof *sh > (unsigned long)size) {
    if (size >= 0 || !*why) *why = "not an ELF file of this class";
    return -1;
  }
  sh = (const ElfW(Shdr) *)(image + eh->e_shoff);
  for (i = 0; i < eh->e_shnum; i++) {
    unsigned long j;
    if (sh[i].sh_offset + sh[i].sh_size > (unsigned long)size) continue;
    if (sh[i].sh_type == SHT_RELA) {
      const ElfW(Rela) *r = (const ElfW(Rela) *)(image + sh[i].sh_offset);
      for (j = 0; j < sh[i].sh_size / sizeof *r; j++)
        count += RELOCATION_TYPE(r[j].r_info) == IE_RELOCATION;
    } else if (sh[i].sh_type == SHT_DYNAMIC) {
      const ElfW(Dyn) *d = (const ElfW(Dyn) *)(image + sh[i].sh_offset);
      for (j = 0; j < sh[i].sh_size / sizeof *d && d[j].d_tag != DT_NULL; j++)
        count += d[j].d_tag == DT_FLAGS && (d[j].d_un.d_val & DF_STATIC_TLS);
    }
  }
  return count;
}

static void read_tls(void)
{
  const char *what = "the shared library has no initial-exec TLS (no thread-pointer-offset "
                     "relocation, no DF_STATIC_TLS)";
  const char *top = getenv("top_builddir");
  const char *why = 0;
  char path[4096];
  long found;
  snprintf(path, sizeof path, "%s/.libs/libcpucycles.so", top ? top : ".");
  if (access(path, R_OK) != 0) {
    tap_skip(what, "no shared library in this build");
    return;
  }
  found = static_tls_marks(path, &why);
  tap_ok(found == 0, "%s: %ld found in %s%s%s", what, found, path, found < 0 ? ": " : "",
         found < 0 ? why : "");
}
#else
static void read_tls(void)
{
  const char *what = "the shared library has no initial-exec TLS";
#if defined(CPUCYCLES_TLS_READ_INITIAL_EXEC)
  tap_skip(what, "riscv under glibc without TLS descriptors: a read's per-thread event stays "
                 "initial-exec (src/core/tls.h)");
#else
  tap_skip(what, "no initial-exec relocation type known for this architecture here");
#endif
}
#endif

static void skip_all(const char *why)
{
  while (tap_count < PLAN) tap_skip("perf counters", why);
}

int main(int argc, char **argv)
{
  const struct cpucycles_counter *c;
  struct cpucycles_setup s = {2600000000LL, 0, 0, 0, 0};
  struct cpucycles_result results[CPUCYCLES_MAX_COUNTERS];
  pthread_t thread;
  long long counted = 0, before, after1, after2;
  int fds, maps, extra_fds, extra_maps, fd, file, chosen, status;
  long *unfiltered;
  char buf[9] = {0};
  pid_t pid;

  (void)argc;
  perf_util_preload_shim(argv);
  tap_diag("cpucycles %s", cpucycles_version()); /* links the fork handler in */
  tap_plan(PLAN);
  read_tls();
  c = counter("default-perfevent");
  if (!c) {
    skip_all(PERF_UTIL_NONE_REASON);
    return tap_done();
  }
  if (c->setup(&s) != 0) {
    skip_all(s.reason);
    return tap_done();
  }
  tap_diag("perf events are %s", getenv("LD_PRELOAD") ? "task-clock events (tests/perfshim)" : "real");

  /* 3: each thread counts its own work. */
  pthread_create(&thread, 0, count_busy, &counted);
  fds = perf_fds();
  pthread_join(thread, 0);
  tap_ok(counted > COUNTED_IN_BUSY,
         "default-perfevent counts a thread's %d ms of work in that thread (%lld)", BUSY_MS, counted);
  tap_ok(perf_fds() == 1, "the thread's event went when the thread exited (%d open now)", perf_fds());
  (void)fds;

  /* A pending cancellation does not act inside the thread's first reads. */
  {
    volatile int reads_done = 0;
    void *thread_result = 0;
    pthread_create(&thread, 0, cancelled_reader, (void *)&reads_done);
    pthread_join(thread, &thread_result);
    tap_ok(reads_done == 1 && thread_result == PTHREAD_CANCELED && perf_fds() == 1,
           "a thread with a cancellation pending makes its first reads (%s), is cancelled after "
           "them, and its event goes (%d open now)",
           reads_done == 1 ? "counted" : reads_done == 2 ? "not counting" : "cancelled in one",
           perf_fds());
  }

  /* 5: close-on-exec. */
  fd = the_perf_fd();
  tap_ok(fd >= 0 && (fcntl(fd, F_GETFD) & FD_CLOEXEC), "the event descriptor %d is close-on-exec", fd);

  /* 4: a daemon closes the descriptor; its number comes back as a file. */
  before = c->read();
  close(fd);
  file = open("t-perf.tmp", O_RDWR | O_CREAT | O_TRUNC, 0600);
  if (write(file, "ABCDEFGH", 8) != 8 || lseek(file, 0, SEEK_SET) != 0) return 1;
  after1 = c->read();
  busy_ms(5);
  after2 = c->read();
  tap_ok(file == fd && lseek(file, 0, SEEK_CUR) == 0 && read(file, buf, 8) == 8 &&
             strcmp(buf, "ABCDEFGH") == 0,
         "the program's file that took the closed descriptor's number (%d) is not read", file);
  tap_ok(after1 >= before && after2 > after1,
         "counts go on after the descriptor was closed (%lld, %lld, %lld)", before, after1, after2);
  close(file);
  remove("t-perf.tmp");

  /* 3 again, in a fork child: its own events, not the parent's. */
  fflush(stdout);
  pid = fork();
  if (pid == 0) { /* the library's fork handler forgets the parent's events */
    count_busy(&counted);
    _exit(counted > COUNTED_IN_BUSY ? 0 : 1);
  }
  tap_ok(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0,
         "a fork child counts its own work");

  /* 5: what is not chosen is released. */
  cpucycles_table_release_others(-1, 0);
  fds = perf_fds();
  maps = perf_maps();
  tap_ok(fds == 0 && maps == 0, "releasing every counter leaves no perf descriptor or mapping (%d, %d)",
         fds, maps);
  chosen = cpucycles_select(cpucycles_table, cpucycles_table_size, 2600000000LL, -1, results);
  tap_diag("chosen %s; default-perfevent: %s", cpucycles_table[chosen].name,
           results[cpucycles_table_find("default-perfevent")].available
               ? "available"
               : results[cpucycles_table_find("default-perfevent")].reason);
  cpucycles_table_release_others(chosen, 0);
  /* the chosen one's event: a descriptor (default-perfevent), a mapping
   * (the *-perfpmc), or both; nothing for a counter without state */
  extra_fds = perf_fds() - fds;
  extra_maps = perf_maps() - maps;
  tap_ok(cpucycles_table[chosen].release
             ? extra_fds <= 1 && extra_maps <= 1 && extra_fds + extra_maps >= 1
             : extra_fds == 0 && extra_maps == 0,
         "after a run-time selection only the chosen %s keeps perf resources (%d descriptors, %d mappings)",
         cpucycles_table[chosen].name, perf_fds(), perf_maps());
  cpucycles_table_release_others(-1, 0);

  /* 5: a setup that fails halfway gives back what it took. */
  c = counter("amd64-perfpmc");
  if (!c) c = counter("arm64-perfpmc");
  if (!c) {
    tap_skip("a failed perf setup leaves nothing open", "no *-perfpmc counter on this target");
  } else {
    s.reason = 0;
    status = c->setup(&s);
    tap_diag("%s setup: %s", c->name, status == 0 ? "ok" : s.reason);
    if (status == 0) c->release(0);
    tap_ok(perf_fds() == 0 && perf_maps() == 0, "%s leaves no descriptor or mapping after its %s setup",
           c->name, status == 0 ? "released" : "failed");
  }
  /* amd64-perfpmcff (20260901's): measured as the selection measures it,
   * under the guard.  The shim's task clock opens but gives no RDPMC
   * (cap_user_rdpmc 0): refused with that reason, nothing left open; on a
   * PMU it counts, or faults (AMD: no fixed counters) and says so. */
  c = counter("amd64-perfpmcff");
  if (!c) {
    tap_skip("amd64-perfpmcff is measured and refused with its reason", "not on this target");
  } else {
    struct cpucycles_result r;
    int shim = getenv("LD_PRELOAD") != 0;
    cpucycles_measure(c, 2600000000LL, &r);
    tap_diag("amd64-perfpmcff: %s", r.available ? "available" : r.reason);
    if (r.available) c->release(0);
    tap_ok(shim ? !r.available && r.reason && strstr(r.reason, "cap_user_rdpmc") && perf_fds() == 0 &&
                      perf_maps() == 0
                : (r.available ? r.precision >= 0 : r.reason != 0) && perf_fds() == 0 && perf_maps() == 0,
           "amd64-perfpmcff %s, and leaves no descriptor or mapping",
           shim ? "opens the shim's event and is refused: no user RDPMC on it" : "is measured under the guard");
  }
  c = counter("default-perfevent");
  tap_ok(c->setup(&s) == 0 && perf_fds() == 1 && (c->release(0), perf_fds() == 0),
         "set up again and released again: one descriptor, then none");

  /* A release after the program closed the event's descriptor and a file
   * took its number: the file is the program's, and stays open. */
  status = c->setup(&s);
  fd = the_perf_fd();
  if (fd >= 0) close(fd);
  file = open("t-perf.tmp", O_RDWR | O_CREAT | O_TRUNC, 0600);
  c->release(0);
  tap_ok(status == 0 && fd >= 0 && file == fd && fcntl(file, F_GETFD) != -1 && write(file, "x", 1) == 1,
         "a release after the program's file took the closed descriptor's number (%d) leaves the "
         "file open (%s)",
         fd, fcntl(file, F_GETFD) != -1 ? "open" : "closed");
  close(file);
  remove("t-perf.tmp");

  /* A PMU that refuses exclude_kernel and exclude_hv with EINVAL (the
   * shim plays one): the event is asked for again without them. */
  unfiltered = (long *)dlsym(RTLD_DEFAULT, "cpucycles_perfshim_unfiltered");
  if (!unfiltered) {
    tap_skip("a PMU that cannot exclude the kernel", "a real PMU here, not tests/perfshim");
    tap_skip("a PMU that refuses the event", "a real PMU here, not tests/perfshim");
  } else {
    long unfiltered_before = *unfiltered;
    setenv("CPUCYCLES_PERFSHIM_PMU", "nofilter", 1);
    s.reason = 0;
    status = c->setup(&s);
    before = status == 0 ? c->read() : 0;
    busy_ms(BUSY_MS);
    after1 = status == 0 ? c->read() : 0;
    if (status == 0) c->release(0);
    tap_ok(status == 0 && *unfiltered > unfiltered_before && after1 - before > COUNTED_IN_BUSY,
           "a PMU that cannot exclude the kernel (EINVAL) gets the event again counting every "
           "mode, and it counts (%s, %lld)", status == 0 ? "set up" : s.reason, after1 - before);
    setenv("CPUCYCLES_PERFSHIM_PMU", "refuse", 1);
    s.reason = 0;
    status = c->setup(&s);
    if (status == 0) c->release(0);
    tap_ok(status != 0 && s.reason && strstr(s.reason, "(EINVAL)") && perf_fds() == 0,
           "a PMU that refuses both: the reason names the errno, nothing left open (%s)",
           status == 0 ? "set up!" : s.reason ? s.reason : "no reason");
    unsetenv("CPUCYCLES_PERFSHIM_PMU");
  }

  /* A selection while the process counts with default-perfevent
   * (cpucycles_tracesetup()): the counter in use is set up again over its
   * open event, and must keep it (a second event over the same record
   * leaked the first and linked the record twice: the next walk of the
   * list, with every signal blocked, never ended; hence a child, killed
   * after 20 s). */
  fflush(stdout);
  pid = fork();
  if (pid == 0) _exit(select_while_in_use(c, &s));
  tap_ok(wait_killing_after(pid, 20) == 0,
         "a selection with default-perfevent in use keeps its one event, counting on, and all "
         "is released after");
  return tap_done();
}
