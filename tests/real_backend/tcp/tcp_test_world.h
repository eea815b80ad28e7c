#pragma once
// Helpers for TCP failure tests: a world whose rank-0 rendezvous port the test
// knows, so it can add intruders or hand-made peers next to the real ranks.

#include <functional>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "real_backend/tcp/tcp_world.h"

namespace compopt::tcp::testing {

inline TcpOptions test_options(int rank, int world, const std::string& token) {
  TcpOptions o;
  o.rank = rank;
  o.world_size = world;
  o.token = token;
  o.connect_timeout_s = 15.0;
  o.op_timeout_s = 15.0;
  o.linger_s = 3.0;
  o.quiet = true;
  return o;
}

// Rank 0 of a world, running fn in a thread; port() blocks until it listens.
class RankZero {
 public:
  RankZero(int world, const std::string& token, std::function<void(Communicator&)> fn) {
    thread_ = std::thread([this, world, token, fn = std::move(fn)] {
      try {
        auto transport =
            connect_tcp(test_options(0, world, token), [this](uint16_t p) { port_.set_value(p); });
        Communicator comm(*transport);
        try {
          fn(comm);
        } catch (const std::exception& e) {
          transport->abort(e.what());
          throw;
        }
        transport->close();
      } catch (const std::exception& e) {
        error_ = e.what();
      }
    });
  }
  ~RankZero() { join(); }
  uint16_t port() { return port_future_.get(); }
  // Joins and returns rank 0's error ("" when it succeeded).
  std::string join() {
    if (thread_.joinable()) thread_.join();
    return error_;
  }

 private:
  std::promise<uint16_t> port_;
  std::shared_future<uint16_t> port_future_ = port_.get_future().share();
  std::thread thread_;
  std::string error_;
};

}  // namespace compopt::tcp::testing
