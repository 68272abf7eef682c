// SPDX-License-Identifier: MIT
// gbench-fixture.cc - a real Google Benchmark program for t-gbench (and
// for cpucycles-compare's runs of GB programs): GB's own BENCHMARK_MAIN(),
// and benchmarks whose names hold '/' and ':' as GB makes them, an
// argument's (BM_Sum/64, BM_Sum/4096) and a thread count's
// (BM_Shared/threads:2).  Built by make check where configure finds
// libbenchmark (configure.ac).
//
// -DSLOWER=K makes BM_Work do K times its work (1 by default): two
// builds of this file with different K are an OLD and a NEW whose
// difference is known.
#include <benchmark/benchmark.h>
#include <cstdint>
#include <vector>

#ifndef SLOWER
#define SLOWER 1
#endif

// a sum over range(0) numbers
static void BM_Sum(benchmark::State &state)
{
  std::vector<uint32_t> v(static_cast<size_t>(state.range(0)), 1);
  for (auto _ : state) {
    uint32_t sum = 0;
    for (auto x : v) sum += x;
    benchmark::DoNotOptimize(sum);
  }
}
BENCHMARK(BM_Sum)->Arg(64)->Arg(4096);

// the same small work in two threads
static void BM_Shared(benchmark::State &state)
{
  for (auto _ : state) {
    uint32_t x = 1;
    for (int i = 0; i < 16; i++) {
      benchmark::DoNotOptimize(x);
      x = x * 3 + 1;
    }
  }
}
BENCHMARK(BM_Shared)->Threads(2);

// SLOWER times a chain of 256 dependent steps (the compiler cannot fold
// it away: each step is kept)
static void BM_Work(benchmark::State &state)
{
  for (auto _ : state) {
    uint64_t x = 1;
    for (int i = 0; i < 256 * SLOWER; i++) {
      x = x * 6364136223846793005u + 1442695040888963407u;
      benchmark::DoNotOptimize(x);
    }
  }
}
BENCHMARK(BM_Work);

BENCHMARK_MAIN();
