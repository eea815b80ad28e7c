// The one `--set key=value` grammar of train, sweep and profile: every value form, the key
// alias ranks_per_node -> gpus_per_node, and the bad forms.

#include "experiments/scenario/config_overrides.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/util/error.h"

namespace compopt::cli {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string error_of(const std::string& text) {
  try {
    ConfigOverride o(text, "run.steps=100");
    return "";
  } catch (const InvalidArgument& e) {
    return e.what();
  }
}

TEST(ConfigOverride, DottedKeyIsSplitAndTrimmed) {
  const ConfigOverride o(" cluster.preset = ethernet-v100-4 ", "x=1");
  EXPECT_THAT(o.path(), ElementsAre("cluster", "preset"));
  EXPECT_EQ(o.key(), "cluster.preset");
  EXPECT_EQ(o.text(), " cluster.preset = ethernet-v100-4 ");
  EXPECT_EQ(o.value().value<std::string>(), "ethernet-v100-4");
  EXPECT_EQ(o.value_text(), "ethernet-v100-4");
  EXPECT_EQ(ConfigOverride("o.lr = 1e-3 ", "").value_text(), "1e-3");
}

TEST(ConfigOverride, ValuesAreReadAsToml) {
  EXPECT_EQ(ConfigOverride("a.b=42", "").value().value<int64_t>(), 42);
  EXPECT_TRUE(ConfigOverride("a.b=42", "").value().is_integer());
  EXPECT_DOUBLE_EQ(*ConfigOverride("a.b=1e-3", "").value().value<double>(), 0.001);
  EXPECT_EQ(ConfigOverride("a.b=true", "").value().value<bool>(), true);
  EXPECT_EQ(ConfigOverride("a.b=\"4\"", "").value().value<std::string>(), "4");
  EXPECT_EQ(ConfigOverride("a.b='x y'", "").value().value<std::string>(), "x y");
  const ConfigOverride array("sweep.gpus=[8, 16]", "");
  const toml::array* gpus = array.value().as_array();
  ASSERT_NE(gpus, nullptr);
  ASSERT_EQ(gpus->size(), 2u);
  EXPECT_EQ((*gpus)[1].value<int64_t>(), 16);
}

TEST(ConfigOverride, BareCommaListIsAnArray) {
  const ConfigOverride numbers("task.hidden=256,128", "");
  const toml::array* hidden = numbers.value().as_array();
  ASSERT_NE(hidden, nullptr);
  ASSERT_EQ(hidden->size(), 2u);
  EXPECT_EQ((*hidden)[0].value<int64_t>(), 256);
  EXPECT_EQ((*hidden)[1].value<int64_t>(), 128);
  const ConfigOverride words("s.o=adam, onebit-adam", "");
  const toml::array* names = words.value().as_array();
  ASSERT_NE(names, nullptr);
  ASSERT_EQ(names->size(), 2u);
  EXPECT_EQ((*names)[0].value<std::string>(), "adam");
  EXPECT_EQ((*names)[1].value<std::string>(), "onebit-adam");
}

TEST(ConfigOverride, OtherTextIsAString) {
  EXPECT_EQ(ConfigOverride("o.freeze_step=10%", "").value().value<std::string>(), "10%");
  EXPECT_EQ(ConfigOverride("t.data_dir=/tmp/a b", "").value().value<std::string>(), "/tmp/a b");
  EXPECT_EQ(ConfigOverride("t.name=", "").value().value<std::string>(), "");
  // A date is no config value: the text as given.
  EXPECT_EQ(ConfigOverride("t.name=2024-01-02", "").value().value<std::string>(), "2024-01-02");
}

TEST(ConfigOverride, RanksPerNodeIsAnAliasOfGpusPerNode) {
  EXPECT_EQ(ConfigOverride("run.ranks_per_node=4", "").key(), "run.gpus_per_node");
  EXPECT_EQ(ConfigOverride("cluster.gpus_per_node=4", "").key(), "cluster.gpus_per_node");
  EXPECT_EQ(canonical_key_name("ranks_per_node"), "gpus_per_node");
  EXPECT_EQ(canonical_key_name("ranks"), "ranks");
}

TEST(ConfigOverride, BadFormsNameTheTextAndAnExample) {
  EXPECT_EQ(error_of("run.steps"), "--set 'run.steps': expected key=value, e.g. run.steps=100");
  EXPECT_THAT(error_of("=5"), HasSubstr("--set '=5': expected key=value"));
  EXPECT_THAT(error_of(" =5"), HasSubstr("expected key=value"));
  for (const char* bad : {"a..b=1", ".a=1", "a.=1"})
    EXPECT_THAT(error_of(bad), HasSubstr("has an empty name, expected key=value")) << bad;
}

TEST(ConfigOverride, ApplyCreatesTablesAndReplacesValues) {
  toml::table root;
  ConfigOverride("sweep.gpus=[8]", "").apply_to(root);
  ConfigOverride("sweep.gpus=16", "").apply_to(root);
  ConfigOverride("cluster.ranks_per_node=2", "").apply_to(root);
  EXPECT_EQ(root.at_path("sweep.gpus").value<int64_t>(), 16);
  EXPECT_EQ(root.at_path("cluster.gpus_per_node").value<int64_t>(), 2);
  try {
    ConfigOverride("sweep.gpus.x=1", "").apply_to(root);
    ADD_FAILURE() << "no exception";
  } catch (const InvalidArgument& e) {
    EXPECT_STREQ(e.what(), "--set 'sweep.gpus.x=1': 'gpus' is not a table");
  }
}

TEST(CanonicalizeKeys, RenamesAliasesAndRefusesBoth) {
  toml::table root = toml::parse("[run]\nranks_per_node = 4\n[cluster]\ngpus_per_node = 8\n");
  canonicalize_keys(root, "config file 'x'");
  EXPECT_EQ(root.at_path("run.gpus_per_node").value<int64_t>(), 4);
  EXPECT_FALSE(root.at_path("run.ranks_per_node"));
  EXPECT_EQ(root.at_path("cluster.gpus_per_node").value<int64_t>(), 8);
  toml::table both = toml::parse("[run]\nranks_per_node = 4\ngpus_per_node = 4\n");
  try {
    canonicalize_keys(both, "config file 'x'");
    ADD_FAILURE() << "no exception";
  } catch (const InvalidArgument& e) {
    EXPECT_THAT(e.what(), HasSubstr("config file 'x': keys 'ranks_per_node' and "
                                    "'gpus_per_node' name the same setting"));
  }
}

}  // namespace
}  // namespace compopt::cli
