#pragma once
// Argument check shared by the compressors' encode/decode: the payload span must be exactly
// payload_bytes(k) long. Throws InvalidArgument naming the compressor and both sizes.

#include <cstddef>
#include <string>
#include <string_view>

#include "core/util/error.h"

namespace compopt {

inline void check_payload_size(std::string_view who, size_t k, size_t got, size_t expected) {
  if (got != expected) {
    throw InvalidArgument(std::string(who) + ": payload of " + std::to_string(got) + " bytes for " +
                          std::to_string(k) + " elements, expected " + std::to_string(expected));
  }
}

}  // namespace compopt
