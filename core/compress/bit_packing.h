#pragma once
// LSB-first bit packing shared by the compressors (docs/algorithms.md "Bit order").
//
// One-bit fields: element 8q+r is bit r of byte q. Multi-bit fields of width B form one
// continuous LSB-first bitstream: element j occupies stream bits [j*B, j*B+B), and stream bit t
// is bit t%8 of byte t/8. Unused high bits of the last byte are written as 0.
//
// The one-bit helpers move 8 flags (one byte each, 0 or 1) to or from one packed byte with a
// single multiply, so callers can compute flags in branch-free fixed-size loops that the compiler
// vectorizes. All helpers are header-only and thread-compatible. Assumes a little-endian host.

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace compopt {

static_assert(std::endian::native == std::endian::little, "bit packing assumes little-endian");

// Bytes needed for k fields of `bits` bits each: ceil(k*bits/8).
constexpr size_t packed_bytes(size_t k, unsigned bits) { return (k * bits + 7) / 8; }

// Packs 8 flags (each 0 or 1, flag r in byte r of `flags`, i.e. little-endian) into one byte with
// bit r = flag r. One multiply: every flag lands on its own bit, so no carries can occur.
constexpr uint8_t pack8(uint64_t flags) {
  return static_cast<uint8_t>((flags * 0x0102040810204080ull) >> 56);
}

// Spreads the 8 bits of v to 8 flags: byte r of the result is bit r of v (0 or 1).
constexpr uint64_t unpack8(uint8_t v) {
  const uint64_t picked = (v * 0x0101010101010101ull) & 0x8040201008040201ull;  // byte r: bit r
  return ((picked + 0x7F7F7F7F7F7F7F7Full) >> 7) & 0x0101010101010101ull;       // nonzero -> 1
}

// Writes packed_bytes(k, 1) bytes to out from k flags (each 0 or 1): bit j = flags[j].
inline void pack_flags(const uint8_t* flags, size_t k, std::byte* out) {
  const size_t full = k / 8;
  for (size_t q = 0; q < full; ++q) {
    uint64_t w;
    std::memcpy(&w, flags + 8 * q, 8);
    out[q] = static_cast<std::byte>(pack8(w));
  }
  if (const size_t rest = k - 8 * full; rest != 0) {
    unsigned v = 0;
    for (unsigned r = 0; r < rest; ++r) v |= static_cast<unsigned>(flags[8 * full + r] & 1u) << r;
    out[full] = static_cast<std::byte>(v);
  }
}

// Reads packed_bytes(k, 1) bytes of in into k flags (0 or 1): flags[j] = bit j.
inline void unpack_flags(const std::byte* in, size_t k, uint8_t* flags) {
  const size_t full = k / 8;
  for (size_t q = 0; q < full; ++q) {
    const uint64_t w = unpack8(static_cast<uint8_t>(in[q]));
    std::memcpy(flags + 8 * q, &w, 8);
  }
  if (const size_t rest = k - 8 * full; rest != 0) {
    const unsigned v = static_cast<unsigned>(in[full]);
    for (unsigned r = 0; r < rest; ++r) flags[8 * full + r] = static_cast<uint8_t>((v >> r) & 1u);
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
