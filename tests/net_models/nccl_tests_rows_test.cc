// The public nccl-tests table (data/published/nccl_tests_public.csv, embedded): every
// row parses with its provenance and positive figures, values checked by hand against the
// threads, printed times agree with printed bus bandwidths by nccl-tests' own formula, the
// time implied by a bandwidth-only row, and the parser's refusals.

#include "net_models/nccl_tests_rows.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "core/util/error.h"

namespace compopt::net {
namespace {

using ::testing::HasSubstr;

const NcclTestsRow& row_named(const std::string& name) {
  for (const NcclTestsRow& row : nccl_tests_public_rows())
    if (row.case_name == name) return row;
  throw InvalidArgument("no case " + name);
}

TEST(NcclTestsRows, EveryRowHasProvenanceAndPositiveFigures) {
  const std::vector<NcclTestsRow>& rows = nccl_tests_public_rows();
  ASSERT_GE(rows.size(), 4u);
  std::set<std::string> names;
  for (const NcclTestsRow& r : rows) {
    EXPECT_TRUE(names.insert(r.case_name).second) << "duplicate case " << r.case_name;
    EXPECT_TRUE(r.url.starts_with("https://github.com/")) << r.case_name;
    EXPECT_FALSE(r.author.empty()) << r.case_name;
    EXPECT_FALSE(r.date.empty()) << r.case_name;
    EXPECT_FALSE(r.hardware_stated.empty()) << r.case_name;
    EXPECT_GT(r.bytes, 0) << r.case_name;
    EXPECT_GT(r.busbw, 0) << r.case_name;
    EXPECT_GT(r.nic_gbps, 0) << r.case_name;
    EXPECT_GE(r.ranks(), 2) << r.case_name;
    EXPECT_GT(r.published_s(), 0) << r.case_name;
  }
}

// As printed in NVIDIA/nccl#527 (1 GiB, 2 instances) and NVIDIA/nccl#209 (2 x 1, Gbit/s).
TEST(NcclTestsRows, FiguresAreTheThreads) {
  const NcclTestsRow& p4d = row_named("p4d-2node");
  EXPECT_EQ(p4d.nodes, 2);
  EXPECT_EQ(p4d.gpus_per_node, 8);
  EXPECT_EQ(p4d.bytes, 1073741824);
  EXPECT_EQ(*p4d.time_us, 35215);
  EXPECT_EQ(p4d.busbw, 57.17);
  EXPECT_EQ(p4d.busbw_unit, "GB/s");
  const NcclTestsRow& gcp = row_named("gcp-2x1-tcp");
  EXPECT_FALSE(gcp.time_us.has_value());
  EXPECT_EQ(gcp.busbw, 31.0);
  EXPECT_EQ(gcp.busbw_unit, "Gbit/s");
  EXPECT_EQ(gcp.transport, "tcp");
  EXPECT_EQ(row_named("h100-2x1-tree-16m").algorithm, "tree");
}

// nccl-tests prints busbw = bytes / time x 2(n-1)/n rounded to 0.01 GB/s: the copied time and
// bandwidth of every row that prints both must agree within that rounding.
TEST(NcclTestsRows, PrintedTimesMatchPrintedBusBandwidths) {
  int checked = 0;
  for (const NcclTestsRow& r : nccl_tests_public_rows()) {
    if (!r.time_us) continue;
    const double n = r.ranks();
    const double busbw = r.bytes / (*r.time_us * 1e-6) * 2 * (n - 1) / n / 1e9;
    EXPECT_NEAR(busbw, r.busbw_bytes_s() / 1e9, 0.006) << r.case_name;
    ++checked;
  }
  EXPECT_GE(checked, 4);
}

// 32 MiB over 2 ranks at 31.0 Gbit/s: 33554432 x 8 / 31e9 s = 8659.2 us (factor 2(n-1)/n = 1).
TEST(NcclTestsRows, BandwidthOnlyRowImpliesItsTime) {
  EXPECT_NEAR(row_named("gcp-2x1-tcp").published_s(), 8659.2e-6, 0.1e-6);
  // 2 x 8 ranks at 216.5 GB/s: 1073741824 x 30/16 / 216.5e9 s = 9299.1 us.
  EXPECT_NEAR(row_named("h100-2x8-roce-1g").published_s(), 9299.1e-6, 0.1e-6);
}

constexpr const char* kHeader =
    "case,nodes,gpus_per_node,gpu,intra_node_fabric,nics_per_node,nic_gbps,transport,"
    "nccl_version,algorithm,streams_per_peer,bytes,time_us,busbw,busbw_unit,url,author,date,"
    "hardware_stated,inferred,kept\n";

std::string table(const std::string& row) { return std::string("# comment\n") + kHeader + row; }

TEST(NcclTestsRows, ParserRefusesBadRows) {
  const std::string good =
      "x,2,1,H100,nvswitch,1,400,rdma,,auto,1,1024,10,0.1,GB/s,https://github.com/a/b/issues/1,"
      "me,2024-01-01,stated,,\n";
  EXPECT_EQ(parse_nccl_tests_rows(table(good), "t.csv").size(), 1u);
  const auto refused = [](const std::string& row, const std::string& want) {
    try {
      parse_nccl_tests_rows(table(row), "t.csv");
      ADD_FAILURE() << "accepted: " << row;
    } catch (const InvalidArgument& e) {
      EXPECT_THAT(e.what(), HasSubstr(want));
    }
  };
  refused(
      "x,2,1,H100,nvswitch,1,400,rdma,,auto,1,1024,10,-0.1,GB/s,https://github.com/a,me,d,s,,\n",
      "busbw = -0.1, expected > 0");
  refused("x,1,1,H100,nvswitch,1,400,rdma,,auto,1,1024,10,0.1,GB/s,https://github.com/a,me,d,s,,\n",
          "1 rank, expected >= 2");
  refused("x,2,1,H100,nvswitch,1,400,rdma,,auto,1,1024,10,0.1,MB/s,https://github.com/a,me,d,s,,\n",
          "busbw_unit 'MB/s', expected GB/s or Gbit/s");
  refused("x,2,1,H100,nvswitch,1,400,rdma,,auto,1,1024,10,0.1,GB/s,somewhere,me,d,s,,\n",
          "url 'somewhere'");
  refused("x,2,1,H100,nvswitch,1,400,rdma,,auto,1,1024,10,0.1,GB/s,https://github.com/a,,d,s,,\n",
          "author is empty");
  refused(
      "x,2,1,H100,nvswitch,1,400,rdma,,auto,1,1024,ten,0.1,GB/s,https://github.com/a,me,d,s,,\n",
      "time_us");
}

}  // namespace
}  // namespace compopt::net
