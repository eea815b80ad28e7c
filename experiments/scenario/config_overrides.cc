#include "experiments/scenario/config_overrides.h"

#include <fmt/format.h>

#include <optional>
#include <utility>

#include "core/util/error.h"

namespace compopt::cli {
namespace {

// Key aliases -> canonical names (one list for every command's config keys).
const std::vector<std::pair<std::string_view, std::string_view>> kKeyAliases = {
    {"ranks_per_node", "gpus_per_node"},
};

std::string trim(std::string_view s) {
  const auto b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
  return b == std::string_view::npos ? std::string() : std::string(s.substr(b, e - b + 1));
}

// The TOML value of `text`, or nullopt when it is not one. Dates and inline tables are
// not config values: they stay text.
std::optional<toml::table> toml_value(const std::string& text) {
  try {
    toml::table parsed = toml::parse("value = " + text);
    const toml::node* v = parsed.get("value");
    if (v == nullptr || v->is_table() || v->is_date() || v->is_time() || v->is_date_time())
      return std::nullopt;
    return parsed;
  } catch (const toml::parse_error&) {
    return std::nullopt;
  }
}

// {value = ...}: a TOML value, a bare comma list as an array, else the text as a string.
toml::table parse_value(const std::string& text) {
  if (auto parsed = toml_value(text)) return *parsed;
  toml::table holder;
  if (text.find(',') == std::string::npos) {
    holder.insert("value", text);
    return holder;
  }
  toml::array items;
  std::string::size_type start = 0;
  while (true) {
    const auto comma = text.find(',', start);
    const std::string item = trim(text.substr(start, comma - start));
    if (auto parsed = toml_value(item)) {
      items.push_back(*parsed->get("value"));
    } else {
      items.push_back(item);
    }
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  holder.insert("value", std::move(items));
  return holder;
}

}  // namespace

ConfigOverride::ConfigOverride(const std::string& text, std::string_view example) : text_(text) {
  const auto eq = text.find('=');
  const std::string key = eq == std::string::npos ? std::string() : trim(text.substr(0, eq));
  if (key.empty()) {
    throw InvalidArgument(fmt::format("--set '{}': expected key=value, e.g. {}", text, example));
  }
  std::string::size_type start = 0;
  while (true) {
    const auto dot = key.find('.', start);
    const std::string name = key.substr(start, dot - start);
    if (name.empty()) {
      throw InvalidArgument(
          fmt::format("--set '{}': key '{}' has an empty name, expected key=value, e.g. {}", text,
                      key, example));
    }
    path_.emplace_back(canonical_key_name(name));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  value_text_ = trim(text.substr(eq + 1));
  holder_ = parse_value(value_text_);
}

std::string ConfigOverride::key() const {
  std::string out;
  for (const auto& name : path_) out += (out.empty() ? "" : ".") + name;
  return out;
}

void ConfigOverride::apply_to(toml::table& root) const {
  toml::table* table = &root;
  for (size_t i = 0; i + 1 < path_.size(); ++i) {
    if (!table->contains(path_[i])) table->insert(path_[i], toml::table{});
    table = (*table)[path_[i]].as_table();
    if (table == nullptr) {
      throw InvalidArgument(fmt::format("--set '{}': '{}' is not a table", text_, path_[i]));
    }
  }
  table->insert_or_assign(path_.back(), value());
}

std::string_view canonical_key_name(std::string_view name) {
  for (const auto& [alias, canonical] : kKeyAliases)
    if (name == alias) return canonical;
  return name;
}

void canonicalize_keys(toml::table& root, const std::string& source) {
  for (auto& [key, node] : root)
    if (toml::table* t = node.as_table()) canonicalize_keys(*t, source);
  for (const auto& [alias, canonical] : kKeyAliases) {
    toml::node* value = root.get(alias);
    if (value == nullptr) continue;
    if (root.contains(canonical)) {
      throw InvalidArgument(fmt::format(
          "{}: keys '{}' and '{}' name the same setting ({} is an alias), give one of them", source,
          alias, canonical, alias));
    }
    root.insert(canonical, *value);
    root.erase(alias);
  }
}

}  // namespace compopt::cli
