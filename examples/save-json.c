/* SPDX-License-Identifier: MIT */
/* save-json.c - measure a function and save the result as JSON, for a
 * later build to be checked against (gate.sh).
 *
 *   cc -O2 save-json.c $(pkg-config --cflags --libs cpucycles-bench) -o save-json
 *   ./save-json baseline.json        # on the old code, once
 *   ./save-json new.json             # on the new code
 *   sh gate.sh baseline.json new.json
 *
 * save-json FILE [BYTES [EXECUTIONS]]: times summing BYTES bytes (default
 * 4096, at most 65536) in fresh processes, and writes their results one
 * after another to FILE with cpucycles_bench_format_with_speed(), each
 * with what it means beside (the counter, its unit, the frequency, the
 * host, the version, and the harness's reference: how fast the host ran).
 * Given EXECUTIONS (at least 2), that many processes; without, as many as
 * it takes for the figure's own 99% interval to be within +-0.5%, from 5
 * up to 30 processes or 60 seconds, whichever comes first (it says which).
 *
 * Why several processes: the same code measures a few percent apart from
 * one process to the next (where it was placed, the machine's state), far
 * beyond one result's own error.  cpucycles-info --compare takes the
 * results of one name as executions and its interval from the spread
 * between them; with one execution a file it cannot judge.  Each
 * execution is this program run again (fork, then exec: a new address
 * space, new placement) with --one, which writes one result to stdout and
 * its figure (cycles per call divided by the reference) on a pipe; where
 * it cannot be run again (under an emulator that runs only the program it
 * was given), the forked process measures.
 *
 * Stopping when the interval is narrow enough is honest: it looks at the
 * interval's width, never at what it would say of another file. */
#include <cpucycles-bench.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_BYTES 65536
#define FEWEST 5         /* executions before the interval is looked at */
#define MOST 30          /* and the bound: executions */
#define MOST_SECONDS 60  /* and seconds */
#define WIDTH 0.005      /* the half-width asked for: +-0.5% */

struct work {
  size_t n;
  unsigned char bytes[MAX_BYTES];
  unsigned sum;
};

static void sum_bytes(void *arg)
{
  struct work *w = arg;
  unsigned sum = 0;
  size_t i;
  for (i = 0; i < w->n; i++) sum += w->bytes[i];
  w->sum = sum;
}

/* One execution: measure, write the result as JSON to stdout, and its
 * figure on fd (if not -1): cycles per call over the reference's cycles,
 * and 1 when the harness flagged its statistics (drift, spread, below
 * resolution: cpucycles-info --compare leaves such an execution out).
 * save-json --one BYTES [FD] is one execution alone (a result to stdout:
 * what tests/t-examples.sh runs under an emulator, ten times). */
static int measure_once(size_t n, int fd)
{
  static struct work w;
  struct cpucycles_bench_result r;
  struct cpucycles_bench_speed speed;
  char json[4096], name[64], figure[64];
  unsigned flagged = CPUCYCLES_BENCH_DRIFT | CPUCYCLES_BENCH_SPREAD | CPUCYCLES_BENCH_BELOW_RESOLUTION;
  long length;
  size_t i;

  w.n = n;
  for (i = 0; i < w.n; i++) w.bytes[i] = (unsigned char)i;
  if (cpucycles_bench_with_speed(sum_bytes, &w, 0, &r, &speed) != 0) {
    fprintf(stderr, "cpucycles_bench_with_speed: %s\n", strerror(errno));
    return 1;
  }
  /* The name labels the result: cpucycles-info --compare prints it, and
   * takes the results of one name as executions of one benchmark. */
  snprintf(name, sizeof name, "sum of %lu bytes", (unsigned long)w.n);
  /* As snprintf(): the length of the whole text, which must fit. */
  length = cpucycles_bench_format_with_speed(json, sizeof json, CPUCYCLES_FORMAT_JSON, name, &r, &speed);
  if (length < 0 || (unsigned long)length >= sizeof json) {
    fprintf(stderr, "save-json: the result does not fit in %lu bytes\n", (unsigned long)sizeof json);
    return 1;
  }
  if (fputs(json, stdout) == EOF || fflush(stdout) != 0) {
    fprintf(stderr, "save-json: %s\n", strerror(errno));
    return 1;
  }
  snprintf(figure, sizeof figure, "%.17g %d\n",
           speed.reference > 0 ? r.interquartile_mean / speed.reference : r.interquartile_mean,
           (r.flags & flagged) != 0);
  return fd < 0 || write(fd, figure, strlen(figure)) > 0 ? 0 : 1;
}

