#include "experiments/cli/allreduce_variants.h"

#include <memory>
#include <optional>

#include "core/comm/collectives/compressed_allreduce.h"
#include "core/comm/collectives/hierarchical_allreduce.h"

namespace compopt::cli {
namespace {

// Error-feedback state built for vectors of one length; none before the first call.
struct SizedState {
  size_t length = 0;
  std::optional<CompressedAllreduceState> state;
};

// The state of a call on `x`, (re)built by `build` on the first call and when x's length
// changes.
template <typename Build>
CompressedAllreduceState& state_for(SizedState& s, const std::vector<float>& x, Build build) {
  if (!s.state || s.length != x.size()) {
    s.state = build();
    s.length = x.size();
  }
  return *s.state;
}

RandomKey key_of(uint64_t step) { return RandomKey{.seed = kAllreduceVariantSeed, .step = step}; }

AllreduceCall ring(WirePrecision precision) {
  return [precision](Communicator& c, std::vector<float>& x, uint64_t) {
    c.allreduce(x, ReduceOp::kMean, precision);
  };
}

AllreduceCall compressed(const char* compressor_name) {
  auto compressor = std::shared_ptr<Compressor>(make_compressor(compressor_name));
  auto state = std::make_shared<SizedState>();
  return [compressor, state](Communicator& c, std::vector<float>& x, uint64_t step) {
    CompressedAllreduceState& s =
        state_for(*state, x, [&] { return CompressedAllreduceState(x.size(), c.size()); });
    c.compressed_allreduce(x, *compressor, s, key_of(step));
  };
}

AllreduceCall hierarchical(Communicator& comm, const char* compressor_name) {
  auto groups = std::make_shared<HierarchicalGroups>(HierarchicalGroups::split(comm));
  auto compressor = std::shared_ptr<Compressor>(make_compressor(compressor_name));
  auto state = std::make_shared<SizedState>();
  return [groups, compressor, state](Communicator& c, std::vector<float>& x, uint64_t step) {
    CompressedAllreduceState& s =
        state_for(*state, x, [&] { return hierarchical_state(x.size(), *groups); });
    c.hierarchical_compressed_allreduce(*groups, x, *compressor, s, key_of(step));
  };
}

}  // namespace

const Registry<AllreduceVariant>& allreduce_variants() {
  static const Registry<AllreduceVariant> registry = [] {
    Registry<AllreduceVariant> r("allreduce variant");
    // Measured peaks over the ranks' vectors: 1.5x, 1.7x, 2.4x, 4.3x; hierarchical-sign 4.2x
    // on one node of local ranks, 4.7x on sim's one rank per node.
    r.add({{"allreduce-fp32", {}, "ring allreduce (mean), fp32 on the wire"},
           [](Communicator&) { return ring(WirePrecision::kFp32); },
           2});
    r.add({{"allreduce-fp16", {}, "ring allreduce (mean), fp16 on the wire"},
           [](Communicator&) { return ring(WirePrecision::kFp16); },
           2});
    r.add({{"compressed-sign", {}, "compressed allreduce, sign compressor (1-bit Adam)"},
           [](Communicator&) { return compressed("sign"); },
           3});
    r.add({{"compressed-binary", {}, "compressed allreduce, binary compressor (Birder)"},
           [](Communicator&) { return compressed("binary"); },
           5});
    r.add({{"hierarchical-sign",
            {},
            "hierarchical compressed allreduce, sign compressor: within nodes, then across"},
           [](Communicator& c) { return hierarchical(c, "sign"); },
           5});
    return r;
  }();
  return registry;
}

}  // namespace compopt::cli
