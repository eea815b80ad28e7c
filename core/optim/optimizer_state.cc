#include "core/optim/optimizer_state.h"

#include <cstring>

#include "core/util/error.h"

namespace compopt {
namespace {

constexpr uint32_t kMagic = 0x5453504fu;  // "OPST"
constexpr uint32_t kVersion = 1;

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
  std::vector<std::byte> take() { return std::move(out_); }

 private:
  std::vector<std::byte> out_;
};

class Reader {
 public:
  explicit Reader(std::span<const std::byte> in) : in_(in) {}
  template <typename T>
  T pod() {
    T v;
    raw(&v, sizeof(T));
    return v;
  }
  void raw(void* p, size_t n) {
    if (n > in_.size() - pos_) {
      throw InvalidArgument("OptimizerState::from_bytes: blob truncated at byte " +
                            std::to_string(pos_));
    }
    if (n != 0) std::memcpy(p, in_.data() + pos_, n);
    pos_ += n;
  }
  uint64_t count(size_t elem) {
    const auto n = pod<uint64_t>();
    if (elem != 0 && n > (in_.size() - pos_) / elem) {
      throw InvalidArgument("OptimizerState::from_bytes: entry length " + std::to_string(n) +
                            " exceeds the blob");
    }
    return n;
  }
  std::string str() {
    std::string s(count(1), '\0');
    raw(s.data(), s.size());
    return s;
  }
  bool done() const { return pos_ == in_.size(); }

 private:
  std::span<const std::byte> in_;
  size_t pos_ = 0;
};

}  // namespace

void OptimizerState::put(const std::string& key, std::span<const float> values) {
  tensors[key].assign(values.begin(), values.end());
}

void OptimizerState::put_scalar(const std::string& key, double value) { scalars[key] = {value}; }

void OptimizerState::put_scalars(const std::string& key, std::span<const double> values) {
  scalars[key].assign(values.begin(), values.end());
}

const std::vector<float>& OptimizerState::tensor(const std::string& key) const {
  auto it = tensors.find(key);
  if (it == tensors.end()) {
    throw InvalidArgument("optimizer state: missing tensor '" + key + "'");
  }
  return it->second;
}

void OptimizerState::get(const std::string& key, std::span<float> out) const {
  const auto& t = tensor(key);
  if (t.size() != out.size()) {
    throw InvalidArgument("optimizer state: tensor '" + key + "' has " + std::to_string(t.size()) +
                          " elements, expected " + std::to_string(out.size()));
  }
  std::copy(t.begin(), t.end(), out.begin());
}

const std::vector<double>& OptimizerState::scalar_list(const std::string& key) const {
  auto it = scalars.find(key);
  if (it == scalars.end()) {
    throw InvalidArgument("optimizer state: missing scalar '" + key + "'");
  }
  return it->second;
}

double OptimizerState::scalar(const std::string& key) const {
  const auto& s = scalar_list(key);
  if (s.size() != 1) {
    throw InvalidArgument("optimizer state: scalar '" + key + "' has " + std::to_string(s.size()) +
                          " values, expected 1");
  }
  return s[0];
}

std::vector<std::byte> OptimizerState::to_bytes() const {
  Writer w;
  w.pod(kMagic);
  w.pod(kVersion);
  w.pod<uint64_t>(tensors.size());
  for (const auto& [key, values] : tensors) {
    w.str(key);
    w.pod<uint64_t>(values.size());
    w.raw(values.data(), values.size() * sizeof(float));
  }
  w.pod<uint64_t>(scalars.size());
  for (const auto& [key, values] : scalars) {
    w.str(key);
    w.pod<uint64_t>(values.size());
    w.raw(values.data(), values.size() * sizeof(double));
  }
  return w.take();
}

OptimizerState OptimizerState::from_bytes(std::span<const std::byte> blob) {
  Reader r(blob);
  if (r.pod<uint32_t>() != kMagic) {
    throw InvalidArgument("OptimizerState::from_bytes: not an optimizer state blob (bad magic)");
  }
  if (const auto v = r.pod<uint32_t>(); v != kVersion) {
    throw InvalidArgument("OptimizerState::from_bytes: version " + std::to_string(v) +
                          ", expected " + std::to_string(kVersion));
  }
  OptimizerState state;
  for (uint64_t i = 0, n = r.count(1); i < n; ++i) {
    std::string key = r.str();
    std::vector<float> values(r.count(sizeof(float)));
    r.raw(values.data(), values.size() * sizeof(float));
    state.tensors.emplace(std::move(key), std::move(values));
  }
  for (uint64_t i = 0, n = r.count(1); i < n; ++i) {
    std::string key = r.str();
    std::vector<double> values(r.count(sizeof(double)));
    r.raw(values.data(), values.size() * sizeof(double));
    state.scalars.emplace(std::move(key), std::move(values));
  }
  if (!r.done()) throw InvalidArgument("OptimizerState::from_bytes: trailing bytes after state");
  return state;
}

}  // namespace compopt
