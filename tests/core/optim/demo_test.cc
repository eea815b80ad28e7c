// DeMo (core/optim/demo.h) against a reference written here from the paper's Algorithm 1 and
// the chunking rule of the authors' code: explicit cosine sums in double over each whole
// block (no separable transform, no precomputed matrix), selection by a full sort, on 1, 2 and
// 4 ranks, for 1-D tensors through the registry and for 2-D tensors built directly. Also: every
// rank bit-identical after every step, the tie rule and rejected keys (resume: checkpoint_test.cc).

#include "core/optim/demo.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numbers>
#include <utility>

#include "core/optim/lr_schedule.h"
#include "tests/core/optim/optim_test_util.h"

namespace compopt::testing {
namespace {

using ::testing::HasSubstr;

struct RefConfig {
  std::vector<size_t> sizes, rows;  // per tensor; rows 1: 1-D
  size_t chunk = 64, topk = 32;
  double decay = 0.999, lr = 0.01, wd = 0;
};

size_t ref_chunk(size_t n, size_t cap) {
  size_t best = 1;
  for (size_t c = 1; c <= n; ++c) {
    if (n % c == 0 && c <= cap) best = c;
  }
  return best;
}

double basis(size_t k, size_t j, size_t n) {
  const double s = k == 0 ? std::sqrt(1.0 / n) : std::sqrt(2.0 / n);
  return s * std::cos(std::numbers::pi * (2.0 * j + 1.0) * k / (2.0 * n));
}

// One block of one tensor: its elements' tensor offsets, row-major, and its sizes.
struct RefBlock {
  size_t nr, nc;
  std::vector<size_t> at;
};

std::vector<RefBlock> ref_blocks(const RefConfig& c) {
  std::vector<RefBlock> out;
  size_t offset = 0;
  for (size_t i = 0; i < c.sizes.size(); ++i) {
    const size_t rows = c.rows[i], cols = c.sizes[i] / rows;
    const size_t nr = ref_chunk(rows, c.chunk), nc = ref_chunk(cols, c.chunk);
    for (size_t y = 0; y < rows / nr; ++y) {
      for (size_t x = 0; x < cols / nc; ++x) {
        RefBlock b{nr, nc, {}};
        for (size_t h = 0; h < nr; ++h) {
          for (size_t w = 0; w < nc; ++w) b.at.push_back(offset + (y * nr + h) * cols + x * nc + w);
        }
        out.push_back(b);
      }
    }
    offset += c.sizes[i];
  }
  return out;
}

std::vector<double> ref_dct(const RefBlock& b, const std::vector<double>& v, bool inverse) {
  std::vector<double> out(v.size(), 0.0);
  for (size_t p = 0; p < v.size(); ++p) {
    for (size_t q = 0; q < v.size(); ++q) {
      // forward: out[(u,v)] += C(u,h) C(v,w) x[(h,w)]; inverse: out[(h,w)] += C(u,h) C(v,w)
      // X[(u,v)]
      const size_t freq = inverse ? q : p, pos = inverse ? p : q;
      const double k = basis(freq / b.nc, pos / b.nc, b.nr) * basis(freq % b.nc, pos % b.nc, b.nc);
      out[p] += k * v[q];
    }
  }
  return out;
}

// Pairs (coefficient index, fp32 value) a rank sends for one block; it updates m.
std::vector<std::pair<size_t, float>> ref_compress(const RefConfig& c, const RefBlock& b, Vec& m) {
  std::vector<double> block(b.at.size());
  for (size_t p = 0; p < b.at.size(); ++p) block[p] = m[b.at[p]];
  const std::vector<double> coeff = ref_dct(b, block, false);
  std::vector<size_t> order(coeff.size());
  for (size_t p = 0; p < order.size(); ++p) order[p] = p;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t z) { return std::fabs(coeff[a]) > std::fabs(coeff[z]); });
  order.resize(std::min(c.topk, order.size()));
  std::vector<std::pair<size_t, float>> sent;
  std::vector<double> sparse(coeff.size(), 0.0);
  for (size_t p : order) {
    sent.emplace_back(p, static_cast<float>(coeff[p]));
    sparse[p] = sent.back().second;
  }
  const std::vector<double> back = ref_dct(b, sparse, true);
  for (size_t p = 0; p < b.at.size(); ++p) m[b.at[p]] = static_cast<float>(m[b.at[p]] - back[p]);
  return sent;
}

