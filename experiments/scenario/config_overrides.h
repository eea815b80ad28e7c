#pragma once
// ConfigOverride: one `--set key=value` of a command that takes a config (train, sweep,
// profile). One grammar for all of them:
//   key    dotted names, e.g. run.steps or cluster.gpus_per_node (no empty name)
//   value  read as a TOML value: numbers, booleans, "quoted" or 'quoted' strings, arrays
//          such as [8,16]; an array in brackets may hold bare words ([adam, onebit-adam]);
//          a bare comma list (256,256 or adam,onebit-adam) is an array of such items;
//          anything else (an unquoted word, 10%, nothing) is the text as given. A value in
//          brackets that is no array ([adam, or [a,,b]) throws InvalidArgument naming the key.
// Key aliases: `ranks_per_node` names `gpus_per_node` (in the simulator every rank is a
// GPU); the canonical name replaces the alias in --set keys and config files alike.
// A bad form throws InvalidArgument "--set '<text>': expected key=value, e.g. <example>".

#include <toml++/toml.h>

#include <string>
#include <string_view>
#include <vector>

namespace compopt::cli {

class ConfigOverride {
 public:
  // Parses "key=value"; `example` completes the message of a bad form (e.g. run.steps=100).
  ConfigOverride(const std::string& text, std::string_view example);

  const std::string& text() const { return text_; }               // as given
  const std::vector<std::string>& path() const { return path_; }  // canonical key names
  std::string key() const;                                        // path joined by '.'
  const toml::node& value() const { return *holder_.get("value"); }
  const std::string& value_text() const { return value_text_; }  // after '=', trimmed

  // Writes the value into `root`, creating the tables on the path. A table the config gives
  // by a preset's name (cluster.gpu = "H100") becomes that preset's table first ({preset =
  // "H100"}), so cluster.gpu.max_utilization=0.4 changes one field of the H100. Throws
  // InvalidArgument when another name on the path holds a value.
  void apply_to(toml::table& root) const;

 private:
  std::string key_prefix(size_t names) const;  // the first `names` names joined by '.'
  toml::table& table_on_path(toml::table& table, size_t i) const;

  std::string text_;
  std::vector<std::string> path_;
  std::string value_text_;
  toml::table holder_;  // {value = <the parsed value>}
};

// The canonical name of one key name: gpus_per_node for ranks_per_node, else the name.
std::string_view canonical_key_name(std::string_view name);

// Renames aliased keys of every table in `root` to their canonical names. Throws
// InvalidArgument naming both keys when a table holds a key and its alias; `source` starts
// that message (e.g. "config file 'x.toml'").
void canonicalize_keys(toml::table& root, const std::string& source);

}  // namespace compopt::cli
