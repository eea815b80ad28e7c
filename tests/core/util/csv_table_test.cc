// CsvTable: comments and quoting as in data/published/, and every malformed input
// rejected with a message that names the source, the line and the bad value.

#include "core/util/csv_table.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "core/util/error.h"

namespace compopt {
namespace {

using ::testing::HasSubstr;

std::string error_of(std::string_view text, std::string_view column = "a") {
  try {
    const CsvTable t(text, "x.csv");
    (void)t.number(0, column);
  } catch (const InvalidArgument& e) {
    return e.what();
  }
  return "";
}

TEST(CsvTable, SkipsCommentsAndBlankLinesAndReadsQuotedFields) {
  const CsvTable t(
      "# source line, with a comma\n"
      "\n"
      "name,link,gbps\r\n"
      "# a comment between rows\n"
      "eth,\"PCIe, \"\"NVLink\"\"\",4.1\n"
      "ib,EDR,100\n",
      "x.csv");
  ASSERT_EQ(t.rows(), 2u);
  EXPECT_EQ(t.header(), (std::vector<std::string>{"name", "link", "gbps"}));
  EXPECT_EQ(t.text(0, "link"), "PCIe, \"NVLink\"");
  EXPECT_EQ(t.number(0, "gbps"), 4.1);
  EXPECT_EQ(t.integer(1, "gbps"), 100);
  EXPECT_EQ(t.text(1, "name"), "ib");
  EXPECT_EQ(t.column("gbps"), 2u);
}

TEST(CsvTable, RejectsMalformedText) {
  EXPECT_THAT(error_of("# only a comment\n"), HasSubstr("x.csv: no header line"));
  EXPECT_THAT(error_of("a,b\n1,2,3\n"), HasSubstr("x.csv line 2: 3 fields, expected 2"));
  EXPECT_THAT(error_of("a,b\n\"1,2\n"), HasSubstr("x.csv line 2: unterminated quoted field"));
  EXPECT_THAT(error_of("a\n1.5x\n"), HasSubstr("x.csv line 2: a = '1.5x', expected a finite"));
  EXPECT_THAT(error_of("a\ninf\n"), HasSubstr("a = 'inf', expected a finite number"));
  EXPECT_THAT(error_of("a,b\n1,2\n", "c"), HasSubstr("no column 'c', expected one of a, b"));
  EXPECT_THAT(error_of("a\n"), HasSubstr("x.csv: row 0 of 0"));
  const CsvTable t("n\n2.5\n", "x.csv");
  EXPECT_THROW((void)t.integer(0, "n"), InvalidArgument);
}

TEST(CsvTable, EmptyCellsAreAbsentValues) {
  const CsvTable t("step,stage,test_accuracy\n1,warmup,\n2,compression,0.875\n", "metrics.csv");
  ASSERT_EQ(t.rows(), 2u);
  EXPECT_EQ(t.text(1, "stage"), "compression");
  EXPECT_EQ(t.number(0, "step"), 1.0);
  EXPECT_FALSE(t.maybe(0, "test_accuracy").has_value());
  EXPECT_DOUBLE_EQ(*t.maybe(1, "test_accuracy"), 0.875);
  EXPECT_THROW(t.number(0, "test_accuracy"), InvalidArgument);  // empty: not a number
  EXPECT_THROW(t.maybe(1, "stage"), InvalidArgument);           // text: not a number
}

}  // namespace
}  // namespace compopt