// Runs `steps` steps of the reference on n ranks: x[step][rank].
std::vector<std::vector<Vec>> ref_run(const RefConfig& c, int n, int steps) {
  size_t d = 0;
  for (size_t s : c.sizes) d += s;
  const std::vector<RefBlock> blocks = ref_blocks(c);
  std::vector<Vec> x(n, initial_params(d)), m(n, Vec(d, 0.0f));
  std::vector<std::vector<Vec>> out{x};
  for (int t = 1; t <= steps; ++t) {
    for (int i = 0; i < n; ++i) {
      const Vec g = test_grad(i, t, x[i]);
      for (size_t j = 0; j < d; ++j) m[i][j] = static_cast<float>(c.decay) * m[i][j] + g[j];
    }
    Vec sign(d, 0.0f);
    for (const RefBlock& b : blocks) {
      std::vector<double> sum(b.at.size(), 0.0), count(b.at.size(), 0.0);
      for (int i = 0; i < n; ++i) {
        for (const auto& [p, v] : ref_compress(c, b, m[i])) {
          sum[p] += v;
          count[p] += 1;
        }
      }
      for (size_t p = 0; p < sum.size(); ++p) sum[p] = count[p] > 0 ? sum[p] / count[p] : 0.0;
      const std::vector<double> q = ref_dct(b, sum, true);
      for (size_t p = 0; p < q.size(); ++p)
        sign[b.at[p]] = q[p] > 0 ? 1.0f : (q[p] < 0 ? -1.0f : 0.0f);
    }
    for (auto& xi : x) {
      for (size_t j = 0; j < d; ++j) xi[j] -= static_cast<float>(c.lr * (sign[j] + c.wd * xi[j]));
    }
    out.push_back(x);
  }
  return out;
}

ParamLayout layout_of(const RefConfig& c) {
  std::vector<std::pair<std::string, size_t>> tensors;
  for (size_t i = 0; i < c.sizes.size(); ++i)
    tensors.emplace_back(std::string(1, static_cast<char>('a' + i)), c.sizes[i]);
  return ParamLayout::from_sizes(tensors);
}

// The same steps on n local ranks with the Demo class; fails unless ranks stay bit-identical.
History demo_run(const RefConfig& c, int n, int steps, bool two_d) {
  History hist(static_cast<size_t>(steps) + 1, std::vector<Vec>(n));
  std::mutex mu;
  run_local(n, [&](Communicator& comm) {
    CommonOptions common{.schedule = make_constant_schedule(c.lr), .weight_decay = c.wd};
    DemoOptions o{.decay = static_cast<float>(c.decay),
                  .topk = static_cast<int64_t>(c.topk),
                  .chunk = static_cast<int64_t>(c.chunk),
                  .tensor_rows = two_d ? c.rows : std::vector<size_t>{}};
    Demo opt(layout_of(c), common, o);
    Vec x = initial_params(opt.layout().total());
    hist[0][comm.rank()] = x;
    for (int t = 1; t <= steps; ++t) {
      opt.step(x, test_grad(comm.rank(), t, x), comm);
      std::lock_guard lock(mu);
      hist[t][comm.rank()] = x;
    }
  });
  for (size_t s = 0; s < hist.size(); ++s) {
    for (int r = 1; r < n; ++r) {
      EXPECT_EQ(std::memcmp(hist[s][r].data(), hist[s][0].data(), hist[s][0].size() * 4), 0)
          << "rank " << r << " differs from rank 0 after step " << s;
    }
  }
  return hist;
}

void expect_matches(const History& got, const std::vector<std::vector<Vec>>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t s = 0; s < got.size(); ++s) {
    for (size_t r = 0; r < got[s].size(); ++r) {
      for (size_t j = 0; j < got[s][r].size(); ++j) {
        ASSERT_NEAR(got[s][r][j], want[s][r][j], 1e-5 * (1.0 + std::fabs(want[s][r][j])))
            << "step " << s << " rank " << r << " element " << j;
      }
    }
  }
}

class DemoReference : public ::testing::TestWithParam<int> {};

TEST_P(DemoReference, OneDimensionalTensorsThroughTheRegistry) {
  // 48 -> chunks of 16, 7 (prime) -> one chunk of 7, 20 -> chunks of 10; topk 5 of each.
  const RefConfig c{.sizes = {48, 7, 20},
                    .rows = {1, 1, 1},
                    .chunk = 16,
                    .topk = 5,
                    .decay = 0.9,
                    .lr = 0.01,
                    .wd = 0.1};
  const History got = run_optimizer({"demo",
                                     {{"lr", "0.01"},
                                      {"weight_decay", "0.1"},
                                      {"compression_decay", "0.9"},
                                      {"compression_topk", "5"},
                                      {"compression_chunk", "16"}},
                                     layout_of(c),
                                     GetParam(),
                                     0,
                                     6});
  expect_matches(got, ref_run(c, GetParam(), 6));
  const History direct = demo_run(c, GetParam(), 6, false);
  expect_matches(direct, ref_run(c, GetParam(), 6));
}

