#include "core/util/crc32.h"

#ifdef COMPOPT_HAVE_ISAL
#include <isa-l/crc.h>
#else
#include <zlib.h>
#endif

#include <algorithm>

namespace compopt {

uint32_t crc32_of(std::span<const std::byte> data, uint32_t crc) {
  if (data.empty()) return crc;
#ifdef COMPOPT_HAVE_ISAL
  return crc32_gzip_refl(crc, reinterpret_cast<const unsigned char*>(data.data()), data.size());
#else
  // zlib takes uInt lengths: feed large buffers in 1 GiB pieces.
  constexpr size_t kPiece = size_t{1} << 30;
  uLong value = crc;
  for (size_t off = 0; off < data.size(); off += kPiece) {
    const size_t n = std::min(kPiece, data.size() - off);
    value = ::crc32(value, reinterpret_cast<const Bytef*>(data.data() + off), static_cast<uInt>(n));
  }
  return static_cast<uint32_t>(value);
#endif
}

}  // namespace compopt
