// libFuzzer target: the compressors' decode (and encode) on arbitrary payloads and sizes.
// Input: [spec: u8][mode: u8][k: u32 LE][scale: f32 LE][payload, or floats to encode...]. A payload
// whose size is not payload_bytes(k) must be refused with InvalidArgument; one that fits must
// decode to values the format allows (checked below); encode of arbitrary floats must give a
// payload that decodes, and fp16/sign/binary payloads must survive decode -> encode unchanged where
// the format says they do.

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "core/compress/compressor.h"
#include "core/util/error.h"

namespace {

using compopt::Compressor;

void check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "fuzz_compress_decode: invariant violated: %s\n", what);
    std::abort();
  }
}

std::string spec_of(uint8_t b) {
  switch (b % 19) {
    case 0:
      return "identity";
    case 1:
      return "fp16";
    case 2:
      return "sign";
    case 3:
      return "binary";
    default:
      return "nbit:" + std::to_string(b % 19 - 2);  // nbit:2 .. nbit:16
  }
}

// The decoded values every format allows for `scale`.
void check_decoded(const Compressor& c, float scale, const std::vector<float>& out) {
  const std::string name = c.name();
  for (const float v : out) {
    if (name == "sign") {
      check(std::bit_cast<uint32_t>(v) == std::bit_cast<uint32_t>(scale) ||
                std::bit_cast<uint32_t>(v) == (std::bit_cast<uint32_t>(scale) ^ 0x80000000u),
            "sign decode is not +-scale");
    } else if (name == "binary") {
      check(v == 1.0f || v == -1.0f, "binary decode is not +-1");
    } else if (name.rfind("nbit:", 0) == 0 && std::isfinite(scale)) {
      check(std::isnan(v) == false && std::fabs(v) <= std::fabs(scale),
            "nbit decode exceeds |scale|");
    }
  }
}

// A payload whose size is not payload_bytes(k) must be refused.
void check_wrong_size(const Compressor& c, float scale, std::span<const std::byte> payload,
                      size_t k) {
  std::vector<float> out(std::min<size_t>(k, 1u << 20));
  bool refused = false;
  try {
    c.decode(scale, payload, std::span(out.data(), out.size()));
  } catch (const compopt::InvalidArgument&) {
    refused = true;
  }
  check(refused || payload.size() == c.payload_bytes(out.size()),
        "decode accepted a payload of the wrong size");
}

// Re-encoding what sign / binary decoded gives the payload back (unused high bits are 0),
// and every non-NaN fp16 half survives half -> float -> half.
void check_reencode(const Compressor& c, float scale, std::span<const std::byte> payload,
                    const std::vector<float>& out) {
  const std::string name = c.name();
  const bool exact = (name == "sign" && scale > 0 && std::isfinite(scale)) || name == "binary";
  if (!exact && name != "fp16") return;
  std::vector<std::byte> again(payload.size());
  c.encode(out, again, compopt::RandomKey{});
  if (exact) {
    for (size_t i = 0; i + 1 < payload.size(); ++i)
      check(again[i] == payload[i], "decode -> encode changed a payload byte");
    if (!payload.empty() && out.size() % 8 == 0)
      check(again.back() == payload.back(), "decode -> encode changed the last payload byte");
    return;
  }
  for (size_t i = 0; i < out.size(); ++i) {
    uint16_t a, b;
    std::memcpy(&a, payload.data() + 2 * i, 2);
    std::memcpy(&b, again.data() + 2 * i, 2);
    const bool nan = (a & 0x7C00u) == 0x7C00u && (a & 0x3FFu) != 0;
    check(nan || a == b, "fp16 half -> float -> half changed a value");
  }
}

// Decodes an arbitrary payload of k elements.
void fuzz_decode(const Compressor& c, float scale, std::span<const std::byte> payload, size_t k) {
  if (payload.size() != c.payload_bytes(k)) {
    check_wrong_size(c, scale, payload, k);
    return;
  }
  std::vector<float> out(k);
  c.decode(scale, payload, out);
  check_decoded(c, scale, out);
  check_reencode(c, scale, payload, out);
}

// Encodes arbitrary floats (any bit pattern, NaN and inf included), then decodes.
void fuzz_encode(const Compressor& c, const std::vector<uint8_t>& rest, size_t k, uint8_t mode) {
  std::vector<float> x(rest.size() / sizeof(float));
  if (!x.empty()) std::memcpy(x.data(), rest.data(), x.size() * sizeof(float));
  std::vector<std::byte> encoded(c.payload_bytes(x.size()));
  compopt::RandomKey key{.seed = k, .step = mode, .rank = 0, .stream = 0, .index_offset = k};
  const float s = c.encode(x, encoded, key);
  std::vector<float> decoded(x.size());
  c.decode(s, encoded, decoded);
  check_decoded(c, s, decoded);
  bool finite = true;
  for (const float v : x) finite = finite && std::isfinite(v);
  if (finite && c.name() != "identity" && c.name() != "fp16") {
    // Finite input gives a finite scale (it may overflow float only for sign's RMS,
    // which is at most max |x|, so it cannot).
    check(std::isfinite(s), "finite input gave a non-finite scale");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 10) return 0;
  const auto compressor = compopt::make_compressor(spec_of(data[0]));
  const uint8_t mode = data[1];
  uint32_t k32;
  float scale;
  std::memcpy(&k32, data + 2, 4);
  std::memcpy(&scale, data + 6, 4);
  // k up to 2^14 elements (several 256-element blocks), or any u32 when mode bit 0 is set (then
  // the payload size refuses it).
  const size_t k = (mode & 1) ? k32 : k32 % ((1u << 14) + 1);
  const std::vector<uint8_t> rest(data + 10, data + size);
  if ((mode & 2) == 0) {
    fuzz_decode(*compressor, scale, std::as_bytes(std::span(rest.data(), rest.size())), k);
  } else {
    fuzz_encode(*compressor, rest, k, mode);
  }
  return 0;
}
