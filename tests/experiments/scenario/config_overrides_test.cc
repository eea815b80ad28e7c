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

// The items of a value in brackets, as (kind, text) pairs: the array the --set reads.
std::vector<std::string> items_of(const std::string& text) {
  const ConfigOverride o(text, "");
  const toml::array* array = o.value().as_array();
  if (array == nullptr) return {"not an array"};
  std::vector<std::string> out;
  for (const toml::node& item : *array) {
    if (item.is_string()) out.push_back("string " + *item.value<std::string>());
    if (item.is_integer()) out.push_back("integer " + std::to_string(*item.value<int64_t>()));
    if (item.is_floating_point()) out.push_back("float " + std::to_string(*item.value<double>()));
    if (item.is_boolean()) out.push_back(*item.value<bool>() ? "bool true" : "bool false");
  }
  return out;
}

TEST(ConfigOverride, BracketArraysMayHoldBareWords) {
  for (const char* text :
       {"sweep.optimizers=[adam,onebit-adam]", "sweep.optimizers=[adam, onebit-adam]",
        "sweep.optimizers=[ adam , onebit-adam, ]", "sweep.optimizers=[\"adam\", onebit-adam]",
        "sweep.optimizers=['adam','onebit-adam']"}) {
    EXPECT_THAT(items_of(text), ElementsAre("string adam", "string onebit-adam")) << text;
  }
  EXPECT_THAT(items_of("s.x=[8, 16.5, true, off, \"a,b\", 'c]d']"),
              ElementsAre("integer 8", "float 16.500000", "bool true", "string off", "string a,b",
                          "string c]d"));
  EXPECT_THAT(items_of("s.x=[]"), ElementsAre());
  EXPECT_THAT(items_of("s.x=[fat-tree]"), ElementsAre("string fat-tree"));
}

TEST(ConfigOverride, MalformedBracketArraysNameTheKey) {
  for (const char* value : {"[adam", "[adam,,birder]", "[,]", "[adam onebit-adam]", "[\"adam]",
                            "[[adam], b]", "[a=b]", "[adam]]"}) {
    const std::string text = std::string("sweep.optimizers=") + value;
    EXPECT_EQ(error_of(text),
              "--set '" + text + "': key 'sweep.optimizers': '" + value +
                  "' is no array, expected [a, b, ...] whose items are numbers, true or false, "
                  "words or quoted strings, separated by commas")
        << text;
  }
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
    EXPECT_STREQ(e.what(),
                 "--set 'sweep.gpus.x=1': 'gpus' is not a table (sweep.gpus holds a value), so "
                 "it has no key 'x'; a dotted key goes into a table, or into cluster.gpu given by "
                 "a preset's name");
  }
}

TEST(ConfigOverride, DottedKeyIntoATableGivenByName) {
  // gpu = "H100" names a preset: a key under it makes the table that preset's, one field changed.
  toml::table root = toml::parse("[cluster]\npreset = \"dgx-h100\"\ngpu = \"H100\"\n");
  ConfigOverride("cluster.gpu.max_utilization=0.4", "").apply_to(root);
  ConfigOverride("cluster.gpu.hbm_gb=40", "").apply_to(root);
  EXPECT_EQ(root.at_path("cluster.gpu.preset").value<std::string>(), "H100");
  EXPECT_DOUBLE_EQ(*root.at_path("cluster.gpu.max_utilization").value<double>(), 0.4);
  EXPECT_EQ(root.at_path("cluster.gpu.hbm_gb").value<int64_t>(), 40);
  EXPECT_EQ(root.at_path("cluster.gpu").as_table()->size(), 3u);
  // A whole value replaces the table again; other names holding a value are refused.
  ConfigOverride("cluster.gpu=A100", "").apply_to(root);
  EXPECT_EQ(root.at_path("cluster.gpu").value<std::string>(), "A100");
  for (const char* text : {"cluster.preset.nodes=2", "cluster.gpu.preset.x=1"}) {
    try {
      ConfigOverride(text, "").apply_to(root);
      ADD_FAILURE() << "no exception for " << text;
    } catch (const InvalidArgument& e) {
      EXPECT_THAT(e.what(), HasSubstr("holds a value), so it has no key")) << text;
    }
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
