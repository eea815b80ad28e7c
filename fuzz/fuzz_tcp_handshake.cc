// libFuzzer target: the TCP handshake as a rank receives it. The input arrives on a real socket
// (one end of a socketpair driven by Asio) and is read by read_control() exactly as the
// rendezvous and the mesh read a registration, table or peer-hello frame; the fields are then
// checked the way rendezvous.cc / mesh.cc check them (field, field_int, token_equal). Every
// malformed input must end in CommError: no crash, hang, or allocation beyond the control limit.

#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <optional>
#include <string>

#include "core/util/error.h"
#include "real_backend/tcp/handshake_io.h"

namespace {

namespace tcp = compopt::tcp;

const std::string kToken = "0123456789abcdef0123456789abcdef";
constexpr int kWorld = 4;

void check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "fuzz_tcp_handshake: invariant violated: %s\n", what);
    std::abort();
  }
}

// The rendezvous' (rank 0's) checks of a registration; returns the registered rank or -1.
int check_registration(const tcp::ControlFrame& frame) {
  if (frame.kind != tcp::FrameKind::kRegister) return -1;
  if (!tcp::token_equal(tcp::field(frame.fields, "token"), kToken)) return -1;
  if (tcp::field_int(frame.fields, "world_size", 1, 1 << 20) != kWorld) return -1;
  const long rank = tcp::field_int(frame.fields, "rank", 1, kWorld - 1);
  tcp::field(frame.fields, "host");
  const long port = tcp::field_int(frame.fields, "port", 1, 65535);
  tcp::field(frame.fields, "node");
  check(rank >= 1 && rank < kWorld && port >= 1 && port <= 65535, "field_int out of its range");
  return static_cast<int>(rank);
}

// A rank's checks of the table rank 0 sends back.
void check_table(const tcp::ControlFrame& frame) {
  if (frame.kind == tcp::FrameKind::kReject) {
    tcp::field(frame.fields, "reason");
    return;
  }
  if (frame.kind != tcp::FrameKind::kTable) return;
  if (tcp::field_int(frame.fields, "ranks", 1, 1 << 20) != kWorld) return;
  for (int r = 0; r < kWorld; ++r) {
    tcp::field(frame.fields, "host." + std::to_string(r));
    tcp::field_int(frame.fields, "port." + std::to_string(r), 1, 65535);
    tcp::field(frame.fields, "node." + std::to_string(r));
  }
}

// The mesh's check of a peer-hello.
void check_hello(const tcp::ControlFrame& frame) {
  if (frame.kind != tcp::FrameKind::kPeerHello) return;
  if (!tcp::token_equal(tcp::field(frame.fields, "token"), kToken)) return;
  if (tcp::field_int(frame.fields, "world_size", 1, 1 << 20) != kWorld) return;
  const long rank = tcp::field_int(frame.fields, "rank", 0, kWorld - 1);
  check(rank >= 0 && rank < kWorld, "peer-hello rank out of range");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  int fds[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM, 0, fds) != 0) std::abort();
  // The peer writes the input and closes its sending side (a peer that sends no more).
  size_t sent = 0;
  while (sent < size) {
    const ssize_t n = ::write(fds[1], data + sent, size - sent);
    if (n <= 0) break;  // inputs are far below the socket buffer; never blocks in practice
    sent += static_cast<size_t>(n);
  }
  ::shutdown(fds[1], SHUT_WR);

  tcp::asio::io_context io;
  tcp::tcp::socket socket(io);
  socket.assign(tcp::tcp::v4(), fds[0]);
  std::optional<tcp::ControlFrame> frame;
  std::exception_ptr error;
  tcp::asio::co_spawn(io, tcp::read_control(socket),
                      [&](std::exception_ptr e, tcp::ControlFrame f) {
                        if (e) {
                          error = e;
                        } else {
                          frame = std::move(f);
                        }
                      });
  io.run();
  ::close(fds[1]);
  check(frame.has_value() != (error != nullptr), "read_control neither returned nor threw");
  if (error) {
    try {
      std::rethrow_exception(error);
    } catch (const compopt::CommError&) {
      return 0;  // refused: what the rank logs and closes
    }
  }
  try {
    check_registration(*frame);
    check_table(*frame);
    check_hello(*frame);
  } catch (const compopt::CommError&) {
    // a missing or malformed field: refused
  }
  return 0;
}
