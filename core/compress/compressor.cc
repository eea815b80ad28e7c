#include "core/compress/compressor.h"

#include <charconv>
#include <string>
#include <vector>

#include "core/compress/binary.h"
#include "core/compress/fp16.h"
#include "core/compress/identity.h"
#include "core/compress/nbit.h"
#include "core/compress/sign.h"
#include "core/util/error.h"

namespace compopt {

float Compressor::round_trip(std::span<const float> x, std::span<float> out,
                             const RandomKey& key) const {
  if (out.size() != x.size()) {
    throw InvalidArgument(name() + " round_trip: output has " + std::to_string(out.size()) +
                          " elements, expected " + std::to_string(x.size()));
  }
  std::vector<std::byte> payload(payload_bytes(x.size()));
  const float scale = encode(x, payload, key);
  decode(scale, payload, out);
  return scale;
}

std::unique_ptr<Compressor> make_compressor(std::string_view spec) {
  constexpr std::string_view kAccepted =
      "identity | fp16 | sign | binary | nbit | nbit:B (B an integer in 2..16, default 8)";
  const auto bad = [&](std::string_view why) {
    return InvalidArgument("invalid compressor spec \"" + std::string(spec) + "\"" +
                           std::string(why) + "; accepted: " + std::string(kAccepted));
  };
  if (spec == "identity") return std::make_unique<IdentityCompressor>();
  if (spec == "fp16") return std::make_unique<Fp16Compressor>();
  if (spec == "sign") return std::make_unique<SignCompressor>();
  if (spec == "binary") return std::make_unique<BinaryCompressor>();
  if (spec == "nbit") return std::make_unique<NbitCompressor>(NbitCompressor::kDefaultBits);
  constexpr std::string_view kNbitPrefix = "nbit:";
  if (spec.substr(0, kNbitPrefix.size()) == kNbitPrefix) {
    const std::string_view digits = spec.substr(kNbitPrefix.size());
    unsigned bits = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), bits);
    if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size()) {
      throw bad(": bit width is not a decimal integer");
    }
    if (bits < NbitCompressor::kMinBits || bits > NbitCompressor::kMaxBits) {
      throw bad(": bit width " + std::to_string(bits) + " is outside 2..16");
    }
    return std::make_unique<NbitCompressor>(bits);
  }
  throw bad("");
}

}  // namespace compopt
