// The registries' listings: `compopt list` text and the Markdown tables the docs hold. The
// docs must contain exactly the generated tables (regenerate them with
// `compopt list <registry> --markdown` when a preset or study changes).

#include "experiments/cli/registry_tables.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/optim/optimizer_registry.h"
#include "core/util/error.h"

namespace compopt::cli {
namespace {

using ::testing::HasSubstr;

std::string read_doc(const std::string& name) {
  const auto path = std::filesystem::path(COMPOPT_SOURCE_DIR) / "docs" / name;
  std::ifstream in(path);
  EXPECT_TRUE(in) << path;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// `table` appears in `doc` as a whole table: no row of the docs before or after it.
bool holds_table(const std::string& doc, const std::string& table) {
  const auto pos = doc.find(table);
  if (pos == std::string::npos) return false;
  const bool starts = pos == 0 || (pos >= 2 && doc.compare(pos - 2, 2, "\n\n") == 0);
  const auto end = pos + table.size();
  return starts && (end == doc.size() || doc[end] != '|');
}

TEST(RegistryTables, HoldsTableRefusesPartsAndExtraRows) {
  const std::string table = "| a |\n|---|\n| 1 |\n";
  EXPECT_TRUE(holds_table("text\n\n" + table + "\nmore", table));
  EXPECT_FALSE(holds_table("text\n\n" + table + "| 2 |\n", table));
  EXPECT_FALSE(holds_table("text\n| 0 |\n" + table, table));
  EXPECT_FALSE(holds_table("text\n\n| a |\n|---|\n| 2 |\n", table));
}

TEST(RegistryTables, ListsEveryDocumentedRegistry) {
  EXPECT_EQ(registry_listings().names(),
            (std::vector<std::string>{"workloads", "clusters", "gpus", "implementations", "studies",
                                      "optimizers", "optimizer-stages"}));
  // The optimizer listings print the very tables docs/optimizers.md must carry.
  EXPECT_EQ(registry_listings().get("optimizer-stages").markdown(),
            optimizer_stage_table_markdown());
  EXPECT_EQ(registry_listings().get("optimizers").markdown(), optimizer_table_markdown());
  EXPECT_THROW(registry_listings().get("optimizerz"), InvalidArgument);
}

TEST(RegistryTables, WorkloadTableHasOneRowPerPresetWithItsFigures) {
  const std::string md = registry_listings().get("workloads").markdown();
  EXPECT_THAT(md, HasSubstr("| preset | aliases | parameters | layers | tensors |"));
  EXPECT_THAT(md, HasSubstr("| `bert-large-seq128` | `bert-large` | 340.0 M | 24 | 398 | 78.9 | "
                            "fp16 | fp16 | 16 |"));
  EXPECT_THAT(md, HasSubstr("| `resnet50-imagenet` | `resnet50` | 25.6 M | 54 | 161 | 7.6 | tf32 | "
                            "fp32 | 32 |"));
  EXPECT_EQ(std::count(md.begin(), md.end(), '\n'), 2 + 10);  // header, rule, 10 presets
}

// One row per implementation profile, with the collectives its compressed allreduce is issued as.
TEST(RegistryTables, ImplementationTableNamesEachProfilesCollectives) {
  const std::string md = registry_listings().get("implementations").markdown();
  EXPECT_THAT(md, HasSubstr("| `deepspeed-2020` | `deepspeed` |"));
  EXPECT_THAT(md, HasSubstr("| 5e+08 elements | 0 | `deepspeed-mpi` |"));
  EXPECT_THAT(md, HasSubstr("| 5e+08 elements | 0 | `deepspeed-nccl` |"));
  EXPECT_THAT(md, HasSubstr("| 25 MiB | 0 | `torch-nccl` |"));
  EXPECT_THAT(md, HasSubstr("| `zero-3` | `fsdp` |"));
  EXPECT_EQ(std::count(md.begin(), md.end(), '\n'), 2 + 7);  // header, rule, 7 profiles
}

TEST(RegistryTables, ClusterAndStudyTables) {
  const std::string clusters = registry_listings().get("clusters").markdown();
  EXPECT_THAT(clusters,
              HasSubstr("| `infiniband-v100-8` | V100-32GB | 8 | 8 | 1200 | 100 | star |"));
  EXPECT_THAT(clusters, HasSubstr("| `ethernet-a100-8` | A100-80GB | 8 | 8 | 2400 | 10 | star |"));
  const std::string gpus = registry_listings().get("gpus").markdown();
  EXPECT_THAT(gpus, HasSubstr("| `H100` | `H100-SXM` | 67 | 494.7 | 989.4 | 989.4 | 1978.9 | 80 | "
                              "3350 |"));
  const std::string studies = registry_listings().get("studies").markdown();
  EXPECT_THAT(studies, HasSubstr("| `break_even` | Break-even bandwidth of compression |"));
  EXPECT_EQ(std::count(studies.begin(), studies.end(), '\n'), 2 + 12);
  EXPECT_THAT(registry_listings().get("studies").lines(), HasSubstr("  variance "));
}

TEST(RegistryTables, DocsHoldExactlyTheGeneratedTables) {
  const std::string simulator = read_doc("simulator.md");
  EXPECT_TRUE(holds_table(simulator, registry_listings().get("workloads").markdown()))
      << "docs/simulator.md: paste `compopt list workloads --markdown`";
  EXPECT_TRUE(holds_table(simulator, registry_listings().get("clusters").markdown()))
      << "docs/simulator.md: paste `compopt list clusters --markdown`";
  EXPECT_TRUE(holds_table(read_doc("whatif.md"), registry_listings().get("gpus").markdown()))
      << "docs/whatif.md: paste `compopt list gpus --markdown`";
  EXPECT_TRUE(
      holds_table(read_doc("reproduction.md"), registry_listings().get("studies").markdown()))
      << "docs/reproduction.md: paste `compopt list studies --markdown`";
  EXPECT_TRUE(holds_table(read_doc("implementations.md"),
                          registry_listings().get("implementations").markdown()))
      << "docs/implementations.md: paste `compopt list implementations --markdown`";
}

}  // namespace
}  // namespace compopt::cli
