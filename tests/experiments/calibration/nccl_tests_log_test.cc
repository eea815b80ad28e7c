// The nccl-tests output reader (experiments/calibration/nccl_tests_log.h): every layout
// nccl-tests has printed (written here field by field after the format strings of its
// src/util.cu and the logs of data/published/nccl_tests_logs/), and each refusal and stated
// fallback of bad or partial logs.

#include "experiments/calibration/nccl_tests_log.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "tests/support/invalid_argument_message.h"

namespace compopt::calibration {
namespace {

using ::testing::HasSubstr;
using testing_support::invalid_argument_message;

// A current run: version line, collective line, Rank lines on two hosts, root and #wrong.
const char* kCurrent = R"(# nccl-tests version 2.17.1 nccl-headers=22703 nccl-library=22703
# Collective test starting: all_gather_perf
# nThread 1 nGpus 1 minBytes 8 maxBytes 1024 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0
#
# Using devices
#  Rank  0 Group  0 Pid  11 on   hostA device  0 [0000:18:00] NVIDIA H100 80GB HBM3
#  Rank  1 Group  0 Pid  12 on   hostA device  1 [0000:2a:00] NVIDIA H100 80GB HBM3
#  Rank  2 Group  0 Pid  21 on   hostB device  0 [0000:18:00] NVIDIA H100 80GB HBM3
#  Rank  3 Group  0 Pid  22 on   hostB device  1 [0000:2a:00] NVIDIA H100 80GB HBM3
#
#                                                              out-of-place                       in-place
#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong
#        (B)    (elements)                               (us)  (GB/s)  (GB/s)             (us)  (GB/s)  (GB/s)
           8             2     float    none      -1    20.00    0.00    0.00       0    19.00    0.00    0.00       0
        1024           256     float    none      -1    25.50    0.04    0.03       0    24.00    0.04    0.03       0
# Out of bounds values : 0 OK
# Avg bus bandwidth    : 0.015
#
# Collective test concluded: all_gather_perf
)";

TEST(NcclTestsLog, ReadsTheCurrentLayoutAndItsHeader) {
  const NcclTestsLog log = parse_nccl_tests_log(kCurrent, "ag.log");
  EXPECT_EQ(log.collective, "all_gather");
  EXPECT_EQ(log.nccl_version, "2.27.3");
  EXPECT_EQ(log.ranks, 4);
  EXPECT_EQ(log.nodes, 2);
  EXPECT_EQ(log.gpu, "NVIDIA H100 80GB HBM3");
  ASSERT_EQ(log.rows.size(), 2u);
  EXPECT_EQ(log.rows[1].bytes, 1024);
  EXPECT_EQ(log.rows[1].redop, "none");
  EXPECT_DOUBLE_EQ(log.rows[1].time_us, 25.5);
  EXPECT_DOUBLE_EQ(*log.rows[1].in_place_us, 24.0);
  EXPECT_EQ(log.rows[1].wrong, 0.0);
  EXPECT_EQ(log.rows[1].line, 15);
  EXPECT_TRUE(log.notes.empty());
}

TEST(NcclTestsLog, VersionCodesOfBothNumberings) {
  EXPECT_EQ(nccl_version_of_code(22703), "2.27.3");
  EXPECT_EQ(nccl_version_of_code(21903), "2.19.3");
  EXPECT_EQ(nccl_version_of_code(2708), "2.7.8");  // before 2.9: major x 1000
}

// The older layout: no root column, an `error` column (a relative error, not a count), the
// version from NCCL's INFO line, NCCL_ALGO from the environment line, one process of 8 GPUs.
TEST(NcclTestsLog, ReadsTheOlderLayoutWithInfoLines) {
  const char* text =
      R"(# nThread 1 nGpus 8 minBytes 8 maxBytes 16 step: 2(factor) warmup iters: 5 iters: 20 validation: 1
#   Rank  0 Pid  7 on box device  0 [0x00] Tesla V100-SXM2-32GB
#   Rank  1 Pid  7 on box device  1 [0x00] Tesla V100-SXM2-32GB
box:7:7 [0] NCCL INFO NCCL_ALGO set by environment to Ring
NCCL version 2.4.8+cuda10.1
#       size         count    type   redop     time   algbw   busbw  error     time   algbw   busbw  error
           8             2   float     sum    59.98    0.00    0.00  2e-07    56.81    0.00    0.00  1e-07
          16             4   float     sum    60.10    0.00    0.00  1e-07    57.00    0.00    0.00  1e-07
# Avg bus bandwidth    : 0.0
)";
  const NcclTestsLog log = parse_nccl_tests_log(text, "/logs/all_reduce_1x2.log");
  EXPECT_EQ(log.collective, "all_reduce");  // from the file name
  EXPECT_EQ(log.nccl_version, "2.4.8");
  EXPECT_EQ(log.algorithm, "ring");
  EXPECT_EQ(log.ranks, 2);
  EXPECT_EQ(log.nodes, 1);
  ASSERT_EQ(log.rows.size(), 2u);
  EXPECT_FALSE(log.rows[0].wrong.has_value());  // `error` is no count
  EXPECT_DOUBLE_EQ(log.rows[0].time_us, 59.98);
}

