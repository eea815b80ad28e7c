// Stray and hostile connections can neither join a TCP job nor disturb it, and
// a peer that sends a truncated or corrupt frame fails its receiver with an
// error naming it; no corrupt byte reaches the caller.

#include <gmock/gmock.h>

#include <random>

#include "real_backend/tcp/asio.h"
#include "real_backend/tcp/frame.h"
#include "real_backend/tcp/mesh.h"
#include "real_backend/tcp/rendezvous.h"
#include "tests/real_backend/tcp/tcp_test_world.h"

namespace compopt::tcp::testing {
namespace {

using ::testing::HasSubstr;

const std::string kToken = "0123456789abcdef-test-token";

// Allreduce of rank+1 over `world` ranks; returns the sum seen by the caller.
float sum_of_ranks(Communicator& comm) {
  std::vector<float> x(1000, static_cast<float>(comm.rank() + 1));
  comm.allreduce(x);
  return x[999];
}

void run_rank(int rank, int world, uint16_t port, float* sum) {
  TcpOptions o = test_options(rank, world, kToken);
  o.master_port = port;
  run_tcp_rank(o, [&](Communicator& comm) { *sum = sum_of_ranks(comm); });
}

TEST(TcpIntruderTest, WrongTokenIsRefusedAndTheJobCompletes) {
  float sum0 = 0, sum1 = 0, sum2 = 0;
  RankZero zero(3, kToken, [&](Communicator& comm) { sum0 = sum_of_ranks(comm); });
  const uint16_t port = zero.port();
  TcpOptions intruder = test_options(1, 3, "not-the-right-token-at-all");
  intruder.master_port = port;
  try {
    run_tcp_rank(intruder, [](Communicator&) { ADD_FAILURE() << "intruder joined"; });
    ADD_FAILURE() << "intruder not refused";
  } catch (const CommError& e) {
    EXPECT_THAT(e.what(), HasSubstr("rank 0 refused rank 1: job token mismatch"));
  }
  std::thread one([&] { run_rank(1, 3, port, &sum1); });
  run_rank(2, 3, port, &sum2);
  one.join();
  EXPECT_EQ(zero.join(), "");
  EXPECT_EQ(sum0, 6.0f);
  EXPECT_EQ(sum1, 6.0f);
  EXPECT_EQ(sum2, 6.0f);
}

TEST(TcpIntruderTest, RandomBytesAndSilentConnectionsDoNotDisturbTheRendezvous) {
  float sum0 = 0, sum1 = 0;
  RankZero zero(2, kToken, [&](Communicator& comm) { sum0 = sum_of_ranks(comm); });
  const uint16_t port = zero.port();
  asio::io_context io;
  const tcp::endpoint master(asio::ip::make_address("127.0.0.1"), port);
  std::mt19937 rng(5);
  std::vector<tcp::socket> strays;
  for (int i = 0; i < 4; ++i) {
    strays.emplace_back(io);
    strays.back().connect(master);
    std::vector<uint8_t> junk(i == 0 ? 0 : 4000);  // the first one stays silent
    for (auto& b : junk) b = static_cast<uint8_t>(rng());
    if (i == 3) {  // a valid-looking header announcing a huge control payload
      const HeaderBytes h = encode_header({.kind = FrameKind::kRegister, .length = 1u << 30});
      std::memcpy(junk.data(), h.data(), h.size());
    }
    ErrorCode ignored;
    asio::write(strays.back(), asio::buffer(junk), ignored);
  }
  run_rank(1, 2, port, &sum1);
  EXPECT_EQ(zero.join(), "");
  EXPECT_EQ(sum0, 3.0f);
  EXPECT_EQ(sum1, 3.0f);
}

// Rank 1 done by hand: a real rendezvous and mesh, then raw bytes on the socket.
void fake_rank_one(uint16_t port, const std::function<void(tcp::socket&)>& misbehave) {
  TcpOptions o = test_options(1, 2, kToken);
  o.master_port = port;
  o.node_name = "fake";
  asio::io_context io;
  tcp::acceptor data(io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
  const auto deadline = SteadyClock::now() + std::chrono::seconds(10);
  Rendezvous rendezvous(o);
  const auto table = rendezvous.run({"127.0.0.1", data.local_endpoint().port(), "fake"}, deadline);
  const auto fds = connect_mesh(io, data, o, table, deadline);
  tcp::socket socket(io, tcp::v4(), fds[0]);
  misbehave(socket);
}

std::string rank_zero_error_when_peer(const std::function<void(tcp::socket&)>& misbehave) {
  bool got = false;
  RankZero zero(2, kToken, [&](Communicator& comm) {
    std::vector<float> x(1 << 16);
    comm.recv(1, 9, as_writable_bytes(std::span(x)));
    got = true;
  });
  fake_rank_one(zero.port(), misbehave);
  const std::string error = zero.join();
  EXPECT_FALSE(got) << "rank 0 computed with a bad message";
  return error;
}

std::vector<std::byte> payload(size_t n) {
  std::vector<std::byte> p(n);
  for (size_t i = 0; i < n; ++i) p[i] = static_cast<std::byte>(i * 7);
  return p;
}

TEST(TcpFrameFaultTest, TruncatedFrameNamesThePeer) {
  const auto error = rank_zero_error_when_peer([](tcp::socket& s) {
    const auto p = payload(size_t{1} << 18);
    const HeaderBytes h = encode_header(
        {.kind = FrameKind::kData, .channel = 9, .length = p.size(), .payload_crc = crc32_of(p)});
    asio::write(s, asio::buffer(h));
    asio::write(s, asio::buffer(p.data(), p.size() / 2));
    // FIN after the half frame; closing at once with rank 0's unread heartbeat in the receive
    // buffer would send a reset and drop the half frame's unsent bytes.
    s.shutdown(tcp::socket::shutdown_send);
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    s.close();
  });
  EXPECT_THAT(
      error,
      HasSubstr(
          "truncated frame from rank 1: connection closed after 131072 of 262144 payload bytes"));
}

TEST(TcpFrameFaultTest, CorruptPayloadIsDetectedBeforeDelivery) {
  const auto error = rank_zero_error_when_peer([](tcp::socket& s) {
    auto p = payload(size_t{1} << 18);
    const HeaderBytes h = encode_header(
        {.kind = FrameKind::kData, .channel = 9, .length = p.size(), .payload_crc = crc32_of(p)});
    p[1000] ^= std::byte{0x10};  // one bit flipped on the way
    asio::write(s, asio::buffer(h));
    asio::write(s, asio::buffer(p));
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
  });
  EXPECT_THAT(error, HasSubstr("corrupt frame from rank 1: payload checksum"));
}

TEST(TcpFrameFaultTest, GarbageAfterTheHandshakeIsACorruptFrame) {
  const auto error = rank_zero_error_when_peer([](tcp::socket& s) {
    const std::string junk(64, 'x');
    asio::write(s, asio::buffer(junk));
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
  });
  EXPECT_THAT(error, HasSubstr("corrupt frame from rank 1: bad frame magic"));
}

// Rank 0's error when a hand-made rank 1 sends `heartbeats` heartbeats, then nothing for
// `silent_ms` (its connection stays open) before closing.
std::string error_when_peer_goes_silent(double connect_timeout_s, int heartbeats, int silent_ms) {
  bool got = false;
  std::string error;
  std::promise<uint16_t> port;
  std::thread zero([&] {
    TcpOptions o = test_options(0, 2, kToken);
    o.peer_silence_timeout_s = 1.0;
    o.heartbeat_interval_s = 0.2;
    o.connect_timeout_s = connect_timeout_s;
    try {
      auto t = connect_tcp(o, [&](uint16_t p) { port.set_value(p); });
      std::vector<std::byte> x(8);
      t->recv(1, 9, x);
      got = true;
    } catch (const std::exception& e) {
      error = e.what();
    }
  });
  fake_rank_one(port.get_future().get(), [&](tcp::socket& s) {
    for (int i = 0; i < heartbeats; ++i)
      asio::write(s, asio::buffer(encode_header({.kind = FrameKind::kHeartbeat})));
    std::this_thread::sleep_for(std::chrono::milliseconds(silent_ms));
  });
  zero.join();
  EXPECT_FALSE(got);
  return error;
}

TEST(TcpFrameFaultTest, SilentPeerFailsAfterTheSilenceTimeout) {
  // Heard once, then silent for 2.5 s > the 1 s budget: rank 0 fails it (not the close).
  EXPECT_THAT(error_when_peer_goes_silent(15.0, 1, 2500),
              HasSubstr("rank 0: rank 1 stopped responding (nothing heard for"));
}

TEST(TcpFrameFaultTest, PeerNeverHeardGetsTheConnectTimeoutBeforeItIsFailed) {
  // Never heard: 2.5 s of silence is within the 4 s connect budget, so rank 0 sees the close.
  EXPECT_THAT(error_when_peer_goes_silent(4.0, 0, 2500), HasSubstr("died or was killed"));
  // ... and past that budget the silence fails it.
  EXPECT_THAT(error_when_peer_goes_silent(2.0, 0, 3500), HasSubstr("stopped responding"));
}

}  // namespace
}  // namespace compopt::tcp::testing
