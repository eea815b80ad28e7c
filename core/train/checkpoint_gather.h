#pragma once
// Collects one checkpoint step's RankCheckpoints on rank 0 when the ranks are
// separate processes (a launched backend: tcp, mpi, hybrid, nccl started by
// `compopt launch` or mpirun), so that rank 0 can write the whole checkpoint
// atomically while every rank contributes its own optimizer and error-feedback
// state.
//
// Collective over `comm`: every rank calls it with its state of the same step.
// Ranks 1..n-1 send their encoded state (encode_rank_state) to rank 0 and get an
// empty vector; rank 0 returns every rank's state in rank order. The messages run
// under kMetricsTrafficLabel, so the optimizer byte counters (StepRecord::
// bytes_sent*) do not see them. A state that does not decode, or of another step,
// throws InvalidArgument on rank 0 (the other ranks then fail at their next
// collective).

#include <vector>

#include "core/comm/communicator.h"
#include "core/train/checkpoint.h"

namespace compopt {

std::vector<RankCheckpoint> gather_rank_checkpoints(Communicator& comm, RankCheckpoint&& mine);

}  // namespace compopt
