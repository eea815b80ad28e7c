#include "experiments/cli/nccl_tests_format.h"

#include <fmt/format.h>

#include <array>
#include <charconv>
#include <cmath>
#include <utility>

#include "core/util/error.h"

namespace compopt::cli {
namespace {

// nccl-tests' size suffixes: binary multiples.
constexpr std::array<std::pair<char, double>, 3> kSuffixes = {
    {{'K', 1024.0}, {'M', 1024.0 * 1024}, {'G', 1024.0 * 1024 * 1024}}};

// No sweep reaches a petabyte per rank; the bound keeps every size exact in a double.
constexpr double kMaxSizeBytes = 1e15;

double suffix_multiple(char c) {
  for (const auto& [letter, multiple] : kSuffixes)
    if (c == letter || c == letter - 'A' + 'a') return multiple;
  return 0;
}

// `value` in `width` characters: two decimals, else one, else none, else an exponent (the
// way nccl-tests fits its time and bandwidth columns).
std::string fit(double value, int width) {
  for (int decimals : {2, 1, 0}) {
    std::string s = fmt::format("{:>{}.{}f}", value, width, decimals);
    if (static_cast<int>(s.size()) <= width) return s;
  }
  return fmt::format("{:>{}.{}e}", value, width, width >= 7 ? 1 : 0);
}

std::string timed_columns(uint64_t bytes, double seconds, double bus_factor) {
  const double algbw = algbw_gbs(bytes, seconds);
  return fmt::format("  {}  {}  {}  {:>6}", fit(1e6 * seconds, 7), fit(algbw, 6),
                     fit(algbw * bus_factor, 6), "N/A");
}

std::string column_header(const NcclTestsTable& t) {
  std::string s = fmt::format(
      "# {:>10}  {:>12}  {:>8}  {:>6}  {:>6}           out-of-place    "
      "                   in-place\n",
      "", "", "", "", "");
  s += fmt::format(
      "# {:>10}  {:>12}  {:>8}  {:>6}  {:>6}  {:>7}  {:>6}  {:>6}  {:>6}  {:>7}  "
      "{:>6}  {:>6}  {:>6}",
      "size", "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong", "time", "algbw",
      "busbw", "#wrong");
  if (!t.extra_header.empty()) s += "  " + t.extra_header;
  s += fmt::format(
      "\n# {:>10}  {:>12}  {:>8}  {:>6}  {:>6}  {:>7}  {:>6}  {:>6}  {:>6}  {:>7}  "
      "{:>6}  {:>6}  {:>6}\n",
      "(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)",
      "");
  return s;
}

}  // namespace

uint64_t parse_nccl_tests_size(std::string_view flag, std::string_view text) {
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  const std::string_view rest(end, static_cast<size_t>(text.data() + text.size() - end));
  double multiple = 1;
  if (rest.size() == 1) multiple = suffix_multiple(rest.front());
  const double bytes = value * multiple;
  if (ec != std::errc() || rest.size() > 1 || multiple == 0 || !(bytes >= 1) ||
      bytes > kMaxSizeBytes) {
    throw InvalidArgument(fmt::format(
        "{} {}: expected a size in bytes from 1 to 1e15, optionally with a K, M or G suffix "
        "(x1024, x1024^2, x1024^3), e.g. 8, 128K, 8G",
        flag, text));
  }
  return static_cast<uint64_t>(bytes);
}

uint64_t parse_step_factor(std::string_view text) {
  uint64_t factor = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), factor);
  if (ec != std::errc() || end != text.data() + text.size() || factor < 1 || factor > (1u << 20))
    throw InvalidArgument(fmt::format(
        "-f {}: expected a whole step factor from 1 to 1048576 (1: step by -i bytes)", text));
  return factor;
}

