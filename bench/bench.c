/* SPDX-License-Identifier: MIT */
/* bench - what cpucycles costs and how well it measures, each figure
 * against a reference measured in the same run (the machine is shared and
 * noisy: only same-run ratios mean anything).  Not a test: `make bench`.
 *
 *   reads          inline cpucycles(), the dispatched read (one indirect
 *                  call, the path of programs that do not inline) and
 *                  cpucycles_function(), each / the bare read, per round
 *   first call     microseconds in fresh processes: the verified inline
 *                  path (this program's, linked with the objects, and the
 *                  shared library's, timed as the peer's is), and a full
 *                  run-time selection; beside them
 *                  libcpucycles' own first call (its selection), where
 *                  its library is found (bench-peer.c; CPUCYCLES_PEER,
 *                  CPUCYCLES_PEER_LOADER), and the ratios
 *   probes         what configure's probes took (recorded by configure)
 *   empty          an empty function with the defaults (calls automatic)
 *                  in fresh processes: within half a cycle a call of 0,
 *                  or flagged
 *   null           the null benchmark: an empty region between two reads
 *                  (what the harness must report as 0), raw and with the
 *                  null overhead subtracted
 *   loop           the loop benchmark: a dec/jnz loop of l
 *                  iterations, l = 10^3..10^6: cycles per iteration,
 *                  spread, the harness's flags, and R^2 of a linear fit,
 *                  which says when it was measured disturbed: a run
 *                  flagged, or the other CPUs busy meanwhile (a core
 *                  shared with a busy neighbour, as a hyperthread or a
 *                  VM's vCPU is, runs the loop slower, and no flag of one
 *                  thread can see it: 1.34 cycles an iteration beside a
 *                  busy loop, 0.70 alone, on a 2-vCPU KVM guest) */
#include "cpucycles.h"
#include "cpucycles-bench.h"
#include "cpucycles/default-monotonic.h"
#include "decide.h"
#include "table.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#define CALLS 1000000
#define ROUNDS 9
#define PROCESSES 21

static volatile long long sink;

static long long bare(void)
{
#if defined(CPUCYCLES_INLINE_READ)
  return CPUCYCLES_INLINE_READ();
#else
  return cpucycles_abi_read(); /* no inline read in this build */
#endif
}
static long long inlined(void) { return cpucycles(); }
static long long dispatched(void) { return cpucycles_abi_read(); }

/* Nanoseconds per call of f over CALLS calls. */
static double ns_per_call(long long (*f)(void))
{
  long long t0 = cpucycles_default_monotonic_now_ns(), t1;
  int i;
  for (i = 0; i < CALLS; i++) sink = f();
  t1 = cpucycles_default_monotonic_now_ns();
  return (double)(t1 - t0) / CALLS;
}

static int compare_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* min, median, max of n values (sorted in place) */
static void print_spread(const char *what, double *v, int n, const char *unit)
{
  qsort(v, (size_t)n, sizeof v[0], compare_double);
  printf("%-34s %9.3f %9.3f %9.3f  %s\n", what, v[0], v[n / 2], v[n - 1], unit);
}

/* argv[0] run with argv in a fresh process (its standard error too, when
 * errors_too; without LD_LIBRARY_PATH, when plain_loader): the first
 * output it prints into out (size bytes), or "" when it printed none. */
static void command_output(char *const argv[], int errors_too, int plain_loader, char *out,
                           size_t size)
{
  int fds[2], status;
  ssize_t got = -1;
  pid_t pid;
  memset(out, 0, size);
  if (pipe(fds) != 0) return;
  pid = fork();
  if (pid == 0) {
    if (plain_loader) unsetenv("LD_LIBRARY_PATH");
    dup2(fds[1], 1);
    if (errors_too) dup2(fds[1], 2);
    execv(argv[0], argv);
    _exit(127);
  }
  close(fds[1]);
  if (pid > 0) got = read(fds[0], out, size - 1);
  close(fds[0]);
  if (pid > 0) waitpid(pid, &status, 0);
  if (got < 0) out[0] = 0;
}

