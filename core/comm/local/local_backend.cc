#include "core/comm/local/local_backend.h"

#include <fmt/format.h>

#include "core/comm/local/local_world.h"
#include "core/util/error.h"

namespace compopt {
namespace {

class LocalBackend : public Backend {
 public:
  std::string available() const override { return ""; }

  void run(const WorldOptions& options, const WorldFn& fn) const override {
    if (!options.extras.empty()) {
      throw InvalidArgument(fmt::format("backend 'local': unknown setting '{}', expected none",
                                        options.extras.begin()->first));
    }
    LocalWorldOptions local{.ranks = options.ranks, .gpus_per_node = options.gpus_per_node};
    if (options.op_timeout_s) local.recv_timeout_s = *options.op_timeout_s;
    if (options.pipeline_bytes) local.pipeline_bytes = *options.pipeline_bytes;
    LocalWorld(local).run(fn);
  }
};

}  // namespace

void register_local_backend(BackendRegistry& registry) {
  BackendEntry entry;
  entry.name = "local";
  entry.help = "ranks as threads of this process, exact and deterministic";
  entry.traits = {.in_process = true, .launched = false, .trains = true};
  entry.backend = std::make_shared<LocalBackend>();
  registry.add(std::move(entry));
}

}  // namespace compopt