std::vector<uint64_t> sweep_sizes(const SizeSweep& s) {
  if (s.min_bytes > s.max_bytes) {
    throw InvalidArgument(
        fmt::format("-b {} is above -e {}: expected the smallest size first (minbytes <= maxbytes)",
                    s.min_bytes, s.max_bytes));
  }
  if (s.step_factor == 0)
    throw InvalidArgument("-f 0: expected a step factor >= 1 (1: step by -i bytes)");
  if (s.step_factor == 1 && s.step_bytes == 0)
    throw InvalidArgument("-i 0 with -f 1: expected a step of at least 1 byte");
  std::vector<uint64_t> sizes;
  for (uint64_t size = s.min_bytes; size <= s.max_bytes;) {
    if (sizes.size() == kMaxSweepSizes) {
      throw InvalidArgument(fmt::format(
          "-b {} -e {} -f {} -i {}: more than {} sizes, expected at most {} (raise -f or -i)",
          s.min_bytes, s.max_bytes, s.step_factor, s.step_bytes, kMaxSweepSizes, kMaxSweepSizes));
    }
    sizes.push_back(size);
    const uint64_t next = s.step_factor > 1 ? size * s.step_factor : size + s.step_bytes;
    if (next <= size) break;  // overflow past 2^64: nothing larger to visit
    size = next;
  }
  return sizes;
}

void add_sweep_flags(CLI::App& cmd, SweepFlags& flags) {
  cmd.add_option("-b,--minbytes", flags.min_bytes,
                 "nccl-tests sweep: smallest size in bytes, K/M/G suffixes (x1024), default 32M");
  cmd.add_option("-e,--maxbytes", flags.max_bytes, "nccl-tests sweep: largest size, default 32M");
  cmd.add_option("-f,--stepfactor", flags.step_factor,
                 "nccl-tests sweep: multiply the size by this each step (1: add -i), default 1");
  cmd.add_option("-i,--stepbytes", flags.step_bytes,
                 "nccl-tests sweep: bytes added each step when -f is 1, default 1M");
}

std::vector<uint64_t> fp32_sweep_sizes(const SweepFlags& flags, double max_bytes) {
  SizeSweep sweep;
  if (!flags.min_bytes.empty()) sweep.min_bytes = parse_nccl_tests_size("-b", flags.min_bytes);
  if (!flags.max_bytes.empty()) sweep.max_bytes = parse_nccl_tests_size("-e", flags.max_bytes);
  if (!flags.step_bytes.empty()) sweep.step_bytes = parse_nccl_tests_size("-i", flags.step_bytes);
  if (!flags.step_factor.empty()) sweep.step_factor = parse_step_factor(flags.step_factor);
  std::vector<uint64_t> sizes = sweep_sizes(sweep);
  for (uint64_t& b : sizes) {
    if (b < 4) {
      throw InvalidArgument(fmt::format(
          "-b {}: {} bytes, expected at least one fp32 element (4 bytes)", sweep.min_bytes, b));
    }
    if (static_cast<double>(b) > max_bytes) {
      throw InvalidArgument(fmt::format("-e {}: {} bytes, expected at most {:g} bytes",
                                        sweep.max_bytes, b, max_bytes));
    }
    b -= b % 4;
  }
  return sizes;
}

double algbw_gbs(uint64_t bytes, double seconds) {
  return static_cast<double>(bytes) / seconds / 1e9;
}

std::string format_nccl_tests_table(const NcclTestsTable& t) {
  std::string s;
  for (const std::string& line : t.header) s += "# " + line + "\n";
  s += "#\n" + column_header(t);
  double busbw_sum = 0;
  for (const NcclTestsLine& l : t.lines) {
    s += fmt::format("{:>12}  {:>12}  {:>8}  {:>6}  {:>6}", l.bytes, l.count, t.type, t.redop,
                     t.root);
    s += timed_columns(l.bytes, l.out_of_place_s, t.bus_factor);
    s += timed_columns(l.bytes, l.in_place_s, t.bus_factor);
    if (!l.extra.empty()) s += "  " + l.extra;
    s += "\n";
    busbw_sum +=
        (algbw_gbs(l.bytes, l.out_of_place_s) + algbw_gbs(l.bytes, l.in_place_s)) * t.bus_factor;
  }
  const double avg = t.lines.empty() ? 0 : busbw_sum / (2.0 * static_cast<double>(t.lines.size()));
  s += fmt::format("# {:<20} : 0 OK\n", "Out of bounds values");
  s += fmt::format("# {:<20} : {:g} \n#\n", "Avg bus bandwidth", avg);
  return s;
}

}  // namespace compopt::cli
