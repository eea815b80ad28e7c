// libFuzzer target: `compopt train`'s configuration path on arbitrary text. The input is a TOML
// file; after a NUL byte, each further line is a --set override. The TOML is flattened
// (parse_toml_flat), then written to a file and loaded the way `compopt train` loads it
// (load_train_config: file + overrides, every key, the task and the optimizer). Bad input must
// end in InvalidArgument; anything else escaping (or a crash) is a finding.
//
// Harness limits, so the fuzzer measures parsing rather than memory or disk: the task is the
// quadratic or logistic one (fashion-mnist loading is fuzzed by fuzz_idx_reader), and inputs whose
// size keys ask for more than kMaxSize ranks, dimensions or examples are parsed but not resolved.

#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/util/error.h"
#include "experiments/train/train_config.h"

namespace {

constexpr long long kMaxSize = 1024;

// True when `key` is absent or an integer text no larger than `limit`.
bool small(const std::map<std::string, std::string>& values, const std::string& key,
           long long limit) {
  const auto it = values.find(key);
  if (it == values.end()) return true;
  char* end = nullptr;
  const long long v = std::strtoll(it->second.c_str(), &end, 10);
  return v <= limit;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t nul = input.find('\0');
  const std::string_view toml_text = input.substr(0, nul);
  std::vector<std::string> overrides;
  if (nul != std::string_view::npos) {
    std::string_view rest = input.substr(nul + 1);
    while (!rest.empty()) {
      const size_t nl = rest.find('\n');
      overrides.emplace_back(rest.substr(0, nl));
      rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
    }
  }
  std::map<std::string, std::string> flat;
  try {
    flat = compopt::cli::parse_toml_flat(toml_text, "fuzz.toml");
  } catch (const compopt::InvalidArgument&) {
    return 0;
  }
  std::map<std::string, std::string> merged = flat;  // what load_train_config will see, roughly
  for (const std::string& o : overrides) {
    const size_t eq = o.find('=');
    if (eq != std::string::npos) merged[o.substr(0, eq)] = o.substr(eq + 1);
  }
  const auto name = merged.find("task.name");
  if (name == merged.end()) {
    overrides.push_back("task.name=quadratic");
  } else if (name->second.find("fashion") != std::string::npos) {
    return 0;
  }
  for (const char* key : {"run.ranks", "run.gpus_per_node", "run.batch_per_rank", "task.dimension",
                          "task.train_size", "task.test_size"}) {
    if (!small(merged, key, kMaxSize)) return 0;
  }
  for (const auto& [key, value] : merged) {  // spaces around '=' or quotes defeat small(): skip
    if (key.find_first_of(" \t") != std::string::npos || value.find_first_of(" \t\"'") == 0)
      return 0;
  }
  static const std::string path = "/tmp/fuzz_train_config." + std::to_string(::getpid()) + ".toml";
  {
    std::ofstream file(path, std::ios::binary | std::ios::trunc);
    file.write(toml_text.data(), static_cast<std::streamsize>(toml_text.size()));
  }
  try {
    compopt::cli::load_train_config(path, overrides);
  } catch (const compopt::InvalidArgument&) {
  }
  return 0;
}
