#include "core/train/checkpoint.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <limits>

#include "core/util/byte_codec.h"
#include "core/util/crc32.h"
#include "core/util/error.h"
#include "core/util/file_io.h"
#include "core/util/io_error.h"

namespace compopt {
namespace {

constexpr char kMagic[8] = {'C', 'M', 'P', 'C', 'K', 'P', 'T', '1'};
constexpr size_t kHeaderBytes = 8 + 4 + 4 + 8;  // magic, version, flags, body length
constexpr size_t kTrailerBytes = 4;             // crc32

void put_optional(ByteWriter& w, const std::optional<double>& v) {
  w.put<uint8_t>(v ? 1 : 0);
  w.put<double>(v.value_or(0.0));
}

std::optional<double> get_optional(ByteReader& in) {
  const auto flag = in.get<uint8_t>();
  const auto v = in.get<double>();
  if (flag > 1) in.fail(fmt::format("optional flag {}, expected 0 or 1", flag));
  return flag ? std::optional<double>(v) : std::nullopt;
}

void put_map(ByteWriter& w, const std::map<std::string, std::string>& m) {
  w.put<uint64_t>(m.size());
  for (const auto& [k, v] : m) {
    w.put_string(k);
    w.put_string(v);
  }
}

std::map<std::string, std::string> get_map(ByteReader& in) {
  std::map<std::string, std::string> m;
  for (uint64_t i = 0, n = in.get_count(16); i < n; ++i) {
    std::string k = in.get_string();
    m[std::move(k)] = in.get_string();
  }
  return m;
}

void write_record(ByteWriter& w, const StepRecord& r) {
  w.put(r.step);
  w.put(r.samples);
  w.put(r.epoch);
  w.put_string(r.stage);
  w.put(r.lr);
  w.put(r.train_loss);
  put_optional(w, r.test_loss);
  put_optional(w, r.test_accuracy);
  put_optional(w, r.var_norm_l2);
  put_optional(w, r.var_ratio_l1);
  put_optional(w, r.var_norm_l1);
  w.put(r.bytes_sent);
  w.put(r.bytes_sent_inter_node);
  w.put(r.time_s);
  for (double v : {r.step_wall_s, r.compute_s, r.comm_s, r.compression_s}) w.put(v);
  w.put_array<double>(r.layer_coefficients);
  w.put_array<double>(r.layer_ratios);
}

StepRecord read_record(ByteReader& in, uint32_t version) {
  StepRecord r;
  r.step = in.get<int64_t>();
  r.samples = in.get<int64_t>();
  r.epoch = in.get<double>();
  r.stage = in.get_string();
  r.lr = in.get<double>();
  r.train_loss = in.get<double>();
  r.test_loss = get_optional(in);
  r.test_accuracy = get_optional(in);
  r.var_norm_l2 = get_optional(in);
  r.var_ratio_l1 = get_optional(in);
  r.var_norm_l1 = get_optional(in);
  r.bytes_sent = in.get<double>();
  r.bytes_sent_inter_node = in.get<double>();
  r.time_s = in.get<double>();
  if (version >= 2) {
    for (double* v : {&r.step_wall_s, &r.compute_s, &r.comm_s, &r.compression_s}) {
      *v = in.get<double>();
    }
  }
  r.layer_coefficients = in.get_array<double>();
  r.layer_ratios = in.get_array<double>();
  return r;
}

// A rank's state after its parameters: optimizer state, data position, counters, clock.
void write_rank_rest(ByteWriter& w, const RankCheckpoint& r) {
  w.put_blob(r.optimizer.to_bytes());
  w.put(r.sampler.epoch);
  w.put<uint64_t>(r.sampler.offset);
  w.put(r.bytes_sent);
  w.put(r.bytes_sent_inter_node);
  w.put(r.clock_s);
}

// `who` names the rank in messages ("rank 2").
void read_rank_rest(ByteReader& in, RankCheckpoint& r, const std::string& who) {
  const auto blob = in.get_blob();
  try {
    r.optimizer = OptimizerState::from_bytes(blob);
  } catch (const InvalidArgument& e) {
    in.fail(fmt::format("{}: {}", who, e.what()));
  }
  r.sampler.epoch = in.get<int64_t>();
  r.sampler.offset = in.get<uint64_t>();
  r.bytes_sent = in.get<uint64_t>();
  r.bytes_sent_inter_node = in.get<uint64_t>();
  r.clock_s = in.get<double>();
}

void write_body(ByteWriter& w, const Checkpoint& c) {
  w.put(c.step);
  w.put<uint32_t>(static_cast<uint32_t>(c.ranks.size()));
  put_map(w, c.identity);
  put_map(w, c.settings);
  w.put<uint64_t>(c.records.size());
  for (const StepRecord& r : c.records) write_record(w, r);
  for (size_t i = 0; i < c.ranks.size(); ++i) {
    const RankCheckpoint& r = c.ranks[i];
    // Parameters are usually identical on every rank: store them once.
    const bool same = i > 0 && r.params == c.ranks[0].params;
    w.put<uint8_t>(same ? 1 : 0);
    if (!same) w.put_array<float>(r.params);
    write_rank_rest(w, r);
  }
}

Checkpoint read_body(ByteReader& in, uint32_t version) {
  Checkpoint c;
  c.step = in.get<int64_t>();
  if (c.step < 1) in.fail(fmt::format("step {}, expected >= 1", c.step));
  const auto world = in.get<uint32_t>();
  if (world < 1 || world > (1u << 20)) in.fail(fmt::format("world size {}", world));
  c.identity = get_map(in);
  c.settings = get_map(in);
  const uint64_t records = in.get_count(1);
  if (records != static_cast<uint64_t>(c.step)) {
    in.fail(fmt::format("{} step records for a checkpoint at step {}", records, c.step));
  }
  c.records.reserve(records);
  for (uint64_t i = 0; i < records; ++i) {
    c.records.push_back(read_record(in, version));
    if (c.records.back().step != static_cast<int64_t>(i + 1)) {
      in.fail(fmt::format("record {} is of step {}", i + 1, c.records.back().step));
    }
  }
  c.ranks.resize(world);
  for (uint32_t i = 0; i < world; ++i) {
    RankCheckpoint& r = c.ranks[i];
    r.step = c.step;
    const auto same = in.get<uint8_t>();
    if (same > 1 || (same == 1 && i == 0))
      in.fail(fmt::format("rank {}: parameter flag {}", i, same));
    r.params = same ? c.ranks[0].params : in.get_array<float>();
    read_rank_rest(in, r, fmt::format("rank {}", i));
  }
  if (!in.done()) in.fail("trailing bytes after the last rank");
  return c;
}

}  // namespace

std::vector<std::byte> encode_checkpoint(const Checkpoint& checkpoint) {
  ByteWriter body;
  write_body(body, checkpoint);
  ByteWriter w;
  w.put_bytes(std::as_bytes(std::span(kMagic)));
  w.put<uint32_t>(kCheckpointFormatVersion);
  w.put<uint32_t>(0);
  w.put_blob(body.bytes());
  w.put<uint32_t>(crc32_of(w.bytes()));
  return w.take();
}

Checkpoint decode_checkpoint(std::span<const std::byte> bytes, const std::string& source) {
  auto fail = [&](const std::string& what) {
    throw InvalidArgument(fmt::format("checkpoint {}: {}", source, what));
  };
  // An empty input (null data) reaches the truncation check below; memcmp needs a valid pointer.
  if (!bytes.empty() &&
      std::memcmp(bytes.data(), kMagic, std::min(bytes.size(), sizeof kMagic)) != 0) {
    fail("not a compopt checkpoint (bad magic)");
  }
  constexpr uint64_t kFixed = kHeaderBytes + kTrailerBytes;
  if (bytes.size() < kFixed) {
    fail(fmt::format("truncated: {} bytes, shorter than the {}-byte header and checksum",
                     bytes.size(), kFixed));
  }
  ByteReader header(bytes.first(kHeaderBytes), fmt::format("checkpoint {}: header", source));
  header.take(sizeof kMagic);
  const auto version = header.get<uint32_t>();
  const auto flags = header.get<uint32_t>();
  const auto body = header.get<uint64_t>();
  if (version < kOldestCheckpointFormatVersion || version > kCheckpointFormatVersion) {
    fail(fmt::format("format version {}, this build reads versions {} to {}", version,
                     kOldestCheckpointFormatVersion, kCheckpointFormatVersion));
  }
  if (body > bytes.size() - kFixed) {
    fail(fmt::format("truncated: {} bytes, the header announces a body of {} bytes ({} in all)",
                     bytes.size(), body,
                     body <= std::numeric_limits<uint64_t>::max() - kFixed ? body + kFixed : body));
  }
  if (body < bytes.size() - kFixed) {
    fail(fmt::format("{} trailing bytes after the {} the header announces",
                     bytes.size() - kFixed - body, body + kFixed));
  }
  const uint32_t stored =
      ByteReader(bytes.last(kTrailerBytes), "checkpoint " + source).get<uint32_t>();
  const uint32_t actual = crc32_of(bytes.first(bytes.size() - kTrailerBytes));
  if (stored != actual) {
    fail(
        fmt::format("checksum mismatch (stored crc32 {:08x}, computed {:08x}): the file is corrupt",
                    stored, actual));
  }
  if (flags != 0) fail(fmt::format("unknown flags {:#x}", flags));
  ByteReader in(bytes.subspan(kHeaderBytes, body),
                fmt::format("checkpoint {}: corrupt body", source), kHeaderBytes);
  return read_body(in, version);
}

std::vector<std::byte> encode_rank_state(const RankCheckpoint& state) {
  ByteWriter w;
  w.put(state.step);
  w.put_array<float>(state.params);
  write_rank_rest(w, state);
  return w.take();
}

RankCheckpoint decode_rank_state(std::span<const std::byte> bytes, const std::string& source) {
  ByteReader in(bytes, source);
  RankCheckpoint r;
  r.step = in.get<int64_t>();
  r.params = in.get_array<float>();
  read_rank_rest(in, r, "optimizer state");
  if (!in.done()) in.fail("trailing bytes after the rank state");
  return r;
}

void write_checkpoint_file(const std::filesystem::path& path, const Checkpoint& checkpoint,
                           Env& env) {
  const std::vector<std::byte> bytes = encode_checkpoint(checkpoint);
  env.create_dirs(path.parent_path());
  write_file_atomic(path, bytes, env);
}

Checkpoint read_checkpoint_file(const std::filesystem::path& path, Env& env) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    throw InvalidArgument(
        fmt::format("checkpoint {}: not found or not a regular file", path.string()));
  }
  std::vector<std::byte> data;
  try {
    data = read_file(path, env);
  } catch (const IoError& e) {
    throw InvalidArgument(fmt::format("checkpoint {}: {}", path.string(), e.what()));
  }
  return decode_checkpoint(data, path.string());
}

