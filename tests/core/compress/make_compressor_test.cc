// make_compressor: every accepted spec and the error message for rejected ones.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/compress/compressor.h"
#include "core/util/error.h"

namespace compopt {
namespace {

struct SpecCase {
  std::string spec;
  std::string name;
  bool has_scale;
  bool stochastic;
  size_t wire_bytes_for_9;     // hand-derived wire bytes for k = 9
  size_t wire_bytes_for_1000;  // and k = 1000
};

TEST(MakeCompressor, AcceptsEveryValidSpec) {
  const std::vector<SpecCase> cases = {
      {"identity", "identity", false, false, 36, 4000},
      {"fp16", "fp16", false, false, 18, 2000},
      {"sign", "sign", true, false, 2 + 4, 125 + 4},
      {"binary", "binary", false, true, 2, 125},
      {"nbit", "nbit:8", true, true, 9 + 4, 1000 + 4},
      {"nbit:2", "nbit:2", true, true, 3 + 4, 250 + 4},
      {"nbit:3", "nbit:3", true, true, 4 + 4, 375 + 4},
      {"nbit:8", "nbit:8", true, true, 9 + 4, 1000 + 4},
      {"nbit:13", "nbit:13", true, true, 15 + 4, 1625 + 4},
      {"nbit:16", "nbit:16", true, true, 18 + 4, 2000 + 4},
  };
  for (const SpecCase& c : cases) {
    const auto comp = make_compressor(c.spec);
    ASSERT_NE(comp, nullptr) << c.spec;
    EXPECT_EQ(comp->name(), c.name) << c.spec;
    EXPECT_EQ(comp->has_scale(), c.has_scale) << c.spec;
    EXPECT_EQ(comp->is_stochastic(), c.stochastic) << c.spec;
    EXPECT_EQ(comp->wire_bytes(9), c.wire_bytes_for_9) << c.spec;
    EXPECT_EQ(comp->wire_bytes(1000), c.wire_bytes_for_1000) << c.spec;
    // The name is itself a valid spec for the same compressor.
    EXPECT_EQ(make_compressor(comp->name())->name(), c.name);
  }
  for (unsigned b = 2; b <= 16; ++b) {
    EXPECT_EQ(make_compressor("nbit:" + std::to_string(b))->name(), "nbit:" + std::to_string(b));
  }
}

TEST(MakeCompressor, RejectsInvalidSpecsNamingThem) {
  for (const std::string spec : {"sgn", "nbit:1", "nbit:17", "nbit:x", "", "nbit:", "nbit:8x",
                                 "nbit:-4", "SIGN", "sign ", "nbit8", "nbit:99999999999"}) {
    try {
      make_compressor(spec);
      ADD_FAILURE() << "accepted \"" << spec << "\"";
    } catch (const InvalidArgument& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("\"" + spec + "\""), std::string::npos) << what;
      EXPECT_NE(what.find("identity | fp16 | sign | binary | nbit"), std::string::npos) << what;
    }
  }
}

}  // namespace
}  // namespace compopt
