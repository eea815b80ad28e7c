#pragma once
// Error feedback fused with the `sign` compressor (docs/algorithms.md), for the compressed
// allreduce. Each call gives exactly the payload, scale and new error of the separate sequence
//   y = x + e (ErrorFeedback::compensate); s = SignCompressor::encode(y, payload);
//   decode(s, payload, d); e = y - d (ErrorFeedback::update)
// in two passes over e (one computing y, its bits and the canonical sum of squares while storing
// y in e; one subtracting +-s), without the temporaries. Threads and AVX2 as in sign.h.
//
// Contract: payload.size() == ceil(error.size() / 8); otherwise InvalidArgument names both
// sizes. Not thread-safe for the same error span; distinct spans may run concurrently.

#include <cstddef>
#include <span>

namespace compopt {

// Worker step. x.size() <= error.size(): x is zero-padded to error.size() (element j >= x.size()
// gets y_j = 0.0f + e_j, as compensate on a zero-padded copy gives). Returns s.
float sign_encode_with_feedback(std::span<const float> x, std::span<float> error,
                                std::span<std::byte> payload);

// Server step with k = error.size(): payloads holds scales.size() sign payloads of ceil(k/8)
// bytes each, back to back (payload i decodes with scales[i]);
//   z_j = (0.0f + sum over i in order of decode_i(j)) / float(scales.size()) + e_j,
// then as above with y = z. Requires scales.size() >= 1. Returns the scale of z.
float sign_server_encode_with_feedback(std::span<const float> scales,
                                       std::span<const std::byte> payloads, std::span<float> error,
                                       std::span<std::byte> payload);

}  // namespace compopt
