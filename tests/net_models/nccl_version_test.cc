// NCCL versions (net_models/nccl_version.h): parsed as numbers, so 2.10 comes after 2.4, and
// anything that is not 2.MINOR[.PATCH] is refused naming the text; ClusterSpec::validate
// refuses a malformed nccl_version.

#include "net_models/nccl_version.h"

#include <gtest/gtest.h>

#include "core/util/error.h"
#include "net_models/cluster_spec.h"

namespace compopt::net {
namespace {

TEST(NcclVersion, ParsesTwoOrThreePartsAndOrdersThemAsNumbers) {
  EXPECT_EQ(parse_nccl_version("2.4"), (NcclVersion{2, 4, 0}));
  EXPECT_EQ(parse_nccl_version("2.10.3"), (NcclVersion{2, 10, 3}));
  EXPECT_LT(parse_nccl_version("2.4.8"), parse_nccl_version("2.10"));  // not as text
  EXPECT_LT(parse_nccl_version("2.4"), parse_nccl_version("2.4.8"));
  EXPECT_EQ(parse_nccl_version("2.5"), parse_nccl_version("2.5.0"));
}

TEST(NcclVersion, RefusesWhatIsNotTwoDotMinor) {
  for (const char* bad : {"", "2", "3.1", "1.3", "2.x", "2.4.", ".4", "v2.4", "2.-1", "2.4.8.1",
                          "2..4", " 2.4", "2.4 "}) {
    try {
      parse_nccl_version(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("'") + bad + "'"), std::string::npos)
          << e.what();
    }
  }
}

TEST(NcclVersion, ClusterValidationChecksIt) {
  ClusterSpec spec;
  spec.nccl_version = "2.18.3";
  EXPECT_NO_THROW(spec.validate());
  spec.nccl_version = "2.18.x";
  EXPECT_THROW(spec.validate(), InvalidArgument);
  spec.nccl_version.clear();  // a current NCCL
  EXPECT_NO_THROW(spec.validate());
}

}  // namespace
}  // namespace compopt::net
