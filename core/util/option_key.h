#pragma once
// OptionKey: one declared configuration key of a registry entry (an optimizer's or a
// task's): its name, kind, default and range. KeyReader reads keys through HyperParams
// using only these declarations, so the defaults and ranges that validate input are the
// ones the docs tables print (describe_range, default_text).
//
// Reading a key that the entry did not declare is a programming error (std::logic_error),
// caught by the tests that build every entry.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/util/hyper_params.h"

namespace compopt {

enum class KeyKind {
  kRange,        // real number in [lo, hi] or [lo, hi) when hi_open
  kPositive,     // real number > 0
  kNonNegative,  // real number >= 0
  kInteger,      // integer >= lo
  kFlag,         // true/false
  kChoice,       // one of choices
  kText,         // free text (a path, a list)
  kCompressor,   // a compressor spec, validated by its reader (core/compress/compressor.h)
};

struct OptionKey {
  std::string name;
  KeyKind kind = KeyKind::kRange;
  std::string fallback;  // default as text; empty: required (integers) or none
  std::string help;      // one line, no trailing period
  double lo = 0, hi = 0;
  bool lo_open = false, hi_open = false;
  std::vector<std::string> choices;
};

// Helpers that keep the tables short.
OptionKey beta_key(std::string name, std::string fallback, std::string help);
OptionKey range_key(std::string name, std::string fallback, double lo, double hi, bool hi_open,
                    std::string help);
// A real number in (lo, hi].
OptionKey open_low_key(std::string name, std::string fallback, double lo, double hi,
                       std::string help);
OptionKey positive_key(std::string name, std::string fallback, std::string help);
OptionKey non_negative_key(std::string name, std::string fallback, std::string help);
OptionKey integer_key(std::string name, std::string fallback, int64_t min_value, std::string help);
OptionKey flag_key(std::string name, std::string fallback, std::string help);
OptionKey choice_key(std::string name, std::vector<std::string> choices, std::string help);
OptionKey text_key(std::string name, std::string fallback, std::string help);
OptionKey compressor_key(std::string fallback, std::string help);

// "[0, 1)", "> 0", "integer >= 1", "paper|pytorch", ... for docs and help.
std::string describe_range(const OptionKey& key);
// The default for docs: the fallback, or "required" / "none" when empty.
std::string default_text(const OptionKey& key);

// "`name` default (range)" with '|' escaped, for one cell of a markdown table.
std::string markdown_key(const OptionKey& key);
// A markdown table "| key | default | accepted | meaning |" of `keys`, one row each.
std::string markdown_key_table(std::span<const OptionKey> keys, const std::string& prefix = "");
// Escapes '|' so that text fits in a markdown table cell.
std::string markdown_escape(const std::string& text);

class KeyReader {
 public:
  // `prefix` is prepended to every key name (a task's "task." keys); keys outlive the reader.
  KeyReader(HyperParams& hp, std::span<const OptionKey> keys, std::string prefix = "");

  double number(const std::string& name);
  int64_t integer(const std::string& name);
  // The integer, or nullopt when absent and the key has no numeric default.
  std::optional<int64_t> optional_integer(const std::string& name);
  bool flag(const std::string& name);
  std::string text(const std::string& name);  // kText, kChoice and kCompressor keys
  bool has(const std::string& name) const { return hp_.has(prefix_ + name); }

  HyperParams& params() { return hp_; }
  // The full key as the user writes it (prefix + name).
  std::string full(const std::string& name) const { return prefix_ + name; }

 private:
  const OptionKey& spec(const std::string& name) const;

  HyperParams& hp_;
  std::span<const OptionKey> keys_;
  std::string prefix_;
};

}  // namespace compopt
