// CsvSchema: header from the column names, cells printed by their column's format,
// empty cells for absent values, and a row of the wrong width refused.

#include "core/util/csv_schema.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace compopt {
namespace {

const CsvSchema& schema() {
  static const CsvSchema s("bench.csv", {{"variant"},
                                         {"bytes"},
                                         {"seconds", "{:.3e}"},
                                         {"algbw_GBps", "{:.2f}"},
                                         {"error", "{:.4g}"}});
  return s;
}

TEST(CsvSchema, HeaderJoinsTheNames) {
  EXPECT_EQ(schema().header(), "variant,bytes,seconds,algbw_GBps,error\n");
  EXPECT_EQ(schema().kind(), "bench.csv");
}

TEST(CsvSchema, RowPrintsEachCellByItsColumn) {
  EXPECT_EQ(schema().row({"fp32", uint64_t{4000000}, 0.00125, 3.2, std::optional<double>()}),
            "fp32,4000000,1.250e-03,3.20,\n");
  EXPECT_EQ(schema().row({std::string("sign"), -3, 2.0, 0.005, std::optional<double>(1.0 / 3)}),
            "sign,-3,2.000e+00,0.01,0.3333\n");
}

TEST(CsvSchema, BooleansAreZeroOrOne) {
  const CsvSchema s("x.csv", {{"overlap"}});
  EXPECT_EQ(s.row({true}) + s.row({false}), "1\n0\n");
}

TEST(CsvSchema, RefusesARowOfAnotherWidth) {
  EXPECT_THAT(
      [] {
        schema().row({"fp32", 1});
      },
      ::testing::ThrowsMessage<std::logic_error>(
          ::testing::HasSubstr("bench.csv: a row of 2 cells, the schema has 5 columns")));
}

TEST(CsvWriter, StartsWithTheHeader) {
  CsvWriter w(schema());
  w.add({"a", 1, 1.0, 1.0, 1.0});
  EXPECT_EQ(w.text(), "variant,bytes,seconds,algbw_GBps,error\na,1,1.000e+00,1.00,1\n");
}

}  // namespace
}  // namespace compopt
