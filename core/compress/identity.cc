#include "core/compress/identity.h"

#include <bit>
#include <cstring>

#include "core/compress/payload_check.h"

namespace compopt {

static_assert(std::endian::native == std::endian::little, "payloads are little-endian");

float IdentityCompressor::encode(std::span<const float> x, std::span<std::byte> payload,
                                 const RandomKey& /*key*/) const {
  check_payload_size("identity encode", x.size(), payload.size(), payload_bytes(x.size()));
  if (!x.empty()) std::memcpy(payload.data(), x.data(), x.size_bytes());
  return 1.0f;
}

void IdentityCompressor::decode(float /*scale*/, std::span<const std::byte> payload,
                                std::span<float> out) const {
  check_payload_size("identity decode", out.size(), payload.size(), payload_bytes(out.size()));
  if (!out.empty()) std::memcpy(out.data(), payload.data(), out.size_bytes());
}

}  // namespace compopt
