#include "core/compress/compressor.h"

#include <string>
#include <vector>

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

}  // namespace compopt