std::filesystem::path checkpoint_path(const std::filesystem::path& run_dir, int64_t step) {
  return run_dir / "checkpoints" / fmt::format("step-{:08d}.ckpt", step);
}

std::vector<int64_t> list_checkpoints(const std::filesystem::path& run_dir) {
  std::vector<int64_t> steps;
  std::error_code ec;
  const std::filesystem::path dir = run_dir / "checkpoints";
  if (!std::filesystem::is_directory(dir, ec)) return steps;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    // step-<digits>.ckpt, nothing else (temporary files start with '.').
    if (name.size() < 11 || name.rfind("step-", 0) != 0 ||
        name.substr(name.size() - 5) != ".ckpt") {
      continue;
    }
    const std::string digits = name.substr(5, name.size() - 10);
    if (digits.empty() || digits.size() > 18 ||
        !std::all_of(digits.begin(), digits.end(),
                     [](char ch) { return ch >= '0' && ch <= '9'; })) {
      continue;
    }
    steps.push_back(std::stoll(digits));
  }
  std::sort(steps.begin(), steps.end());
  return steps;
}

void check_identity(const Checkpoint& checkpoint,
                    const std::map<std::string, std::string>& expected, const std::string& source) {
  std::vector<std::string> diffs;
  auto value = [](const std::map<std::string, std::string>& m, const std::string& key) {
    const auto it = m.find(key);
    if (it == m.end()) return std::string("(absent)");
    return it->second.empty() ? std::string("(empty)") : it->second;
  };
  std::map<std::string, int> keys;
  for (const auto& [k, v] : checkpoint.identity) keys[k] = 0;
  for (const auto& [k, v] : expected) keys[k] = 0;
  for (const auto& [key, unused] : keys) {
    const std::string then = value(checkpoint.identity, key), now = value(expected, key);
    if (then != now)
      diffs.push_back(fmt::format("{} = {} in the checkpoint, {} now", key, then, now));
  }
  if (diffs.empty()) return;
  std::string list;
  for (const auto& d : diffs) list += (list.empty() ? "" : "; ") + d;
  throw InvalidArgument(fmt::format("checkpoint {} does not match this run: {}", source, list));
}

}  // namespace compopt
