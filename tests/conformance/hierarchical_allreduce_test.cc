// Hierarchical compressed allreduce ([BIR] §4, docs/algorithms.md) on every backend: exact
// results against the flat reference applied per shard, the shard transform,
// and inter-node bytes against the flat scheme.

#include "core/comm/collectives/hierarchical_allreduce.h"

#include <cstring>

#include "tests/conformance/compressed_reference.h"
#include "tests/conformance/conformance_params.h"
#include "tests/conformance/per_rank.h"

namespace compopt::testing {
namespace {

struct Shape {
  size_t backend;
  int nodes;
  int per_node;
};

class HierarchicalConformance : public ::testing::TestWithParam<Shape> {
 protected:
  int nodes() const { return GetParam().nodes; }
  int per_node() const { return GetParam().per_node; }
  int ranks() const { return nodes() * per_node(); }
  const ConformanceBackend& backend() const { return conformance_backends()[GetParam().backend]; }
  void run(const std::function<void(Communicator&)>& fn) const {
    backend().run(ranks(), per_node(), fn);
  }
  // Multiples of ranks(): every intra-node mean is exact, whatever the summation order.
  std::vector<float> input(int rank, int step, size_t d) const {
    std::vector<float> x(d);
    for (size_t i = 0; i < d; ++i) {
      x[i] = integer_input(rank + step, i) * static_cast<float>(ranks());
    }
    return x;
  }
};

TEST_P(HierarchicalConformance, EqualsFlatReferenceOnEachNodeAveragedShard) {
  const auto compressor = make_compressor("sign");
  for (size_t d : {size_t{0}, size_t{7}, size_t{1003}}) {
    PerRank<std::vector<std::vector<float>>> out(ranks());
    run([&](Communicator& comm) {
      auto groups = HierarchicalGroups::split(comm);
      auto state = hierarchical_state(d, groups);
      for (int t = 0; t < 3; ++t) {
        auto x = input(comm.rank(), t, d);
        comm.hierarchical_compressed_allreduce(
            groups, x, *compressor, state, RandomKey{.seed = 9, .step = static_cast<uint64_t>(t)},
            {});
        out[comm.rank()].push_back(x);
      }
    });
    // Reference: exact node means, then the flat reference on shard r across nodes.
    const size_t padded = (d + 8 * static_cast<size_t>(ranks()) - 1) /
                          (8 * static_cast<size_t>(ranks())) * (8 * static_cast<size_t>(ranks()));
    const size_t shard = padded / static_cast<size_t>(per_node());
    std::vector<CompressedReference> references;
    for (int r = 0; r < per_node(); ++r) {
      std::vector<uint32_t> members;
      for (int node = 0; node < nodes(); ++node)
        members.push_back(static_cast<uint32_t>(node * per_node() + r));
      references.emplace_back(shard, members, static_cast<uint64_t>(r) * shard);
    }
    for (int t = 0; t < 3; ++t) {
      std::vector<float> expected(padded);
      for (int r = 0; r < per_node(); ++r) {
        std::vector<std::vector<float>> node_means;
        for (int node = 0; node < nodes(); ++node) {
          std::vector<float> mean(shard, 0.0f);
          for (int local = 0; local < per_node(); ++local) {
            const auto x = input(node * per_node() + local, t, d);
            for (size_t k = 0; k < shard; ++k) {
              const size_t i = static_cast<size_t>(r) * shard + k;
              mean[k] += i < d ? x[i] : 0.0f;
            }
          }
          for (float& v : mean) v /= static_cast<float>(per_node());
          node_means.push_back(mean);
        }
        const auto reduced = references[static_cast<size_t>(r)].step(node_means, *compressor, 9,
                                                                     static_cast<uint64_t>(t));
        std::copy(reduced.begin(), reduced.end(),
                  expected.begin() + static_cast<std::ptrdiff_t>(static_cast<size_t>(r) * shard));
      }
      for (int rank = 0; rank < ranks(); ++rank) {
        ASSERT_TRUE(d == 0 ||  // memcmp of empty vectors gets null pointers: undefined
                    std::memcmp(out[rank][static_cast<size_t>(t)].data(), expected.data(),
                                d * sizeof(float)) == 0)
            << "d " << d << " step " << t << " rank " << rank;
      }
    }
  }
}

TEST_P(HierarchicalConformance, ShardTransformSeesItsShardAndOffset) {
  const auto identity = make_compressor("identity");
  const size_t d = 1003;
  PerRank<std::vector<float>> out(ranks());
  run([&](Communicator& comm) {
    auto groups = HierarchicalGroups::split(comm);
    auto state = hierarchical_state(d, groups);
    auto x = input(comm.rank(), 0, d);
    hierarchical_compressed_allreduce_mean(
        groups, x, *identity, state, RandomKey{}, [&](std::span<float> shard, size_t offset) {
          EXPECT_EQ(offset, static_cast<size_t>(groups.intra->rank()) * shard.size());
          for (float& v : shard) v *= 2.0f;
        });
    out[comm.rank()] = x;
  });
  for (size_t i = 0; i < d; ++i) {
    float sum = 0;
    for (int r = 0; r < ranks(); ++r) sum += input(r, 0, d)[i];
    ASSERT_EQ(out[0][i], 2.0f * sum / static_cast<float>(ranks())) << "element " << i;
  }
}

// Inter-node bytes per node: hierarchical 2(N-1)/N * D/8 (+ scales), independent
// of m; flat: the all-to-all alone sends m(N-1)/N * D/8 across, m times more.
TEST_P(HierarchicalConformance, InterNodeBytesAgainstFlat) {
  const auto compressor = make_compressor("sign");
  const uint64_t N = static_cast<uint64_t>(nodes()), m = static_cast<uint64_t>(per_node()),
                 n = N * m;
  const size_t d = 8 * n * 256;  // no padding
  PerRank<TrafficTally> flat(ranks()), hier(ranks());
  run([&](Communicator& comm) {
    auto groups = HierarchicalGroups::split(comm);
    auto x = input(comm.rank(), 0, d);
    CompressedAllreduceState flat_state(d, comm.size());
    comm.traffic().reset();
    comm.compressed_allreduce(x, *compressor, flat_state, RandomKey{});
    flat[comm.rank()] = comm.traffic().total();
    auto state = hierarchical_state(d, groups);
    comm.traffic().reset();
    comm.hierarchical_compressed_allreduce(groups, x, *compressor, state, RandomKey{}, {});
    hier[comm.rank()] = comm.traffic().total();
  });
  uint64_t flat_inter = 0, hier_inter = 0;
  for (int r = 0; r < ranks(); ++r) {
    flat_inter += flat[r].inter_node_bytes;
    hier_inter += hier[r].inter_node_bytes;
  }
  const uint64_t bits = d / 8;  // bytes of one full 1-bit vector
  // Hierarchical, per node: m ranks x [(N-1) chunks of bits/(mN) twice + 2(N-1) scales].
  const uint64_t hier_per_node = m * (2 * (N - 1) * (bits / (m * N)) + 2 * (N - 1) * 4);
  EXPECT_EQ(hier_inter, N * hier_per_node);
  // Flat, per node: all-to-all sends m(n-m) chunks across; the ring all-gathers of
  // scales and server chunks cross the node boundary once (its last rank).
  const uint64_t alltoall_per_node = m * (n - m) * (bits / n);
  const uint64_t ring_per_node = N > 1 ? (n - 1) * 4 + (n - 1) * (bits / n + 4) : 0;
  EXPECT_EQ(flat_inter, N * (alltoall_per_node + ring_per_node));
  // The all-to-all phase alone is exactly m times the hierarchical payload per direction.
  EXPECT_EQ(alltoall_per_node, m * ((N - 1) * (bits / N)));
  if (N > 1 && m == 1) {
    EXPECT_EQ(flat_inter, hier_inter) << "one rank per node: the schemes coincide";
  }
  if (N > 1 && m > 1) {
    EXPECT_GT(flat_inter, hier_inter);
    std::printf(
        "[ hierarchical ] N=%d m=%d d=%zu: inter-node bytes flat %llu, hierarchical %llu (ratio "
        "%.2f)\n",
        nodes(), per_node(), d, static_cast<unsigned long long>(flat_inter),
        static_cast<unsigned long long>(hier_inter),
        static_cast<double>(flat_inter) / static_cast<double>(hier_inter));
  }
}

std::vector<Shape> shapes() {
  std::vector<Shape> out;
  for (size_t b = 0; b < conformance_backends().size(); ++b) {
    for (const auto& [nodes, per_node] :
         std::vector<std::pair<int, int>>{{1, 1}, {1, 4}, {2, 1}, {2, 2}, {2, 4}, {3, 3}, {4, 2}}) {
      out.push_back({b, nodes, per_node});
    }
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(Shapes, HierarchicalConformance, ::testing::ValuesIn(shapes()),
                         [](const ::testing::TestParamInfo<Shape>& point) {
                           return conformance_backends()[point.param.backend].name + "_N" +
                                  std::to_string(point.param.nodes) + "_m" +
                                  std::to_string(point.param.per_node);
                         });

}  // namespace
}  // namespace compopt::testing
