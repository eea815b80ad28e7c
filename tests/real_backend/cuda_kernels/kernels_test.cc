// CUDA compression kernels against the CPU compressors of core/compress, bit for bit: sign (with
// the canonical scale), binary (same Philox draws), fused error feedback, the server step and the
// final decode. Skipped, with the reason, on machines without a CUDA device.

#include "real_backend/cuda_kernels/kernels.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "core/comm/collectives/compressed_allreduce.h"
#include "core/compress/compressor.h"
#include "core/compress/error_feedback.h"
#include "core/util/error.h"
#include "tests/real_backend/cuda_kernels/gpu_test_util.h"

namespace compopt::cuda::testing {
namespace {

const std::vector<size_t> kSizes = {
    0, 1, 7, 8, 9, 1003, 65535, 65536, 65537, 3 * 65536 + 5, (size_t{1} << 20) + 3};

enum class Kind { kNormal, kZero, kHuge, kTiny };

std::string kind_name(Kind kind) {
  switch (kind) {
    case Kind::kNormal:
      return "normal";
    case Kind::kZero:
      return "all-zero";
    case Kind::kHuge:
      return "huge";
    default:
      return "tiny";
  }
}

// Inputs of each kind: N(0,1); zeros (with some -0.0); +-1e30..FLT_MAX (squares overflow fp32,
// not the double sums); subnormals and signed zeros.
std::vector<float> input(Kind kind, size_t k, uint32_t seed) {
  std::vector<float> x = normal_floats(k, seed);
  for (size_t i = 0; i < k; ++i) {
    switch (kind) {
      case Kind::kNormal:
        break;
      case Kind::kZero:
        x[i] = i % 3 == 0 ? -0.0f : 0.0f;
        break;
      case Kind::kHuge:
        x[i] = (x[i] < 0 ? -1.0f : 1.0f) *
               (i % 5 == 0 ? std::numeric_limits<float>::max() : 1e30f * (1.0f + std::abs(x[i])));
        break;
      case Kind::kTiny:
        x[i] = i % 4 == 0 ? -0.0f : x[i] * std::numeric_limits<float>::denorm_min() * 1000.0f;
        break;
    }
  }
  return x;
}

class KernelsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (device_count() == 0) GTEST_SKIP() << "skipped: " << unavailable_reason();
    gpu_ = std::make_unique<GpuContext>();
  }
  GpuContext& gpu() { return *gpu_; }

  // GPU sign encode of x (error feedback on when e != nullptr, updated in place); returns
  // {payload, scale}. `shift` offsets every device pointer by that many floats (0 or 1: the
  // aligned and unaligned code paths).
  std::pair<std::vector<std::byte>, float> gpu_sign(const std::vector<float>& x, size_t k,
                                                    std::vector<float>* e, size_t shift = 0) {
    DeviceVector<float> dx(gpu(), pad_front(x, shift));
    DeviceVector<float> de(gpu(), e ? pad_front(*e, shift) : std::vector<float>(shift));
    DeviceVector<std::byte> payload(gpu(), payload_bytes(k));
    DeviceVector<float> scale(gpu(), 1);
    sign_encode(gpu(), dx.data() + shift, x.size(), e ? de.data() + shift : nullptr, k,
                payload.data(), scale.data());
    if (e) *e = de.host(k, shift);
    return {payload.host(), scale.host()[0]};
  }

  static std::vector<float> pad_front(const std::vector<float>& v, size_t shift) {
    std::vector<float> out(shift, 0.0f);
    out.insert(out.end(), v.begin(), v.end());
    return out;
  }

 private:
  std::unique_ptr<GpuContext> gpu_;
};

