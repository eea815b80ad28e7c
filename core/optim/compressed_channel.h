#pragma once
// CompressedChannel: one compressed allreduce stream of an optimizer (docs/algorithms.md)
// — the compressor plus its worker and server error feedback, sized lazily on
// the first call (when the group size is known) and saved in checkpoints.
// The RandomKey of step t is {seed, t}, so a restored run draws the same bits.

#include <memory>
#include <optional>
#include <span>
#include <string>

#include "core/comm/collectives/compressed_allreduce.h"
#include "core/comm/communicator.h"
#include "core/compress/compressor.h"
#include "core/optim/optimizer_state.h"

namespace compopt {

class CompressedChannel {
 public:
  // Throws InvalidArgument (from make_compressor) for an unknown spec.
  CompressedChannel(const std::string& compressor_spec, uint64_t seed);

  // data := compressed mean over comm of every rank's data (identical result
  // on every rank), through comm.compressed_allreduce: the backend's version
  // (the CUDA kernels on hybrid and nccl, the CPU algorithm elsewhere). Throws InvalidArgument when
  // restored EF state was sized for another vector length or group size.
  void allreduce_mean(Communicator& comm, std::span<float> data, int64_t step);

  const Compressor& compressor() const { return *compressor_; }
  bool initialized() const { return state_.has_value(); }

  // Keys "<prefix>.worker_ef" and "<prefix>.server_ef" (absent before the first call).
  void save(OptimizerState& state, const std::string& prefix) const;
  void load(const OptimizerState& state, const std::string& prefix);

 private:
  std::unique_ptr<Compressor> compressor_;
  uint64_t seed_;
  std::optional<CompressedAllreduceState> state_;
};

// Saves/loads an EF pair under "<prefix>.worker_ef"/"<prefix>.server_ef".
void save_ef_state(const CompressedAllreduceState& ef, OptimizerState& state,
                   const std::string& prefix);
// Returns nullopt when the keys are absent.
std::optional<CompressedAllreduceState> load_ef_state(const OptimizerState& state,
                                                      const std::string& prefix);

}  // namespace compopt