/* Student's t, two-sided 99%, for df degrees of freedom (df >= 4 here). */
static double t99(int df)
{
  static const double table[30] = {63.657, 9.925, 5.841, 4.604, 4.032, 3.707, 3.499, 3.355,
                                   3.250,  3.169, 3.106, 3.055, 3.012, 2.977, 2.947, 2.921,
                                   2.898,  2.878, 2.861, 2.845, 2.831, 2.819, 2.807, 2.797,
                                   2.787,  2.779, 2.771, 2.763, 2.756, 2.750};
  return df <= 30 ? table[df - 1] : 2.75;
}

/* Whether the unflagged figures' 99% interval is within +-WIDTH of their
 * mean (compared squared: no libm), and that half-width in *half. */
static int narrow_enough(const double *x, int n, double *half)
{
  double mean = 0, var = 0, t;
  int i;
  *half = 1;
  if (n < FEWEST) return 0;
  for (i = 0; i < n; i++) mean += x[i] / n;
  for (i = 0; i < n; i++) var += (x[i] - mean) * (x[i] - mean) / (n - 1);
  t = t99(n - 1);
  *half = t * t * var / n / (mean * mean); /* squared, relative */
  return *half <= WIDTH * WIDTH;
}

int main(int argc, char **argv)
{
  unsigned long n, executions, e;
  double figures[MOST], half = 1;
  int kept = 0, fixed, status, fds[2];
  time_t start = time(0);
  FILE *f;
  pid_t pid;

  if ((argc == 3 || argc == 4) && strcmp(argv[1], "--one") == 0)
    return measure_once(strtoul(argv[2], 0, 10), argc == 4 ? atoi(argv[3]) : -1);
  if (argc < 2 || argc > 4) {
    fprintf(stderr, "usage: save-json FILE [BYTES [EXECUTIONS]]\n");
    return 2;
  }
  n = argc >= 3 ? strtoul(argv[2], 0, 10) : 4096;
  fixed = argc == 4;
  executions = fixed ? strtoul(argv[3], 0, 10) : MOST;
  if (n < 1 || n > MAX_BYTES || executions < 2 || executions > 1000) {
    fprintf(stderr, "save-json: BYTES from 1 to 65536, EXECUTIONS from 2 to 1000\n");
    return 2;
  }
  if (!(f = fopen(argv[1], "w"))) {
    fprintf(stderr, "save-json: %s: %s\n", argv[1], strerror(errno));
    return 1;
  }
  /* Each execution writes its result to FILE, one after another. */
  for (e = 0; e < executions; e++) {
    char bytes[32], fd[16], line[64] = "";
    ssize_t got;
    double x;
    int doubtful;
    if (!fixed && (narrow_enough(figures, kept, &half) || time(0) - start >= MOST_SECONDS)) break;
    snprintf(bytes, sizeof bytes, "%lu", n);
    fflush(f), fflush(stdout);
    if (pipe(fds) != 0 || (pid = fork()) < 0) {
      fprintf(stderr, "save-json: %s\n", strerror(errno));
      return 1;
    }
    if (pid == 0) {
      static char one[] = "--one";
      char *args[5];
      close(fds[0]);
      snprintf(fd, sizeof fd, "%d", fds[1]);
      args[0] = argv[0], args[1] = one, args[2] = bytes, args[3] = fd, args[4] = 0;
      if (dup2(fileno(f), 1) < 0) _exit(126);
      if (strchr(argv[0], '/')) execv(argv[0], args); /* run by a path, as usual */
      execv("/proc/self/exe", args);                   /* found on PATH */
      /* where this program cannot be run again (an emulator that runs
       * only the program it was given: ENOEXEC), this fresh process
       * measures, in the layout it was forked with: said once */
      if (e == 0)
        fprintf(stderr, "save-json: cannot run %s again (%s): each execution measures in a forked "
                        "process, in this one's layout\n", argv[0], strerror(errno));
      _exit(measure_once(n, fds[1]));
    }
    close(fds[1]);
    got = read(fds[0], line, sizeof line - 1);
    close(fds[0]);
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0 || got <= 0) {
      fprintf(stderr, "save-json: execution %lu failed\n", e + 1);
      return 1;
    }
    line[got] = 0;
    if (sscanf(line, "%lf %d", &x, &doubtful) == 2 && !doubtful && x > 0 && kept < MOST)
      figures[kept++] = x;
  }
  if (fclose(f) != 0) {
    fprintf(stderr, "save-json: %s: %s\n", argv[1], strerror(errno));
    return 1;
  }
  narrow_enough(figures, kept, &half);
  printf("saved %s: sum of %lu bytes, %lu executions (%d unflagged)", argv[1], n, e, kept);
  if (fixed) printf("\n");
  else if (half <= WIDTH * WIDTH) printf(": its 99%% interval within +-%.1f%%\n", 100 * WIDTH);
  else printf(": the bound (%d executions or %d s) came before a 99%% interval of +-%.1f%%\n", MOST,
              MOST_SECONDS, 100 * WIDTH);
  return 0;
}