TEST_F(KernelsTest, SignEncodeDecodeMatchCpuAndCanonicalScale) {
  const auto cpu = make_compressor("sign");
  for (Kind kind : {Kind::kNormal, Kind::kZero, Kind::kHuge, Kind::kTiny}) {
    for (size_t k : kSizes) {
      for (size_t shift : {size_t{0}, size_t{1}}) {
        SCOPED_TRACE(kind_name(kind) + " k=" + std::to_string(k) +
                     " shift=" + std::to_string(shift));
        const auto x = input(kind, k, static_cast<uint32_t>(k) + 11);
        std::vector<std::byte> expected(cpu->payload_bytes(k));
        const float expected_scale = cpu->encode(x, expected, RandomKey{});
        const auto [payload, scale] = gpu_sign(x, k, nullptr, shift);
        ASSERT_EQ(bits_of(scale), bits_of(canonical_sign_scale(x))) << "canonical order";
        ASSERT_EQ(bits_of(scale), bits_of(expected_scale)) << "CPU SignCompressor";
        ASSERT_EQ(0, std::memcmp(payload.data(), expected.data(), expected.size()));
        if (kind == Kind::kZero) {
          EXPECT_EQ(scale, 0.0f);
        }

        std::vector<float> want(k);
        cpu->decode(scale, expected, want);
        DeviceVector<std::byte> dp(gpu(), payload);
        DeviceVector<float> ds(gpu(), std::vector<float>{scale});
        DeviceVector<float> out(gpu(), k + shift);
        sign_decode(gpu(), dp.data(), ds.data(), k, out.data() + shift);
        ASSERT_TRUE(same_bits(out.host(k, shift), want));
      }
    }
  }
}

TEST_F(KernelsTest, SignWithErrorFeedbackAndPaddingMatchesCpu) {
  const auto cpu = make_compressor("sign");
  for (size_t k : {size_t{8}, size_t{1008}, size_t{65536 + 64}, (size_t{1} << 20) + 8}) {
    for (size_t x_len : {k, k - 5}) {
      for (size_t shift : {size_t{0}, size_t{1}}) {
        SCOPED_TRACE("k=" + std::to_string(k) + " x_len=" + std::to_string(x_len) +
                     " shift=" + std::to_string(shift));
        ErrorFeedback ef(k);
        std::vector<float> gpu_error(k, 0.0f);
        for (uint32_t step = 0; step < 3; ++step) {
          const auto x = normal_floats(x_len, 100 + step, 0.5f);
          std::vector<float> y(k, 0.0f), decoded(k);
          std::copy(x.begin(), x.end(), y.begin());
          ef.compensate(y, y);
          std::vector<std::byte> expected(cpu->payload_bytes(k));
          const float expected_scale = cpu->encode(y, expected, RandomKey{});
          cpu->decode(expected_scale, expected, decoded);
          ef.update(y, decoded);

          const auto [payload, scale] = gpu_sign(x, k, &gpu_error, shift);
          ASSERT_EQ(bits_of(scale), bits_of(expected_scale)) << "step " << step;
          ASSERT_EQ(0, std::memcmp(payload.data(), expected.data(), expected.size()))
              << "step " << step;
          ASSERT_TRUE(
              same_bits(gpu_error, std::vector<float>(ef.error().begin(), ef.error().end())))
              << "step " << step;
        }
      }
    }
  }
}

TEST_F(KernelsTest, SignNonFiniteInputsPropagateLikeCpu) {
  const auto cpu = make_compressor("sign");
  for (float bad : {std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                    std::numeric_limits<float>::quiet_NaN()}) {
    auto x = normal_floats(70000, 5);
    x[66000] = bad;
    std::vector<std::byte> expected(cpu->payload_bytes(x.size()));
    const float expected_scale = cpu->encode(x, expected, RandomKey{});
    const auto [payload, scale] = gpu_sign(x, x.size(), nullptr);
    EXPECT_EQ(std::isnan(scale), std::isnan(expected_scale)) << bad;
    if (!std::isnan(expected_scale)) {
      EXPECT_EQ(bits_of(scale), bits_of(expected_scale)) << bad;
    }
    EXPECT_EQ(0, std::memcmp(payload.data(), expected.data(), expected.size())) << bad;
  }
}

