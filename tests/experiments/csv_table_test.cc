#include "experiments/reproduce/csv_table.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace compopt::cli::reproduce {
namespace {

TEST(CsvTable, ReadsCellsNumbersAndEmptyCells) {
  const CsvTable t =
      CsvTable::parse("step,stage,test_accuracy\n1,warmup,\n2,compression,0.875\n", "metrics.csv");
  ASSERT_EQ(t.rows(), 2u);
  EXPECT_EQ(t.text(1, "stage"), "compression");
  EXPECT_EQ(t.number(0, "step"), 1.0);
  EXPECT_FALSE(t.maybe(0, "test_accuracy").has_value());
  EXPECT_DOUBLE_EQ(*t.maybe(1, "test_accuracy"), 0.875);
}

TEST(CsvTable, ErrorsNameTheFileColumnAndRow) {
  const CsvTable t = CsvTable::parse("a,b\n1,x\n2,\n", "f.csv");
  EXPECT_THROW(
      {
        try {
          t.number(0, "b");
        } catch (const std::runtime_error& e) {
          EXPECT_STREQ(e.what(), "f.csv: row 1 column 'b': 'x' is not a number");
          throw;
        }
      },
      std::runtime_error);
  EXPECT_THROW(t.number(1, "b"), std::runtime_error);  // empty
  EXPECT_THROW(t.text(0, "c"), std::runtime_error);    // no such column
  EXPECT_THROW(CsvTable::parse("a,b\n1,2,3\n", "g.csv"), std::runtime_error);
  EXPECT_THROW(CsvTable::parse("", "h.csv"), std::runtime_error);
}

}  // namespace
}  // namespace compopt::cli::reproduce
