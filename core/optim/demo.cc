#include "core/optim/demo.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <string>

#include "core/optim/vector_ops.h"
#include "core/util/error.h"

namespace compopt {
namespace {

void check_options(const std::string& name, const DemoOptions& o, const ParamLayout& layout) {
  const auto fail = [&](const std::string& what) { throw InvalidArgument(name + ": " + what); };
  if (!(o.decay >= 0.0f && o.decay < 1.0f)) {
    fail("compression_decay = " + std::to_string(o.decay) + ", expected a number in [0, 1)");
  }
  if (o.topk < 1) fail("compression_topk = " + std::to_string(o.topk) + ", expected >= 1");
  if (o.chunk < 1 || o.chunk > DemoOptions::kMaxChunk) {
    fail("compression_chunk = " + std::to_string(o.chunk) + ", expected an integer in [1, " +
         std::to_string(DemoOptions::kMaxChunk) + "]");
  }
  if (!o.tensor_rows.empty() && o.tensor_rows.size() != layout.num_tensors()) {
    fail(std::to_string(o.tensor_rows.size()) + " tensor rows for " +
         std::to_string(layout.num_tensors()) + " tensors, expected one per tensor");
  }
  for (size_t i = 0; i < o.tensor_rows.size(); ++i) {
    const size_t rows = o.tensor_rows[i], size = layout.tensor(i).size;
    if (rows == 0 || size % rows != 0) {
      fail("tensor '" + layout.tensor(i).name + "' of " + std::to_string(size) +
           " elements cannot have " + std::to_string(rows) + " rows, expected a divisor");
    }
  }
}

// The selection key: |v|, with NaN as the largest so that it is sent, not hidden.
double magnitude(double v) {
  return std::isnan(v) ? std::numeric_limits<double>::infinity() : std::fabs(v);
}

// sign(q), with sign(0) = 0; NaN stays NaN so that a diverged run shows in the parameters.
float sign_of(double q) {
  if (q > 0) return 1.0f;
  if (q < 0) return -1.0f;
  return static_cast<float>(q);
}

}  // namespace

Demo::Demo(ParamLayout layout, CommonOptions common, DemoOptions options)
    : Optimizer("demo", std::move(layout), std::move(common)), options_(std::move(options)) {
  check_options(name(), options_, this->layout());
  const auto chunk = static_cast<size_t>(options_.chunk);
  const auto topk = static_cast<size_t>(options_.topk);
  transforms_.reserve(this->layout().num_tensors());
  for (size_t i = 0; i < this->layout().num_tensors(); ++i) {
    const size_t size = this->layout().tensor(i).size;
    const size_t layout_rows = std::max<size_t>(1, this->layout().tensor(i).rows);
    const size_t rows = options_.tensor_rows.empty() ? layout_rows : options_.tensor_rows[i];
    transforms_.emplace_back(rows, size / rows, chunk);
  }
  for (size_t i = 0; i < transforms_.size(); ++i) {
    const DctBlocks& t = transforms_[i];
    const size_t kept = std::min(topk, t.block_elements());
    for (size_t b = 0; b < t.num_blocks(); ++b) {
      blocks_.push_back({&t, this->layout().tensor(i).offset, b, kept, sent_});
      sent_ += kept;
    }
  }
  m_.assign(d(), 0.0f);
  dir_.assign(d(), 0.0f);
  values_.assign(sent_, 0.0f);
  index_.assign(sent_, 0);
  message_.resize(sent_ * (sizeof(float) + sizeof(uint16_t)));
}

void Demo::compress_block(const Block& block) {
  const DctBlocks& t = *block.blocks;
  const size_t n = t.block_elements();
  std::span<float> m = std::span<float>(m_).subspan(block.tensor_offset);
  std::vector<double> coeffs(n), decoded(n);
  t.encode(block.index, m, coeffs);
  // The kept set is the first `kept` of the strict order (|X| descending, index ascending),
  // so it does not depend on how the selection runs.
  std::vector<std::pair<double, uint32_t>> order(n);
  for (uint32_t c = 0; c < n; ++c) order[c] = {magnitude(coeffs[c]), c};
  const auto before = [](const std::pair<double, uint32_t>& a,
                         const std::pair<double, uint32_t>& b) {
    return a.first > b.first || (a.first == b.first && a.second < b.second);
  };
  const auto kept_end = order.begin() + static_cast<ptrdiff_t>(block.kept);
  std::nth_element(order.begin(), kept_end, order.end(), before);
  std::sort(order.begin(), kept_end,
            [](const auto& a, const auto& b) { return a.second < b.second; });
  std::vector<double> sparse(n, 0.0);
  for (size_t e = 0; e < block.kept; ++e) {
    const uint32_t c = order[e].second;
    values_[block.first_sent + e] = static_cast<float>(coeffs[c]);
    index_[block.first_sent + e] = static_cast<uint16_t>(c);
    sparse[c] = static_cast<double>(values_[block.first_sent + e]);
  }
  t.decode(sparse, decoded);
  for (size_t h = 0; h < t.block_rows(); ++h) {
    for (size_t w = 0; w < t.block_cols(); ++w) {
      float& mj = m[t.element_offset(block.index, h, w)];
      mj = static_cast<float>(static_cast<double>(mj) - decoded[h * t.block_cols() + w]);
    }
  }
}

void Demo::decode_block(const Block& block, std::span<const std::byte> all, int ranks) {
  const DctBlocks& t = *block.blocks;
  const size_t n = t.block_elements();
  std::vector<double> sum(n, 0.0), decoded(n);
  std::vector<int> count(n, 0);
  std::vector<float> values(block.kept);
  std::vector<uint16_t> index(block.kept);
  for (int r = 0; r < ranks; ++r) {
    const std::byte* msg = all.data() + static_cast<size_t>(r) * message_.size();
    std::memcpy(values.data(), msg + sizeof(float) * block.first_sent, sizeof(float) * block.kept);
    std::memcpy(index.data(), msg + sizeof(float) * sent_ + sizeof(uint16_t) * block.first_sent,
                sizeof(uint16_t) * block.kept);
    for (size_t e = 0; e < block.kept; ++e) {
      const uint16_t c = index[e];
      if (c >= n) {
        throw InvalidArgument("demo: received coefficient index " + std::to_string(c) +
                              " in a block of " + std::to_string(n));
      }
      sum[c] += static_cast<double>(values[e]);
      ++count[c];
    }
  }
  for (size_t c = 0; c < n; ++c) sum[c] = count[c] > 0 ? sum[c] / count[c] : 0.0;
  t.decode(sum, decoded);
  std::span<float> dir = std::span<float>(dir_).subspan(block.tensor_offset);
  for (size_t h = 0; h < t.block_rows(); ++h) {
    for (size_t w = 0; w < t.block_cols(); ++w) {
      dir[t.element_offset(block.index, h, w)] = sign_of(decoded[h * t.block_cols() + w]);
    }
  }
}

void Demo::do_step(std::span<float> params, std::span<const float> grads, Communicator& comm,
                   float lr) {
  const float decay = options_.decay;
  for (size_t j = 0; j < d(); ++j) m_[j] = decay * m_[j] + grads[j];
  for (const Block& block : blocks_) compress_block(block);
  std::memcpy(message_.data(), values_.data(), sizeof(float) * sent_);
  std::memcpy(message_.data() + sizeof(float) * sent_, index_.data(), sizeof(uint16_t) * sent_);
  gathered_.resize(message_.size() * static_cast<size_t>(comm.size()));
  comm.allgather(message_, gathered_);
  for (const Block& block : blocks_) decode_block(block, gathered_, comm.size());
  apply_update(params, dir_, lr, static_cast<float>(options().weight_decay));
}

void Demo::save(OptimizerState& state) const { state.put("m", m_); }

void Demo::load(const OptimizerState& state) { state.get("m", m_); }

}  // namespace compopt
