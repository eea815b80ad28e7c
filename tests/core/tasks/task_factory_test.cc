#include "core/tasks/task_factory.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/util/error.h"

namespace compopt {
namespace {

using ::testing::HasSubstr;

std::string error_of(const HyperParamMap& keys) {
  try {
    HyperParams hp("config", keys);
    make_task(hp, "task.", 4);
    hp.finish();
  } catch (const InvalidArgument& e) {
    return e.what();
  }
  return "no error";
}

TEST(TaskFactory, BuildsEachTask) {
  HyperParams q("config", {{"task.name", "quadratic"}, {"task.dimension", "7"}});
  EXPECT_EQ(make_task(q, "task.", 2)->layout().total(), 7u);
  HyperParams l("config",
                {{"task.name", "logistic"}, {"task.dimension", "3"}, {"task.separable", "false"}});
  EXPECT_EQ(make_task(l, "task.", 2)->layout().total(), 4u);
}

TEST(TaskFactory, ErrorsNameTheKey) {
  EXPECT_THAT(error_of({{"task.name", "mnist"}}), HasSubstr("task.name"));
  EXPECT_THAT(error_of({{"task.name", "quadratic"}, {"task.dimension", "abc"}}),
              HasSubstr("task.dimension"));
  EXPECT_THAT(error_of({{"task.name", "quadratic"}, {"task.condition_number", "0.5"}}),
              HasSubstr("task.condition_number"));
  EXPECT_THAT(error_of({{"task.name", "quadratic"}, {"task.bogus", "1"}}), HasSubstr("task.bogus"));
  EXPECT_THAT(error_of({{"task.name", "logistic"}, {"task.label_noise", "0.2"}}),
              HasSubstr("task.label_noise"));
  EXPECT_THAT(error_of({{"task.name", "fashion-mnist"}, {"task.hidden", "256,x"}}),
              HasSubstr("task.hidden"));
}

TEST(TaskFactory, SizesBeyondMemoryAreBadInputNotAllocations) {
  // 2^28 values is the limit; these would ask the allocator for tens of GB or more.
  EXPECT_THAT(error_of({{"task.name", "quadratic"}, {"task.dimension", "100000000000"}}),
              HasSubstr("key 'task.dimension' = 100000000000, expected at most 268435456"));
  // 4 ranks (error_of's world) x 2^27 dimensions = 2^29 values.
  EXPECT_THAT(error_of({{"task.name", "quadratic"}, {"task.dimension", "134217728"}}),
              HasSubstr("task.dimension' x ranks = 134217728 x 4"));
  EXPECT_THAT(error_of({{"task.name", "quadratic"}, {"task.train_size", "134217729"}}),
              HasSubstr("task.train_size"));
  EXPECT_THAT(
      error_of(
          {{"task.name", "logistic"}, {"task.dimension", "100000"}, {"task.train_size", "8192"}}),
      HasSubstr("task.dimension' x (train_size + test_size) = 100000 x 10240"));
  EXPECT_EQ(error_of({{"task.name", "logistic"}, {"task.dimension", "8"}}), "no error");
}

TEST(TaskFactory, MissingDataSetNamesDataDirAndHint) {
  const std::string e =
      error_of({{"task.name", "fashion-mnist"}, {"task.data_dir", "/nonexistent/fm"}});
  EXPECT_THAT(e, HasSubstr("task.data_dir"));
  EXPECT_THAT(e, HasSubstr("/nonexistent/fm"));
  EXPECT_THAT(e, HasSubstr("apt-get install dataset-fashion-mnist"));
}

}  // namespace
}  // namespace compopt

namespace compopt {
namespace {

TEST(TaskRegistry, EntriesDeclareTheKeysTheyRead) {
  EXPECT_EQ(task_names(), (std::vector<std::string>{"quadratic", "logistic", "fashion-mnist"}));
  // Passing every declared default explicitly builds the same problem as passing none.
  for (const std::string name : {"quadratic", "logistic"}) {
    HyperParamMap explicit_defaults = {{"task.name", name}};
    for (const auto& k : task_registry().get(name).keys) {
      if (k.name != "label_noise") explicit_defaults["task." + k.name] = k.fallback;
    }
    HyperParams a("config", {{"task.name", name}}), b("config", explicit_defaults);
    const auto ta = make_task(a, "task.", 2), tb = make_task(b, "task.", 2);
    b.finish();
    EXPECT_EQ(ta->layout().total(), tb->layout().total()) << name;
    EXPECT_EQ(ta->describe(), tb->describe()) << name;
  }
  EXPECT_THAT(error_of({{"task.name", "mnist"}}),
              HasSubstr("key 'task.name' = 'mnist', expected one of quadratic, logistic, "
                        "fashion-mnist"));
}

TEST(TaskRegistry, DocsCarryTheGeneratedTables) {
  const auto root = std::filesystem::path(COMPOPT_SOURCE_DIR);
  std::ifstream in(root / "docs" / "training.md");
  std::stringstream doc;
  doc << in.rdbuf();
  ASSERT_FALSE(doc.str().empty());
  EXPECT_THAT(doc.str(), HasSubstr(task_table_markdown()));
}

}  // namespace
}  // namespace compopt
