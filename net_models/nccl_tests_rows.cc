#include "net_models/nccl_tests_rows.h"

#include <fmt/format.h>

#include <array>
#include <utility>

#include "core/util/csv_table.h"
#include "core/util/error.h"
#include "net_models/published_tables.h"

namespace compopt::net {
namespace {

// Bytes per second in one unit of each bus bandwidth unit nccl-tests results are quoted in.
constexpr std::array<std::pair<std::string_view, double>, 2> kBusbwUnits = {{
    {"GB/s", 1e9},
    {"Gbit/s", 1e9 / 8},
}};

double unit_bytes_s(std::string_view unit, std::string_view where) {
  for (const auto& [name, bytes_s] : kBusbwUnits)
    if (name == unit) return bytes_s;
  throw InvalidArgument(fmt::format("{}: busbw_unit '{}', expected GB/s or Gbit/s", where, unit));
}

void check_positive(double value, std::string_view field, std::string_view where) {
  if (!(value > 0))
    throw InvalidArgument(fmt::format("{}: {} = {}, expected > 0", where, field, value));
}

// Every figure positive, at least 2 ranks, a known unit and the thread it comes from.
void check_row(const NcclTestsRow& r, std::string_view where) {
  check_positive(r.nodes, "nodes", where);
  check_positive(r.gpus_per_node, "gpus_per_node", where);
  check_positive(r.nics_per_node, "nics_per_node", where);
  check_positive(r.nic_gbps, "nic_gbps", where);
  check_positive(r.streams_per_peer, "streams_per_peer", where);
  check_positive(r.bytes, "bytes", where);
  check_positive(r.busbw, "busbw", where);
  if (r.time_us) check_positive(*r.time_us, "time_us", where);
  if (r.ranks() < 2)
    throw InvalidArgument(
        fmt::format("{}: {} rank, expected >= 2 (busbw needs a peer)", where, r.ranks()));
  unit_bytes_s(r.busbw_unit, where);
  if (!r.url.starts_with("https://github.com/"))
    throw InvalidArgument(
        fmt::format("{}: url '{}', expected the https://github.com/ thread", where, r.url));
  for (const auto& [value, field] : {std::pair{&r.author, "author"},
                                     {&r.date, "date"},
                                     {&r.hardware_stated, "hardware_stated"}}) {
    if (value->empty())
      throw InvalidArgument(fmt::format("{}: {} is empty, expected the provenance", where, field));
  }
}

NcclTestsRow read_row(const CsvTable& t, size_t r) {
  NcclTestsRow row;
  row.case_name = t.text(r, "case");
  row.nodes = t.integer(r, "nodes");
  row.gpus_per_node = t.integer(r, "gpus_per_node");
  row.gpu = t.text(r, "gpu");
  row.intra_node_fabric = t.text(r, "intra_node_fabric");
  row.nics_per_node = t.integer(r, "nics_per_node");
  row.nic_gbps = t.number(r, "nic_gbps");
  row.transport = t.text(r, "transport");
  row.nccl_version = t.text(r, "nccl_version");
  row.algorithm = t.text(r, "algorithm");
  row.streams_per_peer = t.integer(r, "streams_per_peer");
  row.bytes = t.number(r, "bytes");
  row.time_us = t.maybe(r, "time_us");
  row.busbw = t.number(r, "busbw");
  row.busbw_unit = t.text(r, "busbw_unit");
  row.url = t.text(r, "url");
  row.author = t.text(r, "author");
  row.date = t.text(r, "date");
  row.hardware_stated = t.text(r, "hardware_stated");
  row.inferred = t.text(r, "inferred");
  return row;
}

}  // namespace

double NcclTestsRow::busbw_bytes_s() const { return busbw * unit_bytes_s(busbw_unit, case_name); }

double NcclTestsRow::published_s() const {
  if (time_us) return *time_us * 1e-6;
  return bytes * allreduce_bus_factor(ranks()) / busbw_bytes_s();
}

double allreduce_bus_factor(int ranks) {
  const double n = ranks;
  return 2 * (n - 1) / n;
}

std::vector<NcclTestsRow> parse_nccl_tests_rows(std::string_view csv, std::string_view source) {
  const CsvTable t(csv, source);
  std::vector<NcclTestsRow> rows;
  for (size_t r = 0; r < t.rows(); ++r) {
    NcclTestsRow row = read_row(t, r);
    check_row(row, fmt::format("{}: case '{}'", source, row.case_name));
    rows.push_back(std::move(row));
  }
  return rows;
}

const std::vector<NcclTestsRow>& nccl_tests_public_rows() {
  static const std::vector<NcclTestsRow> rows =
      parse_nccl_tests_rows(nccl_tests_public_table().text, nccl_tests_public_table().file);
  return rows;
}

}  // namespace compopt::net
