#include "core/train/checkpoint.h"

#include <fmt/format.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <stdexcept>

#include "core/util/error.h"

namespace compopt {
namespace {

static_assert(std::endian::native == std::endian::little,
              "the checkpoint format is little-endian; add byte swapping for this host");

constexpr char kMagic[8] = {'C', 'M', 'P', 'C', 'K', 'P', 'T', '1'};
constexpr size_t kHeaderBytes = 8 + 4 + 4 + 8;  // magic, version, flags, body length
constexpr size_t kTrailerBytes = 4;             // crc32

class Writer {
 public:
  template <typename T>
  void pod(const T& v) {
    raw(&v, sizeof(T));
  }
  void raw(const void* p, size_t n) {
    const auto* b = static_cast<const std::byte*>(p);
    out_.insert(out_.end(), b, b + n);
  }
  void str(const std::string& s) {
    pod<uint64_t>(s.size());
    raw(s.data(), s.size());
  }
  template <typename T>
  void vec(const std::vector<T>& v) {
    pod<uint64_t>(v.size());
    raw(v.data(), v.size() * sizeof(T));
  }
  void opt(const std::optional<double>& v) {
    pod<uint8_t>(v ? 1 : 0);
    pod<double>(v.value_or(0.0));
  }
  void map(const std::map<std::string, std::string>& m) {
    pod<uint64_t>(m.size());
    for (const auto& [k, v] : m) {
      str(k);
      str(v);
    }
  }
  std::vector<std::byte>& bytes() { return out_; }

 private:
  std::vector<std::byte> out_;
};

class Reader {
 public:
  Reader(std::span<const std::byte> in, const std::string& source, size_t base)
      : in_(in), source_(source), base_(base) {}
  template <typename T>
  T pod() {
    T v;
    raw(&v, sizeof(T));
    return v;
  }
  void raw(void* p, size_t n) {
    if (n > in_.size() - pos_) fail(fmt::format("{} bytes needed, {} left", n, in_.size() - pos_));
    if (n != 0) std::memcpy(p, in_.data() + pos_, n);
    pos_ += n;
  }
  uint64_t count(size_t elem) {
    const auto n = pod<uint64_t>();
    if (n > (in_.size() - pos_) / std::max<size_t>(elem, 1)) {
      fail(fmt::format("a length of {} exceeds the {} bytes left", n, in_.size() - pos_));
    }
    return n;
  }
  std::string str() {
    std::string s(count(1), '\0');
    raw(s.data(), s.size());
    return s;
  }
  template <typename T>
  std::vector<T> vec() {
    std::vector<T> v(count(sizeof(T)));
    raw(v.data(), v.size() * sizeof(T));
    return v;
  }
  std::optional<double> opt() {
    const auto flag = pod<uint8_t>();
    const auto v = pod<double>();
    if (flag > 1) fail(fmt::format("optional flag {}, expected 0 or 1", flag));
    return flag ? std::optional<double>(v) : std::nullopt;
  }
  std::map<std::string, std::string> map() {
    std::map<std::string, std::string> m;
    for (uint64_t i = 0, n = count(16); i < n; ++i) {
      std::string k = str();
      m[std::move(k)] = str();
    }
    return m;
  }
  bool done() const { return pos_ == in_.size(); }
  [[noreturn]] void fail(const std::string& what) const {
    throw InvalidArgument(
        fmt::format("checkpoint {}: corrupt body at byte {}: {}", source_, base_ + pos_, what));
  }

