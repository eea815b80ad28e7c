#include "core/compress/nbit.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <utility>

#include "core/compress/bit_packing.h"
#include "core/compress/parallel_for.h"
#include "core/compress/payload_check.h"
#include "core/compress/random_kernels.h"
#include "core/util/error.h"

namespace compopt {

namespace {

// Elements per thread task and per Philox batch inside a task. Both are multiples of 8, so a
// batch starts on a payload byte (8 fields of B bits are B bytes) and its fields, which depend
// only on the global index, come out the same for any split or thread count.
constexpr size_t kTask = 65536;
constexpr size_t kBatch = 512;

// NaN if some x_j is NaN, else max |x_j| (0 for k = 0). |x| as a bit pattern (sign cleared) is
// an integer that orders like the magnitude, with every NaN above +inf (0x7F800000), so one
// integer maximum, exact in any order and vectorized, gives both.
float max_abs(std::span<const float> x) {
  constexpr uint32_t kInfBits = 0x7F800000u;
  std::atomic<uint32_t> max_bits{0};
  parallel_for_ranges(x.size(), kTask, [&](size_t, size_t begin, size_t end) {
    uint32_t m = 0;
    for (size_t i = begin; i < end; ++i)
      m = std::max(m, std::bit_cast<uint32_t>(x[i]) & ~(1u << 31));
    uint32_t seen = max_bits.load(std::memory_order_relaxed);
    while (seen < m && !max_bits.compare_exchange_weak(seen, m, std::memory_order_relaxed)) {
    }
  });
  const uint32_t m = max_bits.load(std::memory_order_relaxed);
  return m > kInfBits ? std::numeric_limits<float>::quiet_NaN() : std::bit_cast<float>(m);
}

// field[i] = sign bit of x[i] (1 iff x[i] < 0), level 0: the encode when s is 0 or not finite.
void sign_fields(const float* __restrict x, size_t n, uint32_t* __restrict field) {
  for (size_t i = 0; i < n; ++i) field[i] = x[i] < 0.0f ? 1u : 0u;
}

// Packs `groups` groups of 8 fields of B bits into B bytes each (the LSB-first bitstream of
// bit_packing.h): a group is one 8*B-bit little-endian word, built in two 64-bit halves.
template <unsigned B>
void pack_groups(const uint32_t* field, size_t groups, std::byte* out) {
  for (size_t g = 0; g < groups; ++g, field += 8, out += B) {
    uint64_t lo = 0, hi = 0;
    for (unsigned r = 0; r < 8; ++r) {
      const uint64_t f = field[r];
      const unsigned shift = r * B;
      if (shift < 64) lo |= f << shift;
      if (shift >= 64) hi |= f << (shift - 64);
      if (shift < 64 && shift + B > 64) hi |= f >> (64 - shift);
    }
    std::memcpy(out, &lo, B < 8 ? B : 8);
    if constexpr (B > 8) std::memcpy(out + 8, &hi, B - 8);
  }
}

// The common widths, as loops over whole output bytes or words that the compiler vectorizes.
template <>
void pack_groups<8>(const uint32_t* field, size_t groups, std::byte* out) {
  for (size_t i = 0; i < 8 * groups; ++i) out[i] = static_cast<std::byte>(field[i]);
}

template <>
void pack_groups<16>(const uint32_t* field, size_t groups, std::byte* out) {
  for (size_t i = 0; i < 8 * groups; ++i) {
    const auto v = static_cast<uint16_t>(field[i]);
    std::memcpy(out + 2 * i, &v, 2);
  }
}

template <>
void pack_groups<4>(const uint32_t* field, size_t groups, std::byte* out) {
  for (size_t q = 0; q < 4 * groups; ++q) {
    out[q] = static_cast<std::byte>(field[2 * q] | field[2 * q + 1] << 4);
  }
}

template <>
void pack_groups<2>(const uint32_t* field, size_t groups, std::byte* out) {
  for (size_t q = 0; q < 2 * groups; ++q) {
    const uint32_t* f = field + 4 * q;
    out[q] = static_cast<std::byte>(f[0] | f[1] << 2 | f[2] << 4 | f[3] << 6);
  }
}

using PackFn = void (*)(const uint32_t* field, size_t groups, std::byte* out);

template <unsigned... B>
constexpr std::array<PackFn, NbitCompressor::kMaxBits + 1> packers(
    std::integer_sequence<unsigned, B...>) {
  std::array<PackFn, NbitCompressor::kMaxBits + 1> table{};
  ((table[B + NbitCompressor::kMinBits] = &pack_groups<B + NbitCompressor::kMinBits>), ...);
  return table;
}

// kPackers[B] for B in kMinBits..kMaxBits.
constexpr auto kPackers =
    packers(std::make_integer_sequence<unsigned,
                                       NbitCompressor::kMaxBits - NbitCompressor::kMinBits + 1>{});

// Inverse of pack_groups: 8 fields of B bits from each of `groups` groups of B bytes.
template <unsigned B>
void unpack_groups(const std::byte* in, size_t groups, uint32_t* field) {
  constexpr uint64_t kMask = (uint64_t{1} << B) - 1;
  for (size_t g = 0; g < groups; ++g, in += B, field += 8) {
    uint64_t lo = 0, hi = 0;
    std::memcpy(&lo, in, B < 8 ? B : 8);
    if constexpr (B > 8) std::memcpy(&hi, in + 8, B - 8);
    for (unsigned r = 0; r < 8; ++r) {
      const unsigned shift = r * B;
      uint64_t v = shift < 64 ? lo >> shift : hi >> (shift - 64);
      if (shift < 64 && shift + B > 64) v |= hi << (64 - shift);
      field[r] = static_cast<uint32_t>(v & kMask);
    }
  }
}

template <>
void unpack_groups<8>(const std::byte* in, size_t groups, uint32_t* field) {
  for (size_t i = 0; i < 8 * groups; ++i) field[i] = static_cast<uint8_t>(in[i]);
}

template <>
void unpack_groups<16>(const std::byte* in, size_t groups, uint32_t* field) {
  for (size_t i = 0; i < 8 * groups; ++i) {
    uint16_t v;
    std::memcpy(&v, in + 2 * i, 2);
    field[i] = v;
  }
}

using UnpackFn = void (*)(const std::byte* in, size_t groups, uint32_t* field);

template <unsigned... B>
constexpr std::array<UnpackFn, NbitCompressor::kMaxBits + 1> unpackers(
    std::integer_sequence<unsigned, B...>) {
  std::array<UnpackFn, NbitCompressor::kMaxBits + 1> table{};
  ((table[B + NbitCompressor::kMinBits] = &unpack_groups<B + NbitCompressor::kMinBits>), ...);
  return table;
}

// kUnpackers[B] for B in kMinBits..kMaxBits.
constexpr auto kUnpackers =
    unpackers(std::make_integer_sequence<unsigned, NbitCompressor::kMaxBits -
                                                       NbitCompressor::kMinBits + 1>{});

// out[i] = s * sign * level / L for the fields of n elements, in double as nbit.h states.
void decode_fields(const uint32_t* __restrict field, size_t n, double step, float* __restrict out) {
  for (size_t i = 0; i < n; ++i) {
    const double magnitude = step * static_cast<double>(static_cast<int32_t>(field[i] >> 1));
    out[i] = static_cast<float>((field[i] & 1u) != 0 ? -magnitude : magnitude);
  }
}

}  // namespace

NbitCompressor::NbitCompressor(unsigned bits) : bits_(bits), levels_(0) {
  if (bits < kMinBits || bits > kMaxBits) {
    throw InvalidArgument("nbit: bit width " + std::to_string(bits) + " is outside 2..16");
  }
  levels_ = (uint32_t{1} << (bits - 1)) - 1;
}

float NbitCompressor::encode(std::span<const float> x, std::span<std::byte> payload,
                             const RandomKey& key) const {
  const size_t k = x.size();
  check_payload_size(name() + " encode", k, payload.size(), payload_bytes(k));
  const float s = max_abs(x);
  const bool quantize = s > 0.0f && std::isfinite(s);
  const float levels = static_cast<float>(levels_);
  const RandomKernels& kernels = random_kernels();
  const PackFn pack = kPackers[bits_];
  parallel_for_ranges(k, kTask, [&](size_t, size_t begin, size_t end) {
    uint32_t words[kBatch];
    uint32_t field[kBatch];
    for (size_t b = begin; b < end; b += kBatch) {
      const size_t n = std::min(kBatch, end - b);
      if (quantize) {
        kernels.philox_words(key, key.index_offset + b, n, words);
        kernels.nbit_fields(x.data() + b, words, n, s, levels, field);
      } else {
        sign_fields(x.data() + b, n, field);
      }
      std::byte* out = payload.data() + b * bits_ / 8;  // b is a multiple of 8
      pack(field, n / 8, out);
      BitWriter tail(out + n / 8 * bits_);
      for (size_t i = n / 8 * 8; i < n; ++i) tail.put(field[i], bits_);
      tail.finish();
    }
  });
  return k == 0 ? 0.0f : s;
}

void NbitCompressor::decode(float scale, std::span<const std::byte> payload,
                            std::span<float> out) const {
  const size_t k = out.size();
  check_payload_size(name() + " decode", k, payload.size(), payload_bytes(k));
  const double step = static_cast<double>(scale) / static_cast<double>(levels_);
  const UnpackFn unpack = kUnpackers[bits_];
  parallel_for_ranges(k, kTask, [&](size_t, size_t begin, size_t end) {
    uint32_t field[kBatch];
    for (size_t b = begin; b < end; b += kBatch) {
      const size_t n = std::min(kBatch, end - b);
      const std::byte* in = payload.data() + b * bits_ / 8;  // b is a multiple of 8
      unpack(in, n / 8, field);
      BitReader tail(in + n / 8 * bits_);
      for (size_t i = n / 8 * 8; i < n; ++i) field[i] = tail.get(bits_);
      decode_fields(field, n, step, out.data() + b);
    }
  });
}

}  // namespace compopt
