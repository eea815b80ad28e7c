#pragma once
// Typed reads of one TOML value of a config table ([workload], [cluster], [training], ...),
// each throwing InvalidArgument that names the key, where the value came from ("at line N"
// of the file or "from --set") and what was expected.

#include <toml++/toml.h>

#include <set>
#include <string>
#include <string_view>

namespace compopt::cli {

// "at line N" of the config, or "from --set" for a value an override inserted.
std::string where(const toml::node& node);

double number_of(const toml::node& node, const std::string& key);
int integer_of(const toml::node& node, const std::string& key);  // 0..INT_MAX
std::string text_of(const toml::node& node, const std::string& key);
bool bool_of(const toml::node& node, const std::string& key);

// The TOML document `text` read from `path`; a syntax error throws InvalidArgument
// "<what> '<path>': line L, column C: <description>".
toml::table parse_toml_document(std::string_view text, const std::string& path,
                                const std::string& what);

// Throws "unknown key '<prefix>.<key>', expected one of ..." for a key of `table` not in
// `known`.
void check_table_keys(const toml::table& table, const std::set<std::string>& known,
                      const std::string& prefix);

}  // namespace compopt::cli
