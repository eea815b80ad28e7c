#pragma once
// Checkpoint: everything a data-parallel training run needs to continue bit for
// bit from the end of a step, and its file format (docs/training.md).
//
// A checkpoint holds, for every rank, the parameters, the optimizer's full
// state (Optimizer::save_state: moments, worker and server error feedback,
// step, stage, seed), the data position (ShardSampler::Position), the
// optimizer's cumulative byte counters and the clock offset; plus rank 0's
// StepRecords of steps 1..step (metrics.csv is rebuilt from them), an
// `identity` map (what must match to resume: task, world size, optimizer and
// its hyper-parameters, ... as the caller defines it) and a free `settings`
// map (how the run was configured, to rebuild it). There is no other RNG
// state: every random stream of the loop, the tasks and the compressors is a
// pure function of (seed, rank, epoch / step / example).
//
// File: "CMPCKPT1" magic (8 bytes), u32 format version, u32 flags (0), u64 body
// length, the body, and a u32 crc32 (core/util/crc32.h) of everything before it;
// all little-endian (core/util/byte_codec.h). Files are written atomically through
// an Env (core/util/file_io.h): temporary name, fsync, rename, fsync of the folder.
// Reading refuses a wrong magic, another version, a truncated or overlong
// file, a checksum mismatch and an inconsistent body with InvalidArgument
// naming the file and the problem.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/optim/optimizer_state.h"
#include "core/train/shard_sampler.h"
#include "core/train/step_record.h"
#include "core/util/io_env.h"

namespace compopt {

// Version 2 adds the step records' wall-clock split (step_wall_s ... compression_s);
// version 1 files are still read (those fields 0).
inline constexpr uint32_t kCheckpointFormatVersion = 2;
inline constexpr uint32_t kOldestCheckpointFormatVersion = 1;

// One rank's share of a checkpoint taken after `step` steps.
struct RankCheckpoint {
  int64_t step = 0;
  std::vector<float> params;
  OptimizerState optimizer;
  ShardSampler::Position sampler;
  uint64_t bytes_sent = 0;             // optimizer traffic since step 1
  uint64_t bytes_sent_inter_node = 0;  // the part that crossed a node boundary
  double clock_s = 0;                  // Communicator::now() - start of training

  friend bool operator==(const RankCheckpoint&, const RankCheckpoint&) = default;
};

struct Checkpoint {
  int64_t step = 0;
  std::map<std::string, std::string> identity;
  std::map<std::string, std::string> settings;
  std::vector<RankCheckpoint> ranks;  // one per rank, in rank order
  std::vector<StepRecord> records;    // steps 1..step

  int world_size() const { return static_cast<int>(ranks.size()); }
};

// Serialized file contents (header, body, checksum).
std::vector<std::byte> encode_checkpoint(const Checkpoint& checkpoint);
// Parses and verifies file contents; `source` names them in messages.
Checkpoint decode_checkpoint(std::span<const std::byte> bytes, const std::string& source);

// One rank's state on its own, as a launched rank sends it to rank 0 (the same
// fields as in a checkpoint body, plus the step; no header or checksum: the
// transport delivers it intact). decode_rank_state throws InvalidArgument naming
// `source` for bytes that do not parse.
std::vector<std::byte> encode_rank_state(const RankCheckpoint& state);
RankCheckpoint decode_rank_state(std::span<const std::byte> bytes, const std::string& source);

// Atomic write (write_file_atomic). Throws IoError naming the file and the errno text
// when it cannot be written; no temporary file is left behind.
void write_checkpoint_file(const std::filesystem::path& path, const Checkpoint& checkpoint,
                           Env& env = default_env());
// Throws InvalidArgument when the file is missing, unreadable or not valid.
Checkpoint read_checkpoint_file(const std::filesystem::path& path, Env& env = default_env());

// Layout of checkpoints in a run directory: <run>/checkpoints/step-<8 digits>.ckpt.
std::filesystem::path checkpoint_path(const std::filesystem::path& run_dir, int64_t step);
// Steps of the checkpoint files in <run>/checkpoints, ascending (empty if none).
std::vector<int64_t> list_checkpoints(const std::filesystem::path& run_dir);

// Throws InvalidArgument listing every key whose value differs between the
// checkpoint's identity and `expected` (absent keys included), e.g.
// "checkpoint F does not match this run: optimizer.lr = 0.001 in the checkpoint, 0.002 now".
void check_identity(const Checkpoint& checkpoint,
                    const std::map<std::string, std::string>& expected, const std::string& source);

}  // namespace compopt
