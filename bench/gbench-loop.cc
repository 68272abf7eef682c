// SPDX-License-Identifier: MIT
// gbench-loop.cc - Google Benchmark's program for one build of
// bench/compare-builds.sh's loop: it times that build's benchmark(),
// from the shared object it is linked to, as Google Benchmark users do;
// compare.py then compares two such programs.
#include <benchmark/benchmark.h>

// the build's function (named benchmark, like Google Benchmark's namespace)
extern "C" void build_benchmark(void *) __asm__("benchmark");

static void BM_loop(benchmark::State &state)
{
  for (auto _ : state) build_benchmark(nullptr);
}
BENCHMARK(BM_loop);
BENCHMARK_MAIN();