// -c 0: no check, #wrong prints N/A; mpirun --tag-output prefixes; ranks from NCCL INFO.
TEST(NcclTestsLog, ReadsNoCheckRunsUnderTagOutput) {
  const char* text = R"([1,0]<stdout>:# Collective test starting: alltoall_perf
[1,0]<stdout>:#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong
[1,0]<stdout>:        2048            32     float    none      -1   106.88    0.02    0.02     N/A   111.25    0.02    0.02     N/A
h:1:2 [0] NCCL INFO comm 0x1 rank 0 nranks 16 cudaDev 0 busId 18000 - Init COMPLETE
[1,0]<stdout>:        4096            64     float    none      -1   108.09    0.04    0.04     N/A   116.71    0.04    0.03     N/A
[1,0]<stdout>:# Avg bus bandwidth    : 0.03
)";
  const NcclTestsLog log = parse_nccl_tests_log(text, "x.log");
  EXPECT_EQ(log.collective, "alltoall");
  EXPECT_EQ(log.ranks, 16);
  EXPECT_EQ(log.nodes, 0);
  ASSERT_EQ(log.rows.size(), 2u);
  EXPECT_FALSE(log.rows[0].wrong.has_value());
}

// -I 1: per-iteration columns between out-of-place and in-place; columns are found by name.
TEST(NcclTestsLog, ReadsPerIterationColumnsByName) {
  const char* text = R"(# Collective test starting: reduce_scatter_perf
#       size         count      type   redop    root     time   algbw   busbw  #wrong    i_min    i_max    i_p99    i_cv%     time   algbw   busbw  #wrong    i_min    i_max    i_p99    i_cv%
     1048576        131072     float     sum      -1    30.00   34.95   26.21       0    29.00    31.00    31.00     1.20    31.00   33.83   25.37       0    30.00    32.00    32.00     1.10
# Avg bus bandwidth    : 26
)";
  const NcclTestsLog log = parse_nccl_tests_log(text, "x.log");
  EXPECT_EQ(log.collective, "reduce_scatter");
  ASSERT_EQ(log.rows.size(), 1u);
  EXPECT_DOUBLE_EQ(log.rows[0].time_us, 30.0);
  EXPECT_DOUBLE_EQ(*log.rows[0].in_place_us, 31.0);
  EXPECT_DOUBLE_EQ(log.rows[0].busbw, 26.21);
}

// compopt comm-bench's nccl-tests-style table: the collective followed by its own words, the
// avg redop, #wrong N/A; two tables (two --variants) in one file are refused.
TEST(NcclTestsLog, ReadsCommBenchTablesOneAtATime) {
  const std::string table =
      R"(# Collective test starting: all_reduce, compopt comm-bench variant allreduce-fp32
# compopt sim: 4 ranks, 1 warmup iters, 5 iters per size
#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong
     1048576        262144     float     avg      -1   1000.0    1.05    1.57     N/A   1000.0    1.05    1.57     N/A
# Avg bus bandwidth    : 1.57
)";
  const NcclTestsLog log = parse_nccl_tests_log(table, "bench.txt");
  EXPECT_EQ(log.collective, "all_reduce");
  ASSERT_EQ(log.rows.size(), 1u);
  EXPECT_EQ(log.rows[0].redop, "avg");
  EXPECT_THAT(invalid_argument_message([&] { parse_nccl_tests_log(table + table, "two.txt"); }),
              HasSubstr("holds 2 nccl-tests runs (lines 1 and 6)"));
}

// -o all / -d all: one row per reduction and type at each size; every row is read.
TEST(NcclTestsLog, ReadsEveryOpAndTypeRow) {
  const char* text = R"(# Collective test starting: all_reduce_perf
#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong
        1024           256     float     sum      -1    20.00    0.05    0.09       0    20.00    0.05    0.09       0
        1024           256     float    prod      -1    21.00    0.05    0.09       0    21.00    0.05    0.09       0
        1024           512      half     max      -1    22.00    0.05    0.08       0    22.00    0.05    0.08       0
# Avg bus bandwidth    : 0.09
)";
  const NcclTestsLog log = parse_nccl_tests_log(text, "x.log");
  ASSERT_EQ(log.rows.size(), 3u);
  EXPECT_EQ(log.rows[1].redop, "prod");
  EXPECT_EQ(log.rows[2].type, "half");
  EXPECT_DOUBLE_EQ(log.rows[2].time_us, 22.0);
}

