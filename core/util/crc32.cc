#include "core/util/crc32.h"

#ifdef COMPOPT_HAVE_ISAL
#include <isa-l/crc.h>
#elif defined(COMPOPT_HAVE_ZLIB)
#include <zlib.h>
#endif

#include <algorithm>
#include <array>

namespace compopt {
#if !defined(COMPOPT_HAVE_ISAL) && !defined(COMPOPT_HAVE_ZLIB)
namespace {

// Byte-at-a-time table of the reflected polynomial 0xEDB88320 (the built-in fallback).
constexpr std::array<uint32_t, 256> make_crc_table() {
  std::array<uint32_t, 256> table{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1U) ? 0xEDB88320U ^ (c >> 1) : c >> 1;
    table[i] = c;
  }
  return table;
}

uint32_t builtin_crc32(std::span<const std::byte> data, uint32_t crc) {
  static constexpr std::array<uint32_t, 256> kTable = make_crc_table();
  uint32_t c = ~crc;
  for (const std::byte b : data) c = kTable[(c ^ static_cast<uint32_t>(b)) & 0xFFU] ^ (c >> 8);
  return ~c;
}

}  // namespace
#endif

uint32_t crc32_of(std::span<const std::byte> data, uint32_t crc) {
  if (data.empty()) return crc;
#ifdef COMPOPT_HAVE_ISAL
  return crc32_gzip_refl(crc, reinterpret_cast<const unsigned char*>(data.data()), data.size());
#elif defined(COMPOPT_HAVE_ZLIB)
  // zlib takes uInt lengths: feed large buffers in 1 GiB pieces.
  constexpr size_t kPiece = size_t{1} << 30;
  uLong value = crc;
  for (size_t off = 0; off < data.size(); off += kPiece) {
    const size_t n = std::min(kPiece, data.size() - off);
    value = ::crc32(value, reinterpret_cast<const Bytef*>(data.data() + off), static_cast<uInt>(n));
  }
  return static_cast<uint32_t>(value);
#else
  return builtin_crc32(data, crc);
#endif
}

}  // namespace compopt
