#include "core/compress/sign.h"

#include "core/compress/parallel_for.h"
#include "core/compress/payload_check.h"
#include "core/compress/sign_kernels.h"

namespace compopt {

float SignCompressor::encode(std::span<const float> x, std::span<std::byte> payload,
                             const RandomKey& /*key*/) const {
  const size_t k = x.size();
  check_payload_size("sign encode", k, payload.size(), payload_bytes(k));
  const SignKernels& kernels = sign_kernels();
  const double total = canonical_total(k, [&](size_t begin, size_t end, double* sums) {
    kernels.plain_pass(x.data() + begin, end - begin, payload.data() + begin / 8, sums);
  });
  return sign_scale_from_total(total, k);
}

void SignCompressor::decode(float scale, std::span<const std::byte> payload,
                            std::span<float> out) const {
  const size_t k = out.size();
  check_payload_size("sign decode", k, payload.size(), payload_bytes(k));
  const SignKernels& kernels = sign_kernels();
  parallel_for_ranges(k, kNormChunk, [&](size_t, size_t begin, size_t end) {
    kernels.decode(payload.data() + begin / 8, end - begin, scale, out.data() + begin,
                   k >= kStreamMinElements);
  });
}

double sign_sum_of_squares(std::span<const float> x) {
  const SignKernels& kernels = sign_kernels();
  return canonical_total(x.size(), [&](size_t begin, size_t end, double* sums) {
    kernels.sum_squares(x.data() + begin, end - begin, sums);
  });
}

}  // namespace compopt
