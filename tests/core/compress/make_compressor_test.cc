// make_compressor: every accepted spec and the error message for rejected ones.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/compress/compressor.h"
#include "core/compress/compressor_registry.h"
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
      // topk: 4 count bytes + 8 per kept element, k = ceil(R*n).
      {"topk", "topk:0.01", false, false, 4 + 8 * 1, 4 + 8 * 10},
      {"topk:0.5", "topk:0.5", false, false, 4 + 8 * 5, 4 + 8 * 500},
      {"topk:1", "topk:1", false, false, 4 + 8 * 9, 4 + 8 * 1000},
      {"topk:0.001", "topk:0.001", false, false, 4 + 8 * 1, 4 + 8 * 1},
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
  for (const std::string spec : {"sgn",   "nbit:1",           "nbit:17",  "nbit:x",    "",
                                 "nbit:", "nbit:8x",          "nbit:-4",  "SIGN",      "sign ",
                                 "nbit8", "nbit:99999999999", "topk:0",   "topk:1.5",  "topk:x",
                                 "topk:", "topk:-0.5",        "topk:nan", "topk:0.5x", "sign:3",
                                 "topk8"}) {
    try {
      make_compressor(spec);
      ADD_FAILURE() << "accepted \"" << spec << "\"";
    } catch (const InvalidArgument& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("\"" + spec + "\""), std::string::npos) << what;
      EXPECT_NE(what.find("expected one of identity | fp16 | sign | binary | nbit"),
                std::string::npos)
          << what;
    }
  }
}

}  // namespace
}  // namespace compopt

namespace compopt {
namespace {

TEST(MakeCompressor, ReasonsNameWhatIsWrong) {
  const auto message = [](const std::string& spec) {
    try {
      make_compressor(spec);
    } catch (const InvalidArgument& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(message("topk:0").find("\"topk:0\": ratio 0 is outside (0, 1]"), std::string::npos);
  EXPECT_NE(message("topk:1.5").find("ratio 1.5 is outside (0, 1]"), std::string::npos);
  EXPECT_NE(message("topk:x").find("ratio is not a decimal number"), std::string::npos);
  EXPECT_NE(message("nbit:17").find("bit width 17 is outside 2..16"), std::string::npos);
  EXPECT_NE(message("sign:3").find("sign takes no parameter"), std::string::npos);
  EXPECT_NE(message("topk:1.5").find("topk:R (R a number in (0, 1], default 0.01)"),
            std::string::npos);
}

TEST(CompressorRegistry, EveryEntryBuildsAndDocsCarryTheTable) {
  for (const auto& e : compressor_registry().entries()) {
    const auto c = make_compressor(e.name);
    EXPECT_EQ(c->name().substr(0, e.name.size()), e.name);
    EXPECT_FALSE(e.help.empty());
  }
  EXPECT_EQ(compressor_registry().names(),
            (std::vector<std::string>{"identity", "fp16", "sign", "binary", "nbit", "topk"}));
  const auto root = std::filesystem::path(COMPOPT_SOURCE_DIR);
  std::ifstream in(root / "docs" / "compressors.md");
  std::stringstream doc;
  doc << in.rdbuf();
  ASSERT_FALSE(doc.str().empty());
  EXPECT_NE(doc.str().find(compressor_table_markdown()), std::string::npos)
      << compressor_table_markdown();
}

}  // namespace
}  // namespace compopt
