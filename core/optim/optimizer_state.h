#pragma once
// OptimizerState: the full state of one rank's optimizer as a map of named
// tensors (fp32 moments, error feedback, ...) and named scalars (fp64: step,
// stage, coefficients, seed). Doubles hold integers up to 2^53 exactly.
// to_bytes()/from_bytes() give a self-describing little-endian blob, so a
// checkpoint restores bit-exactly.

#include <cstddef>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

namespace compopt {

struct OptimizerState {
  std::map<std::string, std::vector<float>> tensors;
  std::map<std::string, std::vector<double>> scalars;

  void put(const std::string& key, std::span<const float> values);
  void put_scalar(const std::string& key, double value);
  void put_scalars(const std::string& key, std::span<const double> values);

  bool has(const std::string& key) const { return tensors.count(key) || scalars.count(key); }
  // Throw InvalidArgument naming the key when it is missing or has another size.
  void get(const std::string& key, std::span<float> out) const;
  const std::vector<float>& tensor(const std::string& key) const;
  double scalar(const std::string& key) const;
  const std::vector<double>& scalar_list(const std::string& key) const;

  std::vector<std::byte> to_bytes() const;
  // Throws InvalidArgument on a truncated or foreign blob.
  static OptimizerState from_bytes(std::span<const std::byte> blob);

  friend bool operator==(const OptimizerState&, const OptimizerState&) = default;
};

}  // namespace compopt
