#include "experiments/scenario/toml_values.h"

#include <fmt/format.h>

#include <climits>

#include "core/util/error.h"

namespace compopt::cli {

std::string where(const toml::node& node) {
  const auto line = node.source().begin.line;
  return line > 0 ? fmt::format("at line {}", line) : std::string("from --set");
}

double number_of(const toml::node& node, const std::string& key) {
  if (const auto v = node.value<double>(); v && !node.is_array()) return *v;
  throw InvalidArgument(fmt::format("{} {}: expected a number", key, where(node)));
}

int integer_of(const toml::node& node, const std::string& key) {
  const auto v = node.value<int64_t>();
  if (!v || !node.is_integer() || *v < 0 || *v > INT_MAX) {
    throw InvalidArgument(
        fmt::format("{} {}: expected an integer in 0..{}", key, where(node), INT_MAX));
  }
  return static_cast<int>(*v);
}

std::string text_of(const toml::node& node, const std::string& key) {
  if (const auto v = node.value<std::string>(); v && node.is_string()) return *v;
  throw InvalidArgument(fmt::format("{} {}: expected a string", key, where(node)));
}

bool bool_of(const toml::node& node, const std::string& key) {
  if (const auto v = node.value<bool>(); v && node.is_boolean()) return *v;
  throw InvalidArgument(fmt::format("{} {}: expected true or false", key, where(node)));
}

void check_table_keys(const toml::table& table, const std::set<std::string>& known,
                      const std::string& prefix) {
  for (const auto& [key, node] : table) {
    if (!known.count(std::string(key.str()))) {
      std::string list;
      for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
      throw InvalidArgument(
          fmt::format("unknown key '{}.{}', expected one of {}", prefix, key.str(), list));
    }
  }
}

toml::table parse_toml_document(std::string_view text, const std::string& path,
                                const std::string& what) {
  try {
    return toml::parse(text, path);
  } catch (const toml::parse_error& e) {
    throw InvalidArgument(fmt::format("{} '{}': line {}, column {}: {}", what, path,
                                      e.source().begin.line, e.source().begin.column,
                                      e.description()));
  }
}

}  // namespace compopt::cli