TEST_P(DemoReference, DefaultKeysSendWholeShortTensors) {
  // chunk 64 over 96 elements -> 48 (topk 32 of 48); 10 elements -> all of them sent.
  const RefConfig c{.sizes = {96, 10}, .rows = {1, 1}, .decay = 0.999, .lr = 1e-3};
  const History got = run_optimizer({"demo", {{"lr", "0.001"}}, layout_of(c), GetParam(), 0, 5});
  expect_matches(got, ref_run(c, GetParam(), 5));
}

TEST_P(DemoReference, TwoDimensionalTensorsUseTwoDimensionalBlocks) {
  // 12 x 8 with chunk 4 -> 4 x 4 blocks (16 coefficients, 5 sent); 6 x 5 -> 3 x 5 blocks.
  const RefConfig c{.sizes = {96, 30, 9},
                    .rows = {12, 6, 1},
                    .chunk = 4,
                    .topk = 5,
                    .decay = 0.8,
                    .lr = 0.02,
                    .wd = 0.01};
  expect_matches(demo_run(c, GetParam(), 5, true), ref_run(c, GetParam(), 5));
}

INSTANTIATE_TEST_SUITE_P(Ranks, DemoReference, ::testing::Values(1, 2, 4));

// Ties go to the lower coefficient index: a rank whose momentum is zero sends coefficient 0
// with value 0, and the per-coefficient mean counts it. Chunk 2, topk 1, lr 1, x0 = 0:
// rank 1 sends X1 = 2, rank 2 sends X0 = 3, so Q ~ [(0 + 3)/2, 2] and
// x = -sign(C^T Q) = -sign([1.5 + 2, 1.5 - 2]) = [-1, 1]. Had rank 0 sent coefficient 1 instead,
// Q would be [3, (2 + 0)/2] and x = [-1, -1].
TEST(Demo, TiesGoToTheLowerCoefficientIndex) {
  const double s = std::sqrt(0.5);
  const std::vector<Vec> grads = {{0.0f, 0.0f},
                                  {static_cast<float>(s * 2.5), static_cast<float>(s * -1.5)},
                                  {static_cast<float>(s * 3.1), static_cast<float>(s * 2.9)}};
  std::vector<Vec> result(3);
  run_local(3, [&](Communicator& comm) {
    CommonOptions common{.schedule = make_constant_schedule(1.0)};
    DemoOptions o;
    o.decay = 0.0f;
    o.topk = 1;
    o.chunk = 2;
    Demo opt(ParamLayout::single(2), common, o);
    Vec x(2, 0.0f);
    opt.step(x, grads[comm.rank()], comm);
    result[comm.rank()] = x;
  });
  for (const Vec& x : result) EXPECT_EQ(x, (Vec{-1.0f, 1.0f}));
}

TEST(Demo, SendsTopkPerChunk) {
  CommonOptions common{.schedule = make_constant_schedule(1e-3)};
  // 96 -> two chunks of 48 with 32 each; 10 -> one chunk, all 10; 12 x 8 at chunk 64 -> one
  // 12 x 8 block with 32 of its 96.
  EXPECT_EQ(Demo(ParamLayout::from_sizes({{"a", 96}, {"b", 10}}), common, {}).sent_per_rank(), 74u);
  DemoOptions matrix;
  matrix.tensor_rows = {12};
  EXPECT_EQ(Demo(ParamLayout::single(96), common, matrix).sent_per_rank(), 32u);
}

TEST(Demo, RejectsBadKeysNamingTheKeyAndRange) {
  const ParamLayout layout = ParamLayout::single(8);
  const std::vector<std::pair<HyperParamMap, std::string>> cases = {
      {{{"compression_decay", "1"}}, "compression_decay"},
      {{{"compression_decay", "-0.1"}}, "compression_decay"},
      {{{"compression_topk", "0"}}, "key 'compression_topk' = 0, expected an integer >= 1"},
      {{{"compression_chunk", "0"}}, "key 'compression_chunk' = 0, expected an integer >= 1"},
      {{{"compression_chunk", "257"}},
       "key 'compression_chunk' = 257, expected an integer in "
       "[1, 256]"},
      {{{"compression_topk", "x"}}, "compression_topk"},
  };
  for (const auto& [hp, message] : cases) {
    try {
      make_optimizer("demo", hp, layout);
      ADD_FAILURE() << message;
    } catch (const InvalidArgument& e) {
      EXPECT_THAT(e.what(), HasSubstr(message));
    }
  }
  CommonOptions common{.schedule = make_constant_schedule(1e-3)};
  DemoOptions rows;
  rows.tensor_rows = {3};  // does not divide 8
  EXPECT_THROW(Demo(layout, common, rows), InvalidArgument);
  rows.tensor_rows = {2, 4};  // two rows for one tensor
  EXPECT_THROW(Demo(layout, common, rows), InvalidArgument);
}

}  // namespace
}  // namespace compopt::testing
