#include "core/compress/topk.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <vector>

#include "core/compress/payload_check.h"
#include "core/util/error.h"

namespace compopt {

static_assert(std::endian::native == std::endian::little, "payloads are little-endian");

namespace {

// Magnitude order with NaN above every number.
float rank_of(float v) {
  return std::isnan(v) ? std::numeric_limits<float>::infinity() : std::fabs(v);
}
bool nan_first(float a, float b) { return std::isnan(a) && !std::isnan(b); }

}  // namespace

TopkCompressor::TopkCompressor(double ratio) : ratio_(ratio) {
  if (!(ratio > 0.0 && ratio <= 1.0)) {
    throw InvalidArgument(fmt::format("topk ratio {}, expected a number in (0, 1]", ratio));
  }
}

size_t TopkCompressor::kept(size_t n) const {
  const double exact = ratio_ * static_cast<double>(n);
  const auto k =
      static_cast<size_t>(std::ceil(exact * (1.0 - 4 * std::numeric_limits<double>::epsilon())));
  return std::min(k, n);
}

std::string TopkCompressor::name() const { return fmt::format("topk:{}", ratio_); }

float TopkCompressor::encode(std::span<const float> x, std::span<std::byte> payload,
                             const RandomKey& /*key*/) const {
  const size_t n = x.size();
  check_payload_size("topk encode", n, payload.size(), payload_bytes(n));
  if (n > std::numeric_limits<uint32_t>::max()) {
    throw InvalidArgument(fmt::format("topk encode: {} elements, expected at most 2^32 - 1", n));
  }
  const size_t k = kept(n);
  std::vector<uint32_t> index(n);
  std::iota(index.begin(), index.end(), 0u);
  const auto before = [&](uint32_t a, uint32_t b) {
    if (nan_first(x[a], x[b])) return true;
    if (nan_first(x[b], x[a])) return false;
    const float ra = rank_of(x[a]), rb = rank_of(x[b]);
    return ra > rb || (ra == rb && a < b);
  };
  const auto kept_end = index.begin() + static_cast<std::ptrdiff_t>(k);
  if (k < n) std::nth_element(index.begin(), kept_end, index.end(), before);
  std::sort(index.begin(), kept_end);
  const auto count = static_cast<uint32_t>(k);
  std::memcpy(payload.data(), &count, 4);
  for (size_t j = 0; j < k; ++j) {
    std::memcpy(payload.data() + 4 + 8 * j, &index[j], 4);
    std::memcpy(payload.data() + 8 + 8 * j, &x[index[j]], 4);
  }
  return 1.0f;
}

void TopkCompressor::decode(float /*scale*/, std::span<const std::byte> payload,
                            std::span<float> out) const {
  const size_t n = out.size();
  check_payload_size("topk decode", n, payload.size(), payload_bytes(n));
  uint32_t count = 0;
  std::memcpy(&count, payload.data(), 4);
  if (count != kept(n)) {
    throw InvalidArgument(
        fmt::format("topk decode: count {} in the payload, expected {}", count, kept(n)));
  }
  std::fill(out.begin(), out.end(), 0.0f);
  int64_t previous = -1;
  for (size_t j = 0; j < count; ++j) {
    uint32_t i = 0;
    std::memcpy(&i, payload.data() + 4 + 8 * j, 4);
    if (i >= n || static_cast<int64_t>(i) <= previous) {
      throw InvalidArgument(fmt::format(
          "topk decode: index {} at position {}, expected increasing indices below {}", i, j, n));
    }
    std::memcpy(&out[i], payload.data() + 8 + 8 * j, 4);
    previous = i;
  }
}

}  // namespace compopt
