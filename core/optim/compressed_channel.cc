#include "core/optim/compressed_channel.h"

#include "core/util/error.h"

namespace compopt {

CompressedChannel::CompressedChannel(const std::string& compressor_spec, uint64_t seed)
    : compressor_(make_compressor(compressor_spec)), seed_(seed) {}

void CompressedChannel::allreduce_mean(Communicator& comm, std::span<float> data, int64_t step) {
  if (!state_) state_.emplace(data.size(), comm.size());
  RandomKey key;
  key.seed = seed_;
  key.step = static_cast<uint64_t>(step);
  comm.compressed_allreduce(data, *compressor_, *state_, key);
}

void CompressedChannel::save(OptimizerState& state, const std::string& prefix) const {
  if (state_) save_ef_state(*state_, state, prefix);
}

void CompressedChannel::load(const OptimizerState& state, const std::string& prefix) {
  state_ = load_ef_state(state, prefix);
}

void save_ef_state(const CompressedAllreduceState& ef, OptimizerState& state,
                   const std::string& prefix) {
  state.put(prefix + ".worker_ef", ef.worker.error());
  state.put(prefix + ".server_ef", ef.server.error());
}

std::optional<CompressedAllreduceState> load_ef_state(const OptimizerState& state,
                                                      const std::string& prefix) {
  if (!state.tensors.count(prefix + ".worker_ef")) return std::nullopt;
  const auto& worker = state.tensor(prefix + ".worker_ef");
  const auto& server = state.tensor(prefix + ".server_ef");
  CompressedAllreduceState ef;
  ef.worker = ErrorFeedback(worker.size());
  ef.server = ErrorFeedback(server.size());
  std::copy(worker.begin(), worker.end(), ef.worker.mutable_error().begin());
  std::copy(server.begin(), server.end(), ef.server.mutable_error().begin());
  return ef;
}

}  // namespace compopt
