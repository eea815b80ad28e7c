// OptionKey / KeyReader: declared defaults and ranges are what reads use, the range texts the
// docs print, full key names (with prefix) in errors, and undeclared reads as logic errors.
#include "core/util/option_key.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "core/util/error.h"

namespace compopt {
namespace {

using ::testing::HasSubstr;

const std::vector<OptionKey>& keys() {
  static const std::vector<OptionKey> k = {
      beta_key("beta", "0.9", "coefficient"), open_low_key("threshold", "0.5", 0, 1, "threshold"),
      positive_key("eps", "1e-8", "guard"),   non_negative_key("decay", "0", "decay"),
      integer_key("tau", "4", 1, "period"),   integer_key("freeze", "", 1, "the warmup length"),
      flag_key("on", "true", "switch"),       choice_key("form", {"paper", "pytorch"}, "form"),
      text_key("dir", "/tmp/x", "directory")};
  return k;
}

std::string error_of(const HyperParamMap& values, void (*read)(KeyReader&)) {
  HyperParams hp("ctx", values);
  KeyReader r(hp, keys(), "p.");
  try {
    read(r);
  } catch (const InvalidArgument& e) {
    return e.what();
  }
  return "no error";
}

TEST(OptionKey, DescribesRangesAndDefaults) {
  const auto& k = keys();
  EXPECT_EQ(describe_range(k[0]), "[0, 1)");
  EXPECT_EQ(describe_range(k[1]), "(0, 1]");
  EXPECT_EQ(describe_range(k[2]), "> 0");
  EXPECT_EQ(describe_range(k[3]), ">= 0");
  EXPECT_EQ(describe_range(k[4]), "integer >= 1");
  EXPECT_EQ(describe_range(k[6]), "true|false");
  EXPECT_EQ(describe_range(k[7]), "paper|pytorch");
  EXPECT_EQ(default_text(k[5]), "required");
  EXPECT_EQ(default_text(k[7]), "paper");
  EXPECT_EQ(markdown_key(k[7]), "`form` paper (paper\\|pytorch)");
  EXPECT_EQ(markdown_key_table(std::span(k).first(1)),
            "| key | default | accepted | meaning |\n|---|---|---|---|\n"
            "| `beta` | 0.9 | [0, 1) | coefficient |\n");
}

TEST(KeyReader, ReadsDeclaredDefaultsAndGivenValues) {
  HyperParams hp("ctx", {{"p.tau", "7"}, {"p.form", "pytorch"}});
  KeyReader r(hp, keys(), "p.");
  EXPECT_EQ(r.number("beta"), 0.9);
  EXPECT_EQ(r.number("eps"), 1e-8);
  EXPECT_EQ(r.integer("tau"), 7);
  EXPECT_EQ(r.optional_integer("freeze"), std::nullopt);
  EXPECT_TRUE(r.flag("on"));
  EXPECT_EQ(r.text("form"), "pytorch");
  EXPECT_EQ(r.text("dir"), "/tmp/x");
  EXPECT_NO_THROW(hp.finish());
}

TEST(KeyReader, ErrorsNameTheFullKeyAndTheDeclaredRange) {
  EXPECT_THAT(error_of({{"p.beta", "1"}}, [](KeyReader& r) { r.number("beta"); }),
              HasSubstr("ctx: key 'p.beta' = 1 is out of range"));
  EXPECT_THAT(error_of({{"p.threshold", "0"}}, [](KeyReader& r) { r.number("threshold"); }),
              HasSubstr("key 'p.threshold' = 0, expected a number in (0, 1]"));
  EXPECT_THAT(error_of({}, [](KeyReader& r) { r.integer("freeze"); }),
              HasSubstr("key 'p.freeze' is required: the warmup length, an integer >= 1"));
  EXPECT_THAT(error_of({{"p.tau", "0"}}, [](KeyReader& r) { r.integer("tau"); }),
              HasSubstr("key 'p.tau' = 0, expected an integer >= 1"));
  EXPECT_THAT(error_of({{"p.form", "x"}}, [](KeyReader& r) { r.text("form"); }),
              HasSubstr("key 'p.form' = 'x', expected one of paper|pytorch"));
}

TEST(KeyReader, UndeclaredOrMistypedReadsAreProgrammingErrors) {
  HyperParams hp("ctx", {});
  KeyReader r(hp, keys());
  EXPECT_THROW(r.number("nope"), std::logic_error);
  EXPECT_THROW(r.number("tau"), std::logic_error);
  EXPECT_THROW(r.flag("beta"), std::logic_error);
}

}  // namespace
}  // namespace compopt
