// SPDX-License-Identifier: MIT
// cpp-lambda.cc - cpucycles_bench() from C++, timing a lambda.
//
//   c++ -std=c++11 -O2 cpp-lambda.cc $(pkg-config --cflags --libs cpucycles-bench) -o cpp-lambda
//
// cpucycles_bench() takes a plain function, void (*)(void *), and the
// void * it passes to it.  A lambda that captures is no such function, so
// pass a trampoline: call<F> below is a function of that type, made for
// the lambda's type F, that turns the void * back into the lambda and
// calls it.  The lambda itself travels as the argument.
#include <cpucycles-bench.h>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <vector>

template <class F>
static void call(void *lambda)
{
  (*static_cast<F *>(lambda))();
}

// cpucycles_bench(f, ...) for any callable f.
template <class F>
static int bench(F &f, const cpucycles_bench_options *options, cpucycles_bench_result *result)
{
  return cpucycles_bench(call<F>, &f, options, result);
}

int main()
{
  std::vector<unsigned> numbers(1000);
  std::iota(numbers.begin(), numbers.end(), 1u);
  unsigned total = 0;

  // What to time: it captures numbers and total by reference.
  auto sum = [&] { total = std::accumulate(numbers.begin(), numbers.end(), 0u); };

  cpucycles_bench_result r;
  if (bench(sum, nullptr, &r) != 0) {
    std::fprintf(stderr, "cpucycles_bench: %s\n", std::strerror(errno));
    return 1;
  }
  std::printf("lambda: median %.1f cycles a call (%lld runs of %lld call(s), %lld disturbed); sum %u\n",
              r.median, r.count, r.calls, r.disturbed, total);
  std::printf("counter %s, unit %s\n", cpucycles_implementation(), cpucycles_unit_name());
  return 0;
}
