#pragma once
// Measurement: one timed collective of a user's cluster, whatever it was read from (an
// nccl-tests log, a `compopt comm-bench` CSV, a row of 1-bit Adam's Table 1), with the shape
// it ran on and how compopt predicts it on a cluster. The fit (cluster_fit.h) sees only these.
//
// Inputs are named on the command line as PATH or PATH@NODESxGPUS (the shape, where the
// file does not print it): an nccl-tests log (nccl_tests_log.h), a comm-bench CSV (its
// `allreduce-fp32` rows; comm_bench_command.cc writes it) or a CSV of Table-1 rows
// (data/published/onebit_adam_profile.csv: the rows of the base cluster's preset name).

#include <functional>
#include <string>
#include <vector>

#include "net_models/calibration_rows.h"
#include "net_models/cluster_spec.h"

namespace compopt::calibration {

struct Measurement {
  std::string file;        // the input it came from
  std::string source;      // "FILE-NAME line N", for the residual table
  std::string collective;  // all_reduce, all_gather, ...
  int nodes = 0, gpus_per_node = 0;
  double bytes = 0;    // per rank, as nccl-tests' size column
  double seconds = 0;  // measured
  // The time compopt predicts on `cluster` (of this shape, see shaped); empty for a collective
  // the simulator does not time (only allreduce is).
  std::function<double(const net::ClusterSpec&)> predict;

  int ranks() const { return nodes * gpus_per_node; }
  double busbw_gbps() const;  // nccl-tests' bus bandwidth of the measured time, GB/s
};

// What one input file gave.
struct MeasurementFile {
  std::string source;
  std::string kind;  // "nccl-tests log" | "comm-bench CSV" | "Table-1 CSV"
  std::string collective;
  std::string nccl_version;  // empty: not printed
  std::string algorithm;     // NCCL_ALGO when shown; else empty
  std::vector<Measurement> rows;
  std::vector<std::string> notes;  // stated fallbacks of the reader
};

// Reads one input, `spec` = PATH or PATH@NODESxGPUS; `base` gives the GPUs per node where the
// file prints only a rank count, and the preset name Table-1 rows are selected by. Throws
// InvalidArgument naming the file for a missing or unreadable file, an unknown format, a shape
// that cannot be told, and the refusals of the readers.
MeasurementFile read_measurements(const std::string& spec, const net::ClusterSpec& base);

// The rows of 1-bit Adam's Table 1 (net_models/calibration_rows.h) of `base`'s preset name, as
// measurements of `file`; empty when none is.
std::vector<Measurement> table1_measurements(const std::vector<net::ProfileRow>& rows,
                                             const net::ClusterSpec& base, const std::string& file);

// `base` with the measurement's nodes and GPUs per node (validated).
net::ClusterSpec shaped(const net::ClusterSpec& base, int nodes, int gpus_per_node);

// nccl-tests' bus bandwidth factor of a collective on `ranks` ranks (busbw = algbw x it):
// 2(n-1)/n for all_reduce, (n-1)/n for all_gather, reduce_scatter and alltoall, 1 for
// sendrecv.
double bus_factor(const std::string& collective, int ranks);

}  // namespace compopt::calibration