TEST(NcclTestsLog, StatesACutLogAndLeavesTheCutRowOut) {
  const char* text = R"(./sendrecv_perf -b 8 -e 64
#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong
           8             2     float     sum      -1    10.00    0.00    0.00       0    10.00    0.00    0.00       0
          16             4     float     sum      -1    10.5)";
  const NcclTestsLog log = parse_nccl_tests_log(text, "x.log");
  EXPECT_EQ(log.collective, "sendrecv");
  EXPECT_EQ(log.rows.size(), 1u);
  ASSERT_EQ(log.notes.size(), 2u);
  EXPECT_THAT(log.notes[0], HasSubstr("line 4: row cut short"));
  EXPECT_THAT(log.notes[1], HasSubstr("no closing '# Avg bus bandwidth' line"));
}

TEST(NcclTestsLog, RefusesBadLogsByName) {
  const std::string header =
      "#  size count type redop root time algbw busbw #wrong time algbw busbw #wrong\n";
  EXPECT_THAT(invalid_argument_message([&] {
                parse_nccl_tests_log(header + "8 2 float sum -1 10.0 0.0 0.0 3 10.0 0.0 0.0 0\n",
                                     "w.log");
              }),
              HasSubstr("w.log line 2: #wrong = 3 at size 8"));
  EXPECT_THAT(invalid_argument_message([] { parse_nccl_tests_log("hello\n", "e.log"); }),
              HasSubstr("e.log: no nccl-tests results table"));
  EXPECT_THAT(invalid_argument_message([&] { parse_nccl_tests_log(header, "h.log"); }),
              HasSubstr("h.log: the results table has no complete row"));
  EXPECT_THAT(invalid_argument_message([&] {
                parse_nccl_tests_log(
                    "NCCL version 2.18.1+cuda12.1\nNCCL version 2.19.3+cuda12.2\n" + header +
                        "8 2 float sum -1 10 0 0 0 10 0 0 0\n",
                    "v.log");
              }),
              HasSubstr("two NCCL versions in one log (2.18.1 at line 1, 2.19.3 at line 2)"));
  EXPECT_THAT(invalid_argument_message([&] {
                parse_nccl_tests_log(
                    "# nThread 1 nGpus 1\n" + header +
                        "8 2 float sum -1 10 0 0 0 10 0 0 0\n# nThread 1 nGpus 1\n",
                    "r.log");
              }),
              HasSubstr("holds 2 nccl-tests runs (lines 1 and 4)"));
  EXPECT_THAT(invalid_argument_message([&] {
                parse_nccl_tests_log(header + "8 2 float sum -1 ten 0 0 0 10 0 0 0\n", "n.log");
              }),
              HasSubstr("n.log line 2: time 'ten', expected a non-negative number"));
  EXPECT_THAT(invalid_argument_message([&] {
                parse_nccl_tests_log(header + "8 2 float sum -1 nan 0 0 0 10 0 0 0\n", "n.log");
              }),
              HasSubstr("time 'nan', expected a non-negative number"));
  EXPECT_THAT(invalid_argument_message([&] {
                parse_nccl_tests_log(header + "8 2 float sum -1 0.00 0 0 0 10 0 0 0\n", "z.log");
              }),
              HasSubstr("z.log line 2: time 0 us at size 8, expected > 0"));
}

std::string shipped(const std::string& name) {
  std::ifstream in(std::string(COMPOPT_SOURCE_DIR) + "/data/published/nccl_tests_logs/" + name);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(NcclTestsLog, ReadsTheShippedPublicLogs) {
  const NcclTestsLog tree =
      parse_nccl_tests_log(shipped("nccl-tests-232_all_reduce_h100_2x1_tree.log"), "232.log");
  EXPECT_EQ(tree.collective, "all_reduce");  // from the mpirun command line
  EXPECT_EQ(tree.algorithm, "tree");
  ASSERT_EQ(tree.rows.size(), 5u);
  EXPECT_DOUBLE_EQ(tree.rows[4].time_us, 812.3);
  EXPECT_EQ(tree.notes.size(), 1u);  // trimmed: no closing line
  const NcclTestsLog efa = parse_nccl_tests_log(
      shipped("aws-ofi-nccl-33_all_reduce_p3dn_2x8_efa.log"), "x_all_reduce.log");
  EXPECT_EQ(efa.rows.size(), 3u);
  EXPECT_EQ(efa.ranks, 0);  // no Rank lines: the shape is given on the command line
  EXPECT_THAT(invalid_argument_message([] {
                parse_nccl_tests_log(shipped("nccl-tests-107_all_reduce_v100_2x1_without_mpi.log"),
                                     "107.log");
              }),
              HasSubstr("'Rank 0' is printed 2 times (lines 7 and 8)"));
}

}  // namespace
}  // namespace compopt::calibration
