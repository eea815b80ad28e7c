// The optimizer update kernels (core/optim/update_kernels.h): every SimdLevel this CPU has gives
// exactly the floats of plain scalar loops written here (the code the optimizers had before the
// kernels), on lengths with every tail (n % 8) and on special values: +-0, subnormals, +-inf,
// NaN, values whose products overflow or underflow, negative second moments.
#include "core/optim/update_kernels.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "core/compress/simd_level.h"
#include "core/optim/adam.h"
#include "core/optim/momentum.h"
#include "core/optim/vector_ops.h"
#include "tests/core/compress/kernel_configs.h"

namespace compopt {
namespace {

using testing::first_difference;
using testing::random_floats;

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNan = std::numeric_limits<float>::quiet_NaN();

const std::vector<size_t>& lengths() {
  static const std::vector<size_t> sizes = {0, 1, 2, 3, 5, 7, 8, 9, 15, 16, 17, 31, 33, 1003};
  return sizes;
}

// Random floats with special values planted every few elements.
std::vector<float> inputs(size_t n, uint32_t seed) {
  std::vector<float> x = random_floats(n, seed);
  const float specials[] = {kInf,   -kInf,  kNan,
                            -0.0f,  0.0f,   3e38f,
                            -3e38f, 1e-30f, std::numeric_limits<float>::denorm_min(),
                            -1e-45f};
  for (size_t i = seed % 5; i < n; i += 7) x[i] = specials[(i / 7 + seed) % std::size(specials)];
  return x;
}

std::vector<const UpdateKernels*> tables() {
  std::vector<const UpdateKernels*> out = {&portable_update_kernels()};
  if (detected_simd_level() == SimdLevel::kAvx2 && avx2_update_kernels() != nullptr) {
    out.push_back(avx2_update_kernels());
  }
  return out;
}

// Runs `kernel` of every table and `reference` on copies of the same arrays and compares every
// array afterwards, bit for bit (any two NaNs equal).
void expect_same(
    const std::string& what, size_t arrays,
    const std::function<void(const UpdateKernels&, std::vector<float*>&, size_t)>& kernel,
    const std::function<void(std::vector<float*>&, size_t)>& reference) {
  for (const size_t n : lengths()) {
    std::vector<std::vector<float>> expected;
    for (size_t a = 0; a < arrays; ++a) expected.push_back(inputs(n, static_cast<uint32_t>(a + n)));
    const auto initial = expected;
    std::vector<float*> ptrs;
    for (auto& e : expected) ptrs.push_back(e.data());
    reference(ptrs, n);
    for (const UpdateKernels* table : tables()) {
      auto got = initial;
      std::vector<float*> p;
      for (auto& g : got) p.push_back(g.data());
      kernel(*table, p, n);
      for (size_t a = 0; a < arrays; ++a) {
        EXPECT_EQ(first_difference(got[a], expected[a]), -1)
            << what << " n=" << n << " array " << a
            << (table == &portable_update_kernels() ? " portable" : " avx2");
      }
    }
  }
}

TEST(UpdateKernels, AdamDirectionMatchesScalarLoop) {
  for (const auto& [c1, c2] : {std::pair{1.0f, 1.0f}, std::pair{0.1f, 0.001f}}) {
    expect_same(
        "adam_direction", 3,
        [&](const UpdateKernels& k, std::vector<float*>& a, size_t n) {
          k.adam_direction(a[0], a[1], c1, c2, 1e-8f, a[2], n);
        },
        [&](std::vector<float*>& a, size_t n) {
          for (size_t j = 0; j < n; ++j)
            a[2][j] = (a[0][j] / c1) / (std::sqrt(a[1][j] / c2) + 1e-8f);
        });
  }
}

TEST(UpdateKernels, MomentsAndUpdatesMatchScalarLoops) {
  const float b = 0.9f, lr = 0.01f, wd = 0.1f;
  expect_same(
      "ema", 2, [&](const UpdateKernels& k, auto& a, size_t n) { k.ema(a[0], a[1], b, n); },
      [&](auto& a, size_t n) {
        for (size_t j = 0; j < n; ++j) a[0][j] = b * a[0][j] + (1.0f - b) * a[1][j];
      });
  expect_same(
      "ema_square", 2,
      [&](const UpdateKernels& k, auto& a, size_t n) { k.ema_square(a[0], a[1], 0.999f, n); },
      [&](auto& a, size_t n) {
        for (size_t j = 0; j < n; ++j)
          a[0][j] = 0.999f * a[0][j] + (1.0f - 0.999f) * a[1][j] * a[1][j];
      });
  expect_same(
      "apply_update", 2,
      [&](const UpdateKernels& k, auto& a, size_t n) { k.apply_update(a[0], a[1], lr, wd, n); },
      [&](auto& a, size_t n) {
        for (size_t j = 0; j < n; ++j) a[0][j] -= lr * (a[1][j] + wd * a[0][j]);
      });
  expect_same(
      "apply_update without weight decay", 2,
      [&](const UpdateKernels& k, auto& a, size_t n) { k.apply_update(a[0], a[1], lr, 0.0f, n); },
      [&](auto& a, size_t n) {
        // x -= lr*u: a non-finite x stays itself (0*x would make it NaN), as in torch's SGD.
        for (size_t j = 0; j < n; ++j) a[0][j] -= lr * a[1][j];
      });
  expect_same(
      "add_scaled", 2,
      [&](const UpdateKernels& k, auto& a, size_t n) { k.add_scaled(a[0], a[1], wd, n); },
      [&](auto& a, size_t n) {
        for (size_t j = 0; j < n; ++j) a[0][j] += wd * a[1][j];
      });
  expect_same(
      "subtract_scaled", 2,
      [&](const UpdateKernels& k, auto& a, size_t n) { k.subtract_scaled(a[0], a[1], lr, n); },
      [&](auto& a, size_t n) {
        for (size_t j = 0; j < n; ++j) a[0][j] -= lr * a[1][j];
      });
}

TEST(UpdateKernels, MomentumFormsMatchScalarLoopsWithAliasedDirection) {
  const float b = 0.9f;
  for (const bool nesterov : {false, true}) {
    // dir aliases g exactly, as momentum SGD calls it.
    expect_same(
        "momentum_paper", 2,
        [&](const UpdateKernels& k, auto& a, size_t n) {
          k.momentum_paper(a[0], a[1], b, nesterov, a[1], n);
        },
        [&](auto& a, size_t n) {
          for (size_t j = 0; j < n; ++j) {
            const float g = a[1][j];
            a[0][j] = b * a[0][j] + (1.0f - b) * g;
            a[1][j] = nesterov ? b * a[0][j] + (1.0f - b) * g : a[0][j];
          }
        });
    expect_same(
        "momentum_pytorch", 3,
        [&](const UpdateKernels& k, auto& a, size_t n) {
          k.momentum_pytorch(a[0], a[1], b, nesterov, a[2], n);
        },
        [&](auto& a, size_t n) {
          for (size_t j = 0; j < n; ++j) {
            a[0][j] = b * a[0][j] + a[1][j];
            a[2][j] = nesterov ? a[1][j] + b * a[0][j] : a[0][j];
          }
        });
  }
}

TEST(UpdateKernels, BirderMatchesScalarLoop) {
  const float beta = 0.95f, eps = 1e-8f;
  for (const bool use_max : {false, true}) {
    // q aliasing g (the hierarchical shard) and q apart from g (the flat optimizer).
    for (const size_t q : {size_t{3}, size_t{4}}) {
      expect_same(
          "birder", 5,
          [&](const UpdateKernels& k, auto& a, size_t n) {
            k.birder(a[0], a[1], a[2], a[3], a[q], beta, eps, use_max, n);
          },
          [&](auto& a, size_t n) {
            for (size_t j = 0; j < n; ++j) {
              const float g = a[3][j];
              a[0][j] = beta * a[0][j] + (1.0f - beta) * g;
              a[1][j] = beta * a[1][j] + (1.0f - beta) * std::fabs(g);
              a[2][j] = use_max ? std::max(a[2][j], a[1][j]) : a[1][j];
              a[q][j] = a[0][j] / (a[2][j] + eps);
            }
          });
    }
  }
}

// The fused kernels against the unfused scalar loops run one after the other, with the
// intermediate vector (u, dir) stored as the optimizers stored it before.
namespace unfused {

void adam_moments(float* m, float* v, const float* g, const AdamScalars& s, float* u, size_t n) {
  for (size_t j = 0; j < n; ++j) m[j] = s.beta1 * m[j] + (1.0f - s.beta1) * g[j];
  for (size_t j = 0; j < n; ++j) v[j] = s.beta2 * v[j] + (1.0f - s.beta2) * g[j] * g[j];
  for (size_t j = 0; j < n; ++j) u[j] = (m[j] / s.c1) / (std::sqrt(v[j] / s.c2) + s.eps);
}

void apply(float* x, const float* u, const AdamScalars& s, size_t n) {
  for (size_t j = 0; j < n; ++j) x[j] -= s.lr * (u[j] + s.wd * x[j]);
}

}  // namespace unfused

const AdamScalars kBiasCorrected{.beta1 = 0.9f,
                                 .beta2 = 0.999f,
                                 .c1 = 0.271f,
                                 .c2 = 0.002997f,
                                 .eps = 1e-8f,
                                 .lr = 0.01f,
                                 .wd = 0.1f};
const AdamScalars kUncorrected{.beta1 = 0.8f, .beta2 = 0.99f, .eps = 1e-6f, .lr = 3e-4f, .wd = 0};

TEST(UpdateKernels, AdamStepMatchesTheFourLoops) {
  for (const AdamScalars& s : {kBiasCorrected, kUncorrected}) {
    expect_same(
        "adam_step", 4,
        [&](const UpdateKernels& k, auto& a, size_t n) {
          k.adam_step(a[0], a[1], a[2], a[3], s, n);
        },
        [&](auto& a, size_t n) {
          std::vector<float> u(n);
          unfused::adam_moments(a[1], a[2], a[3], s, u.data(), n);
          unfused::apply(a[0], u.data(), s, n);
        });
    expect_same(
        "adam_apply", 3,
        [&](const UpdateKernels& k, auto& a, size_t n) { k.adam_apply(a[0], a[1], a[2], s, n); },
        [&](auto& a, size_t n) {
          std::vector<float> u(n);
          for (size_t j = 0; j < n; ++j)
            u[j] = (a[1][j] / s.c1) / (std::sqrt(a[2][j] / s.c2) + s.eps);
          unfused::apply(a[0], u.data(), s, n);
        });
  }
}

TEST(UpdateKernels, LambDirectionMatchesTheLoopsAndL2Norm) {
  for (const AdamScalars& s : {kBiasCorrected, kUncorrected}) {
    for (const size_t n : lengths()) {
      // Finite inputs with v >= 0 (norms of NaNs compare poorly), u apart from g and on g.
      std::vector<float> x = random_floats(n, 1), m = random_floats(n, 2), v = random_floats(n, 3),
                         g = random_floats(n, 4);
      for (float& e : v) e = std::fabs(e);
      auto want_m = m, want_v = v;
      std::vector<float> want_u(n);
      unfused::adam_moments(want_m.data(), want_v.data(), g.data(), s, want_u.data(), n);
      for (size_t j = 0; j < n; ++j) want_u[j] += s.wd * x[j];
      for (const UpdateKernels* table : tables()) {
        for (const bool on_g : {false, true}) {
          auto got_m = m, got_v = v, got_g = g;
          std::vector<float> separate(n);
          float* u = on_g ? got_g.data() : separate.data();
          double squares[2] = {0.0, 0.0};
          table->lamb_direction(x.data(), got_m.data(), got_v.data(), got_g.data(), u, s, squares,
                                n);
          EXPECT_EQ(first_difference(got_m, want_m), -1) << n;
          EXPECT_EQ(first_difference(got_v, want_v), -1) << n;
          EXPECT_EQ(first_difference(std::vector<float>(u, u + n), want_u), -1) << n;
          EXPECT_EQ(std::sqrt(squares[0]), l2_norm(x)) << n;
          EXPECT_EQ(std::sqrt(squares[1]), l2_norm(want_u)) << n;
        }
      }
    }
  }
}

TEST(UpdateKernels, MomentumStepsMatchMomentumThenApply) {
  const float b = 0.9f, lr = 0.05f, wd = 0.01f;
  for (const bool nesterov : {false, true}) {
    for (const bool paper : {false, true}) {
      expect_same(
          paper ? "momentum_paper_step" : "momentum_pytorch_step", 3,
          [&](const UpdateKernels& k, auto& a, size_t n) {
            (paper ? k.momentum_paper_step : k.momentum_pytorch_step)(a[0], a[1], a[2], b, nesterov,
                                                                      lr, wd, n);
          },
          [&](auto& a, size_t n) {
            std::vector<float> dir(n);
            for (size_t j = 0; j < n; ++j) {
              const float g = a[2][j];
              a[1][j] = paper ? b * a[1][j] + (1.0f - b) * g : b * a[1][j] + g;
              const float nest = paper ? b * a[1][j] + (1.0f - b) * g : g + b * a[1][j];
              dir[j] = nesterov ? nest : a[1][j];
            }
            for (size_t j = 0; j < n; ++j) a[0][j] -= lr * (dir[j] + wd * a[0][j]);
          });
    }
  }
}

TEST(UpdateKernels, LambScaledMomentumMatchesCopyEmaAndScale) {
  for (const float k : {1.0f, 0.37f, 3e38f}) {
    expect_same(
        "lamb_scaled_momentum", 3,
        [&](const UpdateKernels& t, auto& a, size_t n) {
          t.lamb_scaled_momentum(a[0], a[1], a[2], 0.9f, k, n);
        },
        [&](auto& a, size_t n) {
          for (size_t j = 0; j < n; ++j) a[1][j] = a[0][j];
          for (size_t j = 0; j < n; ++j) a[0][j] = 0.9f * a[0][j] + (1.0f - 0.9f) * a[2][j];
          for (size_t j = 0; j < n; ++j) a[0][j] *= k;
        });
  }
}

TEST(UpdateKernels, AdamStepHandValues) {
  // g = 2, m = 0, v = 0, beta1 = beta2 = 0.5, c1 = c2 = 1, eps = 0: m = 1, v = 0.5*2*2 = 2,
  // u = 1/sqrt(2); x = 1, lr = 1, wd = 0: x = 1 - 1/sqrt(2). With c1 = 0.5, c2 = 0.5:
  // u = (1/0.5) / sqrt(2/0.5) = 1, x = 0.
  for (const UpdateKernels* k : tables()) {
    for (const auto& [c, want] :
         {std::pair{1.0f, 1.0f - 1.0f / std::sqrt(2.0f)}, std::pair{0.5f, 0.0f}}) {
      std::vector<float> x(9, 1.0f), m(9, 0.0f), v(9, 0.0f), g(9, 2.0f);
      const AdamScalars s{
          .beta1 = 0.5f, .beta2 = 0.5f, .c1 = c, .c2 = c, .eps = 0, .lr = 1, .wd = 0};
      k->adam_step(x.data(), m.data(), v.data(), g.data(), s, 9);
      EXPECT_EQ(m, std::vector<float>(9, 1.0f));
      EXPECT_EQ(v, std::vector<float>(9, 2.0f));
      EXPECT_EQ(x, std::vector<float>(9, want)) << c;
    }
  }
}

TEST(UpdateKernels, L1AndL2NormsInOnePassEqualTheSeparateNorms) {
  for (const size_t n : lengths()) {
    const std::vector<float> x = random_floats(n, 11);
    const L1L2Norms both = l1_and_l2_norms(x);
    EXPECT_EQ(both.l1, l1_norm(x)) << n;
    EXPECT_EQ(both.l2, l2_norm(x)) << n;
  }
  const std::vector<float> hand = {3.0f, -4.0f};  // |3| + |-4| = 7, sqrt(9 + 16) = 5
  EXPECT_EQ(l1_and_l2_norms(hand).l1, 7.0);
  EXPECT_EQ(l1_and_l2_norms(hand).l2, 5.0);
}

TEST(UpdateKernels, LambFreshRatioMatchesScalarLoop) {
  const float b1 = 0.9f, b2 = 0.999f;
  for (const auto& [eps, k] : {std::pair{1e-6f, 1.0f}, std::pair{0.0f, 1.0f}, {1e-6f, 0.37f}}) {
    for (const size_t n : lengths()) {
      std::vector<std::vector<float>> a;
      for (uint32_t i = 0; i < 4; ++i) a.push_back(inputs(n, static_cast<uint32_t>(n) + i));
      auto want = a;
      double want_r = 0;
      for (size_t j = 0; j < n; ++j) want[0][j] /= k;  // the momentum's scaling undone first
      for (size_t j = 0; j < n; ++j) {
        const float g = (want[0][j] - b1 * want[1][j]) / (1.0f - b1);
        want[3][j] = b2 * want[3][j] + (1.0f - b2) * g * g;
        want_r = std::max(want_r, (static_cast<double>(std::sqrt(want[2][j])) + eps) /
                                      (static_cast<double>(std::sqrt(want[3][j])) + eps));
      }
      for (const UpdateKernels* table : tables()) {
        auto got = a;
        const double r = table->lamb_fresh_ratio(got[0].data(), got[1].data(), got[2].data(),
                                                 got[3].data(), b1, b2, eps, k, n);
        EXPECT_EQ(std::memcmp(&r, &want_r, sizeof r), 0) << "n=" << n << " " << r << " " << want_r;
        EXPECT_EQ(first_difference(got[0], want[0]), -1) << "n=" << n;
        EXPECT_EQ(first_difference(got[3], want[3]), -1) << "n=" << n;
      }
    }
  }
}

TEST(UpdateKernels, LambFreshRatioHandValues) {
  // b1 = 0.5, b2 = 0.75, eps = 0. m = 1, m_prev = 0: g = 2, vf = 0.75*4 + (0.25*2)*2 = 4, v = 16:
  // ratio 4/2 = 2. m = m_prev = 0: g = 0, vf = 0.75*12 = 9, v = 81: ratio 9/3 = 3. A negative v
  // gives a NaN ratio, which the maximum skips.
  for (const UpdateKernels* table : tables()) {
    for (const size_t at : {size_t{3}, size_t{8}}) {  // in the 8-lane part or in the tail
      std::vector<float> m(9, 1.0f), m_prev(9, 0.0f), v(9, 16.0f), vf(9, 4.0f);
      m[at] = 0.0f;
      v[at] = 81.0f;
      vf[at] = 12.0f;
      v[5] = -1.0f;
      const double r = table->lamb_fresh_ratio(m.data(), m_prev.data(), v.data(), vf.data(), 0.5f,
                                               0.75f, 0.0f, 1.0f, 9);
      EXPECT_EQ(r, 3.0) << at;
      EXPECT_EQ(vf[at], 9.0f);
      EXPECT_EQ(vf[at == 3 ? 8 : 3], 4.0f);
    }
    std::vector<float> z(4, 0.0f), v(4, 1.0f);
    EXPECT_EQ(
        table->lamb_fresh_ratio(z.data(), z.data(), v.data(), z.data(), 0.9f, 0.9f, 0.0f, 1.0f, 0),
        0.0);
  }
}

TEST(UpdateKernels, LambUpdateMatchesScalarLoopAndHandValue) {
  const float step = 0.01f, wd = 0.1f;
  for (const float eps : {1e-6f, 0.0f}) {
    expect_same(
        "lamb_update", 3,
        [&](const UpdateKernels& k, auto& a, size_t n) {
          k.lamb_update(a[0], a[1], a[2], step, eps, wd, n);
        },
        [&](auto& a, size_t n) {
          for (size_t j = 0; j < n; ++j)
            a[0][j] -= step * (a[1][j] / (std::sqrt(a[2][j]) + eps) + wd * a[0][j]);
        });
  }
  // x = 1, m = 2, v = 4, eps = 0, wd = 0.5, step = 0.5: 1 - 0.5*(2/2 + 0.5) = 0.25.
  for (const UpdateKernels* table : tables()) {
    std::vector<float> x(9, 1.0f), m(9, 2.0f), v(9, 4.0f);
    table->lamb_update(x.data(), m.data(), v.data(), 0.5f, 0.0f, 0.5f, 9);
    EXPECT_EQ(x, std::vector<float>(9, 0.25f));
  }
}

TEST(UpdateKernels, AdamDirectionHandValues) {
  // m = 0.5, v = 0.25, eps = 0: 0.5 / sqrt(0.25) = 1; with c1 = c2 = 0.25:
  // (0.5/0.25) / sqrt(0.25/0.25) = 2; m = -3, v = 4, eps = 1: -3 / (2 + 1) = -1.
  const std::vector<float> m = {0.5f, -3.0f, 0.0f, 1.0f}, v = {0.25f, 4.0f, 0.0f, -1.0f};
  for (const UpdateKernels* k : tables()) {
    std::vector<float> u(4);
    k->adam_direction(m.data(), v.data(), 1.0f, 1.0f, 0.0f, u.data(), 1);
    EXPECT_EQ(u[0], 1.0f);
    k->adam_direction(m.data(), v.data(), 0.25f, 0.25f, 0.0f, u.data(), 1);
    EXPECT_EQ(u[0], 2.0f);
    k->adam_direction(m.data(), v.data(), 1.0f, 1.0f, 1.0f, u.data(), 4);
    EXPECT_EQ(u[1], -1.0f);
    EXPECT_EQ(u[2], 0.0f);
    EXPECT_TRUE(std::isnan(u[3]));  // sqrt of a negative second moment
  }
}

// The public wrappers take the table of the current SimdLevel: forcing the portable path gives
// the same bits as the detected one.
TEST(UpdateKernels, WrappersGiveTheSameBitsOnEveryLevel) {
  const size_t n = 4099;
  const std::vector<float> g = inputs(n, 7), m0 = inputs(n, 8);
  std::vector<float> v0 = inputs(n, 9);
  for (float& x : v0) x = std::fabs(x);
  std::vector<std::vector<float>> results;
  for (const SimdLevel level : {SimdLevel::kPortable, detected_simd_level()}) {
    const SimdLevel saved = set_simd_level(level);
    std::vector<float> m = m0, v = v0, u(n), x = g;
    ema(m, g, 0.9f);
    ema_square(v, g, 0.999f);
    adam_direction({0.9f, 0.999f, true}, 3, 1e-6f, m, v, u);
    apply_update(x, u, 1e-3f, 0.01f);
    momentum_update({0.9f, MomentumForm::kPaper, true}, m, g, u);
    set_simd_level(saved);
    results.push_back(x);
    results.push_back(u);
  }
  EXPECT_EQ(first_difference(results[0], results[2]), -1);
  EXPECT_EQ(first_difference(results[1], results[3]), -1);
}

}  // namespace
}  // namespace compopt
