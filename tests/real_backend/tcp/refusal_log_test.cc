// Refused connections are logged once per kind, then counted: thousands of strays give a
// handful of lines, and the counts in the summaries add up to what was refused.

#include "real_backend/tcp/refusal_log.h"

#include <gmock/gmock.h>

#include <regex>
#include <sstream>

#include "real_backend/tcp/asio.h"
#include "real_backend/tcp/frame.h"
#include "real_backend/tcp/handshake_io.h"
#include "tests/real_backend/tcp/tcp_test_world.h"

namespace compopt::tcp::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::internal::CaptureStderr;
using ::testing::internal::GetCapturedStderr;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// The sum of N over "refused N more" lines.
long summarised(const std::vector<std::string>& lines) {
  const std::regex more("refused ([0-9]+) more ");
  long total = 0;
  std::smatch m;
  for (const std::string& line : lines)
    if (std::regex_search(line, m, more)) total += std::stol(m[1]);
  return total;
}

TEST(RefusalLogTest, TwoThousandRefusalsGiveOneLinePerKindAndASummary) {
  RefusalLog log;
  CaptureStderr();
  for (int i = 0; i < 2000; ++i)
    log.refused(0, "rendezvous connection", "127.0.0.1:" + std::to_string(40000 + i),
                "job token mismatch");
  log.refused(0, "rendezvous connection", "127.0.0.1:1", "expected a register frame, got data");
  log.refused(3, "mesh connection", "127.0.0.1:2", "job token mismatch");
  log.flush(0);
  const auto lines = lines_of(GetCapturedStderr());
  ASSERT_EQ(lines.size(), 4u) << ::testing::PrintToString(lines);
  EXPECT_EQ(lines[0],
            "compopt tcp rank 0: refused rendezvous connection from 127.0.0.1:40000: job token "
            "mismatch");
  EXPECT_EQ(lines[1],
            "compopt tcp rank 0: refused rendezvous connection from 127.0.0.1:1: expected a "
            "register frame, got data");
  EXPECT_EQ(lines[2],
            "compopt tcp rank 3: refused mesh connection from 127.0.0.1:2: job token mismatch");
  EXPECT_THAT(lines[3], HasSubstr("compopt tcp rank 0: refused 1999 more rendezvous connections "
                                  "(job token mismatch) over "));
  EXPECT_EQ(summarised(lines), 1999);
  // Rank 3's first line was printed at once; flushing it adds nothing (no repeats).
  CaptureStderr();
  log.flush(3);
  EXPECT_EQ(GetCapturedStderr(), "");
}

TEST(RefusalLogTest, AFlushedKindStartsOverWithAFullLine) {
  RefusalLog log;
  CaptureStderr();
  log.refused(1, "mesh connection", "a", "why");
  log.refused(1, "mesh connection", "b", "why");
  log.flush(1);
  log.refused(1, "mesh connection", "c", "why");
  const auto lines = lines_of(GetCapturedStderr());
  ASSERT_EQ(lines.size(), 3u) << ::testing::PrintToString(lines);
  EXPECT_THAT(lines[1], HasSubstr("refused 1 more mesh connection (why) over"));
  EXPECT_THAT(lines[2], HasSubstr("refused mesh connection from c: why"));
}

// End to end: 300 registrations with a wrong token at a real rank 0, then the real rank 1;
// the job completes and rank 0 logged one line for them plus a summary of 299.
TEST(RefusalLogTest, ARendezvousRefusingHundredsOfStraysLogsTwoLines) {
  const std::string token = "0123456789abcdef-test-token";
  std::promise<uint16_t> port;
  std::string error;
  CaptureStderr();
  std::thread zero([&] {
    try {
      TcpOptions o = test_options(0, 2, token);
      o.quiet = false;
      auto transport = connect_tcp(o, [&](uint16_t p) { port.set_value(p); });
      Communicator comm(*transport);
      comm.barrier();
      transport->close();
    } catch (const std::exception& e) {
      error = e.what();
    }
  });
  const uint16_t master_port = port.get_future().get();
  asio::io_context io;
  const tcp::endpoint master(asio::ip::make_address("127.0.0.1"), master_port);
  const std::string stray = control_frame(
      FrameKind::kRegister,
      encode_fields({{"token", "not-the-token-of-this-job"}, {"rank", "1"}, {"world_size", "2"}}));
  for (int i = 0; i < 300; ++i) {
    tcp::socket socket(io);
    socket.connect(master);
    asio::write(socket, asio::buffer(stray));
    char reply[256];
    ErrorCode ec;
    socket.read_some(asio::buffer(reply), ec);  // the reject frame: rank 0 served this one
  }
  TcpOptions one = test_options(1, 2, token);
  one.master_port = master_port;
  run_tcp_rank(one, [](Communicator& comm) { comm.barrier(); });
  zero.join();
  const auto lines = lines_of(GetCapturedStderr());
  EXPECT_EQ(error, "");
  ASSERT_EQ(lines.size(), 2u) << ::testing::PrintToString(lines);
  EXPECT_THAT(lines[0], HasSubstr("compopt tcp rank 0: refused rendezvous connection from "
                                  "127.0.0.1:"));
  EXPECT_THAT(lines[0], HasSubstr(": job token mismatch"));
  EXPECT_THAT(lines[1], HasSubstr("compopt tcp rank 0: refused 299 more rendezvous connections "
                                  "(job token mismatch) over "));
  EXPECT_EQ(summarised(lines), 299);
}

}  // namespace
}  // namespace compopt::tcp::testing
