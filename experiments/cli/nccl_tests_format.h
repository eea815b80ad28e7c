#pragma once
// nccl-tests' message sizes and printed results table (NVIDIA/nccl-tests: the -b/-e/-i/-f
// flags of src/common.cu, the table of src/util.cu), for `compopt comm-bench` and
// `compopt predict-collective`, so that one parser reads their output and a real
// all_reduce_perf log alike. Layout: header lines starting with "#", a two-line column
// header (size, count, type, redop, root, then time / algbw / busbw / #wrong out of place
// and in place), one line per size, and the footer's "Out of bounds values" and "Avg bus
// bandwidth" (the mean busbw over every timed column of every line).

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace compopt::cli {

// A size as nccl-tests' -b / -e / -i take it: a number of bytes with an optional K, M or G
// suffix (binary: 2^10, 2^20, 2^30; either case), e.g. "8", "128K", "1.5M", "8G". Throws
// InvalidArgument naming `flag` and the text when it is no such size or below 1 byte.
uint64_t parse_nccl_tests_size(std::string_view flag, std::string_view text);

// nccl-tests' -f: a whole step factor >= 1. Throws InvalidArgument naming "-f" and the text.
uint64_t parse_step_factor(std::string_view text);

// The most sizes one sweep visits: comm-bench times and predict-collective simulates each.
inline constexpr size_t kMaxSweepSizes = 1024;

// A sweep as nccl-tests walks it: from min_bytes up to max_bytes, multiplying by
// step_factor when it is above 1, else adding step_bytes. nccl-tests' defaults.
struct SizeSweep {
  uint64_t min_bytes = 32ull << 20;
  uint64_t max_bytes = 32ull << 20;
  uint64_t step_factor = 1;
  uint64_t step_bytes = 1ull << 20;
};

// The sizes of `sweep`. Throws InvalidArgument naming the flags and values (-b above -e,
// a factor of 0, a step of 0 bytes with factor 1, more than kMaxSweepSizes sizes).
std::vector<uint64_t> sweep_sizes(const SizeSweep& sweep);

// nccl-tests' sweep flags as written on a command line; empty: not given.
struct SweepFlags {
  std::string min_bytes{}, max_bytes{}, step_bytes{}, step_factor{};  // -b, -e, -i, -f
  bool given() const {
    return !min_bytes.empty() || !max_bytes.empty() || !step_bytes.empty() || !step_factor.empty();
  }
};

// Adds -b/--minbytes, -e/--maxbytes, -f/--stepfactor and -i/--stepbytes to `cmd`.
void add_sweep_flags(CLI::App& cmd, SweepFlags& flags);

// The sizes of the sweep (nccl-tests' defaults where a flag is not given) in whole fp32
// elements: each rounded down to a multiple of 4 bytes, as nccl-tests does for float. Throws
// InvalidArgument naming the flag for a size under 4 bytes or above `max_bytes`, and as
// parse_nccl_tests_size, parse_step_factor and sweep_sizes do.
std::vector<uint64_t> fp32_sweep_sizes(const SweepFlags& flags, double max_bytes);

// One line of the table: a size and the time of its out-of-place and in-place calls.
struct NcclTestsLine {
  uint64_t bytes = 0;  // the size column
  uint64_t count = 0;  // elements
  double out_of_place_s = 0, in_place_s = 0;
  std::string extra;  // a trailing column after in-place #wrong (predict-collective's algo)
};

struct NcclTestsTable {
  std::vector<std::string> header;  // lines printed after "# ", before the column header
  std::string type = "float", redop = "sum";
  int root = -1;             // nccl-tests prints -1 for collectives without a root
  double bus_factor = 1;     // busbw = algbw x bus_factor (allreduce: 2(n-1)/n)
  std::string extra_header;  // the trailing column's name; empty: none
  std::vector<NcclTestsLine> lines;
};

// algbw in GB/s (1e9 bytes per second) of `bytes` moved in `seconds`, as nccl-tests prints.
double algbw_gbs(uint64_t bytes, double seconds);

// The table as nccl-tests prints it (#wrong is N/A: no data check), ending with a newline.
std::string format_nccl_tests_table(const NcclTestsTable& table);

}  // namespace compopt::cli