/* This program again, in a fresh process, with mode as argv[1]. */
static void child_output(const char *self, const char *mode, char *out, size_t size)
{
  char *argv[3];
  argv[0] = (char *)self, argv[1] = (char *)mode, argv[2] = 0;
  command_output(argv, 0, 0, out, size);
}

/* bench-peer (beside this program, which libtool may run from .libs/),
 * or with the prefix "../.libs/" this build's shared library, into out. */
static void beside_self(const char *self, const char *name, char *out, size_t size)
{
  const char *slash = strrchr(self, '/');
  int dir = slash ? (int)(slash - self + 1) : 0;
  if (dir >= 6 && strncmp(self + dir - 6, ".libs/", 6) == 0) dir -= 6;
  snprintf(out, size, "%.*s%s", dir, self, name);
}

/* The first call of a shared library in a fresh process, as bench-peer
 * times it (its data symbol cpucycles, libcpucycles' interface), under
 * the words of loader if set (a newer package's own ld.so and C library:
 * "LD.SO --library-path DIR"), without this build's LD_LIBRARY_PATH when
 * plain.  Its output, "MICROSECONDS VERSION NONZERO" or its reason, into
 * out; "" when it printed nothing. */
static void first_call_of(const char *self, const char *library, const char *loader, int plain,
                          char *out, size_t size)
{
  char words[1024], helper[1024], *argv[20], *word, *end;
  int argc = 0;
  beside_self(self, "bench-peer", helper, sizeof helper);
  snprintf(words, sizeof words, "%s", loader ? loader : "");
  for (word = strtok_r(words, " ", &end); word && argc < 16; word = strtok_r(0, " ", &end)) argv[argc++] = word;
  argv[argc++] = helper;
  argv[argc++] = (char *)library;
  argv[argc] = 0;
  command_output(argv, 1, plain, out, size);
}

/* libcpucycles itself beside us: the library $CPUCYCLES_PEER names
 * (default: the libcpucycles.so.1 the system's loader finds, without this
 * build's LD_LIBRARY_PATH), under $CPUCYCLES_PEER_LOADER's words if set. */
static void peer_output(const char *self, char *out, size_t size)
{
  const char *library = getenv("CPUCYCLES_PEER");
  first_call_of(self, library && *library ? library : "libcpucycles.so.1",
                getenv("CPUCYCLES_PEER_LOADER"), !library || !*library, out, size);
}

/* This build's shared library's first call, timed as the peer's is (the
 * static figure above is bench's own, linked with the library's objects:
 * another layout, whose first writes fault pages a shared library's
 * relocations have written already). */
static void own_shared(const char *self, double *us)
{
  char library[1024], out[256], version[64];
  double load[PROCESSES];
  int i, n = 0;
  long long nonzero;
  beside_self(self, "../.libs/libcpucycles.so.1", library, sizeof library);
  for (i = 0; i < PROCESSES; i++) {
    first_call_of(self, library, 0, 0, out, sizeof out);
    if (sscanf(out, "%lf %63s %lld %lf", &us[n], version, &nonzero, &load[n]) == 4) n++;
  }
  if (n == PROCESSES) {
    print_spread("first call, verified, shared lib.", us, n, "us (fresh processes, as the peer's below)");
    print_spread("its load (dlopen), shared lib.", load, n, "us (what it maps at load is here)");
  } else printf("%-34s not measured (%s: %.*s)\n", "first call, verified, shared lib.", library,
              (int)strcspn(out, "\n"), out);
}

/* The peer's first call in fresh processes, beside ours (sorted): its
 * line and the ratios, or why there is none. */