// Keys exercising every part of the counter: offsets of each phase mod 4, a 64-bit offset that
// crosses 2^32 inside the vector, streams, and seed/step high words.
std::vector<RandomKey> test_keys() {
  return {
      RandomKey{.seed = 1, .step = 0, .rank = 0, .stream = 0, .index_offset = 0},
      RandomKey{.seed = 7, .step = 3, .rank = 5, .stream = 1, .index_offset = 1},
      RandomKey{.seed = 0x123456789ULL,
                .step = 0x500000002ULL,
                .rank = 2,
                .stream = 0,
                .index_offset = 2},
      RandomKey{.seed = 9, .step = 1, .rank = 1, .stream = 1, .index_offset = 3},
      RandomKey{
          .seed = 42, .step = 8, .rank = 3, .stream = 0, .index_offset = (uint64_t{1} << 32) - 13}};
}

TEST_F(KernelsTest, BinaryEncodeDecodeMatchCpu) {
  const auto cpu = make_compressor("binary");
  for (size_t k : kSizes) {
    for (const RandomKey& key : test_keys()) {
      for (size_t shift : {size_t{0}, size_t{1}}) {
        SCOPED_TRACE("k=" + std::to_string(k) + " offset=" + std::to_string(key.index_offset) +
                     " shift=" + std::to_string(shift));
        auto x = normal_floats(k, static_cast<uint32_t>(k) * 3 + 1, 0.8f);  // some beyond [-1, 1]
        if (k > 7) x[6] = std::numeric_limits<float>::quiet_NaN();
        std::vector<std::byte> expected(cpu->payload_bytes(k));
        const float expected_flag = cpu->encode(x, expected, key);

        DeviceVector<float> dx(gpu(), pad_front(x, shift));
        DeviceVector<std::byte> payload(gpu(), payload_bytes(k));
        DeviceVector<uint32_t> nan(gpu(), 1);
        binary_encode(gpu(), dx.data() + shift, k, nullptr, k, payload.data(), key, nan.data());
        ASSERT_EQ(0, std::memcmp(payload.host().data(), expected.data(), expected.size()));
        EXPECT_EQ(nan.host()[0] != 0, std::isnan(expected_flag));

        std::vector<float> want(k);
        cpu->decode(1.0f, expected, want);
        DeviceVector<float> out(gpu(), k + shift);
        binary_decode(gpu(), payload.data(), k, out.data() + shift);
        ASSERT_TRUE(same_bits(out.host(k, shift), want));
      }
    }
  }
}

TEST_F(KernelsTest, BinaryWithErrorFeedbackAndPaddingMatchesCpu) {
  const auto cpu = make_compressor("binary");
  const size_t k = 65536 + 1024;
  for (size_t x_len : {k, k - 3}) {
    ErrorFeedback ef(k);
    std::vector<float> gpu_error(k, 0.0f);
    for (uint32_t step = 0; step < 3; ++step) {
      const RandomKey key{.seed = 77, .step = step, .rank = 1, .stream = 0, .index_offset = 5};
      const auto x = normal_floats(x_len, 300 + step, 0.4f);
      std::vector<float> y(k, 0.0f), decoded(k);
      std::copy(x.begin(), x.end(), y.begin());
      ef.compensate(y, y);
      std::vector<std::byte> expected(cpu->payload_bytes(k));
      cpu->encode(y, expected, key);
      cpu->decode(1.0f, expected, decoded);
      ef.update(y, decoded);

      DeviceVector<float> dx(gpu(), x), de(gpu(), gpu_error);
      DeviceVector<std::byte> payload(gpu(), payload_bytes(k));
      binary_encode(gpu(), dx.data(), x_len, de.data(), k, payload.data(), key, nullptr);
      gpu_error = de.host();
      ASSERT_EQ(0, std::memcmp(payload.host().data(), expected.data(), expected.size()))
          << "step " << step;
      ASSERT_TRUE(same_bits(gpu_error, std::vector<float>(ef.error().begin(), ef.error().end())))
          << "step " << step;
    }
  }
}

