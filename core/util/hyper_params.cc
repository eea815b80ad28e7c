#include "core/util/hyper_params.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "core/util/error.h"

namespace compopt {

HyperParams::HyperParams(std::string context, HyperParamMap values)
    : context_(std::move(context)), values_(std::move(values)) {}

void HyperParams::fail(const std::string& message) const {
  throw InvalidArgument(context_ + ": " + message);
}

std::optional<std::string> HyperParams::text(const std::string& key) {
  known_.insert(key);
  auto it = values_.find(key);
  if (it == values_.end()) return std::nullopt;
  return it->second;
}

std::string HyperParams::text(const std::string& key, const std::string& fallback) {
  return text(key).value_or(fallback);
}

std::string HyperParams::choice(const std::string& key, const std::string& fallback,
                                const std::vector<std::string>& choices) {
  std::string value = text(key, fallback);
  std::string all;
  for (const auto& c : choices) {
    if (c == value) return value;
    all += (all.empty() ? "" : "|") + c;
  }
  fail("key '" + key + "' = '" + value + "', expected one of " + all);
}

double HyperParams::number(const std::string& key, double fallback) {
  const auto raw = text(key);
  if (!raw) return fallback;
  const char* begin = raw->c_str();
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(begin, &end);
  if (raw->empty() || end != begin + raw->size() || errno == ERANGE || !std::isfinite(v)) {
    fail("key '" + key + "' = '" + *raw + "' is not a finite number");
  }
  return v;
}

double HyperParams::number_in(const std::string& key, double fallback, double lo, double hi,
                              bool hi_open) {
  const double v = number(key, fallback);
  if (v < lo || v > hi || (hi_open && v == hi)) {
    fail("key '" + key + "' = " + text(key, "?") + " is out of range, expected a number in [" +
         std::to_string(lo) + ", " + std::to_string(hi) + (hi_open ? ")" : "]"));
  }
  return v;
}

double HyperParams::non_negative(const std::string& key, double fallback) {
  const double v = number(key, fallback);
  if (v < 0) fail("key '" + key + "' = " + text(key, "?") + " is negative, expected >= 0");
  return v;
}

double HyperParams::positive(const std::string& key, double fallback) {
  const double v = number(key, fallback);
  if (!(v > 0)) fail("key '" + key + "' = " + text(key, "?") + ", expected a number > 0");
  return v;
}

std::optional<int64_t> HyperParams::optional_integer(const std::string& key, int64_t min_value) {
  const auto raw = text(key);
  if (!raw) return std::nullopt;
  const char* begin = raw->c_str();
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(begin, &end, 10);
  if (raw->empty() || end != begin + raw->size() || errno == ERANGE) {
    fail("key '" + key + "' = '" + *raw + "' is not an integer");
  }
  if (v < min_value) {
    fail("key '" + key + "' = " + *raw + ", expected an integer >= " + std::to_string(min_value));
  }
  return static_cast<int64_t>(v);
}

int64_t HyperParams::integer(const std::string& key, int64_t fallback, int64_t min_value) {
  return optional_integer(key, min_value).value_or(fallback);
}

bool HyperParams::flag(const std::string& key, bool fallback) {
  const auto raw = text(key);
  if (!raw) return fallback;
  if (*raw == "true" || *raw == "1" || *raw == "yes" || *raw == "on") return true;
  if (*raw == "false" || *raw == "0" || *raw == "no" || *raw == "off") return false;
  fail("key '" + key + "' = '" + *raw + "', expected true|false|1|0|yes|no|on|off");
}

void HyperParams::finish() const {
  for (const auto& [key, value] : values_) {
    if (known_.count(key)) continue;
    std::string accepted;
    for (const auto& k : known_) accepted += (accepted.empty() ? "" : ", ") + k;
    fail("unknown key '" + key + "' (= '" + value + "'); accepted keys: " + accepted);
  }
}

}  // namespace compopt
