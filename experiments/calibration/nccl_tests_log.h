#pragma once
// Reader of nccl-tests' printed output (all_reduce_perf, all_gather_perf, reduce_scatter_perf,
// alltoall_perf, sendrecv_perf; docs/calibrate.md): the results table and what the header
// lines say about the run. Reads every layout nccl-tests has printed: with or without the
// redop and root columns, `#wrong` counts or the older `error` column, `N/A` under `-c 0`,
// the per-iteration columns of `-I 1`, the lines of `mpirun --tag-output`
// ("[1,0]<stdout>:" before each line), NCCL INFO lines between the table's rows. Columns are
// found by their names in the table header, so their order and spacing do not matter.
//
// Refused (InvalidArgument, naming the file and line): no table; a table without a complete
// row; a row with #wrong > 0 (the collective returned wrong data); two NCCL versions in one
// log; two runs in one file; every process printing its own "Rank 0" (a build of nccl-tests
// without MPI started under mpirun: N one-rank runs, not one N-rank run). Stated, not refused
// (in `notes`): a last row cut short (left out) and no closing "# Avg bus bandwidth" line (the
// log may be cut; its complete rows are used).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace compopt::calibration {

struct NcclTestsRow {
  int line = 0;                       // 1-based line of the file
  double bytes = 0;                   // the size column: bytes per rank as nccl-tests counts them
  std::string type, redop;            // redop empty where the layout has no such column
  double time_us = 0;                 // out-of-place time
  double algbw = 0, busbw = 0;        // out-of-place, GB/s
  std::optional<double> in_place_us;  // when printed
  std::optional<double> wrong;        // #wrong out of place; none: N/A (-c 0) or old layout
};

struct NcclTestsLog {
  std::string source;        // the file, for messages
  std::string collective;    // all_reduce | all_gather | ... ; empty: the log does not say
  std::string nccl_version;  // "2.26.2"; empty: not printed
  int ranks = 0;             // Rank lines, else NCCL INFO nranks, else mpirun -np (x -g); 0: none
  int nodes = 0;             // distinct hosts of the Rank lines; 0: not printed
  std::string gpu;           // the device name of the Rank lines; empty: not printed
  std::string algorithm;     // NCCL_ALGO when the log shows it (lower case); else empty
  std::vector<NcclTestsRow> rows;
  std::vector<std::string> notes;  // stated fallbacks (a row cut short, no closing line)
};

// The collectives nccl-tests names `<name>_perf` that the reader knows.
const std::vector<std::string>& nccl_tests_collectives();

// Parses `text` (the contents of `source`). The collective comes from the "# Collective test
// starting" line, else from a `<name>_perf` command in the text, else from `source`'s file
// name; it stays empty when none names one.
NcclTestsLog parse_nccl_tests_log(std::string_view text, const std::string& source);

// The NCCL version of nccl-tests' `nccl-library=` code (22703 -> "2.27.3"; before 2.9 the
// code was major x 1000 + minor x 100 + patch).
std::string nccl_version_of_code(long code);

}  // namespace compopt::calibration
