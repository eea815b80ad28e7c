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

// "BM_x/args" -> "BM_x<suffix>/args": a twin of an op benchmark (_scalar, _baseline).
std::string twin(const std::string& name, const char* suffix) {
  const size_t slash = name.find('/');
  if (slash == std::string::npos) return name + suffix;
  return name.substr(0, slash) + suffix + name.substr(slash);
}

}  // namespace

std::string RatioReporter::twin_ratio(const std::string& twin_name, const Timing& op,
                                      const char* format) const {
  const auto found = ops_.find(twin_name);
  if (found == ops_.end()) return "-";
  char text[32];
  std::snprintf(text, sizeof(text), format, found->second.per_iteration() / op.per_iteration());
  return text;
}

void RatioReporter::Finalize() {
  benchmark::ConsoleReporter::Finalize();
  if (order_.empty()) return;
  std::ostream& out = GetOutputStream();
  size_t width = 9;
  for (const std::string& name : order_) width = std::max(width, name.size());
  char line[512];
  out << "\nratio to memcpy (real time per iteration / BM_memcpy of the same input bytes);\n"
         "vs_scalar = time of the BM_<op>_scalar twin / time of BM_<op> (speedup);\n"
         "vs_baseline = time of the BM_<op>_baseline twin / time of BM_<op>\n";
  std::snprintf(line, sizeof(line), "%-*s %14s %12s %12s %8s %10s %11s\n", static_cast<int>(width),
                "benchmark", "input_bytes", "time_us", "memcpy_us", "ratio", "vs_scalar",
                "vs_baseline");
  out << line;
  for (const std::string& name : order_) {
    const Timing& op = ops_.at(name);
    const auto base = memcpy_.find(op.input_bytes);
    const std::string speedup = twin_ratio(twin(name, "_scalar"), op, "%.2fx");
    const std::string fraction = twin_ratio(twin(name, "_baseline"), op, "%.2f");
    if (base == memcpy_.end()) {
      std::snprintf(line, sizeof(line), "%-*s %14.0f %12.1f %12s %8s %10s %11s\n",
                    static_cast<int>(width), name.c_str(), op.input_bytes, op.per_iteration() * 1e6,
                    "n/a", "n/a", speedup.c_str(), fraction.c_str());
    } else {
      const double base_s = base->second.per_iteration();
      std::snprintf(line, sizeof(line), "%-*s %14.0f %12.1f %12.1f %8.2f %10s %11s\n",
                    static_cast<int>(width), name.c_str(), op.input_bytes, op.per_iteration() * 1e6,
                    base_s * 1e6, op.per_iteration() / base_s, speedup.c_str(), fraction.c_str());
    }
    out << line;
  }
}

}  // namespace compopt::bench
