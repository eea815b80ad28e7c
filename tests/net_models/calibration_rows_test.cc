// The published rows parsed from the embedded data/published/ tables: counts and
// values checked by hand against 1-bit Adam's Table 1 and Birder's Tables 1-2, the
// consistency of each row, and the parsers' errors.

#include "net_models/calibration_rows.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "core/util/error.h"
#include "net_models/published_tables.h"

namespace compopt::net {
namespace {

using ::testing::HasSubstr;

TEST(CalibrationRows, OnebitAdamProfileHasTable1) {
  const std::vector<ProfileRow>& rows = onebit_adam_profile_rows();
  ASSERT_EQ(rows.size(), 13u);
  const ProfileRow& first = rows[0];  // Ethernet, 16 nodes, batch 1 per GPU
  EXPECT_EQ(first.cluster, "ethernet-v100-4");
  EXPECT_EQ(first.nodes, 16);
  EXPECT_EQ(first.gpus, 64);
  EXPECT_EQ(first.batch_per_gpu, 1);
  EXPECT_EQ(first.grad_accum, 1);
  EXPECT_EQ(first.forward_ms, 36.65);
  EXPECT_EQ(first.allreduce_ms, 2205.86);
  EXPECT_EQ(first.backward_else_ms, 33.63);
  EXPECT_EQ(first.step_ms, 74.96);
  EXPECT_EQ(first.allreduce_pct, 94);
  const ProfileRow& accum = rows[9];  // InfiniBand, 8 nodes, 4 accumulation steps
  EXPECT_EQ(accum.cluster, "infiniband-v100-8");
  EXPECT_EQ(accum.grad_accum, 4);
  EXPECT_EQ(accum.forward_ms, 131.04);
  EXPECT_EQ(accum.allreduce_ms, 339.52);
  EXPECT_EQ(accum.allreduce_pct, 44);
  EXPECT_EQ(rows[12].nodes, 1);
  EXPECT_EQ(rows[12].allreduce_ms, 28.18);
}

TEST(CalibrationRows, ProfileRowsAreConsistent) {
  for (const ProfileRow& row : onebit_adam_profile_rows()) {
    const int per_node = row.cluster == "ethernet-v100-4" ? 4 : 8;
    EXPECT_EQ(row.gpus, row.nodes * per_node) << row.cluster << " " << row.nodes;
    const double total = row.forward_ms + row.allreduce_ms + row.backward_else_ms + row.step_ms;
    EXPECT_NEAR(100 * row.allreduce_ms / total, row.allreduce_pct, 1.0) << row.nodes;
  }
}

TEST(CalibrationRows, BirderSingleNodeHasTables1And2) {
  const std::vector<ThroughputRow>& rows = birder_single_node_rows();
  ASSERT_EQ(rows.size(), 9u);
  EXPECT_EQ(rows[0].workload, "resnet50-imagenet");
  EXPECT_EQ(rows[0].optimizer, "sgdm");
  EXPECT_EQ(rows[0].gpus, 8);
  EXPECT_EQ(rows[0].batch_per_gpu, 32);
  EXPECT_EQ(rows[0].throughput_samples_s, 3693);
  EXPECT_EQ(rows[4].optimizer, "onebit-adam");
  EXPECT_EQ(rows[4].batch_per_gpu, 128);
  EXPECT_EQ(rows[4].throughput_samples_s, 5229);
  EXPECT_EQ(rows[8].workload, "bert-base-squad");
  EXPECT_EQ(rows[8].optimizer, "birder");
  EXPECT_EQ(rows[8].batch_per_gpu, 3);
  EXPECT_EQ(rows[8].throughput_samples_s, 412);
}

TEST(CalibrationRows, TablesNameTheirFilesAndKeepProvenance) {
  EXPECT_EQ(onebit_adam_profile_table().file, "data/published/onebit_adam_profile.csv");
  EXPECT_EQ(birder_single_node_table().file, "data/published/birder_single_node.csv");
  EXPECT_THAT(onebit_adam_profile_table().text, HasSubstr("# Source: 1-bit Adam"));
  EXPECT_THAT(birder_single_node_table().text, HasSubstr("# Source: Birder"));
}

TEST(CalibrationRows, ParsersRejectBadTables) {
  const std::string header =
      "network,nodes,gpus,batch_per_gpu,grad_accum,forward_ms,backward_allreduce_ms,"
      "backward_else_ms,step_ms,allreduce_pct\n";
  try {
    parse_profile_rows(header + "roce,1,8,16,1,1,2,3,4,5\n", "p.csv");
    ADD_FAILURE() << "no exception";
  } catch (const InvalidArgument& e) {
    EXPECT_THAT(e.what(), HasSubstr("p.csv: network 'roce', expected ethernet or infiniband"));
  }
  EXPECT_THROW(parse_profile_rows(header + "ethernet,one,8,16,1,1,2,3,4,5\n", "p.csv"),
               InvalidArgument);
  EXPECT_THROW(parse_throughput_rows("workload,optimizer,gpus\nr,sgdm,8\n", "t.csv"),
               InvalidArgument);
  EXPECT_EQ(parse_profile_rows(header, "p.csv").size(), 0u);
}

}  // namespace
}  // namespace compopt::net
