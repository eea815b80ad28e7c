// Job tokens: random ones differ, derived ones are a fixed function of the run id (the FNV-1a
// 64-bit hashes of the run id and of the run id twice over), so every node derives the same.

#include "core/util/job_token.h"

#include <gtest/gtest.h>

#include <string>

#include "core/util/error.h"

namespace compopt {
namespace {

TEST(JobToken, RandomTokensAre32HexDigitsAndDiffer) {
  const std::string a = random_job_token();
  const std::string b = random_job_token();
  EXPECT_EQ(a.size(), 32u);
  EXPECT_EQ(a.find_first_not_of("0123456789abcdef"), std::string::npos) << a;
  EXPECT_NE(a, b);
}

TEST(JobToken, DerivedTokenIsTheFnv1aHashOfTheRunIdAndOfItTwice) {
  // FNV-1a 64 of "foobar" is 85944171f73967e8 (the published test vector); of
  // "foobarfoobar" 0eacee9155645b45 (computed by hand with the same recurrence).
  EXPECT_EQ(job_token_from_run_id("foobar"), "85944171f73967e80eacee9155645b45");
  // "a": af63dc4c8601ec8c (published), "aa": 089c4307b54596b7.
  EXPECT_EQ(job_token_from_run_id("a"), "af63dc4c8601ec8c089c4307b54596b7");
  EXPECT_NE(job_token_from_run_id("job-1"), job_token_from_run_id("job-2"));
}

TEST(JobToken, EmptyRunIdIsRefused) { EXPECT_THROW(job_token_from_run_id(""), InvalidArgument); }

}  // namespace
}  // namespace compopt
