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
 * 4096, at most 65536) in EXECUTIONS fresh processes (default 10, at
 * least 2), and writes their results one after another to FILE with
 * cpucycles_bench_format(), each with what it means beside (the counter,
 * its unit, the frequency, the host, the version).
 *
 * Why several processes: the same code measures a few percent apart from
 * one process to the next (where it was placed, the machine's state), far
 * beyond one result's own error.  cpucycles-info --compare takes the
 * results of one name as executions and its interval from the spread
 * between them; with one execution a file it cannot judge.  Each
 * execution is this program run again (fork, then exec: a new address
 * space, new placement) with --one, which writes one result to stdout. */
#include <cpucycles-bench.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_BYTES 65536

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

/* One execution: measure, and write the result as JSON to stdout. */
static int measure_once(size_t n)
{
  static struct work w;
  struct cpucycles_bench_result r;
  char json[4096], name[64];
  long length;
  size_t i;

  w.n = n;
  for (i = 0; i < w.n; i++) w.bytes[i] = (unsigned char)i;
  if (cpucycles_bench(sum_bytes, &w, 0, &r) != 0) {
    fprintf(stderr, "cpucycles_bench: %s\n", strerror(errno));
    return 1;
  }
  /* The name labels the result: cpucycles-info --compare prints it, and
   * takes the results of one name as executions of one benchmark. */
  snprintf(name, sizeof name, "sum of %lu bytes", (unsigned long)w.n);
  /* As snprintf(): the length of the whole text, which must fit. */
  length = cpucycles_bench_format(json, sizeof json, CPUCYCLES_FORMAT_JSON, name, &r);
  if (length < 0 || (unsigned long)length >= sizeof json) {
    fprintf(stderr, "save-json: the result does not fit in %lu bytes\n", (unsigned long)sizeof json);
    return 1;
  }
  if (fputs(json, stdout) == EOF || fflush(stdout) != 0) {
    fprintf(stderr, "save-json: %s\n", strerror(errno));
    return 1;
  }
  return 0;
}

int main(int argc, char **argv)
{
  unsigned long n, executions, e;
  FILE *f;
  int status;
  pid_t pid;

  if (argc == 3 && strcmp(argv[1], "--one") == 0) return measure_once(strtoul(argv[2], 0, 10));
  if (argc < 2 || argc > 4) {
    fprintf(stderr, "usage: save-json FILE [BYTES [EXECUTIONS]]\n");
    return 2;
  }
  n = argc >= 3 ? strtoul(argv[2], 0, 10) : 4096;
  executions = argc == 4 ? strtoul(argv[3], 0, 10) : 10;
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
    char bytes[32];
    snprintf(bytes, sizeof bytes, "%lu", n);
    fflush(f);
    if ((pid = fork()) < 0) {
      fprintf(stderr, "save-json: fork: %s\n", strerror(errno));
      return 1;
    }
    if (pid == 0) {
      static char one[] = "--one";
      char *args[4];
      args[0] = argv[0], args[1] = one, args[2] = bytes, args[3] = 0;
      if (dup2(fileno(f), 1) < 0) _exit(126);
      execvp(argv[0], args);
      fprintf(stderr, "save-json: cannot run %s again: %s\n", argv[0], strerror(errno));
      _exit(127);
    }
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      fprintf(stderr, "save-json: execution %lu failed\n", e + 1);
      return 1;
    }
  }
  if (fclose(f) != 0) {
    fprintf(stderr, "save-json: %s: %s\n", argv[1], strerror(errno));
    return 1;
  }
  printf("saved %s: sum of %lu bytes, %lu executions\n", argv[1], n, executions);
  return 0;
}
