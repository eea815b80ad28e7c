#pragma once
// CRC-32 (IEEE 802.3 polynomial, reflected; the values of zlib's crc32 and gzip),
// the checksum of checkpoint files and TCP frames. Uses ISA-L's carry-less-multiply
// implementation when built with it (~4x faster), zlib otherwise, a built-in table without
// either (COMPOPT_PYTHON_ONLY builds without zlib): same values.

#include <cstddef>
#include <cstdint>
#include <span>

namespace compopt {

// The CRC-32 of `data`, continued from `crc` (0 to start; an empty span returns `crc`).
uint32_t crc32_of(std::span<const std::byte> data, uint32_t crc = 0);

}  // namespace compopt
