// The one table of allreduce variants (comm-bench and collectives): its names in order; the
// rings return the exact mean on every rank; every variant leaves all ranks with the same
// vector; the compressed ones are reproducible (one seed rule) and rebuild their state when
// the vector's length changes, so a call after a change equals a fresh variant's call.

#include "experiments/cli/allreduce_variants.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <mutex>
#include <vector>

#include "core/comm/local/local_world.h"
#include "core/util/error.h"

namespace compopt::cli {
namespace {

constexpr int kRanks = 4;
constexpr int kGpusPerNode = 2;

// Rank r's vector of `length`: distinct per rank and element, exactly representable in fp16.
std::vector<float> input(int rank, size_t length) {
  std::vector<float> x(length);
  for (size_t i = 0; i < length; ++i)
    x[i] = static_cast<float>(rank + 1) * (static_cast<float>(i % 7) - 3.0f) * 0.25f;
  return x;
}

// Each rank's result of `variant` after calls at steps first, first + 1, ... on vectors of
// `lengths`.
std::vector<std::vector<float>> run(const std::string& variant, const std::vector<size_t>& lengths,
                                    uint64_t first = 0) {
  std::vector<std::vector<float>> out(kRanks);
  LocalWorld world({.ranks = kRanks, .gpus_per_node = kGpusPerNode});
  world.run([&](Communicator& comm) {
    const AllreduceCall call = allreduce_variants().get(variant).make(comm);
    std::vector<float> x;
    for (size_t step = 0; step < lengths.size(); ++step) {
      x = input(comm.rank(), lengths[step]);
      call(comm, x, first + step);
    }
    out[static_cast<size_t>(comm.rank())] = x;
  });
  return out;
}

TEST(AllreduceVariants, NamesInOrder) {
  EXPECT_EQ(allreduce_variants().names(),
            (std::vector<std::string>{"allreduce-fp32", "allreduce-fp16", "compressed-sign",
                                      "compressed-binary", "hierarchical-sign"}));
  EXPECT_THROW(allreduce_variants().get("allreduce-fp8"), InvalidArgument);
  // Every variant states its memory for comm-bench's check: at least its message and result.
  for (const AllreduceVariant& v : allreduce_variants().entries()) EXPECT_GE(v.peak_copies, 2);
}

TEST(AllreduceVariants, RingsGiveTheExactMean) {
  for (const char* name : {"allreduce-fp32", "allreduce-fp16"}) {
    const auto out = run(name, {64});
    for (size_t i = 0; i < 64; ++i) {
      double mean = 0;
      for (int r = 0; r < kRanks; ++r) mean += input(r, 64)[i] / kRanks;
      EXPECT_FLOAT_EQ(out[0][i], static_cast<float>(mean)) << name << " element " << i;
    }
  }
}

TEST(AllreduceVariants, EveryRankEndsWithTheSameVector) {
  for (const std::string& name : allreduce_variants().names()) {
    const auto out = run(name, {64, 64});
    for (int r = 1; r < kRanks; ++r) EXPECT_EQ(out[r], out[0]) << name << " rank " << r;
    for (float v : out[0]) EXPECT_TRUE(std::isfinite(v)) << name;
  }
}

TEST(AllreduceVariants, CompressedOnesAreReproducibleAndRebuildTheirState) {
  for (const char* name : {"compressed-sign", "compressed-binary", "hierarchical-sign"}) {
    EXPECT_EQ(run(name, {64, 64}), run(name, {64, 64})) << name;
    // A length change: the second call starts from a fresh state, as a new variant's would.
    const auto changed = run(name, {64, 40});
    ASSERT_EQ(changed[0].size(), 40u) << name;
    EXPECT_EQ(changed, run(name, {40}, 1)) << name;
    // Kept state matters: without the change the second call differs from a fresh one.
    EXPECT_NE(run(name, {40, 40}), run(name, {40}, 1)) << name;
  }
}

}  // namespace
}  // namespace compopt::cli