// CPU server step, as core/comm/collectives/compressed_allreduce.cc phase 3 does it.
std::vector<std::byte> cpu_server_step(const Compressor& c, const std::vector<std::byte>& received,
                                       const std::vector<float>& scales, int n, size_t chunk,
                                       std::vector<float>& server_error, const RandomKey& key) {
  const size_t pb = c.payload_bytes(chunk);
  std::vector<float> z(chunk, 0.0f), piece(chunk);
  for (int i = 0; i < n; ++i) {
    c.decode(scales[static_cast<size_t>(i)],
             std::span(received).subspan(static_cast<size_t>(i) * pb, pb), piece);
    for (size_t k = 0; k < chunk; ++k) z[k] += piece[k];
  }
  for (float& v : z) v /= static_cast<float>(n);
  for (size_t k = 0; k < chunk; ++k) z[k] = z[k] + server_error[k];
  std::vector<std::byte> message(c.wire_bytes(chunk));
  const size_t header = message.size() - pb;
  const float scale = c.encode(z, std::span(message).subspan(header), key);
  if (header > 0) std::memcpy(message.data(), &scale, sizeof scale);
  c.decode(scale, std::span(message).subspan(header), piece);
  for (size_t k = 0; k < chunk; ++k) server_error[k] = z[k] - piece[k];
  return message;
}

TEST_F(KernelsTest, ServerStepMatchesCpu) {
  for (const char* spec : {"sign", "binary"}) {
    const auto c = make_compressor(spec);
    const Codec codec = *codec_for(*c);
    for (int n : {1, 2, 3, 8}) {
      for (size_t chunk : {size_t{0}, size_t{8}, size_t{1000}, size_t{65536 + 8}}) {
        SCOPED_TRACE(std::string(spec) + " n=" + std::to_string(n) +
                     " chunk=" + std::to_string(chunk));
        const size_t pb = payload_bytes(chunk);
        std::vector<std::byte> received(static_cast<size_t>(n) * pb);
        std::vector<float> scales(static_cast<size_t>(n), 1.0f);
        for (int i = 0; i < n; ++i) {
          const auto x =
              normal_floats(chunk, 50 + static_cast<uint32_t>(i), 0.3f * static_cast<float>(i + 1));
          scales[static_cast<size_t>(i)] =
              c->encode(x, std::span(received).subspan(static_cast<size_t>(i) * pb, pb),
                        RandomKey{.seed = 3, .rank = static_cast<uint32_t>(i)});
          if (codec == Codec::kBinary) scales[static_cast<size_t>(i)] = 1.0f;
        }
        std::vector<float> cpu_error = normal_floats(chunk, 9, 0.05f), gpu_error = cpu_error;
        DeviceVector<std::byte> d_received(gpu(), received);
        DeviceVector<float> d_scales(gpu(), scales), d_error(gpu(), gpu_error);
        DeviceVector<std::byte> d_message(gpu(), message_bytes(codec, chunk));
        for (uint64_t step = 0; step < 2; ++step) {
          const RandomKey key{
              .seed = 11, .step = step, .rank = 2, .stream = 1, .index_offset = 2 * chunk + 3};
          const auto expected = cpu_server_step(*c, received, scales, n, chunk, cpu_error, key);
          server_step(gpu(), codec, d_received.data(), d_scales.data(), n, chunk, d_error.data(),
                      d_message.data(), key);
          ASSERT_EQ(expected.size(), message_bytes(codec, chunk));
          ASSERT_EQ(0, std::memcmp(d_message.host().data(), expected.data(), expected.size()))
              << "step " << step;
          ASSERT_TRUE(same_bits(d_error.host(), cpu_error)) << "step " << step;
        }
      }
    }
  }
}

