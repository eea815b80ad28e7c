#include "core/util/option_key.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <stdexcept>

namespace compopt {
namespace {

OptionKey make_key(std::string name, KeyKind kind, std::string fallback, std::string help) {
  OptionKey k;
  k.name = std::move(name);
  k.kind = kind;
  k.fallback = std::move(fallback);
  k.help = std::move(help);
  return k;
}

}  // namespace

OptionKey beta_key(std::string name, std::string fallback, std::string help) {
  return range_key(std::move(name), std::move(fallback), 0, 1, true, std::move(help));
}

OptionKey range_key(std::string name, std::string fallback, double lo, double hi, bool hi_open,
                    std::string help) {
  OptionKey k = make_key(std::move(name), KeyKind::kRange, std::move(fallback), std::move(help));
  k.lo = lo;
  k.hi = hi;
  k.hi_open = hi_open;
  return k;
}

OptionKey open_low_key(std::string name, std::string fallback, double lo, double hi,
                       std::string help) {
  OptionKey k = range_key(std::move(name), std::move(fallback), lo, hi, false, std::move(help));
  k.lo_open = true;
  return k;
}

OptionKey positive_key(std::string name, std::string fallback, std::string help) {
  return make_key(std::move(name), KeyKind::kPositive, std::move(fallback), std::move(help));
}

OptionKey non_negative_key(std::string name, std::string fallback, std::string help) {
  return make_key(std::move(name), KeyKind::kNonNegative, std::move(fallback), std::move(help));
}

OptionKey integer_key(std::string name, std::string fallback, int64_t min_value, std::string help) {
  OptionKey k = make_key(std::move(name), KeyKind::kInteger, std::move(fallback), std::move(help));
  k.lo = static_cast<double>(min_value);
  return k;
}

OptionKey flag_key(std::string name, std::string fallback, std::string help) {
  return make_key(std::move(name), KeyKind::kFlag, std::move(fallback), std::move(help));
}

OptionKey choice_key(std::string name, std::vector<std::string> choices, std::string help) {
  OptionKey k = make_key(std::move(name), KeyKind::kChoice, choices.front(), std::move(help));
  k.choices = std::move(choices);
  return k;
}

OptionKey text_key(std::string name, std::string fallback, std::string help) {
  return make_key(std::move(name), KeyKind::kText, std::move(fallback), std::move(help));
}

OptionKey compressor_key(std::string fallback, std::string help) {
  return make_key("compressor", KeyKind::kCompressor, std::move(fallback), std::move(help));
}

std::string describe_range(const OptionKey& key) {
  switch (key.kind) {
    case KeyKind::kRange:
      return fmt::format("{}{:g}, {:g}{}", key.lo_open ? "(" : "[", key.lo, key.hi,
                         key.hi_open ? ")" : "]");
    case KeyKind::kPositive:
      return "> 0";
    case KeyKind::kNonNegative:
      return ">= 0";
    case KeyKind::kInteger:
      return fmt::format("integer >= {:g}", key.lo);
    case KeyKind::kFlag:
      return "true|false";
    case KeyKind::kChoice:
      return fmt::format("{}", fmt::join(key.choices, "|"));
    case KeyKind::kText:
      return "text";
    case KeyKind::kCompressor:
      return "compressor spec";
  }
  return "";
}

std::string default_text(const OptionKey& key) {
  if (!key.fallback.empty()) return key.fallback;
  return key.kind == KeyKind::kInteger ? "required" : "none";
}

std::string markdown_escape(const std::string& text) {
  std::string out;
  for (const char ch : text) {
    if (ch == '|') out += '\\';
    out += ch;
  }
  return out;
}

std::string markdown_key(const OptionKey& key) {
  return markdown_escape(
      fmt::format("`{}` {} ({})", key.name, default_text(key), describe_range(key)));
}

std::string markdown_key_table(std::span<const OptionKey> keys, const std::string& prefix) {
  std::string out = "| key | default | accepted | meaning |\n|---|---|---|---|\n";
  for (const auto& k : keys) {
    out +=
        fmt::format("| `{}{}` | {} | {} | {} |\n", prefix, k.name, markdown_escape(default_text(k)),
                    markdown_escape(describe_range(k)), markdown_escape(k.help));
  }
  return out;
}

KeyReader::KeyReader(HyperParams& hp, std::span<const OptionKey> keys, std::string prefix)
    : hp_(hp), keys_(keys), prefix_(std::move(prefix)) {}

const OptionKey& KeyReader::spec(const std::string& name) const {
  for (const auto& k : keys_) {
    if (k.name == name) return k;
  }
  throw std::logic_error(hp_.context() + ": key '" + name + "' is read but not declared");
}

double KeyReader::number(const std::string& name) {
  const OptionKey& k = spec(name);
  const double fallback = std::stod(k.fallback);
  switch (k.kind) {
    case KeyKind::kRange: {
      const double v = hp_.number_in(full(name), fallback, k.lo, k.hi, k.hi_open);
      if (k.lo_open && v == k.lo) {
        hp_.fail("key '" + full(name) + "' = " + hp_.text(full(name), k.fallback) +
                 ", expected a number in " + describe_range(k));
      }
      return v;
    }
    case KeyKind::kPositive:
      return hp_.positive(full(name), fallback);
    case KeyKind::kNonNegative:
      return hp_.non_negative(full(name), fallback);
    default:
      throw std::logic_error(hp_.context() + ": key '" + name + "' is not a real number");
  }
}

std::optional<int64_t> KeyReader::optional_integer(const std::string& name) {
  const OptionKey& k = spec(name);
  if (k.kind != KeyKind::kInteger) {
    throw std::logic_error(hp_.context() + ": key '" + name + "' is not an integer");
  }
  const auto min_value = static_cast<int64_t>(k.lo);
  if (const auto v = hp_.optional_integer(full(name), min_value)) return v;
  size_t used = 0;
  int64_t fallback = 0;
  try {
    fallback = std::stoll(k.fallback, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != k.fallback.size()) return std::nullopt;
  return fallback;
}

int64_t KeyReader::integer(const std::string& name) {
  const auto v = optional_integer(name);
  if (!v) {
    hp_.fail("key '" + full(name) + "' is required: " + spec(name).help + ", an " +
             describe_range(spec(name)));
  }
  return *v;
}

bool KeyReader::flag(const std::string& name) {
  const OptionKey& k = spec(name);
  if (k.kind != KeyKind::kFlag) {
    throw std::logic_error(hp_.context() + ": key '" + name + "' is not a flag");
  }
  return hp_.flag(full(name), k.fallback == "true");
}

std::string KeyReader::text(const std::string& name) {
  const OptionKey& k = spec(name);
  if (k.kind == KeyKind::kChoice) return hp_.choice(full(name), k.fallback, k.choices);
  return hp_.text(full(name), k.fallback);
}

}  // namespace compopt
