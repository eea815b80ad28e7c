// compopt_sim_scale_bench: wall time and peak memory of one simulated training step
// (sim::simulate_step, as `compopt profile` runs it) for every registered optimizer at
// 1,024 / 4,096 / 16,384 GPUs of 8 per node (bert-large-seq128 on ethernet-a100-8, a
// star), and the exponent of wall time against GPUs fitted by least squares on log-log.
// Each step runs in its own child process, so its peak RSS (getrusage ru_maxrss) is its own.
// Usage: compopt_sim_scale_bench [GPUS...]   (e.g. 1024 4096 16384 131072)
// docs/performance.md, "Simulator scale".

#include <fmt/format.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include "sim/scenario.h"
#include "sim/step_simulator.h"

namespace {

struct Sample {
  double wall_s = 0;
  double peak_mb = 0;
  bool ok = false;
};

// One simulate_step in a child process: its wall seconds (through a pipe) and peak RSS.
Sample measure(const std::string& optimizer, int gpus) {
  int fds[2];
  if (pipe(fds) != 0) return {};
  std::fflush(stdout);  // or the child's copy of the buffer prints twice
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    double wall = -1;
    try {
      // Resolved at 8 GPUs, then grown to `gpus` (beyond the scenarios' 2^20 if asked).
      compopt::sim::StepConfig config = compopt::sim::resolve_scenario(
          {.cluster = "ethernet-a100-8", .optimizer = optimizer, .gpus = 8});
      config.cluster.nodes = gpus / 8;
      const auto start = std::chrono::steady_clock::now();
      compopt::sim::simulate_step(config);
      wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s at %d GPUs: %s\n", optimizer.c_str(), gpus, e.what());
    }
    const ssize_t written = write(fds[1], &wall, sizeof wall);
    _exit(written == sizeof wall && wall >= 0 ? 0 : 1);
  }
  close(fds[1]);
  Sample out;
  double wall = -1;
  const bool read_ok = read(fds[0], &wall, sizeof wall) == sizeof wall;
  close(fds[0]);
  int status = 0;
  rusage usage{};
  wait4(pid, &status, 0, &usage);
  out.ok = read_ok && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  out.wall_s = wall;
  out.peak_mb = static_cast<double>(usage.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB
  return out;
}

// Least-squares slope of log(wall) against log(gpus).
double fitted_exponent(const std::vector<int>& gpus, const std::vector<Sample>& samples) {
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  const auto n = static_cast<double>(gpus.size());
  for (size_t i = 0; i < gpus.size(); ++i) {
    const double x = std::log(gpus[i]), y = std::log(std::max(samples[i].wall_s, 1e-6));
    sx += x;
    sy += y;
    sxx += x * x;
    sxy += x * y;
  }
  return (n * sxy - sx * sy) / (n * sxx - sx * sx);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> gpus;
  for (int i = 1; i < argc; ++i) gpus.push_back(std::atoi(argv[i]));
  if (gpus.empty()) gpus = {1024, 4096, 16384};
  for (const int g : gpus) {
    if (g < 8 || g % 8 != 0) {
      std::fprintf(stderr, "GPU count %d: expected a positive multiple of 8 (8 GPUs per node)\n",
                   g);
      return 2;
    }
  }
  fmt::print("simulate_step, bert-large-seq128 on ethernet-a100-8 (star, 8 GPUs per node)\n");
  fmt::print("{:<22}", "optimizer");
  for (const int g : gpus) fmt::print(" {:>9} GPUs: s / MB  ", g);
  fmt::print(" exponent\n");
  bool all_ok = true;
  for (const std::string& optimizer : compopt::sim::step_optimizer_names()) {
    std::vector<Sample> samples;
    fmt::print("{:<22}", optimizer);
    for (const int g : gpus) {
      samples.push_back(measure(optimizer, g));
      const Sample& s = samples.back();
      all_ok = all_ok && s.ok;
      fmt::print(" {:>12.4f} / {:>7.1f}", s.ok ? s.wall_s : NAN, s.peak_mb);
    }
    fmt::print("  {:>8.2f}\n", gpus.size() > 1 ? fitted_exponent(gpus, samples) : NAN);
  }
  return all_ok ? 0 : 1;
}
