#include "experiments/calibration/nccl_tests_log.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>

#include "core/util/error.h"

namespace compopt::calibration {
namespace {

std::vector<std::string> words(std::string_view line) {
  std::istringstream in{std::string(line)};
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

// The line without mpirun --tag-output's "[job,rank]<stdout>:" and without a leading '#'.
std::string_view payload(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (const size_t tag = line.find("]<stdout>:");
      !line.empty() && line[0] == '[' && tag != std::string_view::npos)
    line.remove_prefix(tag + 10);
  const size_t first = line.find_first_not_of(" \t");
  if (first != std::string_view::npos && line[first] == '#') line.remove_prefix(first + 1);
  return line;
}

bool is_whole_number(const std::string& w) {
  return !w.empty() && std::all_of(w.begin(), w.end(), [](char c) { return std::isdigit(c); });
}

std::optional<double> number(const std::string& w) {
  double v = 0;
  const auto [end, ec] = std::from_chars(w.data(), w.data() + w.size(), v);
  if (ec != std::errc() || end != w.data() + w.size()) return std::nullopt;
  return v;
}

// The table header's column names and where the ones the reader uses are.
struct Columns {
  std::vector<std::string> names;
  int size = -1, type = -1, redop = -1, time = -1, algbw = -1, busbw = -1, wrong = -1;
  int in_place_time = -1;
};

std::optional<Columns> table_header(const std::vector<std::string>& w) {
  const auto has = [&](const char* n) { return std::find(w.begin(), w.end(), n) != w.end(); };
  if (!has("size") || !has("count") || !(has("time") || has("cputime"))) return std::nullopt;
  Columns c;
  c.names = w;
  for (int i = 0; i < static_cast<int>(w.size()); ++i) {
    const std::string& n = w[static_cast<size_t>(i)];
    const auto first = [&](int& slot) {
      if (slot < 0) slot = i;
    };
    if (n == "size") first(c.size);
    if (n == "type") first(c.type);
    if (n == "redop") first(c.redop);
    if (n == "algbw") first(c.algbw);
    if (n == "busbw") first(c.busbw);
    if (n == "#wrong") first(c.wrong);
    if (n == "time" || n == "cputime") (c.time < 0 ? c.time : c.in_place_time) = i;
  }
  if (c.type < 0 || c.algbw < 0 || c.busbw < 0)
    return std::nullopt;  // "size ... count" in prose, not the table
  return c;
}

struct Reader {
  explicit Reader(const std::string& file) : source(file) { log.source = file; }

  const std::string& source;
  NcclTestsLog log;
  std::optional<Columns> columns;
  std::map<std::string, int> versions;  // version -> first line
  std::vector<int> run_lines;           // lines of "nThread ..." run headers
  std::vector<int> run_starts;          // lines of "Collective test starting" (one per table)
  std::set<int> ranks_seen;
  std::vector<int> rank0_lines;
  std::set<std::string> hosts;
  int info_ranks = 0;
  int command_ranks = 0;  // mpirun -np N (x -g G) of a command line in the log
  bool closing_line = false;

  std::string at(int line) const { return fmt::format("{} line {}", source, line); }
  void read(std::string_view raw, int line);
  void read_rank(const std::vector<std::string>& w, std::string_view text, int line);
  void read_row(const std::vector<std::string>& w, int line);
  void read_info(std::string_view text, int line);
  void read_command_ranks(const std::vector<std::string>& w);
  void finish();
};

void Reader::read_rank(const std::vector<std::string>& w, std::string_view text, int line) {
  const auto on = std::find(w.begin(), w.end(), "on");
  if (w.size() < 2 || !is_whole_number(w[1]) || on == w.end() || on + 1 == w.end()) return;
  const int rank = std::stoi(w[1]);
  if (rank == 0) rank0_lines.push_back(line);
  ranks_seen.insert(rank);
  hosts.insert(*(on + 1));
  if (const size_t bracket = text.find(']'); bracket != std::string_view::npos)
    log.gpu = std::string(text.substr(text.find_first_not_of(' ', bracket + 1)));
}

void Reader::read_row(const std::vector<std::string>& w, int line) {
  const Columns& c = *columns;
  const int needed = std::max({c.size, c.type, c.time, c.algbw, c.busbw, c.wrong}) + 1;
  if (static_cast<int>(w.size()) < needed) {
    log.notes.push_back(fmt::format("{}: row cut short ({} of {} fields), left out", at(line),
                                    w.size(), c.names.size()));
    return;
  }
  const auto field = [&](int i, const char* name) {
    const auto v = number(w[static_cast<size_t>(i)]);
    if (!v || !std::isfinite(*v) || *v < 0)
      throw InvalidArgument(fmt::format("{}: {} '{}', expected a non-negative number", at(line),
                                        name, w[static_cast<size_t>(i)]));
    return *v;
  };
  NcclTestsRow row;
  row.line = line;
  row.bytes = field(c.size, "size");
  row.type = w[static_cast<size_t>(c.type)];
  if (c.redop >= 0) row.redop = w[static_cast<size_t>(c.redop)];
  row.time_us = field(c.time, "time");
  if (row.bytes == 0) {  // -b 0: nothing moved, nothing to fit
    log.notes.push_back(fmt::format("{}: size 0, left out", at(line)));
    return;
  }
  if (row.time_us <= 0)
    throw InvalidArgument(fmt::format("{}: time {} us at size {:.0f}, expected > 0", at(line),
                                      row.time_us, row.bytes));
  row.algbw = field(c.algbw, "algbw");
  row.busbw = field(c.busbw, "busbw");
  if (c.in_place_time >= 0 && c.in_place_time < static_cast<int>(w.size()))
    row.in_place_us = number(w[static_cast<size_t>(c.in_place_time)]);
  if (c.wrong >= 0 && w[static_cast<size_t>(c.wrong)] != "N/A")
    row.wrong = field(c.wrong, "#wrong");
  if (row.wrong && *row.wrong > 0) {
    throw InvalidArgument(fmt::format(
        "{}: #wrong = {:g} at size {:.0f}: the collective returned wrong data, so its timings "
        "do not describe a working cluster; fix the run (or leave the log out)",
        at(line), *row.wrong, row.bytes));
  }
  log.rows.push_back(row);
}

void Reader::read_info(std::string_view text, int line) {
  if (const size_t v = text.find("NCCL version "); v != std::string_view::npos) {
    const auto w = words(text.substr(v + 13));
    if (!w.empty()) versions.emplace(w[0].substr(0, w[0].find('+')), line);
  }
  if (const size_t n = text.find(" nranks "); n != std::string_view::npos) {
    const auto w = words(text.substr(n + 8));
    if (!w.empty() && is_whole_number(w[0])) info_ranks = std::max(info_ranks, std::stoi(w[0]));
  }
  for (const char* key : {"NCCL_ALGO=", "NCCL_ALGO set by environment to "}) {
    if (const size_t a = text.find(key); a != std::string_view::npos) {
      const auto w = words(text.substr(a + std::string_view(key).size()));
      if (w.empty()) continue;
      std::string algo = w[0];
      std::transform(algo.begin(), algo.end(), algo.begin(),
                     [](unsigned char ch) { return std::tolower(ch); });
      log.algorithm = algo;
    }
  }
  for (const std::string& name : nccl_tests_collectives()) {
    if (log.collective.empty() && text.find(name + "_perf") != std::string_view::npos)
      log.collective = name;
  }
  if (text.find("mpirun") != std::string_view::npos) read_command_ranks(words(text));
}

// `mpirun ... -np N ... *_perf ... -g G`: N processes of G GPUs (G = 1 when not given). Only
// -np counts processes: after the program, -n is nccl-tests' iteration count.
void Reader::read_command_ranks(const std::vector<std::string>& w) {
  int processes = 0, gpus = 1;
  for (size_t i = 0; i + 1 < w.size(); ++i) {
    if (w[i] == "-np" && is_whole_number(w[i + 1])) processes = std::stoi(w[i + 1]);
    if (w[i] == "-g" && is_whole_number(w[i + 1])) gpus = std::stoi(w[i + 1]);
  }
  if (processes > 0) command_ranks = processes * gpus;
}

void Reader::read(std::string_view raw, int line) {
  const std::string_view text = payload(raw);
  const auto w = words(text);
  if (w.empty()) return;
  if (w[0] == "nccl-tests" && w.size() > 1 && w[1] == "version") {
    for (const std::string& word : w)
      if (word.starts_with("nccl-library=") && is_whole_number(word.substr(13)))
        versions.emplace(nccl_version_of_code(std::stol(word.substr(13))), line);
  } else if (w[0] == "Collective" && w.size() >= 4 && w[1] == "test" && w[2] == "starting:") {
    run_starts.push_back(line);
    for (const std::string& name : nccl_tests_collectives())
      if (w[3].starts_with(name)) log.collective = name;
  } else if (w[0] == "nThread") {
    run_lines.push_back(line);
  } else if (w[0] == "Rank") {
    read_rank(w, text, line);
  } else if (w[0] == "Avg" && w.size() > 1 && w[1] == "bus") {
    closing_line = true;
  } else if (auto header = table_header(w)) {
    columns = std::move(header);
  } else if (columns && is_whole_number(w[0]) && raw.find('#') == std::string_view::npos) {
    read_row(w, line);
  } else {
    read_info(text, line);
  }
}

void Reader::finish() {
  if (rank0_lines.size() > 1)
    throw InvalidArgument(fmt::format(
        "{}: 'Rank 0' is printed {} times (lines {} and {}): every process ran its own "
        "one-rank test, as nccl-tests built without MPI=1 does under mpirun; rebuild it with "
        "MPI=1",
        source, rank0_lines.size(), rank0_lines[0], rank0_lines[1]));
  if (!columns)
    throw InvalidArgument(fmt::format(
        "{}: no nccl-tests results table (the header line naming size, count, type, time, "
        "algbw and busbw), expected the output of an nccl-tests *_perf run",
        source));
  if (log.rows.empty())
    throw InvalidArgument(fmt::format("{}: the results table has no complete row", source));
  const std::vector<int>& runs = run_lines.size() > 1 ? run_lines : run_starts;
  if (runs.size() > 1)
    throw InvalidArgument(fmt::format(
        "{}: holds {} nccl-tests runs (lines {} and {}), expected one run per file (compopt "
        "comm-bench prints one table per --variants entry: run it with --variants "
        "allreduce-fp32)",
        source, runs.size(), runs[0], runs[1]));
  if (versions.size() > 1) {
    const auto a = versions.begin(), b = std::next(a);
    throw InvalidArgument(
        fmt::format("{}: two NCCL versions in one log ({} at line {}, {} at line {}), expected "
                    "one",
                    source, a->first, a->second, b->first, b->second));
  }
  if (!versions.empty()) log.nccl_version = versions.begin()->first;
  log.ranks = !ranks_seen.empty() ? static_cast<int>(ranks_seen.size())
              : info_ranks > 0    ? info_ranks
                                  : command_ranks;
  log.nodes = static_cast<int>(hosts.size());
  if (!closing_line)
    log.notes.push_back(fmt::format(
        "{}: no closing '# Avg bus bandwidth' line, so the log may be cut; its {} complete "
        "row(s) are used",
        source, log.rows.size()));
  if (log.collective.empty()) {
    const std::string file = std::filesystem::path(source).filename().string();
    for (const std::string& name : nccl_tests_collectives())
      if (log.collective.empty() && file.find(name) != std::string::npos) log.collective = name;
  }
}

}  // namespace

const std::vector<std::string>& nccl_tests_collectives() {
  static const std::vector<std::string> names = {"all_reduce", "all_gather", "reduce_scatter",
                                                 "alltoall", "sendrecv"};
  return names;
}

std::string nccl_version_of_code(long code) {
  if (code >= 20900) return fmt::format("{}.{}.{}", code / 10000, code / 100 % 100, code % 100);
  return fmt::format("{}.{}.{}", code / 1000, code / 100 % 10, code % 100);
}

NcclTestsLog parse_nccl_tests_log(std::string_view text, const std::string& source) {
  Reader reader(source);
  int line = 0;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t end = std::min(text.find('\n', start), text.size());
    reader.read(text.substr(start, end - start), ++line);
    start = end + 1;
  }
  reader.finish();
  return reader.log;
}

}  // namespace compopt::calibration
