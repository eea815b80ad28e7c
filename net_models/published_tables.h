#pragma once
// The published tables of data/published/, embedded in the binary at build time
// (net_models/CMakeLists.txt): the text of each CSV file, comment lines included.

#include <string_view>

namespace compopt::net {

struct PublishedTable {
  std::string_view file;  // path in the source tree, e.g. data/published/x.csv
  std::string_view text;  // the file's bytes
};

// 1-bit Adam (Tang et al., ICML 2021), Table 1.
const PublishedTable& onebit_adam_profile_table();
// Birder (Peng et al., NeurIPS 2023), Tables 1 and 2, single-node rows.
const PublishedTable& birder_single_node_table();
// Public nccl-tests all_reduce_perf results from GitHub threads: validation only, never fitted.
const PublishedTable& nccl_tests_public_table();

}  // namespace compopt::net
