/* SPDX-License-Identifier: MIT */
/* t-threads - the first call needs no lock: several threads make it at
 * once, all see the same decision, and their counts never go backwards. */
#include "cpucycles.h"
#include "tap.h"
#include <pthread.h>
#include <string.h>

#define THREADS 8
#define READS 20000

static pthread_barrier_t start;

struct worker {
  const char *implementation;
  int backwards;
};

static void *work(void *arg)
{
  struct worker *w = arg;
  long long prev, now;
  int i;
  pthread_barrier_wait(&start); /* all threads reach the first call together */
  prev = cpucycles();
  for (i = 0; i < READS; i++) {
    now = cpucycles();
    if (now < prev) w->backwards++;
    prev = now;
  }
  w->implementation = cpucycles_implementation();
  return 0;
}

int main(void)
{
  pthread_t threads[THREADS];
  struct worker workers[THREADS];
  int i, started = 0, same = 1, backwards = 0;

  tap_plan(3);
  memset(workers, 0, sizeof workers);
  pthread_barrier_init(&start, 0, THREADS);
  for (i = 0; i < THREADS; i++)
    started += pthread_create(&threads[i], 0, work, &workers[i]) == 0;
  for (i = 0; i < started; i++) pthread_join(threads[i], 0);
  tap_ok(started == THREADS, "%d threads made the first call at once", started);
  for (i = 0; i < started; i++) {
    if (strcmp(workers[i].implementation, workers[0].implementation) != 0) same = 0;
    backwards += workers[i].backwards;
  }
  tap_ok(same, "all threads use the same counter (%s)", workers[0].implementation);
  tap_ok(backwards == 0, "no thread's counts went backwards (%d times)", backwards);
  return tap_done();
}
