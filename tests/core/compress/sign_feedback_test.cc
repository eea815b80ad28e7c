// Fused error feedback + sign (worker and server steps) against the separate sequence
// compensate / encode / decode / update of the scalar reference, on every kernel path, over
// several steps so the error state carries over; the generic encode_with_feedback for the other
// compressors against the same sequence; size errors.
#include "core/compress/sign_feedback.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "core/compress/compressor.h"
#include "core/compress/feedback_encode.h"
#include "core/compress/sign.h"
#include "core/util/error.h"
#include "tests/core/compress/kernel_configs.h"
#include "tests/core/compress/scalar_reference.h"

namespace compopt {
namespace {

using testing::awkward_sizes;
using testing::first_difference;
using testing::kernel_configs;
using testing::random_floats;
using testing::same_bits;
using testing::ScopedKernelConfig;

constexpr int kSteps = 3;

std::vector<float> as_vector(std::span<const float> s) { return {s.begin(), s.end()}; }

// Runs kSteps worker steps with inputs of length nx <= k on every path; compares each step's
// payload, scale and error with the reference sequence.
void expect_worker_matches(size_t k, size_t nx, const std::vector<float>& special = {}) {
  std::vector<std::vector<float>> inputs;
  for (int t = 0; t < kSteps; ++t) {
    inputs.push_back(random_floats(nx, static_cast<uint32_t>(k * 7 + nx + t)));
    for (size_t i = 0; i < special.size() && i < nx; ++i) inputs.back()[i * 5 % nx] = special[i];
  }
  ErrorFeedback reference_ef(k);
  std::vector<std::vector<std::byte>> payloads;
  std::vector<float> scales;
  std::vector<std::vector<float>> errors;
  for (int t = 0; t < kSteps; ++t) {
    payloads.emplace_back((k + 7) / 8);
    scales.push_back(
        reference::sign_encode_with_feedback(inputs[t], reference_ef, payloads.back()));
    errors.push_back(as_vector(reference_ef.error()));
  }
  for (const auto& config : kernel_configs()) {
    ScopedKernelConfig scoped(config);
    ErrorFeedback ef(k);
    for (int t = 0; t < kSteps; ++t) {
      std::vector<std::byte> payload((k + 7) / 8, std::byte{0x5A});
      const float s = sign_encode_with_feedback(inputs[t], ef.mutable_error(), payload);
      ASSERT_TRUE(same_bits(s, scales[t]))
          << "k=" << k << " nx=" << nx << " step " << t << " " << config.name();
      ASSERT_EQ(payload, payloads[t]) << "k=" << k << " step " << t << " " << config.name();
      ASSERT_EQ(first_difference(as_vector(ef.error()), errors[t]), -1)
          << "k=" << k << " nx=" << nx << " step " << t << " " << config.name();
    }
  }
}

TEST(SignFeedback, WorkerStepMatchesSeparateSequence) {
  for (const size_t k : awkward_sizes()) expect_worker_matches(k, k);
}

TEST(SignFeedback, WorkerStepZeroPadsShortInput) {
  for (const size_t k : {8u, 9u, 64u, 65536u + 24, (1u << 18) + 40}) {
    for (const size_t short_by : {1u, 5u, 8u, 13u}) {
      if (short_by <= k) expect_worker_matches(k, k - short_by);
    }
  }
  expect_worker_matches(16, 0);
}

TEST(SignFeedback, WorkerStepWithNonFiniteInputs) {
  constexpr float kInf = std::numeric_limits<float>::infinity();
  for (const size_t k : {9u, 65537u, (1u << 18) + 5}) {
    expect_worker_matches(k, k, {3e38f, -3e38f, kInf});
    expect_worker_matches(k, k, {1.0f, std::numeric_limits<float>::quiet_NaN(), -kInf});
  }
}

// n random payloads (+ scales) for chunks of k elements, the server error carried over steps.
void expect_server_matches(size_t k, size_t ranks) {
  const size_t bytes = (k + 7) / 8;
  std::mt19937 rng(static_cast<uint32_t>(k * 31 + ranks));
  std::vector<std::vector<std::byte>> payloads(kSteps, std::vector<std::byte>(ranks * bytes));
  std::vector<std::vector<float>> scales(kSteps);
  for (int t = 0; t < kSteps; ++t) {
    for (auto& b : payloads[t]) b = static_cast<std::byte>(rng() & 0xFFu);
    for (size_t i = 0; i < ranks; ++i) {  // unused high bits are 0 on the wire
      if (k % 8 != 0)
        payloads[t][i * bytes + bytes - 1] &= static_cast<std::byte>((1u << (k % 8)) - 1u);
      scales[t].push_back(std::ldexp(static_cast<float>(rng() % 1000 + 1) / 997.0f,
                                     static_cast<int>(rng() % 20) - 10));
    }
  }
  ErrorFeedback reference_ef(k);
  std::vector<std::vector<std::byte>> out(kSteps, std::vector<std::byte>(bytes));
  std::vector<float> out_scales;
  std::vector<std::vector<float>> errors;
  for (int t = 0; t < kSteps; ++t) {
    out_scales.push_back(
        reference::sign_server_encode_with_feedback(scales[t], payloads[t], reference_ef, out[t]));
    errors.push_back(as_vector(reference_ef.error()));
  }
  for (const auto& config : kernel_configs()) {
    ScopedKernelConfig scoped(config);
    ErrorFeedback ef(k);
    for (int t = 0; t < kSteps; ++t) {
      std::vector<std::byte> payload(bytes, std::byte{0x77});
      const float s =
          sign_server_encode_with_feedback(scales[t], payloads[t], ef.mutable_error(), payload);
      ASSERT_TRUE(same_bits(s, out_scales[t]))
          << "k=" << k << " n=" << ranks << " step " << t << " " << config.name();
      ASSERT_EQ(payload, out[t]) << "k=" << k << " n=" << ranks << " step " << t << " "
                                 << config.name();
      ASSERT_EQ(first_difference(as_vector(ef.error()), errors[t]), -1)
          << "k=" << k << " n=" << ranks << " step " << t << " " << config.name();
    }
  }
}

TEST(SignFeedback, ServerStepMatchesSeparateSequence) {
  for (const size_t ranks : {1u, 3u, 8u}) {
    for (const size_t k : {0u, 1u, 7u, 8u, 9u, 65535u, 65536u, 65537u, (1u << 18) + 5}) {
      expect_server_matches(k, ranks);
    }
  }
  expect_server_matches((1u << 20) + 3, 2);
}

// The generic path (every compressor but sign) and the sign path through encode_with_feedback
// give the compensate / encode / decode / update sequence.
TEST(SignFeedback, EncodeWithFeedbackEqualsSequenceForEveryCompressor) {
  for (const char* spec : {"sign", "binary", "identity", "fp16", "nbit:4"}) {
    const auto c = make_compressor(spec);
    for (const size_t k : {13u, 4096u, (1u << 18) + 8}) {
      const RandomKey key{.seed = 9, .step = 4, .rank = 2, .stream = 0, .index_offset = 40};
      ErrorFeedback expected_ef(k), ef(k);
      for (int t = 0; t < kSteps; ++t) {
        const std::vector<float> x = random_floats(k - 3, static_cast<uint32_t>(k + t));
        std::vector<float> y(k, 0.0f), decoded(k);
        std::copy(x.begin(), x.end(), y.begin());
        expected_ef.compensate(y, y);
        std::vector<std::byte> expected(c->payload_bytes(k)), payload(c->payload_bytes(k));
        const float expected_scale = c->encode(y, expected, key);
        c->decode(expected_scale, expected, decoded);
        expected_ef.update(y, decoded);
        const float scale = encode_with_feedback(*c, ef, x, payload, key);
        ASSERT_TRUE(same_bits(scale, expected_scale)) << spec << " k=" << k << " step " << t;
        ASSERT_EQ(payload, expected) << spec << " k=" << k << " step " << t;
        ASSERT_EQ(first_difference(as_vector(ef.error()), as_vector(expected_ef.error())), -1)
            << spec << " k=" << k << " step " << t;
      }
    }
  }
}

TEST(SignFeedback, AverageEncodeWithFeedbackEqualsSequenceForEveryCompressor) {
  for (const char* spec : {"sign", "binary", "identity", "nbit:4"}) {
    const auto c = make_compressor(spec);
    const size_t k = 1000, n = 3, bytes = c->payload_bytes(k);
    std::vector<std::byte> payloads(n * bytes);
    std::vector<float> scales(n);
    for (size_t i = 0; i < n; ++i) {
      const std::vector<float> x = random_floats(k, static_cast<uint32_t>(i + 1));
      scales[i] = c->encode(x, std::span(payloads).subspan(i * bytes, bytes), RandomKey{});
    }
    const RandomKey key{.seed = 3, .step = 1, .rank = 1, .stream = 1, .index_offset = 1000};
    ErrorFeedback expected_ef(k), ef(k);
    std::vector<float> z(k, 0.0f), piece(k), decoded(k);
    for (size_t i = 0; i < n; ++i) {
      c->decode(scales[i], std::span(payloads).subspan(i * bytes, bytes), piece);
      for (size_t j = 0; j < k; ++j) z[j] += piece[j];
    }
    for (float& v : z) v /= 3.0f;
    expected_ef.compensate(z, z);
    std::vector<std::byte> expected(bytes), payload(bytes);
    const float expected_scale = c->encode(z, expected, key);
    c->decode(expected_scale, expected, decoded);
    expected_ef.update(z, decoded);
    const float scale = average_encode_with_feedback(*c, scales, payloads, ef, payload, key);
    EXPECT_TRUE(same_bits(scale, expected_scale)) << spec;
    EXPECT_EQ(payload, expected) << spec;
    EXPECT_EQ(first_difference(as_vector(ef.error()), as_vector(expected_ef.error())), -1) << spec;
  }
}

TEST(SignFeedback, SizeErrorsNameTheSizes) {
  std::vector<float> error(16), x(17);
  std::vector<std::byte> payload(2), short_payload(1);
  try {
    sign_encode_with_feedback(x, error, payload);
    FAIL() << "input longer than the error was accepted";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("17"), std::string::npos) << e.what();
  }
  EXPECT_THROW(sign_encode_with_feedback(std::span(x).first(16), error, short_payload),
               InvalidArgument);
  const std::vector<float> scales = {1.0f, 2.0f};
  std::vector<std::byte> payloads(3);
  try {
    sign_server_encode_with_feedback(scales, payloads, error, payload);
    FAIL() << "3 payload bytes for 2 ranks of 16 elements were accepted";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("expected 4"), std::string::npos) << e.what();
  }
  EXPECT_THROW(sign_server_encode_with_feedback({}, {}, error, payload), InvalidArgument);
  ErrorFeedback ef(16);
  EXPECT_THROW(encode_with_feedback(SignCompressor(), ef, x, payload, RandomKey{}),
               InvalidArgument);
  EXPECT_THROW(
      average_encode_with_feedback(SignCompressor(), scales, payloads, ef, payload, RandomKey{}),
      InvalidArgument);
}

}  // namespace
}  // namespace compopt
