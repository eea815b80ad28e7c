// libFuzzer target: `compopt sweep`'s configuration parser (parse_sweep_config) on arbitrary
// text. The input is the TOML file; after a NUL byte, each further line is a --set override.
// Bad input must end in InvalidArgument; every scenario of an accepted config must resolve, the
// grid must stay within kMaxSweepScenarios, and run.json's copy must be valid JSON.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "core/util/error.h"
#include "experiments/scenario/sweep_config.h"

namespace {

void check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "fuzz_sweep_config: invariant violated: %s\n", what);
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t nul = input.find('\0');
  std::vector<std::string> sets;
  if (nul != std::string_view::npos) {
    std::string_view rest = input.substr(nul + 1);
    while (!rest.empty()) {
      const size_t nl = rest.find('\n');
      sets.emplace_back(rest.substr(0, nl));
      rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
    }
  }
  compopt::cli::SweepConfig config;
  try {
    config = compopt::cli::parse_sweep_config(input.substr(0, nul), "fuzz.toml", sets);
  } catch (const compopt::InvalidArgument&) {
    return 0;
  }
  check(!config.scenarios.empty(), "accepted a config with no scenario");
  check(config.scenarios.size() <= compopt::cli::kMaxSweepScenarios, "grid above the limit");
  check(config.resolved.is_object(), "run.json copy of the config is not a JSON object");
  for (const auto& s : config.scenarios) {
    const auto resolved = compopt::sim::resolve_scenario(s);  // must not throw now
    check(resolved.cluster.gpus() >= 1 && resolved.batch_per_gpu >= 1 && resolved.grad_accum >= 1,
          "a resolved scenario has no GPU, batch or accumulation");
  }
  return 0;
}
