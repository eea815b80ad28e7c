// `compopt list <registry> [--markdown]`: prints the entries of a registry (workload presets,
// cluster presets, studies), one "name  help" line each, or as the Markdown table the docs
// hold. A utility for writing the docs, hidden from the top-level help.

#include <fmt/format.h>

#include "core/util/error.h"
#include "experiments/cli/commands.h"
#include "experiments/cli/registry_tables.h"

namespace compopt::cli {
namespace {

struct Options {
  std::string registry;
  bool markdown = false;
};

}  // namespace

void register_list_command(CLI::App& app) {
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand("list", "Print the entries of a registry");
  cmd->group("");  // hidden: a documentation utility
  cmd->add_option("registry", o->registry, registry_listings().expected())->required();
  cmd->add_flag("--markdown", o->markdown, "print the Markdown table of the docs");
  cmd->footer("Registries:\n" + registry_listings().help_lines());
  cmd->callback([o] {
    const RegistryListing& listing = registry_listings().get(o->registry);
    fmt::print("{}", o->markdown ? listing.markdown() : listing.lines());
  });
}

}  // namespace compopt::cli
