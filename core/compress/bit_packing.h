#pragma once
// LSB-first bit packing shared by the compressors (SPEC §1).
//
// One-bit fields: element 8q+r is bit r of byte q. Multi-bit fields of width B form one
// continuous LSB-first bitstream: element j occupies stream bits [j*B, j*B+B), and stream bit t
// is bit t%8 of byte t/8. Unused high bits of the last byte are written as 0.
//
// The one-bit helpers process 8 elements per byte with no per-bit branches so that the compiler
// can vectorize the callers' loops. All helpers are header-only and thread-compatible.

#include <cstddef>
#include <cstdint>

namespace compopt {

// Bytes needed for k fields of `bits` bits each: ceil(k*bits/8).
constexpr size_t packed_bytes(size_t k, unsigned bits) { return (k * bits + 7) / 8; }

// Writes packed_bytes(k, 1) bytes to out: bit j is bit_of(j) (a bool or 0/1 integer).
template <class BitOf>
inline void pack_bits(size_t k, std::byte* out, BitOf bit_of) {
  const size_t full = k / 8;
  for (size_t q = 0; q < full; ++q) {
    const size_t base = 8 * q;
    unsigned v = 0;
    for (unsigned r = 0; r < 8; ++r) v |= static_cast<unsigned>(bit_of(base + r) ? 1u : 0u) << r;
    out[q] = static_cast<std::byte>(v);
  }
  if (const size_t rest = k - 8 * full; rest != 0) {
    unsigned v = 0;
    for (unsigned r = 0; r < rest; ++r) v |= static_cast<unsigned>(bit_of(8 * full + r) ? 1u : 0u) << r;
    out[full] = static_cast<std::byte>(v);
  }
}

// Calls emit(j, bit) for j in [0, k), bit in {0u, 1u}, reading packed_bytes(k, 1) bytes of in.
template <class Emit>
inline void unpack_bits(size_t k, const std::byte* in, Emit emit) {
  const size_t full = k / 8;
  for (size_t q = 0; q < full; ++q) {
    const unsigned v = static_cast<unsigned>(in[q]);
    for (unsigned r = 0; r < 8; ++r) emit(8 * q + r, (v >> r) & 1u);
  }
  if (const size_t rest = k - 8 * full; rest != 0) {
    const unsigned v = static_cast<unsigned>(in[full]);
    for (unsigned r = 0; r < rest; ++r) emit(8 * full + r, (v >> r) & 1u);
  }
}

// Appends fixed-width fields (1..32 bits) to an LSB-first bitstream. Call finish() once at the
// end; it flushes the partial last byte (high bits 0). Writes exactly packed_bytes(n, width).
class BitWriter {
 public:
  explicit BitWriter(std::byte* out) : out_(out) {}

  // Appends the low `width` bits of value (higher bits of value must be 0).
  void put(uint32_t value, unsigned width) {
    acc_ |= static_cast<uint64_t>(value) << filled_;
    filled_ += width;
    while (filled_ >= 8) {
      *out_++ = static_cast<std::byte>(acc_ & 0xFFu);
      acc_ >>= 8;
      filled_ -= 8;
    }
  }
  void finish() {
    if (filled_ > 0) *out_++ = static_cast<std::byte>(acc_ & 0xFFu);
    acc_ = 0;
    filled_ = 0;
  }

 private:
  std::byte* out_;
  uint64_t acc_ = 0;
  unsigned filled_ = 0;
};

// Reads fixed-width fields (1..32 bits) from an LSB-first bitstream written by BitWriter. Reads
// no byte beyond the one holding the last bit requested.
class BitReader {
 public:
  explicit BitReader(const std::byte* in) : in_(in) {}

  uint32_t get(unsigned width) {
    while (filled_ < width) {
      acc_ |= static_cast<uint64_t>(static_cast<uint8_t>(*in_++)) << filled_;
      filled_ += 8;
    }
    const uint32_t value = static_cast<uint32_t>(acc_ & ((uint64_t{1} << width) - 1));
    acc_ >>= width;
    filled_ -= width;
    return value;
  }

 private:
  const std::byte* in_;
  uint64_t acc_ = 0;
  unsigned filled_ = 0;
};

}  // namespace compopt
