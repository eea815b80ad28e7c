#include "core/comm/backend.h"

#include <fmt/format.h>

#include <utility>

#include "core/util/error.h"

namespace compopt {
namespace {

class UnbuiltBackend : public Backend {
 public:
  explicit UnbuiltBackend(std::string reason) : reason_(std::move(reason)) {}
  std::string available() const override { return reason_; }
  void run(const WorldOptions&, const WorldFn&) const override { throw InvalidArgument(reason_); }

 private:
  std::string reason_;
};

}  // namespace

void BackendEntry::run(const WorldOptions& options, const WorldFn& fn) const {
  if (const std::string why = available(); !why.empty()) {
    throw InvalidArgument(fmt::format("backend '{}' cannot run here: {}", name, why));
  }
  if (options.ranks < 0) {
    throw InvalidArgument(fmt::format(
        "backend '{}': {} ranks, expected >= 1 (or 0 for a launched rank)", name, options.ranks));
  }
  if (options.gpus_per_node < 0) {
    throw InvalidArgument(fmt::format("backend '{}': gpus_per_node {}, expected >= 0 (0: one node)",
                                      name, options.gpus_per_node));
  }
  if (options.ranks > 0 && !traits.in_process) {
    throw InvalidArgument(fmt::format(
        "backend '{}' runs one rank per process started by a launcher, not {} ranks in this "
        "process",
        name, options.ranks));
  }
  if (options.ranks == 0 && !traits.launched) {
    throw InvalidArgument(
        fmt::format("backend '{}' starts its ranks in this process: expected ranks >= 1", name));
  }
  backend->run(options, fn);
}

BackendEntry unbuilt_backend(std::string name, const std::string& reason) {
  BackendEntry entry;
  entry.name = std::move(name);
  entry.help = "not built: " + reason;
  entry.backend = std::make_shared<UnbuiltBackend>(entry.help);
  return entry;
}

}  // namespace compopt
