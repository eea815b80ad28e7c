#include "tests/conformance/backends.h"

#include "real_backend/backend_registry.h"

namespace compopt::testing {

void ConformanceBackend::run(int ranks, int gpus_per_node, const WorldFn& fn) const {
  WorldOptions options;
  options.ranks = ranks;
  options.gpus_per_node = gpus_per_node;
  options.op_timeout_s = 20.0;
  options.connect_timeout_s = 20.0;
  options.linger_s = 5.0;
  options.pipeline_bytes = 20;
  options.quiet = true;
  entry->run(options, fn);
}

const std::vector<ConformanceBackend>& conformance_backends() {
  static const std::vector<ConformanceBackend> backends = [] {
    std::vector<ConformanceBackend> out;
    for (const BackendEntry& entry : backend_registry().entries()) {
      if (entry.traits.in_process && entry.available().empty()) out.push_back({entry.name, &entry});
    }
    return out;
  }();
  return backends;
}

}  // namespace compopt::testing
