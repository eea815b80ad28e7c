#pragma once
// HyperParams: reads an optimizer's key/value configuration (strings, as given
// on a command line or in a config file) with validation. Every getter records
// the key as known; finish() rejects keys nobody asked for. All errors are
// InvalidArgument naming the context (optimizer name), the key, the bad value
// and the expected form.

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace compopt {

using HyperParamMap = std::map<std::string, std::string>;

class HyperParams {
 public:
  HyperParams(std::string context, HyperParamMap values);

  bool has(const std::string& key) const { return values_.count(key) != 0; }
  // Raw text (marks the key as known).
  std::optional<std::string> text(const std::string& key);
  std::string text(const std::string& key, const std::string& fallback);
  // One of `choices`.
  std::string choice(const std::string& key, const std::string& fallback,
                     const std::vector<std::string>& choices);
  // Finite real number.
  double number(const std::string& key, double fallback);
  // Real number in [lo, hi] (or [lo, hi) when hi_open).
  double number_in(const std::string& key, double fallback, double lo, double hi,
                   bool hi_open = false);
  // Exponential-average coefficient: [0, 1).
  double beta(const std::string& key, double fallback) {
    return number_in(key, fallback, 0, 1, true);
  }
  double non_negative(const std::string& key, double fallback);
  double positive(const std::string& key, double fallback);
  // Integer >= min_value.
  int64_t integer(const std::string& key, int64_t fallback, int64_t min_value);
  std::optional<int64_t> optional_integer(const std::string& key, int64_t min_value);
  // true/false/1/0/yes/no/on/off.
  bool flag(const std::string& key, bool fallback);

  // Throws for every key in the map no getter asked for.
  void finish() const;

  // The error type with the context prefix: "<context>: <message>".
  [[noreturn]] void fail(const std::string& message) const;
  const std::string& context() const { return context_; }

 private:
  std::string context_;
  HyperParamMap values_;
  std::set<std::string> known_;
};

}  // namespace compopt
