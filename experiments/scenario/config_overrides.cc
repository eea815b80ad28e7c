#include "experiments/scenario/config_overrides.h"

#include <fmt/format.h>

#include <optional>
#include <utility>

#include "core/util/error.h"
#include "core/util/text.h"

namespace compopt::cli {
namespace {

// Key aliases -> canonical names (one list for every command's config keys).
const std::vector<std::pair<std::string_view, std::string_view>> kKeyAliases = {
    {"ranks_per_node", "gpus_per_node"},
};

// The tables a config may give by a preset's name instead (cluster_table.h: gpu = "H100" or
// a [cluster.gpu] table whose `preset` is the base). A dotted --set key into one given by name
// makes it the table {<name_key> = name} first, so the key changes that preset's values.
struct NamedTable {
  std::string_view path;
  std::string_view name_key;
};
constexpr NamedTable kNamedTables[] = {{"cluster.gpu", "preset"}};

const NamedTable* named_table(std::string_view path) {
  for (const NamedTable& t : kNamedTables)
    if (t.path == path) return &t;
  return nullptr;
}

std::string named_table_list() {
  std::string out;
  for (const NamedTable& t : kNamedTables) out += (out.empty() ? "" : ", ") + std::string(t.path);
  return out;
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

// One item of an array written with bare words: a TOML value (number, boolean, quoted
// string), else the word itself; nullopt for an empty item or one with brackets, quotes,
// braces, '=' or blanks, which no word holds.
std::optional<toml::table> array_item(const std::string& item) {
  if (auto parsed = toml_value(item)) return parsed;
  if (item.empty() || item.find_first_of("[]{}\"'= \t") != std::string::npos) return std::nullopt;
  toml::table holder;
  holder.insert("value", item);
  return holder;
}

// The items of `body` (the text between an array's brackets) split at the commas outside
// quotes, trimmed; a trailing comma ends the list. nullopt when a quote does not close.
std::optional<std::vector<std::string>> split_items(std::string_view body) {
  std::vector<std::string> items;
  std::string item;
  char quote = 0;
  for (size_t i = 0; i < body.size(); ++i) {
    const char c = body[i];
    if (quote == 0 && c == ',') {
      items.push_back(trim_blanks(item));
      item.clear();
      continue;
    }
    item += c;
    if (quote == '"' && c == '\\' && i + 1 < body.size()) {
      item += body[++i];
    } else if (quote == 0 && (c == '"' || c == '\'')) {
      quote = c;
    } else if (c == quote) {
      quote = 0;
    }
  }
  if (quote != 0) return std::nullopt;
  if (!trim_blanks(item).empty() || items.empty()) items.push_back(trim_blanks(item));
  return items;
}

// "[a, b, ...]" whose items may be bare words (not TOML, which quotes strings): the array of
// the items, or nullopt when the brackets or an item are malformed.
std::optional<toml::array> bracket_array(const std::string& text) {
  if (text.size() < 2 || text.front() != '[' || text.back() != ']') return std::nullopt;
  const auto items = split_items(std::string_view(text).substr(1, text.size() - 2));
  if (!items) return std::nullopt;
  toml::array array;
  for (const std::string& item : *items) {
    const auto parsed = array_item(item);
    if (!parsed) return std::nullopt;
    array.push_back(*parsed->get("value"));
  }
  return array;
}

// A bare comma list (no brackets): each item a TOML value, else its text.
toml::array comma_list(const std::string& text) {
  toml::array items;
  std::string::size_type start = 0;
  while (true) {
    const auto comma = text.find(',', start);
    const std::string item = trim_blanks(text.substr(start, comma - start));
    if (auto parsed = toml_value(item)) {
      items.push_back(*parsed->get("value"));
    } else {
      items.push_back(item);
    }
    if (comma == std::string::npos) return items;
    start = comma + 1;
  }
}

// {value = ...}: a TOML value, an array in brackets (bare words allowed), a bare comma list
// as an array, else the text as a string. A value in brackets that is no array throws,
// naming the --set `text` and its `key`.
toml::table parse_value(const std::string& value, const std::string& text, const std::string& key) {
  if (auto parsed = toml_value(value)) return *parsed;
  toml::table holder;
  if (!value.empty() && value.front() == '[') {
    auto array = bracket_array(value);
    if (!array) {
      throw InvalidArgument(fmt::format(
          "--set '{}': key '{}': '{}' is no array, expected [a, b, ...] whose items are numbers, "
          "true or false, words or quoted strings, separated by commas",
          text, key, value));
    }
    holder.insert("value", std::move(*array));
  } else if (value.find(',') != std::string::npos) {
    holder.insert("value", comma_list(value));
  } else {
    holder.insert("value", value);
  }
  return holder;
}

}  // namespace

ConfigOverride::ConfigOverride(const std::string& text, std::string_view example) : text_(text) {
  const auto eq = text.find('=');
  const std::string key = eq == std::string::npos ? std::string() : trim_blanks(text.substr(0, eq));
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
  value_text_ = trim_blanks(text.substr(eq + 1));
  holder_ = parse_value(value_text_, text_, this->key());
}

std::string ConfigOverride::key() const { return key_prefix(path_.size()); }

std::string ConfigOverride::key_prefix(size_t names) const {
  std::string out;
  for (size_t i = 0; i < names && i < path_.size(); ++i) out += (i == 0 ? "" : ".") + path_[i];
  return out;
}

// The table at path_[i] of `table`: created when absent, made from a preset's name where the
// config gives one by name (kNamedTables); throws when the name holds another value.
toml::table& ConfigOverride::table_on_path(toml::table& table, size_t i) const {
  const std::string& name = path_[i];
  if (!table.contains(name)) table.insert(name, toml::table{});
  toml::node& node = *table.get(name);
  const std::string prefix = key_prefix(i + 1);
  if (const NamedTable* named = named_table(prefix); named != nullptr && node.is_string()) {
    toml::table from_name;
    from_name.insert(named->name_key, *node.as_string());
    table.insert_or_assign(name, std::move(from_name));
    return *table.get(name)->as_table();
  }
  if (toml::table* t = node.as_table()) return *t;
  throw InvalidArgument(fmt::format(
      "--set '{}': '{}' is not a table ({} holds a value), so it has no key '{}'; a dotted key "
      "goes into a table, or into {} given by a preset's name",
      text_, name, prefix, path_[i + 1], named_table_list()));
}

void ConfigOverride::apply_to(toml::table& root) const {
  toml::table* table = &root;
  for (size_t i = 0; i + 1 < path_.size(); ++i) table = &table_on_path(*table, i);
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
