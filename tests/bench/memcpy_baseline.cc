#include "tests/bench/memcpy_baseline.h"

#include <benchmark/benchmark.h>

#include <cstring>
#include <set>
#include <vector>

#include "tests/bench/ratio_reporter.h"

namespace compopt::bench {
namespace {

void memcpy_benchmark(benchmark::State& state) {
  const auto bytes = static_cast<size_t>(state.range(0));
  std::vector<char> src(bytes, 1), dst(bytes, 0);
  for (auto _ : state) {
    std::memcpy(dst.data(), src.data(), bytes);
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  set_input_bytes(state, state.range(0));
}

}  // namespace

void ensure_memcpy_baseline(int64_t bytes) {
  static std::set<int64_t> registered;
  if (registered.insert(bytes).second) {
    benchmark::RegisterBenchmark("BM_memcpy", memcpy_benchmark)
        ->Arg(bytes)
        ->Unit(benchmark::kMicrosecond);
  }
}

}  // namespace compopt::bench
