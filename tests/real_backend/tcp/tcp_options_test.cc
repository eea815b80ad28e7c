// Environment parsing of TCP options: the pipeline size, and bad values named in
// the error.

#include "real_backend/tcp/tcp_options.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "core/util/error.h"

namespace compopt::tcp {
namespace {

// Sets one variable for the test's lifetime.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) { ::setenv(name, value, 1); }
  ~ScopedEnv() { ::unsetenv(name_); }

 private:
  const char* name_;
};

TEST(TcpOptionsEnv, PipelineBytesDefaultsToOneMiBAndReadsTheEnvironment) {
  EXPECT_EQ(tcp_options_from_env().pipeline_bytes, uint64_t{1} << 20);
  {
    ScopedEnv env("COMPOPT_TCP_PIPELINE_BYTES", "65536");
    EXPECT_EQ(tcp_options_from_env().pipeline_bytes, 65536u);
  }
  ScopedEnv env("COMPOPT_TCP_PIPELINE_BYTES", "0");
  EXPECT_EQ(tcp_options_from_env().pipeline_bytes, 0u);
}

TEST(TcpOptionsEnv, BadPipelineBytesIsRefusedNamingTheValue) {
  for (const char* bad : {"-1", "1.5", "lots", "2147483648"}) {
    ScopedEnv env("COMPOPT_TCP_PIPELINE_BYTES", bad);
    try {
      tcp_options_from_env();
      ADD_FAILURE() << bad << " accepted";
    } catch (const InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("COMPOPT_TCP_PIPELINE_BYTES='") + bad + "'"),
                std::string::npos)
          << e.what();
    }
  }
}

TEST(TcpOptionsValidate, PipelineAboveTheMessageLimitIsRefused) {
  TcpOptions o;
  o.rank = 0;
  o.world_size = 1;
  o.token = "0123456789abcdef";
  o.max_message_bytes = 1000;
  o.pipeline_bytes = 4096;
  EXPECT_THROW(validate(o), InvalidArgument);
  o.pipeline_bytes = 1000;
  EXPECT_NO_THROW(validate(o));
}

}  // namespace
}  // namespace compopt::tcp
