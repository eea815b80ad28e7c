#include "core/compress/feedback_encode.h"

#include <algorithm>
#include <string>
#include <vector>

#include "core/compress/payload_check.h"
#include "core/compress/sign.h"
#include "core/compress/sign_feedback.h"
#include "core/util/error.h"

namespace compopt {

float encode_with_feedback(const Compressor& c, ErrorFeedback& ef, std::span<const float> x,
                           std::span<std::byte> payload, const RandomKey& key) {
  const size_t k = ef.size();
  if (x.size() > k) {
    throw InvalidArgument(c.name() + " encode_with_feedback: input has " +
                          std::to_string(x.size()) +
                          " elements, expected at most the error feedback's " + std::to_string(k));
  }
  check_payload_size(c.name() + " encode_with_feedback", k, payload.size(), c.payload_bytes(k));
  if (dynamic_cast<const SignCompressor*>(&c) != nullptr) {
    return sign_encode_with_feedback(x, ef.mutable_error(), payload);
  }
  std::vector<float> y(k, 0.0f), decoded(k);
  std::copy(x.begin(), x.end(), y.begin());
  ef.compensate(y, y);
  const float scale = c.encode(y, payload, key);
  c.decode(scale, payload, decoded);
  ef.update(y, decoded);
  return scale;
}

float average_encode_with_feedback(const Compressor& c, std::span<const float> scales,
                                   std::span<const std::byte> payloads, ErrorFeedback& ef,
                                   std::span<std::byte> payload, const RandomKey& key) {
  const size_t k = ef.size(), n = scales.size(), bytes = c.payload_bytes(k);
  if (n == 0 || payloads.size() != n * bytes) {
    throw InvalidArgument(c.name() +
                          " average_encode_with_feedback: " + std::to_string(payloads.size()) +
                          " payload bytes and " + std::to_string(n) + " scales for " +
                          std::to_string(k) + " elements, expected one or more payloads of " +
                          std::to_string(bytes) + " bytes and one scale each");
  }
  check_payload_size(c.name() + " average_encode_with_feedback", k, payload.size(), bytes);
  if (dynamic_cast<const SignCompressor*>(&c) != nullptr) {
    return sign_server_encode_with_feedback(scales, payloads, ef.mutable_error(), payload);
  }
  std::vector<float> z(k, 0.0f), piece(k);
  for (size_t i = 0; i < n; ++i) {
    c.decode(scales[i], payloads.subspan(i * bytes, bytes), piece);
    for (size_t j = 0; j < k; ++j) z[j] += piece[j];
  }
  const auto divisor = static_cast<float>(n);
  for (float& v : z) v /= divisor;
  return encode_with_feedback(c, ef, z, payload, key);
}

}  // namespace compopt
