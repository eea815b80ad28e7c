#pragma once
// A plain single-process implementation of the compressed allreduce of docs/algorithms.md, written
// from that text for the tests: it holds every rank's error feedback and runs
// the phases rank by rank. Randomness follows the RandomKey contract of
// compressed_allreduce.h (worker: stream 0, offset base; server j: stream 1,
// offset base + j * chunk).

#include <cstdint>
#include <vector>

#include "core/compress/compressor.h"

namespace compopt::testing {

class CompressedReference {
 public:
  // `world_ranks[i]` is the world rank of member i; `base_offset` the global index of element 0.
  CompressedReference(size_t d, std::vector<uint32_t> world_ranks, uint64_t base_offset = 0)
      : d_(d),
        n_(world_ranks.size()),
        world_ranks_(std::move(world_ranks)),
        base_offset_(base_offset) {
    padded_ = (d + 8 * n_ - 1) / (8 * n_) * (8 * n_);
    chunk_ = padded_ / n_;
    worker_error_.assign(n_, std::vector<float>(padded_, 0.0f));
    server_error_.assign(n_, std::vector<float>(chunk_, 0.0f));
  }

  // One call: inputs[i] is member i's vector (length d); returns the average all members get.
  std::vector<float> step(const std::vector<std::vector<float>>& inputs, const Compressor& c,
                          uint64_t seed, uint64_t step) {
    const size_t pb = c.payload_bytes(chunk_);
    std::vector<std::vector<std::byte>> payloads(n_, std::vector<std::byte>(n_ * pb));
    std::vector<float> scales(n_);
    for (size_t i = 0; i < n_; ++i) {
      std::vector<float> y(padded_, 0.0f), decoded(padded_);
      for (size_t k = 0; k < d_; ++k) y[k] = inputs[i][k];
      for (size_t k = 0; k < padded_; ++k) y[k] = y[k] + worker_error_[i][k];
      const RandomKey key{.seed = seed,
                          .step = step,
                          .rank = world_ranks_[i],
                          .stream = 0,
                          .index_offset = base_offset_};
      scales[i] = c.encode(y, payloads[i], key);
      c.decode(scales[i], payloads[i], decoded);
      for (size_t k = 0; k < padded_; ++k) worker_error_[i][k] = y[k] - decoded[k];
    }
    std::vector<float> out(padded_);
    for (size_t j = 0; j < n_; ++j) {
      std::vector<float> z(chunk_, 0.0f), piece(chunk_);
      for (size_t i = 0; i < n_; ++i) {
        c.decode(scales[i], std::span(payloads[i]).subspan(j * pb, pb), piece);
        for (size_t k = 0; k < chunk_; ++k) z[k] += piece[k];
      }
      for (size_t k = 0; k < chunk_; ++k)
        z[k] = z[k] / static_cast<float>(n_) + server_error_[j][k];
      const RandomKey key{.seed = seed,
                          .step = step,
                          .rank = world_ranks_[j],
                          .stream = 1,
                          .index_offset = base_offset_ + j * chunk_};
      std::vector<std::byte> payload(pb);
      const float scale = c.encode(z, payload, key);
      c.decode(scale, payload, piece);
      for (size_t k = 0; k < chunk_; ++k) {
        server_error_[j][k] = z[k] - piece[k];
        out[j * chunk_ + k] = piece[k];
      }
    }
    out.resize(d_);
    return out;
  }

  size_t padded() const { return padded_; }
  size_t chunk() const { return chunk_; }
  const std::vector<float>& worker_error(size_t i) const { return worker_error_[i]; }
  const std::vector<float>& server_error(size_t j) const { return server_error_[j]; }

 private:
  size_t d_, n_, padded_ = 0, chunk_ = 0;
  std::vector<uint32_t> world_ranks_;
  uint64_t base_offset_;
  std::vector<std::vector<float>> worker_error_, server_error_;
};

}  // namespace compopt::testing