static void print_peer(const char *self, const double *shared, const double *reselect)
{
  double peer[PROCESSES], peer_load[PROCESSES];
  char out[256], version[64] = "", why[256] = "";
  int i, n = 0;
  long long nonzero;
  for (i = 0; i < PROCESSES; i++) {
    double us, load;
    peer_output(self, out, sizeof out);
    if (sscanf(out, "%lf %63s %lld %lf", &us, version, &nonzero, &load) == 4) peer_load[n] = load, peer[n++] = us;
    else if (!why[0]) snprintf(why, sizeof why, "%.*s", (int)strcspn(out, "\n"), out);
  }
  if (n == 0) {
    printf("%-34s not found (%s)\n%-34s (CPUCYCLES_PEER names its libcpucycles.so.1; Debian's libcpucycles1)\n",
           "libcpucycles, first call", why[0] ? why : "bench-peer printed nothing", "");
    return;
  }
  if (strcmp(version, cpucycles_version()) == 0) {
    printf("%-34s the library found is this project's (%s): no peer (CPUCYCLES_PEER names one)\n",
           "libcpucycles, first call", version);
    return;
  }
  snprintf(out, sizeof out, "libcpucycles %s, first call", version);
  print_spread(out, peer, n, "us (fresh processes: its selection)");
  snprintf(out, sizeof out, "libcpucycles %s, its load", version);
  print_spread(out, peer_load, n, "us (dlopen)");
  printf("%-34s %9s %9.3f %9s  ours verified (shared library) / its, medians\n", "", "", shared[PROCESSES / 2] / peer[n / 2], "");
  printf("%-34s %9s %9.3f %9s  ours selecting at run time / its\n", "", "", reselect[PROCESSES / 2] / peer[n / 2], "");
}

/* The first call in a fresh process: microseconds, or -1. */
static double child_us(const char *self, const char *mode)
{
  char out[64];
  child_output(self, mode, out, sizeof out);
  return out[0] ? atof(out) : -1;
}

/* An empty function measured with cpucycles_bench()'s defaults (calls
 * automatic), in a fresh process: "median-per-call flags". */
static void empty(void *arg);
static int empty_child(void)
{
  struct cpucycles_bench_result r;
  if (cpucycles_bench(empty, 0, 0, &r) != 0) return 1;
  printf("%.4f %u\n", r.median, r.flags);
  return 0;
}

/* This program again with mode, which prints "number flags": 0 with them,
 * or -1. */
static int child_pair(const char *self, const char *mode, double *x, unsigned int *flags)
{
  char out[64];
  child_output(self, mode, out, sizeof out);
  return sscanf(out, "%lf %u", x, flags) == 2 ? 0 : -1;
}

static int first_call_child(const char *mode)
{
  long long t0 = cpucycles_default_monotonic_now_ns(), t1;
  if (strcmp(mode, "--first-call") == 0) {
    sink = cpucycles();
  } else {
    static struct cpucycles_decision d;
    struct cpucycles_plan plan;
    cpucycles_build_plan(&plan);
    plan.build_counter = -1; /* what a host unlike the build host does */
    cpucycles_decide(cpucycles_table, cpucycles_table_size, &plan, "/etc/cpucyclespersecond",
                     "cpucyclespersecond", &d);
  }
  t1 = cpucycles_default_monotonic_now_ns();
  printf("%.2f\n", (double)(t1 - t0) / 1e3);
  return 0;
}

static void empty(void *arg) { (void)arg; }

/* The loop benchmark: l iterations of a decrement and a branch, which the
 * compiler must not remove or unroll. */
static void loop(void *arg)
{
  long l = *(long *)arg;
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
  __asm__ __volatile__("1: dec %0\n\tjnz 1b" : "+r"(l) : : "cc");
#else
  volatile long i;
  for (i = 0; i < l; i++) {
  }
#endif
}

/* The machine's CPU time from /proc/stat's first line, in seconds: busy
 * (stolen by the hypervisor included) and in all; 0, or -1 where it
 * cannot be read. */
static int machine_cpu_time(double *busy, double *all)
{
  unsigned long long v[8] = {0};
  long hz = sysconf(_SC_CLK_TCK);
  FILE *f = fopen("/proc/stat", "r");
  int n;
  if (!f) return -1;
  /* user nice system idle iowait irq softirq steal */
  n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4],
             &v[5], &v[6], &v[7]);
  fclose(f);
  if (n < 4 || hz <= 0) return -1;
  *busy = (double)(v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) / (double)hz;
  *all = *busy + (double)(v[3] + v[4]) / (double)hz;
  return 0;
}

