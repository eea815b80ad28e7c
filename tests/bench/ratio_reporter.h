#pragma once
// Console reporter that, after the usual output, prints a "ratio to memcpy" table.
//
// The matching rule (one rule for every benchmark in compopt_bench):
//   - An op benchmark declares how many input bytes one iteration reads by calling
//     set_input_bytes(state, bytes) after its timing loop (user counter "input_bytes"; it also
//     sets SetBytesProcessed). Benchmarks without the counter are left out of the table.
//   - Its baseline is BM_memcpy/<bytes> from the same run: a memcpy of exactly that many bytes
//     (register it with ensure_memcpy_baseline(bytes), memcpy_baseline.h). The baseline declares
//     its own input_bytes, so matching is by the counter, never by parsing argument names.
//   - ratio = op real time per iteration / baseline real time per iteration, each averaged over
//     repetitions. A missing baseline (e.g. filtered out) prints "n/a".
//   - An op BM_<op>/<args> whose twin BM_<op>_scalar/<args> ran too (a scalar reference of the
//     same work) also gets vs_scalar = twin time / op time, the speedup over the reference.
//   - An op whose twin BM_<op>_baseline/<args> ran (the same bytes moved by the simplest means,
//     e.g. plain sockets) gets vs_baseline = baseline time / op time, the fraction of the
//     baseline's rate the op reaches.
// Collective benchmarks named BM_<op>/<elements> follow the same rule with the bytes of their
// input vector (e.g. 4 * elements for fp32).

#include <benchmark/benchmark.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace compopt::bench {

inline constexpr char kInputBytesCounter[] = "input_bytes";

// Records the per-iteration input size (counter "input_bytes") and the bytes processed.
void set_input_bytes(benchmark::State& state, int64_t bytes);

class RatioReporter : public benchmark::ConsoleReporter {
 public:
  using benchmark::ConsoleReporter::ConsoleReporter;

  void ReportRuns(const std::vector<Run>& runs) override;
  void Finalize() override;

 private:
  struct Timing {
    double input_bytes = 0;
    double seconds = 0;  // real time summed over repetitions
    double iterations = 0;
    double per_iteration() const { return seconds / iterations; }
  };
  // twin time / op time printed with `format`, or "-" when the twin did not run.
  std::string twin_ratio(const std::string& twin_name, const Timing& op, const char* format) const;

  std::vector<std::string> order_;     // op benchmarks in the order they ran
  std::map<std::string, Timing> ops_;  // by benchmark name
  std::map<double, Timing> memcpy_;    // by input bytes
};

}  // namespace compopt::bench
