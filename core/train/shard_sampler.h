#pragma once
// ShardSampler: which training examples one rank draws, batch by batch.
// - A global permutation of 0..train_size-1 (seeded by `seed`, identical on
//   every rank) is cut into `ranks` equal contiguous shards of
//   floor(train_size / ranks) examples; the remainder is never drawn.
// - Each epoch the rank shuffles its own shard with its own stream, seeded by
//   (seed, rank, epoch), and yields floor(shard / batch) batches of `batch`
//   examples (the last partial batch is dropped), so every rank runs the same
//   number of steps per epoch and shards never overlap.
// The position (epoch and offset in the epoch's order) can be saved and
// restored: the order of an epoch is a pure function of (seed, rank, epoch),
// so a restored sampler yields the same batches as an uninterrupted one.
// Not thread-safe: one sampler per rank.

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace compopt {

class ShardSampler {
 public:
  // Where the sampler stands: epoch -1 before the first next().
  struct Position {
    int64_t epoch = -1;
    size_t offset = 0;  // examples of the epoch's order already drawn
    friend bool operator==(const Position&, const Position&) = default;
  };

  // Throws InvalidArgument when a shard holds fewer than `batch` examples.
  ShardSampler(size_t train_size, int ranks, int rank, size_t batch, uint64_t seed);

  static size_t steps_per_epoch(size_t train_size, int ranks, size_t batch);
  size_t steps_per_epoch() const { return shard_.size() / batch_; }
  const std::vector<size_t>& shard() const { return shard_; }

  // The next batch (valid until the next call); advances to a new epoch as needed.
  std::span<const size_t> next();
  // Epoch of the batch returned by the latest next() (0-based).
  int64_t epoch() const { return epoch_; }

  Position position() const { return {epoch_, position_}; }
  // Continues from `p` (as returned by position()). Throws InvalidArgument for
  // an offset that is not a whole number of batches within the epoch, or for
  // epoch -1 with a nonzero offset.
  void seek(Position p);

 private:
  void shuffle_for_epoch();

  std::vector<size_t> shard_;
  std::vector<size_t> order_;
  size_t batch_;
  int rank_;
  uint64_t seed_;
  int64_t epoch_ = -1;
  size_t position_ = 0;
};

}  // namespace compopt
