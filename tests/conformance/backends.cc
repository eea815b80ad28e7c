#include "tests/conformance/backends.h"

#include "core/comm/local/local_world.h"

namespace compopt::testing {

const std::vector<Backend>& conformance_backends() {
  static const std::vector<Backend> backends = {
      {"local",
       [](int ranks, int ranks_per_node, const std::function<void(Communicator&)>& fn) {
         // Short timeout: a conformance failure must fail fast, not hang.
         LocalWorld world({.ranks = ranks, .ranks_per_node = ranks_per_node, .recv_timeout_s = 20.0});
         world.run(fn);
       }},
  };
  return backends;
}

}  // namespace compopt::testing