/* This process's CPU time in seconds. */
static double own_cpu_time(void)
{
  struct rusage u;
  if (getrusage(RUSAGE_SELF, &u) != 0) return 0;
  return (double)u.ru_utime.tv_sec + (double)u.ru_stime.tv_sec +
         ((double)u.ru_utime.tv_usec + (double)u.ru_stime.tv_usec) / 1e6;
}

/* How busy the rest of the machine was since *at (busy, all, own):
 * the share, 0 to 1, of the other CPUs' time spent busy, or -1 when
 * unknown; *at becomes now. */
static double others_busy_since(double at[3])
{
  double busy, all, own = own_cpu_time(), share = -1;
  if (machine_cpu_time(&busy, &all) != 0) return -1;
  if (at[1] > 0 && all - at[1] - (own - at[2]) > 0)
    share = (busy - at[0] - (own - at[2])) / (all - at[1] - (own - at[2]));
  at[0] = busy, at[1] = all, at[2] = own;
  return share < 0 ? 0 : share > 1 ? 1 : share;
}

static void print_flags(unsigned int flags)
{
  unsigned int bit;
  for (bit = 1; bit; bit <<= 1)
    if ((flags & bit) && cpucycles_bench_flag_name(bit)) printf(" %s", cpucycles_bench_flag_name(bit));
}

