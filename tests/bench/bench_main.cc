// compopt_bench entry point: runs every registered benchmark with RatioReporter, which adds a
// "ratio to memcpy" table after the console output (rule in ratio_reporter.h). Standard Google
// Benchmark flags apply (--benchmark_filter, --benchmark_min_time, --benchmark_out, ...).
#include <benchmark/benchmark.h>

#include "tests/bench/ratio_reporter.h"

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  compopt::bench::RatioReporter reporter(benchmark::ConsoleReporter::OO_Tabular);
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}
