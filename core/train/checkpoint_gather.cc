#include "core/train/checkpoint_gather.h"

#include <fmt/format.h>

#include <cstdint>

#include "core/train/train_loop.h"
#include "core/util/error.h"

namespace compopt {
namespace {

constexpr int kCheckpointTag = 0x636b70;  // "ckp"

}  // namespace

std::vector<RankCheckpoint> gather_rank_checkpoints(Communicator& comm, RankCheckpoint&& mine) {
  TrafficCounters::Scope scope(comm.traffic(), kMetricsTrafficLabel);
  if (comm.rank() != 0) {
    const std::vector<std::byte> bytes = encode_rank_state(mine);
    const uint64_t length = bytes.size();
    comm.send(0, kCheckpointTag, std::as_bytes(std::span(&length, 1)));
    comm.send(0, kCheckpointTag, bytes);
    return {};
  }
  std::vector<RankCheckpoint> all(static_cast<size_t>(comm.size()));
  const int64_t step = mine.step;
  all[0] = std::move(mine);
  for (int r = 1; r < comm.size(); ++r) {
    uint64_t length = 0;
    comm.recv(r, kCheckpointTag, std::as_writable_bytes(std::span(&length, 1)));
    std::vector<std::byte> bytes(length);
    comm.recv(r, kCheckpointTag, bytes);
    RankCheckpoint& state = all[static_cast<size_t>(r)];
    state = decode_rank_state(bytes, fmt::format("checkpoint state of rank {}", r));
    if (state.step != step) {
      throw InvalidArgument(fmt::format(
          "checkpoint: rank {} sent its state of step {}, expected {}", r, state.step, step));
    }
  }
  return all;
}

}  // namespace compopt
