#include "experiments/calibration/measurement.h"

#include <fmt/format.h>

#include <cctype>
#include <filesystem>

#include "core/util/csv_table.h"
#include "core/util/error.h"
#include "core/util/file_io.h"
#include "core/util/io_error.h"
#include "experiments/calibration/nccl_tests_log.h"
#include "net_models/calibration_rows.h"
#include "sim/collective_prediction.h"
#include "sim/network_fit.h"
#include "sim/public_checks.h"

namespace compopt::calibration {
namespace {

constexpr const char* kCommBenchVariant = "allreduce-fp32";  // comm-bench's NCCL-like row

struct Spec {
  std::string path;
  int nodes = 0, gpus_per_node = 0;  // 0: from the file
};

// PATH or PATH@NODESxGPUS.
Spec parse_spec(const std::string& spec) {
  const size_t at = spec.rfind('@');
  if (at == std::string::npos) return {spec};
  const std::string shape = spec.substr(at + 1);
  const size_t x = shape.find('x');
  const auto digits = [](const std::string& s) {
    return !s.empty() && s.size() < 8 && s.find_first_not_of("0123456789") == std::string::npos;
  };
  if (x == std::string::npos || !digits(shape.substr(0, x)) || !digits(shape.substr(x + 1)) ||
      std::stoi(shape.substr(0, x)) < 1 || std::stoi(shape.substr(x + 1)) < 1)
    throw InvalidArgument(
        fmt::format("'{}': shape '@{}', expected @NODESxGPUS with whole numbers >= 1 (e.g. @2x8)",
                    spec, shape));
  return {spec.substr(0, at), std::stoi(shape.substr(0, x)), std::stoi(shape.substr(x + 1))};
}

// A row's name in tables: the file name (not its folders) and where in the file.
std::string row_name(const std::string& path, const char* unit, size_t n) {
  return fmt::format("{} {} {}", std::filesystem::path(path).filename().string(), unit, n);
}

std::function<double(const net::ClusterSpec&)> allreduce_predictor(double bytes) {
  return [bytes](const net::ClusterSpec& c) { return sim::predict_allreduce(c, bytes).seconds; };
}

// The shape of a file's ranks: the @NODESxGPUS given, else what the file printed (hosts and
// ranks; ranks alone take the base cluster's GPUs per node).
std::pair<int, int> shape_of(const Spec& spec, int printed_nodes, int printed_ranks,
                             const net::ClusterSpec& base) {
  if (spec.nodes > 0) return {spec.nodes, spec.gpus_per_node};
  if (printed_ranks > 0 && printed_nodes > 0 && printed_ranks % printed_nodes == 0)
    return {printed_nodes, printed_ranks / printed_nodes};
  if (printed_ranks > 0 && printed_ranks % base.gpus_per_node == 0)
    return {printed_ranks / base.gpus_per_node, base.gpus_per_node};
  if (printed_ranks > 0 && printed_ranks < base.gpus_per_node) return {1, printed_ranks};
  throw InvalidArgument(fmt::format(
      "{}: {}: the file does not say how its ranks sit on nodes; name the shape as "
      "{}@NODESxGPUS (e.g. {}@2x8)",
      spec.path,
      printed_ranks > 0 ? fmt::format("{} ranks, not a whole number of {}-GPU nodes", printed_ranks,
                                      base.gpus_per_node)
                        : std::string("no Rank lines, no NCCL INFO nranks, no mpirun -np"),
      spec.path, spec.path));
}

MeasurementFile from_log(const Spec& spec, const std::string& text, const net::ClusterSpec& base) {
  const NcclTestsLog log = parse_nccl_tests_log(text, spec.path);
  if (log.collective.empty())
    throw InvalidArgument(fmt::format(
        "{}: the log does not say which collective it timed (no '# Collective test starting' "
        "line, no *_perf command); put the collective in the file name, e.g. "
        "all_reduce_2x8.log",
        spec.path));
  const auto [nodes, gpn] = shape_of(spec, log.nodes, log.ranks, base);
  if (log.ranks > 0 && log.ranks != nodes * gpn)
    throw InvalidArgument(fmt::format("{}: the log prints {} ranks, the shape @{}x{} has {}",
                                      spec.path, log.ranks, nodes, gpn, nodes * gpn));
  MeasurementFile file{spec.path, "nccl-tests log", log.collective, log.nccl_version, log.algorithm,
                       {},        log.notes};
  for (const NcclTestsRow& r : log.rows) {
    Measurement m{spec.path,
                  row_name(spec.path, "line", static_cast<size_t>(r.line)),
                  log.collective,
                  nodes,
                  gpn,
                  r.bytes,
                  r.time_us * 1e-6,
                  nullptr};
    if (log.collective == "all_reduce") m.predict = allreduce_predictor(r.bytes);
    file.rows.push_back(std::move(m));
  }
  return file;
}

MeasurementFile from_comm_bench(const Spec& spec, const std::string& text,
                                const net::ClusterSpec& base) {
  const CsvTable t(text, spec.path);
  MeasurementFile file{spec.path, "comm-bench CSV", "all_reduce", "", "", {}, {}};
  for (size_t r = 0; r < t.rows(); ++r) {
    if (t.text(r, "variant") != kCommBenchVariant) continue;
    const auto [nodes, gpn] = shape_of(spec, 0, t.integer(r, "ranks"), base);
    const double bytes = t.number(r, "bytes"), seconds = t.number(r, "seconds");
    if (!(bytes > 0) || !(seconds > 0))
      throw InvalidArgument(fmt::format("{} row {}: bytes {} and seconds {}, expected both > 0",
                                        spec.path, r + 1, bytes, seconds));
    file.rows.push_back({spec.path, row_name(spec.path, "row", r + 1), "all_reduce", nodes, gpn,
                         bytes, t.number(r, "seconds"), allreduce_predictor(bytes)});
  }
  if (file.rows.empty())
    throw InvalidArgument(
        fmt::format("{}: no '{}' row, expected comm-bench's uncompressed "
                    "allreduce (comm-bench --variants {})",
                    spec.path, kCommBenchVariant, kCommBenchVariant));
  return file;
}

MeasurementFile from_table1(const Spec& spec, const std::string& text,
                            const net::ClusterSpec& base) {
  MeasurementFile file{spec.path, "Table-1 CSV", "all_reduce", "", "", {}, {}};
  file.rows = table1_measurements(net::parse_profile_rows(text, spec.path), base, spec.path);
  if (file.rows.empty())
    throw InvalidArgument(
        fmt::format("{}: no row of cluster '{}', expected --cluster to name a cluster of the table",
                    spec.path, base.name));
  return file;
}

// The first line that is neither blank nor a '#' comment.
std::string first_line(const std::string& text) {
  size_t start = 0;
  while (start < text.size()) {
    const size_t end = std::min(text.find('\n', start), text.size());
    std::string line = text.substr(start, end - start);
    if (line.find_first_not_of(" \t\r") != std::string::npos && line[0] != '#') return line;
    start = end + 1;
  }
  return {};
}

}  // namespace

std::vector<Measurement> table1_measurements(const std::vector<net::ProfileRow>& rows,
                                             const net::ClusterSpec& base,
                                             const std::string& file) {
  std::vector<Measurement> out;
  for (size_t i = 0; i < rows.size(); ++i) {
    const net::ProfileRow& row = rows[i];
    if (row.cluster != base.name) continue;
    Measurement m{file, row_name(file, "row", i + 1), "all_reduce", row.nodes, row.gpus / row.nodes,
                  0,    row.allreduce_ms * 1e-3,      nullptr};
    m.predict = [row](const net::ClusterSpec& c) {
      return 1e-3 * sim::predicted_allreduce_ms(c, row);
    };
    out.push_back(std::move(m));
  }
  return out;
}

double Measurement::busbw_gbps() const {
  return bytes / seconds * bus_factor(collective, ranks()) / 1e9;
}

net::ClusterSpec shaped(const net::ClusterSpec& base, int nodes, int gpus_per_node) {
  net::ClusterSpec c = base;
  c.nodes = nodes;
  c.gpus_per_node = gpus_per_node;
  c.validate();
  return c;
}

double bus_factor(const std::string& collective, int ranks) {
  const double n = ranks;
  if (collective == "all_reduce") return 2 * (n - 1) / n;
  if (collective == "sendrecv") return 1;
  return (n - 1) / n;
}

MeasurementFile read_measurements(const std::string& spec_text, const net::ClusterSpec& base) {
  const Spec spec = parse_spec(spec_text);
  std::string text;
  try {
    text = read_text_file(spec.path);
  } catch (const IoError& e) {
    throw InvalidArgument(fmt::format("input '{}': {}", spec.path, e.what()));
  }
  const std::string header = first_line(text);
  if (header.find("allreduce_ms") != std::string::npos) return from_table1(spec, text, base);
  if (header.find("variant") != std::string::npos && header.find("seconds") != std::string::npos)
    return from_comm_bench(spec, text, base);
  return from_log(spec, text, base);
}

}  // namespace compopt::calibration
