#pragma once
// Registry: the one table of a concept's named entries (optimizers, compressors, tasks,
// backends, workloads, clusters, studies, comm-bench variants). An entry carries its
// canonical name, its aliases and a one-line help; the concept adds its builder and
// defaults by deriving from RegistryEntry. Lookups accept a name or an alias; an unknown
// name throws InvalidArgument listing what is expected, so every "expected one of ..."
// message, --help text and docs table comes from the same table.
//
// Entries keep their insertion order (the order --help and docs list them in). A
// registry is filled once (by the function that owns it, before first use) and is
// read-only afterwards; reads are thread-safe.

#include <algorithm>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/util/error.h"

namespace compopt {

struct RegistryEntry {
  std::string name;
  std::vector<std::string> aliases;
  std::string help;  // one line, no trailing period
};

template <typename Entry>
class Registry {
 public:
  // `kind` names the concept in messages: "optimizer", "compressor", ...
  explicit Registry(std::string kind) : kind_(std::move(kind)) {}

  // Adds an entry. Throws InvalidArgument when its name or an alias is empty or already
  // taken (a programming error caught by the registry tests).
  Registry& add(Entry entry) {
    check_free(entry.name);
    for (const auto& alias : entry.aliases) check_free(alias);
    entries_.push_back(std::move(entry));
    return *this;
  }

  // The entry for a name or alias, or nullptr.
  const Entry* find(std::string_view name) const {
    for (const auto& e : entries_) {
      if (e.name == name) return &e;
      if (std::find(e.aliases.begin(), e.aliases.end(), name) != e.aliases.end()) return &e;
    }
    return nullptr;
  }

  // The entry for a name or alias; throws InvalidArgument "unknown <kind> '<name>',
  // expected one of ..." otherwise.
  const Entry& get(std::string_view name) const {
    if (const Entry* e = find(name)) return *e;
    throw InvalidArgument("unknown " + kind_ + " '" + std::string(name) + "', expected " +
                          expected());
  }

  bool contains(std::string_view name) const { return find(name) != nullptr; }
  // The canonical name of a name or alias (throws like get()).
  const std::string& canonical(std::string_view name) const { return get(name).name; }

  // Canonical names in registration order.
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& e : entries_) out.push_back(e.name);
    return out;
  }

  // "one of a, b, c (aliases: x = a)" for error messages and help.
  std::string expected() const {
    std::string out = "one of ";
    std::string aliases;
    for (const auto& e : entries_) {
      out += (&e == &entries_.front() ? "" : ", ") + e.name;
      for (const auto& a : e.aliases) aliases += (aliases.empty() ? "" : ", ") + a + " = " + e.name;
    }
    return aliases.empty() ? out : out + " (aliases: " + aliases + ")";
  }

  // One "  name  help" line per entry, names padded to one column (for --help).
  std::string help_lines() const {
    size_t width = 0;
    for (const auto& e : entries_) width = std::max(width, e.name.size());
    std::string out;
    for (const auto& e : entries_) {
      out += "  " + e.name + std::string(width - e.name.size() + 2, ' ') + e.help + "\n";
    }
    return out;
  }

  const std::vector<Entry>& entries() const { return entries_; }
  const std::string& kind() const { return kind_; }

 private:
  void check_free(const std::string& name) const {
    if (name.empty()) throw InvalidArgument(kind_ + " registry: empty name");
    if (find(name) != nullptr) {
      throw InvalidArgument(kind_ + " registry: '" + name + "' registered twice");
    }
  }

  std::string kind_;
  std::vector<Entry> entries_;
};

}  // namespace compopt
