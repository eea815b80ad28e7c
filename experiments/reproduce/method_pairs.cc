#include "experiments/reproduce/method_pairs.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "core/optim/optimizer_registry.h"
#include "core/util/error.h"

namespace compopt::cli::reproduce {

const std::vector<MethodPair>& method_pairs() {
  // One row per family: the method and the keys of a short run. Add a family here.
  static const std::vector<MethodPair> pairs = {
      {"onebit-adam", {"freeze_step=15%"}},
      {"birder", {}},
      {"local-momentum-sgd", {"tau=4"}},
      {"diloco", {"inner_steps=25%"}},
      {"streaming-diloco", {"inner_steps=25%", "fragments=3"}},
      // eps 1e-4: a sync divides the accumulated update by sqrt(v) + eps, and the MLP's
      // always-zero pixels leave v exactly 0 (docs/optimizers.md, 0/1 Adam).
      {"zero-one-adam",
       {"var_freeze_step=15%", "local_step_scaler=20%", "local_step_clipper=4", "eps=1e-4"}},
      {"powersgd", {"start_powerSGD_iter=15%", "matrix_approximation_rank=4"}},
      {"demo", {}},
  };
  return pairs;
}

std::string method_baseline(const std::string& method) {
  const OptimizerEntry* entry = optimizer_registry().find(method);
  if (entry == nullptr)
    throw InvalidArgument(fmt::format("method pair '{}': not a registered optimizer", method));
  if (entry->baseline.empty())
    throw InvalidArgument(fmt::format(
        "method pair '{}': the optimizer registry gives it no baseline (it is one itself)",
        method));
  return entry->baseline;
}

std::vector<std::string> method_study_optimizers(const std::vector<MethodPair>& pairs) {
  std::vector<std::string> names;
  const auto add = [&](const std::string& name) {
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  };
  for (const MethodPair& pair : pairs) {
    add(pair.method);
    add(method_baseline(pair.method));
  }
  return names;
}

std::vector<std::string> resolved_keys(const std::vector<std::string>& keys, int steps) {
  std::vector<std::string> out;
  for (const std::string& kv : keys) {
    const size_t eq = kv.find('=');
    if (eq == std::string::npos || eq == 0)
      throw InvalidArgument(fmt::format("method key '{}': expected key=value", kv));
    const std::string value = kv.substr(eq + 1);
    if (value.empty() || value.back() != '%') {
      out.push_back(kv);
      continue;
    }
    char* end = nullptr;
    const double percent = std::strtod(value.c_str(), &end);
    if (end != value.c_str() + value.size() - 1 || !(percent > 0 && percent <= 100))
      throw InvalidArgument(fmt::format(
          "method key '{}': expected a percentage of the run's steps in (0, 100]%", kv));
    const auto resolved = std::max<long>(1, std::lround(percent / 100.0 * steps));
    out.push_back(fmt::format("{}={}", kv.substr(0, eq), resolved));
  }
  return out;
}

}  // namespace compopt::cli::reproduce
