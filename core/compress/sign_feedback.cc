#include "core/compress/sign_feedback.h"

#include <algorithm>
#include <string>

#include "core/compress/parallel_for.h"
#include "core/compress/payload_check.h"
#include "core/compress/sign_kernels.h"
#include "core/util/error.h"

namespace compopt {
namespace {

// Second pass: e = y - (+-s) with e holding y.
void finish(const SignKernels& kernels, std::span<float> error, float s) {
  parallel_for_ranges(error.size(), kNormChunk, [&](size_t, size_t begin, size_t end) {
    kernels.feedback_finish(error.data() + begin, end - begin, s);
  });
}

}  // namespace

float sign_encode_with_feedback(std::span<const float> x, std::span<float> error,
                                std::span<std::byte> payload) {
  const size_t k = error.size();
  if (x.size() > k) {
    throw InvalidArgument("sign_encode_with_feedback: input has " + std::to_string(x.size()) +
                          " elements, expected at most the error's " + std::to_string(k));
  }
  check_payload_size("sign_encode_with_feedback", k, payload.size(), (k + 7) / 8);
  const SignKernels& kernels = sign_kernels();
  const size_t nx = x.size();
  const double total = canonical_total(k, [&](size_t begin, size_t end, double* sums) {
    const size_t in_x = nx > begin ? std::min(nx, end) - begin : 0;
    kernels.feedback_pass(x.data() + (in_x > 0 ? begin : 0), in_x, error.data() + begin,
                          end - begin, payload.data() + begin / 8, sums);
  });
  const float s = sign_scale_from_total(total, k);
  finish(kernels, error, s);
  return s;
}

float sign_server_encode_with_feedback(std::span<const float> scales,
                                       std::span<const std::byte> payloads, std::span<float> error,
                                       std::span<std::byte> payload) {
  const size_t k = error.size(), ranks = scales.size(), bytes = (k + 7) / 8;
  if (ranks == 0) {
    throw InvalidArgument("sign_server_encode_with_feedback: no scales, expected one per rank");
  }
  check_payload_size("sign_server_encode_with_feedback (output)", k, payload.size(), bytes);
  if (payloads.size() != ranks * bytes) {
    throw InvalidArgument("sign_server_encode_with_feedback: " + std::to_string(payloads.size()) +
                          " payload bytes for " + std::to_string(ranks) + " ranks of " +
                          std::to_string(k) + " elements, expected " +
                          std::to_string(ranks * bytes));
  }
  const SignKernels& kernels = sign_kernels();
  const SignServerSource source{payloads.data(), bytes, scales.data(), ranks,
                                static_cast<float>(ranks)};
  const double total = canonical_total(k, [&](size_t begin, size_t end, double* sums) {
    kernels.server_pass(source, begin, error.data() + begin, end - begin,
                        payload.data() + begin / 8, sums);
  });
  const float s = sign_scale_from_total(total, k);
  finish(kernels, error, s);
  return s;
}

}  // namespace compopt