TEST_F(KernelsTest, DecodeMessagesMatchesCpu) {
  for (const char* spec : {"sign", "binary"}) {
    const auto c = make_compressor(spec);
    const Codec codec = *codec_for(*c);
    const size_t count = 5, chunk = 1024;
    std::vector<std::byte> messages;
    for (size_t j = 0; j < count; ++j) {
      const auto z =
          normal_floats(chunk, 70 + static_cast<uint32_t>(j), 1.0f + static_cast<float>(j));
      std::vector<std::byte> m(c->wire_bytes(chunk));
      const size_t header = m.size() - c->payload_bytes(chunk);
      const float s = c->encode(z, std::span(m).subspan(header), RandomKey{.seed = j});
      if (header > 0) std::memcpy(m.data(), &s, sizeof s);
      messages.insert(messages.end(), m.begin(), m.end());
    }
    DeviceVector<std::byte> d_messages(gpu(), messages);
    for (size_t out_len : {count * chunk, count * chunk - 5, size_t{3}, size_t{0}}) {
      for (size_t shift : {size_t{0}, size_t{1}}) {
        std::vector<float> want(out_len);
        decode_server_messages(messages, count, chunk, *c, want);
        DeviceVector<float> out(gpu(), out_len + shift);
        decode_messages(gpu(), codec, d_messages.data(), count, chunk, out.data() + shift, out_len);
        ASSERT_TRUE(same_bits(out.host(out_len, shift), want))
            << spec << " out_len " << out_len << " shift " << shift;
      }
    }
  }
}

TEST_F(KernelsTest, ArgumentErrorsThrowInvalidArgument) {
  DeviceVector<float> x(gpu(), 16);
  DeviceVector<std::byte> payload(gpu(), 16);
  EXPECT_THROW(sign_encode(gpu(), x.data(), 17, nullptr, 16, payload.data(), x.data()),
               InvalidArgument);
  EXPECT_THROW(
      binary_encode(gpu(), x.data(), 17, nullptr, 16, payload.data(), RandomKey{}, nullptr),
      InvalidArgument);
  EXPECT_THROW(server_step(gpu(), Codec::kSign, payload.data(), x.data(), 2, 12, x.data(),
                           payload.data(), RandomKey{}),
               InvalidArgument);
  EXPECT_THROW(decode_messages(gpu(), Codec::kBinary, payload.data(), 1, 8, x.data(), 9),
               InvalidArgument);
}

// Runs everywhere: what the GPU tests need, and why they are skipped when it is missing.
TEST(GpuAvailability, ReportsDevicesOrWhyNot) {
  const int devices = device_count();
  if (devices == 0) {
    const std::string why = unavailable_reason();
    EXPECT_NE(why.find("no CUDA device"), std::string::npos) << why;
    EXPECT_THROW(GpuContext gpu, CudaError);
    std::printf("[ gpu ] GPU tests skipped: %s\n", why.c_str());
  } else {
    EXPECT_EQ(unavailable_reason(), "");
    GpuContext gpu;
    EXPECT_GE(gpu.device(), 0);
    EXPECT_LT(gpu.device(), devices);
    std::printf("[ gpu ] %d CUDA device(s): GPU tests run on device %d\n", devices, gpu.device());
  }
}

TEST(CodecTest, NamesAndMessageSizes) {
  EXPECT_EQ(codec_for("sign"), Codec::kSign);
  EXPECT_EQ(codec_for("binary"), Codec::kBinary);
  EXPECT_FALSE(codec_for("nbit:4").has_value());
  EXPECT_FALSE(codec_for(*make_compressor("identity")).has_value());
  // Same sizes as the CPU compressors' wire_bytes (docs/algorithms.md).
  for (size_t k : {size_t{0}, size_t{1}, size_t{8}, size_t{1003}}) {
    EXPECT_EQ(message_bytes(Codec::kSign, k), make_compressor("sign")->wire_bytes(k));
    EXPECT_EQ(message_bytes(Codec::kBinary, k), make_compressor("binary")->wire_bytes(k));
  }
}

}  // namespace
}  // namespace compopt::cuda::testing
