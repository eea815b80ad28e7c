#pragma once
// Public nccl-tests all_reduce_perf results (data/published/nccl_tests_public.csv,
// embedded in the binary): one fp32 sum allreduce per row, the hardware its GitHub thread
// names and where it was posted. They are out-of-sample checks of the network model
// (`compopt validate public-checks`, docs/validation.md); nothing is ever fitted to them.
// Thread-safe (function-local statics).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace compopt::net {

struct NcclTestsRow {
  std::string case_name;
  int nodes = 0, gpus_per_node = 0;
  std::string gpu;                // GPU preset
  std::string intra_node_fabric;  // pcie | nvlink | nvswitch
  int nics_per_node = 0;
  double nic_gbps = 0;            // line rate of each NIC, Gbit/s
  std::string transport;          // tcp | rdma
  std::string nccl_version;       // as printed; empty when not
  std::string algorithm;          // NCCL_ALGO when set (ring | tree), else auto
  int streams_per_peer = 1;       // NCCL_NSOCKS_PERTHREAD x NCCL_SOCKET_NTHREADS
  double bytes = 0;               // per rank
  std::optional<double> time_us;  // out-of-place time as printed; empty: only busbw given
  double busbw = 0;               // as printed, in busbw_unit
  std::string busbw_unit;         // GB/s | Gbit/s
  std::string url, author, date;  // provenance
  std::string hardware_stated, inferred;

  int ranks() const { return nodes * gpus_per_node; }
  // The bus bandwidth in bytes per second.
  double busbw_bytes_s() const;
  // The published time in seconds: time_us, else the time busbw implies (nccl-tests:
  // busbw = bytes / time x 2(n-1)/n).
  double published_s() const;
};

const std::vector<NcclTestsRow>& nccl_tests_public_rows();

// nccl-tests' bus bandwidth factor of an allreduce on `ranks` ranks, 2(n-1)/n: busbw is
// bytes / time x it.
double allreduce_bus_factor(int ranks);

// Parser of the table's text, for the function above and for tests; `source` names the text
// in error messages. Throws InvalidArgument on a missing column, a malformed number, a
// non-positive figure, fewer than 2 ranks, an unknown busbw unit or a row without provenance
// (a github.com URL, an author, a date).
std::vector<NcclTestsRow> parse_nccl_tests_rows(std::string_view csv, std::string_view source);

}  // namespace compopt::net
