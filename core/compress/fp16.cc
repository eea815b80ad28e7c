#include "core/compress/fp16.h"

#include "core/compress/half.h"
#include "core/compress/payload_check.h"

namespace compopt {

float Fp16Compressor::encode(std::span<const float> x, std::span<std::byte> payload,
                             const RandomKey& /*key*/) const {
  check_payload_size("fp16 encode", x.size(), payload.size(), payload_bytes(x.size()));
  floats_to_halves(x, payload.data());
  return 1.0f;
}

void Fp16Compressor::decode(float /*scale*/, std::span<const std::byte> payload,
                            std::span<float> out) const {
  check_payload_size("fp16 decode", out.size(), payload.size(), payload_bytes(out.size()));
  halves_to_floats(payload.data(), out);
}

}  // namespace compopt
