// Ranks as separate processes over loopback: a rank killed mid-allreduce makes
// every other rank fail within 10 s with an error naming it (never a hang), and
// a rank that throws makes the others fail with its message.

#include <gmock/gmock.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <thread>

#include "real_backend/tcp/asio.h"
#include "tests/real_backend/tcp/tcp_test_world.h"

namespace compopt::tcp::testing {
namespace {

using ::testing::HasSubstr;
using Clock = std::chrono::steady_clock;

uint16_t free_port() {
  asio::io_context io;
  tcp::acceptor a(io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
  return a.local_endpoint().port();
}

struct Child {
  pid_t pid = -1;
  int error_fd = -1;  // read end: the child's error message
  int status = -1;
  double exited_after_s = -1;
  std::string error;
};

// Forks one rank; it runs fn under run_tcp_rank and writes its error to a pipe.
Child spawn(int rank, int world, uint16_t port, const std::function<void(Communicator&)>& fn) {
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error("pipe failed");
  Child child;
  child.pid = ::fork();
  if (child.pid == 0) {
    ::close(fds[0]);
    int code = 0;
    try {
      TcpOptions o = test_options(rank, world, "process-test-token-0123456789");
      o.master_port = port;
      run_tcp_rank(o, fn);
    } catch (const std::exception& e) {
      const std::string what = e.what();
      if (::write(fds[1], what.data(), what.size()) < 0) code = 3;
      code = 1;
    }
    ::_exit(code);
  }
  ::close(fds[1]);
  child.error_fd = fds[0];
  return child;
}

// Waits for every child (at most `limit_s`), then kills leftovers.
void wait_all(std::vector<Child>& children, Clock::time_point start, double limit_s) {
  for (Child& c : children) {
    while (c.status < 0) {
      int status = 0;
      if (::waitpid(c.pid, &status, WNOHANG) == c.pid) {
        c.status = status;
        c.exited_after_s = std::chrono::duration<double>(Clock::now() - start).count();
        break;
      }
      if (std::chrono::duration<double>(Clock::now() - start).count() > limit_s) {
        ::kill(c.pid, SIGKILL);
        ::waitpid(c.pid, &status, 0);
        c.status = status;
        c.exited_after_s = 1e9;  // hung
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    char buffer[4096];
    ssize_t n = 0;
    while ((n = ::read(c.error_fd, buffer, sizeof(buffer))) > 0)
      c.error.append(buffer, static_cast<size_t>(n));
    ::close(c.error_fd);
  }
}

// Allreduces 16 MB forever; writes one byte to `ready_fd` after the first call.
std::function<void(Communicator&)> allreduce_forever(int ready_fd) {
  return [ready_fd](Communicator& comm) {
    std::vector<float> x(size_t{4} << 20, 1.0f);
    comm.allreduce(x, ReduceOp::kMean);
    if (::write(ready_fd, "R", 1) != 1) throw std::runtime_error("ready pipe failed");
    for (;;) comm.allreduce(x, ReduceOp::kMean);
  };
}

// Spawns `world` ranks running allreduce_forever and returns once every rank
// has connected and finished its first allreduce.
void start_allreduce_world(int world, uint16_t port, std::vector<Child>& children) {
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  for (int r = 0; r < world; ++r)
    children.push_back(spawn(r, world, port, allreduce_forever(ready[1])));
  ::close(ready[1]);
  for (int got = 0; got < world; ++got) {
    char byte;
    ASSERT_EQ(::read(ready[0], &byte, 1), 1) << "a rank ended before its first allreduce";
  }
  ::close(ready[0]);
}

TEST(TcpProcessTest, KilledRankMidAllreduceFailsEveryOtherRankWithin10s) {
  constexpr int kWorld = 4;
  const uint16_t port = free_port();
  std::vector<Child> children;
  ASSERT_NO_FATAL_FAILURE(start_allreduce_world(kWorld, port, children));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // mid-allreduce
  const auto killed_at = Clock::now();
  ::kill(children[2].pid, SIGKILL);
  wait_all(children, killed_at, 20.0);
  EXPECT_TRUE(WIFSIGNALED(children[2].status));
  for (int r : {0, 1, 3}) {
    const Child& c = children[static_cast<size_t>(r)];
    EXPECT_TRUE(WIFEXITED(c.status) && WEXITSTATUS(c.status) == 1)
        << "rank " << r << " status " << c.status;
    std::printf("[ rank %d ] failed %.2f s after the kill: %s\n", r, c.exited_after_s,
                c.error.c_str());
    EXPECT_LT(c.exited_after_s, 10.0) << "rank " << r;
    EXPECT_THAT(c.error, HasSubstr("rank 2")) << "rank " << r;
    EXPECT_THAT(c.error,
                ::testing::AnyOf(HasSubstr("died or was killed"), HasSubstr("rank 2 failed")))
        << "rank " << r << ": " << c.error;
  }
}

TEST(TcpProcessTest, FrozenRankIsDetectedByHeartbeatsWithin10s) {
  constexpr int kWorld = 3;
  const uint16_t port = free_port();
  std::vector<Child> children;
  ASSERT_NO_FATAL_FAILURE(start_allreduce_world(kWorld, port, children));
  const auto stopped_at = Clock::now();
  ::kill(children[1].pid, SIGSTOP);  // alive, connections open, but silent
  std::vector<Child> others{children[0], children[2]};
  wait_all(others, stopped_at, 20.0);
  ::kill(children[1].pid, SIGKILL);
  std::vector<Child> frozen{children[1]};
  wait_all(frozen, Clock::now(), 5.0);
  for (const Child& c : others) {
    std::printf("[ frozen ] failed %.2f s after SIGSTOP: %s\n", c.exited_after_s, c.error.c_str());
    EXPECT_LT(c.exited_after_s, 10.0);
    EXPECT_THAT(c.error, HasSubstr("rank 1"));
  }
}

TEST(TcpProcessTest, ThrowingRankIsNamedWithItsErrorByEveryOtherRank) {
  constexpr int kWorld = 3;
  const uint16_t port = free_port();
  std::vector<Child> children;
  for (int r = 0; r < kWorld; ++r) {
    children.push_back(spawn(r, kWorld, port, [](Communicator& comm) {
      std::vector<float> x(1 << 20, 1.0f);
      comm.allreduce(x);
      if (comm.rank() == 1) throw std::runtime_error("disk full on rank 1");
      comm.allreduce(x);
    }));
  }
  wait_all(children, Clock::now(), 30.0);
  EXPECT_EQ(children[1].error, "disk full on rank 1");
  for (int r : {0, 2}) {
    EXPECT_THAT(children[static_cast<size_t>(r)].error,
                HasSubstr("peer rank 1 failed: disk full on rank 1"));
    EXPECT_LT(children[static_cast<size_t>(r)].exited_after_s, 10.0);
  }
}

}  // namespace
}  // namespace compopt::tcp::testing
