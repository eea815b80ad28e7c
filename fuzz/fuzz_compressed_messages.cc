// libFuzzer target: parsing of the compressed allreduce's server messages (decode_server_messages:
// [scale][payload] per chunk) with arbitrary message bytes, counts and chunk lengths.
// Sizes that do not match must be refused with InvalidArgument; sizes that match must decode
// exactly what the per-chunk decode gives.
// Input: [spec: u8][count: u16 LE][chunk_len: u64 LE][out_len: u16 LE][message bytes...]; chunk_len
// is taken modulo 4097 unless its top byte is 0xFF (then any size, to probe overflow).

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "core/comm/collectives/compressed_allreduce.h"
#include "core/util/error.h"

namespace {

void check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "fuzz_compressed_messages: invariant violated: %s\n", what);
    std::abort();
  }
}

std::string spec_of(uint8_t b) {
  static const char* kSpecs[] = {"identity", "fp16",   "sign",   "binary",
                                 "nbit:2",   "nbit:5", "nbit:16"};
  return kSpecs[b % 7];
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 13) return 0;
  const auto compressor = compopt::make_compressor(spec_of(data[0]));
  uint16_t count16, out16;
  uint64_t chunk64;
  std::memcpy(&count16, data + 1, 2);
  std::memcpy(&chunk64, data + 3, 8);
  std::memcpy(&out16, data + 11, 2);
  const size_t count = count16;
  const size_t chunk_len = (chunk64 >> 56) == 0xFF ? chunk64 : chunk64 % 4097;
  const size_t out_len = out16;
  const std::vector<uint8_t> bytes(data + 13, data + size);
  const auto messages = std::as_bytes(std::span(bytes.data(), bytes.size()));
  std::vector<float> out(out_len, -7.0f);
  try {
    compopt::decode_server_messages(messages, count, chunk_len, *compressor, out);
  } catch (const compopt::InvalidArgument&) {
    return 0;
  }
  // Accepted: the sizes must really fit, and each element must equal the chunk's own decode.
  const size_t message_bytes = compressor->wire_bytes(chunk_len);
  check(count * message_bytes == messages.size() && out.size() <= count * chunk_len,
        "accepted sizes that do not fit");
  if (out.empty()) return 0;
  std::vector<float> piece(chunk_len);
  for (size_t j = 0; j < count && j * chunk_len < out.size(); ++j) {
    const auto message = messages.subspan(j * message_bytes, message_bytes);
    float scale = 1.0f;
    const size_t header = compressor->has_scale() ? sizeof(float) : 0;
    if (header) std::memcpy(&scale, message.data(), sizeof scale);
    compressor->decode(scale, message.subspan(header), piece);
    for (size_t i = 0; i < chunk_len && j * chunk_len + i < out.size(); ++i) {
      const float got = out[j * chunk_len + i];
      check(std::memcmp(&got, &piece[i], sizeof got) == 0, "element differs from the chunk decode");
    }
  }
  return 0;
}