int main(int argc, char **argv)
{
  double r_inline[ROUNDS], r_dispatch[ROUNDS], r_function[ROUNDS], bare_ns[ROUNDS];
  double first[PROCESSES], reselect[PROCESSES], shared[PROCESSES];
  struct cpucycles_bench_options o;
  struct cpucycles_bench_result res;
  double xs[4], ys[4], sx = 0, sy = 0, sxx = 0, sxy = 0, syy = 0, cpu_at[3] = {0, 0, 0}, others;
  long lengths[4] = {1000, 10000, 100000, 1000000};
  unsigned int loop_flags = 0, doubtful = CPUCYCLES_BENCH_DRIFT | CPUCYCLES_BENCH_SPREAD;
  int i, round, points = 0;
  FILE *probes;

  if (argc > 1) return strcmp(argv[1], "--empty") == 0 ? empty_child() : first_call_child(argv[1]);
  sink = cpucycles();
  printf("cpucycles %s, %s (%s), %lld cycles/s\n", cpucycles_version(),
         cpucycles_implementation(), CPUCYCLES_BUILD_CHOICE ? "build's counter inlined if verified" : "no inline path",
         cpucycles_persecond());
  printf("%-34s %9s %9s %9s\n", "what", "min", "median", "max");

  for (round = 0; round < ROUNDS; round++) {
    double b = ns_per_call(bare);
    bare_ns[round] = b;
    r_inline[round] = ns_per_call(inlined) / b;
    r_dispatch[round] = ns_per_call(dispatched) / b;
    r_function[round] = ns_per_call(cpucycles_function) / b;
  }
  print_spread("bare read", bare_ns, ROUNDS, "ns");
  print_spread("inline cpucycles() / bare", r_inline, ROUNDS, "ratio");
  print_spread("dispatched read / bare", r_dispatch, ROUNDS, "ratio");
  print_spread("cpucycles_function() / bare", r_function, ROUNDS, "ratio");

  for (i = 0; i < PROCESSES; i++) {
    first[i] = child_us(argv[0], "--first-call");
    reselect[i] = child_us(argv[0], "--reselect");
  }
  print_spread("first call, verified path", first, PROCESSES, "us (fresh processes)");
  print_spread("first call, run-time selection", reselect, PROCESSES, "us (fresh processes)");
  own_shared(argv[0], shared);
  print_peer(argv[0], shared, reselect);

  probes = fopen("cpucycles-probe-time.txt", "r");
  if (probes) {
    double s = 0;
    if (fscanf(probes, "%lf", &s) == 1)
      printf("%-34s %9s %9.3f %9s  s (this build's configure; libcpucycles probes nothing when\n"
             "%-34s %9s %9s %9s     built: it measures its counters at each process's first call)\n",
             "configure's probes", "", s, "", "", "", "", "");
    fclose(probes);
  }

  memset(&o, 0, sizeof o);
  o.iterations = 10000;
  o.calls = 1; /* the null benchmark: one empty call between the reads */
  o.keep_overhead = 1;
  if (cpucycles_bench(empty, 0, &o, &res) == 0)
    printf("%-34s %9.0f %9.1f %9.0f  cycles (precision %lld)\n", "null benchmark, raw", res.min,
           res.median, res.max, res.precision);
  o.keep_overhead = 0;
  if (cpucycles_bench(empty, 0, &o, &res) == 0) {
    printf("%-34s %9.0f %9.1f %9.0f  cycles, overhead %lld subtracted;", "null benchmark, subtracted",
           res.min, res.median, res.max, res.overhead);
    print_flags(res.flags);
    printf("\n");
  }

  /* An empty function, calls automatic, in fresh processes: the header
   * promises 0 within the precision; within half a cycle a call, or a
   * flag that says the run is doubtful (drift, spread, below-resolution). */
  {
    double median[PROCESSES];
    int within = 0, flagged = 0, n = 0;
    unsigned int doubtful = CPUCYCLES_BENCH_DRIFT | CPUCYCLES_BENCH_SPREAD |
                            CPUCYCLES_BENCH_BELOW_RESOLUTION;
    for (i = 0; i < PROCESSES; i++) {
      unsigned int flags;
      if (child_pair(argv[0], "--empty", &median[n], &flags) != 0) continue;
      if (median[n] >= -0.5 && median[n] <= 0.5) within++;
      else if (flags & doubtful) flagged++;
      n++;
    }
    if (n > 0) {
      print_spread("empty function, automatic calls", median, n, "cycles a call (fresh processes)");
      printf("%-34s %d of %d within 0.5 cycles a call, %d beyond but flagged, %d beyond unflagged\n",
             "", within, n, flagged, n - within - flagged);
    }
  }

  others_busy_since(cpu_at);
  for (i = 0; i < 4; i++) {
    o.iterations = lengths[i] >= 100000 ? 101 : 1001;
    if (cpucycles_bench(loop, &lengths[i], &o, &res) != 0) continue;
    loop_flags |= res.flags;
    xs[points] = (double)lengths[i];
    ys[points] = res.median;
    printf("loop l=%-8ld %19.3f %9.3f %9.3f  cycles/iteration (min, median, max);", lengths[i],
           res.min / lengths[i], res.median / lengths[i], res.max / lengths[i]);
    print_flags(res.flags);
    printf("\n");
    sx += xs[points];
    sy += ys[points];
    sxx += xs[points] * xs[points];
    sxy += xs[points] * ys[points];
    syy += ys[points] * ys[points];
    points++;
  }
  others = others_busy_since(cpu_at);
  if (points < 2) {
    printf("loop fit: none (%d of 4 lengths measured)\n", points);
  } else {
    double n = points, cov = sxy - sx * sy / n, vx = sxx - sx * sx / n, vy = syy - sy * sy / n;
    printf("loop fit: %.4f cycles/iteration + %.0f, R^2 %.6f", cov / vx, (sy - cov / vx * sx) / n,
           cov * cov / (vx * vy));
    if (points < 4) printf("; from %d of 4 lengths", points);
    /* a figure measured while disturbed says so */
    if (others > 0.1)
      printf("; DISTURBED: the other CPUs were %.0f%% busy meanwhile (a shared core runs the loop "
             "slower)", 100 * others);
    if (loop_flags & doubtful) {
      printf("; DISTURBED: runs flagged");
      print_flags(loop_flags & doubtful);
    }
    printf("\n");
  }
  return 0;
}
