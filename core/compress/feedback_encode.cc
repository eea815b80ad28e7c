#include "core/compress/feedback_encode.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <string>

#include "core/compress/parallel_for.h"
#include "core/compress/payload_check.h"
#include "core/compress/sign.h"
#include "core/compress/sign_feedback.h"
#include "core/util/error.h"

namespace compopt {
namespace {

// Elements per thread task and per stack block. Both are multiples of 8, so for a chunkable
// compressor a block starts on a payload byte and its payload is the byte range
// [payload_bytes(begin), payload_bytes(begin) + payload_bytes(n)) (compressor.h).
constexpr size_t kTask = 65536;
constexpr size_t kBlock = 1024;

// Runs fn(begin, n) on consecutive blocks of [0, k): tasks of kTask elements in parallel, blocks
// of kBlock elements inside a task in order. Every element is written by one call only.
template <class F>
void for_blocks(size_t k, const F& fn) {
  parallel_for_ranges(k, kTask, [&](size_t, size_t begin, size_t end) {
    for (size_t b = begin; b < end; b += kBlock) fn(b, std::min(kBlock, end - b));
  });
}

template <class Bytes>
Bytes block_bytes(const Compressor& c, Bytes payload, size_t begin, size_t n) {
  return payload.subspan(c.payload_bytes(begin), c.payload_bytes(n));
}

// e[begin, begin+n) = x zero-padded + e: ErrorFeedback::compensate on a zero-padded copy of x.
void compensate_block(std::span<const float> x, float* e, size_t begin, size_t n) {
  const size_t in_x = x.size() > begin ? std::min(n, x.size() - begin) : 0;
  for (size_t j = 0; j < in_x; ++j) e[j] = x[begin + j] + e[j];
  for (size_t j = in_x; j < n; ++j) e[j] = 0.0f + e[j];
}

// e = y - decode(scale, bytes) for n <= kBlock elements of e holding y.
void subtract_decoded(const Compressor& c, float scale, std::span<const std::byte> bytes, float* e,
                      size_t n) {
  float decoded[kBlock];
  c.decode(scale, bytes, std::span<float>(decoded, n));
  for (size_t j = 0; j < n; ++j) e[j] = e[j] - decoded[j];
}

// One block of a chunkable compressor without a scale, e holding y: encode (the random draws at
// the block's global indices), decode, e = y - decoded. Returns the encode's value (1 or NaN).
float encode_block(const Compressor& c, float* e, size_t begin, size_t n,
                   std::span<std::byte> payload, const RandomKey& key) {
  RandomKey block_key = key;
  block_key.index_offset += begin;
  const auto bytes = block_bytes(c, payload, begin, n);
  const float value = c.encode(std::span<const float>(e, n), bytes, block_key);
  subtract_decoded(c, value, bytes, e, n);
  return value;
}

// Blocks [0, k) of e hold y. A chunkable compressor without a scale encodes block by block (its
// payload and bits do not depend on the split) and returns 1, or NaN when a block gave NaN;
// otherwise encode(e) once and the error update per block, or through the state's scratch for a
// compressor that is not chunkable.
template <class Prepare>
float finish_encode(const Compressor& c, ErrorFeedback& ef, std::span<std::byte> payload,
                    const RandomKey& key, const Prepare& prepare) {
  float* e = ef.mutable_error().data();
  const size_t k = ef.size();
  if (c.chunkable() && !c.has_scale()) {
    std::atomic<bool> nan{false};
    for_blocks(k, [&](size_t begin, size_t n) {
      prepare(e + begin, begin, n);
      if (std::isnan(encode_block(c, e + begin, begin, n, payload, key))) nan = true;
    });
    return nan ? std::numeric_limits<float>::quiet_NaN() : 1.0f;
  }
  for_blocks(k, [&](size_t begin, size_t n) { prepare(e + begin, begin, n); });
  const float scale = c.encode(ef.error(), payload, key);
  if (c.chunkable()) {
    for_blocks(k, [&](size_t begin, size_t n) {
      subtract_decoded(c, scale, block_bytes(c, std::span<const std::byte>(payload), begin, n),
                       e + begin, n);
    });
  } else {
    const std::span<float> decoded = ef.scratch(k);
    c.decode(scale, payload, decoded);
    ef.update(ef.error(), decoded);
  }
  return scale;
}

}  // namespace

float encode_with_feedback(const Compressor& c, ErrorFeedback& ef, std::span<const float> x,
                           std::span<std::byte> payload, const RandomKey& key) {
  const size_t k = ef.size();
  if (x.size() > k) {
    throw InvalidArgument(c.name() + " encode_with_feedback: input has " +
                          std::to_string(x.size()) +
                          " elements, expected at most the error feedback's " + std::to_string(k));
  }
  // The message is built only on failure, so a call allocates nothing.
  if (payload.size() != c.payload_bytes(k)) {
    check_payload_size(c.name() + " encode_with_feedback", k, payload.size(), c.payload_bytes(k));
  }
  if (dynamic_cast<const SignCompressor*>(&c) != nullptr) {
    return sign_encode_with_feedback(x, ef.mutable_error(), payload);
  }
  return finish_encode(c, ef, payload, key,
                       [&](float* e, size_t begin, size_t n) { compensate_block(x, e, begin, n); });
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
  if (payload.size() != bytes) {
    check_payload_size(c.name() + " average_encode_with_feedback", k, payload.size(), bytes);
  }
  if (dynamic_cast<const SignCompressor*>(&c) != nullptr) {
    return sign_server_encode_with_feedback(scales, payloads, ef.mutable_error(), payload);
  }
  const auto divisor = static_cast<float>(n);
  // Not chunkable: whole-vector decodes into the state's scratch, z then each piece; z is folded
  // into the error before finish_encode reuses the scratch for the decoded result.
  if (!c.chunkable()) {
    const std::span<float> both = ef.scratch(2 * k), z = both.first(k), piece = both.last(k);
    std::fill(z.begin(), z.end(), 0.0f);
    for (size_t i = 0; i < n; ++i) {
      c.decode(scales[i], payloads.subspan(i * bytes, bytes), piece);
      for (size_t j = 0; j < k; ++j) z[j] += piece[j];
    }
    for (float& v : z) v /= divisor;
    return finish_encode(c, ef, payload, key, [&](float* e, size_t begin, size_t m) {
      compensate_block(z, e, begin, m);
    });
  }
  // z = (0 + sum of the decoded payloads in rank order) / n, then y = z + e, per block.
  return finish_encode(c, ef, payload, key, [&](float* e, size_t begin, size_t m) {
    float z[kBlock], piece[kBlock];
    std::fill_n(z, m, 0.0f);
    for (size_t i = 0; i < n; ++i) {
      c.decode(scales[i], block_bytes(c, payloads.subspan(i * bytes, bytes), begin, m),
               std::span<float>(piece, m));
      for (size_t j = 0; j < m; ++j) z[j] += piece[j];
    }
    for (size_t j = 0; j < m; ++j) z[j] /= divisor;
    compensate_block(std::span<const float>(z, m), e, 0, m);
  });
}

}  // namespace compopt
