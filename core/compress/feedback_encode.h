#pragma once
// Error feedback around any compressor (docs/algorithms.md), in the two forms the compressed
// allreduce needs. Results are exactly those of ErrorFeedback::compensate, Compressor::encode,
// Compressor::decode and ErrorFeedback::update in sequence, computed without full-length
// temporaries: y is built in the error buffer itself, and `sign` takes the fused kernels of
// sign_feedback.h. A chunkable compressor without a scale (binary, fp16, identity) runs the whole
// sequence block by block in one pass (its payload does not depend on the split, compressor.h);
// one with a scale (nbit) encodes y once and updates the error block by block; one that is not
// chunkable (topk) decodes into ErrorFeedback::scratch, allocated once per state. Blocks run on
// the pool of parallel_for.h.
//
// Sizes: ef.size() = k, payload.size() == c.payload_bytes(k), otherwise InvalidArgument.

#include <cstddef>
#include <span>

#include "core/compress/compressor.h"
#include "core/compress/error_feedback.h"
#include "core/compress/random_key.h"

namespace compopt {

// y = x zero-padded to ef.size() (x.size() <= ef.size()) + e; returns the scale of encode(y)
// written to payload; e = y - decode.
float encode_with_feedback(const Compressor& c, ErrorFeedback& ef, std::span<const float> x,
                           std::span<std::byte> payload, const RandomKey& key);

// Server step: payloads holds n = scales.size() >= 1 payloads of c.payload_bytes(k) bytes back to
// back; z = (0.0f + sum over i in order of decode(scales[i], payload i)) / float(n), then
// encode_with_feedback(c, ef, z, payload, key).
float average_encode_with_feedback(const Compressor& c, std::span<const float> scales,
                                   std::span<const std::byte> payloads, ErrorFeedback& ef,
                                   std::span<std::byte> payload, const RandomKey& key);

}  // namespace compopt
