#include "core/optim/optimizer_state.h"

#include "core/util/byte_codec.h"
#include "core/util/error.h"

namespace compopt {
namespace {

constexpr uint32_t kMagic = 0x5453504fu;  // "OPST"
constexpr uint32_t kVersion = 1;

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
  ByteWriter w;
  w.put(kMagic);
  w.put(kVersion);
  w.put<uint64_t>(tensors.size());
  for (const auto& [key, values] : tensors) {
    w.put_string(key);
    w.put_array<float>(values);
  }
  w.put<uint64_t>(scalars.size());
  for (const auto& [key, values] : scalars) {
    w.put_string(key);
    w.put_array<double>(values);
  }
  return w.take();
}

OptimizerState OptimizerState::from_bytes(std::span<const std::byte> blob) {
  ByteReader r(blob, "OptimizerState::from_bytes: blob");
  if (r.get<uint32_t>() != kMagic) {
    throw InvalidArgument("OptimizerState::from_bytes: not an optimizer state blob (bad magic)");
  }
  if (const auto v = r.get<uint32_t>(); v != kVersion) {
    throw InvalidArgument("OptimizerState::from_bytes: version " + std::to_string(v) +
                          ", expected " + std::to_string(kVersion));
  }
  OptimizerState state;
  for (uint64_t i = 0, n = r.get_count(1); i < n; ++i) {
    std::string key = r.get_string();
    state.tensors.emplace(std::move(key), r.get_array<float>());
  }
  for (uint64_t i = 0, n = r.get_count(1); i < n; ++i) {
    std::string key = r.get_string();
    state.scalars.emplace(std::move(key), r.get_array<double>());
  }
  if (!r.done()) r.fail("trailing bytes after the state");
  return state;
}

}  // namespace compopt
