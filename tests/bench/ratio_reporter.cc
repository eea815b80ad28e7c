#include "tests/bench/ratio_reporter.h"

#include <cstdio>
#include <ostream>
#include <string_view>

namespace compopt::bench {

void set_input_bytes(benchmark::State& state, int64_t bytes) {
  state.counters[kInputBytesCounter] = benchmark::Counter(static_cast<double>(bytes));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * bytes);
}

void RatioReporter::ReportRuns(const std::vector<Run>& runs) {
  benchmark::ConsoleReporter::ReportRuns(runs);
  for (const Run& run : runs) {
    if (run.run_type != Run::RT_Iteration || run.error_occurred || run.iterations == 0) continue;
    const auto counter = run.counters.find(kInputBytesCounter);
    if (counter == run.counters.end()) continue;
    const std::string name = run.benchmark_name();
    const bool is_memcpy = std::string_view(name).substr(0, 10) == "BM_memcpy/";
    Timing& t = is_memcpy ? memcpy_[counter->second.value] : ops_[name];
    if (!is_memcpy && t.iterations == 0) order_.push_back(name);
    t.input_bytes = counter->second.value;
    t.seconds += run.real_accumulated_time;
    t.iterations += static_cast<double>(run.iterations);
  }
}

namespace {

// "BM_x/args" -> "BM_x_scalar/args": the scalar reference twin of an op benchmark.
std::string scalar_twin(const std::string& name) {
  const size_t slash = name.find('/');
  if (slash == std::string::npos) return name + "_scalar";
  return name.substr(0, slash) + "_scalar" + name.substr(slash);
}

}  // namespace

void RatioReporter::Finalize() {
  benchmark::ConsoleReporter::Finalize();
  if (order_.empty()) return;
  std::ostream& out = GetOutputStream();
  size_t width = 9;
  for (const std::string& name : order_) width = std::max(width, name.size());
  char line[512];
  out << "\nratio to memcpy (real time per iteration / BM_memcpy of the same input bytes);\n"
         "vs_scalar = time of the BM_<op>_scalar twin / time of BM_<op> (speedup)\n";
  std::snprintf(line, sizeof(line), "%-*s %14s %12s %12s %8s %10s\n", static_cast<int>(width),
                "benchmark", "input_bytes", "time_us", "memcpy_us", "ratio", "vs_scalar");
  out << line;
  for (const std::string& name : order_) {
    const Timing& op = ops_.at(name);
    const auto base = memcpy_.find(op.input_bytes);
    const auto twin = ops_.find(scalar_twin(name));
    char speedup[32] = "-";
    if (twin != ops_.end()) {
      std::snprintf(speedup, sizeof(speedup), "%.2fx",
                    twin->second.per_iteration() / op.per_iteration());
    }
    if (base == memcpy_.end()) {
      std::snprintf(line, sizeof(line), "%-*s %14.0f %12.1f %12s %8s %10s\n",
                    static_cast<int>(width), name.c_str(), op.input_bytes, op.per_iteration() * 1e6,
                    "n/a", "n/a", speedup);
    } else {
      const double base_s = base->second.per_iteration();
      std::snprintf(line, sizeof(line), "%-*s %14.0f %12.1f %12.1f %8.2f %10s\n",
                    static_cast<int>(width), name.c_str(), op.input_bytes, op.per_iteration() * 1e6,
                    base_s * 1e6, op.per_iteration() / base_s, speedup);
    }
    out << line;
  }
}

}  // namespace compopt::bench
