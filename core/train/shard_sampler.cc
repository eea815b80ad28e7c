#include "core/train/shard_sampler.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <random>

#include "core/util/error.h"

namespace compopt {
namespace {

std::mt19937_64 stream(uint64_t seed, uint64_t a, uint64_t b) {
  std::seed_seq seq{static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32),
                    static_cast<uint32_t>(a), static_cast<uint32_t>(b), 0x5eedu};
  return std::mt19937_64(seq);
}

}  // namespace

size_t ShardSampler::steps_per_epoch(size_t train_size, int ranks, size_t batch) {
  if (ranks < 1 || batch == 0) return 0;
  return train_size / static_cast<size_t>(ranks) / batch;
}

ShardSampler::ShardSampler(size_t train_size, int ranks, int rank, size_t batch, uint64_t seed)
    : batch_(batch), rank_(rank), seed_(seed) {
  if (ranks < 1 || rank < 0 || rank >= ranks) {
    throw InvalidArgument(fmt::format("ShardSampler: rank {} of {} ranks", rank, ranks));
  }
  const size_t shard = train_size / static_cast<size_t>(ranks);
  if (batch == 0 || shard < batch) {
    throw InvalidArgument(fmt::format(
        "per-rank batch {} does not fit a shard of {} examples ({} examples / {} ranks)", batch,
        shard, train_size, ranks));
  }
  std::vector<size_t> all(train_size);
  std::iota(all.begin(), all.end(), size_t{0});
  auto rng = stream(seed, 0xffffffffu, 0);
  std::shuffle(all.begin(), all.end(), rng);
  const auto first = all.begin() + static_cast<std::ptrdiff_t>(shard * static_cast<size_t>(rank));
  shard_.assign(first, first + static_cast<std::ptrdiff_t>(shard));
  order_ = shard_;
}

void ShardSampler::shuffle_for_epoch() {
  order_ = shard_;
  auto rng = stream(seed_, static_cast<uint64_t>(rank_), static_cast<uint64_t>(epoch_));
  std::shuffle(order_.begin(), order_.end(), rng);
  position_ = 0;
}

void ShardSampler::seek(Position p) {
  const size_t per_epoch = steps_per_epoch() * batch_;
  if (p.epoch < -1 || (p.epoch == -1 && p.offset != 0) || p.offset % batch_ != 0 ||
      p.offset > per_epoch) {
    throw InvalidArgument(fmt::format(
        "ShardSampler: position (epoch {}, offset {}) is not a batch boundary of an epoch of {} "
        "batches of {} examples",
        p.epoch, p.offset, steps_per_epoch(), batch_));
  }
  epoch_ = p.epoch;
  if (epoch_ >= 0) shuffle_for_epoch();
  position_ = p.offset;
}

std::span<const size_t> ShardSampler::next() {
  if (epoch_ < 0 || position_ + batch_ > order_.size()) {
    ++epoch_;
    shuffle_for_epoch();
  }
  std::span<const size_t> out(order_.data() + position_, batch_);
  position_ += batch_;
  return out;
}

}  // namespace compopt
