#include "core/util/registry.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace compopt {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

struct ColourEntry : RegistryEntry {
  int value = 0;
};

Registry<ColourEntry> colours() {
  Registry<ColourEntry> r("colour");
  r.add({{"red", {"r"}, "the first"}, 1}).add({{"green", {}, "the second"}, 2});
  r.add({{"blue", {"b", "azure"}, "the third"}, 3});
  return r;
}

TEST(Registry, FindsNamesAndAliasesInOrder) {
  const auto r = colours();
  EXPECT_EQ(r.get("red").value, 1);
  EXPECT_EQ(r.get("r").value, 1);
  EXPECT_EQ(r.get("azure").value, 3);
  EXPECT_EQ(r.canonical("b"), "blue");
  EXPECT_EQ(r.find("purple"), nullptr);
  EXPECT_FALSE(r.contains("Red"));  // names are case-sensitive
  EXPECT_THAT(r.names(), ElementsAre("red", "green", "blue"));
}

TEST(Registry, UnknownNameListsWhatIsExpected) {
  try {
    colours().get("purple");
    FAIL() << "no exception";
  } catch (const InvalidArgument& e) {
    EXPECT_STREQ(e.what(),
                 "unknown colour 'purple', expected one of red, green, blue "
                 "(aliases: r = red, b = blue, azure = blue)");
  }
}

TEST(Registry, RefusesDuplicateAndEmptyNames) {
  auto r = colours();
  EXPECT_THROW(r.add({{"red", {}, ""}, 9}), InvalidArgument);
  EXPECT_THROW(r.add({{"cyan", {"b"}, ""}, 9}), InvalidArgument);  // alias taken
  EXPECT_THROW(r.add({{"", {}, ""}, 9}), InvalidArgument);
  EXPECT_EQ(r.names().size(), 3u);
}

TEST(Registry, HelpLinesAlignNames) {
  EXPECT_EQ(colours().help_lines(),
            "  red    the first\n"
            "  green  the second\n"
            "  blue   the third\n");
}

}  // namespace
}  // namespace compopt
