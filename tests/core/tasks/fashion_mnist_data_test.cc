#include "core/tasks/fashion_mnist_data.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include "core/tasks/idx_reader.h"
#include "tests/core/tasks/idx_test_util.h"

namespace compopt {
namespace {

using ::testing::HasSubstr;
using testing::idx_bytes;

void write_split(const std::filesystem::path& dir, const std::string& prefix, uint32_t n,
                 uint32_t labels_n, uint8_t label = 3) {
  std::vector<uint8_t> pixels(n * 784);
  for (size_t i = 0; i < pixels.size(); ++i) pixels[i] = static_cast<uint8_t>(i % 256);
  testing::write_gz(dir / (prefix + "-images-idx3-ubyte.gz"), idx_bytes(0x08, {n, 28, 28}, pixels));
  testing::write_gz(dir / (prefix + "-labels-idx1-ubyte.gz"),
                    idx_bytes(0x08, {labels_n}, std::vector<uint8_t>(labels_n, label)));
}

std::string load_error(const std::filesystem::path& dir) {
  try {
    load_fashion_mnist(dir);
  } catch (const DatasetError& e) {
    return e.what();
  }
  return "no error";
}

TEST(FashionMnistData, LoadsTinyDataSet) {
  const auto dir = testing::temp_dir("fmnist_ok");
  write_split(dir, "train", 3, 3);
  write_split(dir, "t10k", 2, 2);
  const FashionMnistData d = load_fashion_mnist(dir);
  EXPECT_EQ(d.train.count(), 3u);
  EXPECT_EQ(d.test.count(), 2u);
  EXPECT_EQ(d.train.pixels.size(), 3u * 784);
  EXPECT_EQ(d.train.labels[0], 3);
  EXPECT_GT(d.pixel_std, 0.0f);
  std::filesystem::remove_all(dir);
}

TEST(FashionMnistData, MissingFolderNamesFileAndInstallHint) {
  const std::string e = load_error("/nonexistent/compopt/fmnist");
  EXPECT_THAT(e, HasSubstr("train-images-idx3-ubyte.gz"));
  EXPECT_THAT(e, HasSubstr("apt-get install dataset-fashion-mnist"));
}

TEST(FashionMnistData, CountMismatch) {
  const auto dir = testing::temp_dir("fmnist_count");
  write_split(dir, "train", 3, 4);
  write_split(dir, "t10k", 2, 2);
  const std::string e = load_error(dir);
  EXPECT_THAT(e, HasSubstr("3 images"));
  EXPECT_THAT(e, HasSubstr("4 labels"));
  EXPECT_THAT(e, HasSubstr("apt-get install"));
  std::filesystem::remove_all(dir);
}

TEST(FashionMnistData, LabelOutOfRange) {
  const auto dir = testing::temp_dir("fmnist_label");
  write_split(dir, "train", 2, 2, 10);
  write_split(dir, "t10k", 2, 2);
  EXPECT_THAT(load_error(dir), HasSubstr("label 10"));
  std::filesystem::remove_all(dir);
}

TEST(FashionMnistData, WrongImageSize) {
  const auto dir = testing::temp_dir("fmnist_size");
  testing::write_gz(dir / "train-images-idx3-ubyte.gz",
                    idx_bytes(0x08, {1, 27, 28}, std::vector<uint8_t>(27 * 28)));
  testing::write_gz(dir / "train-labels-idx1-ubyte.gz", idx_bytes(0x08, {1}, {0}));
  EXPECT_THAT(load_error(dir), HasSubstr("27x28, expected 28x28"));
  std::filesystem::remove_all(dir);
}

TEST(FashionMnistData, RealDataSetWhenInstalled) {
  if (!std::filesystem::exists(std::filesystem::path(kFashionMnistDefaultDir) /
                               "train-images-idx3-ubyte.gz")) {
    GTEST_SKIP() << "dataset-fashion-mnist not installed";
  }
  const FashionMnistData d = load_fashion_mnist(kFashionMnistDefaultDir);
  EXPECT_EQ(d.train.count(), 60000u);
  EXPECT_EQ(d.test.count(), 10000u);
  EXPECT_NEAR(d.pixel_mean, 0.286, 0.01);
  EXPECT_NEAR(d.pixel_std, 0.353, 0.01);
}

}  // namespace
}  // namespace compopt