 private:
  std::span<const std::byte> in_;
  const std::string& source_;
  size_t base_;
  size_t pos_ = 0;
};

uint32_t crc_of(std::span<const std::byte> bytes) {
  uLong crc = crc32(0L, Z_NULL, 0);
  size_t done = 0;
  while (done < bytes.size()) {
    const size_t n = std::min<size_t>(bytes.size() - done, std::numeric_limits<uInt>::max());
    crc = crc32(crc, reinterpret_cast<const Bytef*>(bytes.data() + done), static_cast<uInt>(n));
    done += n;
  }
  return static_cast<uint32_t>(crc);
}

void write_record(Writer& w, const StepRecord& r) {
  w.pod(r.step);
  w.pod(r.samples);
  w.pod(r.epoch);
  w.str(r.stage);
  w.pod(r.lr);
  w.pod(r.train_loss);
  w.opt(r.test_loss);
  w.opt(r.test_accuracy);
  w.opt(r.var_norm_l2);
  w.opt(r.var_ratio_l1);
  w.opt(r.var_norm_l1);
  w.pod(r.bytes_sent);
  w.pod(r.bytes_sent_inter_node);
  w.pod(r.time_s);
  w.vec(r.layer_coefficients);
  w.vec(r.layer_ratios);
}

StepRecord read_record(Reader& in) {
  StepRecord r;
  r.step = in.pod<int64_t>();
  r.samples = in.pod<int64_t>();
  r.epoch = in.pod<double>();
  r.stage = in.str();
  r.lr = in.pod<double>();
  r.train_loss = in.pod<double>();
  r.test_loss = in.opt();
  r.test_accuracy = in.opt();
  r.var_norm_l2 = in.opt();
  r.var_ratio_l1 = in.opt();
  r.var_norm_l1 = in.opt();
  r.bytes_sent = in.pod<double>();
  r.bytes_sent_inter_node = in.pod<double>();
  r.time_s = in.pod<double>();
  r.layer_coefficients = in.vec<double>();
  r.layer_ratios = in.vec<double>();
  return r;
}

void write_body(Writer& w, const Checkpoint& c) {
  w.pod(c.step);
  w.pod<uint32_t>(static_cast<uint32_t>(c.ranks.size()));
  w.map(c.identity);
  w.map(c.settings);
  w.pod<uint64_t>(c.records.size());
  for (const StepRecord& r : c.records) write_record(w, r);
  for (size_t i = 0; i < c.ranks.size(); ++i) {
    const RankCheckpoint& r = c.ranks[i];
    // Parameters are usually identical on every rank: store them once.
    const bool same = i > 0 && r.params == c.ranks[0].params;
    w.pod<uint8_t>(same ? 1 : 0);
    if (!same) w.vec(r.params);
    w.vec(r.optimizer.to_bytes());
    w.pod(r.sampler.epoch);
    w.pod<uint64_t>(r.sampler.offset);
    w.pod(r.bytes_sent);
    w.pod(r.bytes_sent_inter_node);
    w.pod(r.clock_s);
  }
}

Checkpoint read_body(Reader& in) {
  Checkpoint c;
  c.step = in.pod<int64_t>();
  if (c.step < 1) in.fail(fmt::format("step {}, expected >= 1", c.step));
  const auto world = in.pod<uint32_t>();
  if (world < 1 || world > (1u << 20)) in.fail(fmt::format("world size {}", world));
  c.identity = in.map();
  c.settings = in.map();
  const uint64_t records = in.count(1);
  if (records != static_cast<uint64_t>(c.step)) {
    in.fail(fmt::format("{} step records for a checkpoint at step {}", records, c.step));
  }
  c.records.reserve(records);
  for (uint64_t i = 0; i < records; ++i) {
    c.records.push_back(read_record(in));
    if (c.records.back().step != static_cast<int64_t>(i + 1)) {
      in.fail(fmt::format("record {} is of step {}", i + 1, c.records.back().step));
    }
  }
  c.ranks.resize(world);
  for (uint32_t i = 0; i < world; ++i) {
    RankCheckpoint& r = c.ranks[i];
    r.step = c.step;
    const auto same = in.pod<uint8_t>();
    if (same > 1 || (same == 1 && i == 0))
      in.fail(fmt::format("rank {}: parameter flag {}", i, same));
    r.params = same ? c.ranks[0].params : in.vec<float>();
    const auto blob = in.vec<std::byte>();
    try {
      r.optimizer = OptimizerState::from_bytes(blob);
    } catch (const InvalidArgument& e) {
      in.fail(fmt::format("rank {}: {}", i, e.what()));
    }
    r.sampler.epoch = in.pod<int64_t>();
    r.sampler.offset = in.pod<uint64_t>();
    r.bytes_sent = in.pod<uint64_t>();
    r.bytes_sent_inter_node = in.pod<uint64_t>();
    r.clock_s = in.pod<double>();
  }
  if (!in.done()) in.fail("trailing bytes after the last rank");
  return c;
}

}  // namespace

std::vector<std::byte> encode_checkpoint(const Checkpoint& checkpoint) {
  Writer body;
  write_body(body, checkpoint);
  Writer w;
  w.raw(kMagic, sizeof kMagic);
  w.pod<uint32_t>(kCheckpointFormatVersion);
  w.pod<uint32_t>(0);
  w.pod<uint64_t>(body.bytes().size());
  w.raw(body.bytes().data(), body.bytes().size());
  w.pod<uint32_t>(crc_of(w.bytes()));
  return std::move(w.bytes());
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
  uint32_t version = 0, flags = 0;
  uint64_t body = 0;
  std::memcpy(&version, bytes.data() + 8, 4);
  std::memcpy(&flags, bytes.data() + 12, 4);
  std::memcpy(&body, bytes.data() + 16, 8);
  if (version != kCheckpointFormatVersion) {
    fail(fmt::format("format version {}, this build reads version {}", version,
                     kCheckpointFormatVersion));
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
  uint32_t stored = 0;
  std::memcpy(&stored, bytes.data() + bytes.size() - kTrailerBytes, 4);
  const uint32_t actual = crc_of(bytes.first(bytes.size() - kTrailerBytes));
  if (stored != actual) {
    fail(
        fmt::format("checksum mismatch (stored crc32 {:08x}, computed {:08x}): the file is corrupt",
                    stored, actual));
  }
  if (flags != 0) fail(fmt::format("unknown flags {:#x}", flags));
  Reader in(bytes.subspan(kHeaderBytes, body), source, kHeaderBytes);
  return read_body(in);
}

void write_checkpoint_file(const std::filesystem::path& path, const Checkpoint& checkpoint) {
  const std::vector<std::byte> bytes = encode_checkpoint(checkpoint);
  std::filesystem::create_directories(path.parent_path());
  const std::filesystem::path temp =
      path.parent_path() / fmt::format(".{}.tmp.{}", path.filename().string(), ::getpid());
  std::FILE* f = std::fopen(temp.c_str(), "wb");
  if (!f) throw std::runtime_error(fmt::format("cannot create {}", temp.string()));
  const bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size() &&
                  std::fflush(f) == 0 && ::fsync(::fileno(f)) == 0;
  if (std::fclose(f) != 0 || !ok) {
    std::error_code ec;
    std::filesystem::remove(temp, ec);
    throw std::runtime_error(fmt::format("cannot write {}", temp.string()));
  }
  std::filesystem::rename(temp, path);
}

Checkpoint read_checkpoint_file(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    throw InvalidArgument(
        fmt::format("checkpoint {}: not found or not a regular file", path.string()));
  }
  std::ifstream in(path, std::ios::binary);
  std::vector<char> data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw InvalidArgument(fmt::format("checkpoint {}: cannot be read", path.string()));
  return decode_checkpoint(std::as_bytes(std::span<const char>(data)), path.string());
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
