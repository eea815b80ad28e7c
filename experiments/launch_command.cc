// `compopt launch -n N -- <compopt arguments>`: starts N local ranks of this
// compopt binary for the TCP backend, like torchrun. Each rank gets RANK,
// LOCAL_RANK, WORLD_SIZE, MASTER_ADDR=127.0.0.1, MASTER_PORT (a free port) and a
// fresh random COMPOPT_JOB_TOKEN; its stdout/stderr lines are forwarded with a
// "[rank k] " prefix. When a rank fails, the others get a grace period to report
// (they notice the failure themselves), then are killed; launch then fails (exit
// code 2 when that rank refused its arguments, as a bad-input error).

#include <arpa/inet.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/util/error.h"
#include "experiments/commands.h"
#include "experiments/option_ranges.h"

namespace compopt::cli {
namespace {

struct LaunchOptions {
  int ranks = 2;
  uint16_t master_port = 0;  // 0: pick a free one
  double grace_s = 3.0;
  std::vector<std::string> command;
};

struct RankProcess {
  pid_t pid = -1;
  int fds[2] = {-1, -1};  // stdout, stderr read ends
  std::string partial[2];
  bool running = true;
  int status = 0;
};

uint16_t free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof(address);
  if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    if (fd >= 0) ::close(fd);
    throw std::runtime_error(
        fmt::format("launch: cannot find a free port: {}", std::strerror(errno)));
  }
  ::close(fd);
  return ntohs(address.sin_port);
}

std::string random_token() {
  std::random_device device;
  std::string token;
  for (int i = 0; i < 4; ++i) token += fmt::format("{:08x}", static_cast<uint32_t>(device()));
  return token;
}

std::string self_executable() {
  char path[4096] = {};
  const ssize_t n = ::readlink("/proc/self/exe", path, sizeof(path) - 1);
  if (n <= 0)
    throw std::runtime_error("launch: cannot find the compopt executable (/proc/self/exe)");
  return std::string(path, static_cast<size_t>(n));
}

RankProcess start_rank(const std::string& exe, const LaunchOptions& o, int rank, uint16_t port,
                       const std::string& token) {
  int out[2], err[2];
  if (::pipe(out) != 0 || ::pipe(err) != 0) throw std::runtime_error("launch: pipe failed");
  RankProcess p;
  p.pid = ::fork();
  if (p.pid < 0)
    throw std::runtime_error(fmt::format("launch: fork failed: {}", std::strerror(errno)));
  if (p.pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlive the launcher
    ::dup2(out[1], STDOUT_FILENO);
    ::dup2(err[1], STDERR_FILENO);
    for (int fd : {out[0], out[1], err[0], err[1]}) ::close(fd);
    ::setenv("RANK", std::to_string(rank).c_str(), 1);
    ::setenv("LOCAL_RANK", std::to_string(rank).c_str(), 1);
    ::setenv("WORLD_SIZE", std::to_string(o.ranks).c_str(), 1);
    ::setenv("LOCAL_WORLD_SIZE", std::to_string(o.ranks).c_str(), 1);  // cores per rank
    ::setenv("MASTER_ADDR", "127.0.0.1", 1);
    ::setenv("MASTER_PORT", std::to_string(port).c_str(), 1);
    ::setenv("COMPOPT_JOB_TOKEN", token.c_str(), 1);
    std::vector<char*> argv{const_cast<char*>(exe.c_str())};
    for (const auto& a : o.command) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(exe.c_str(), argv.data());
    std::fprintf(stderr, "launch: exec %s failed: %s\n", exe.c_str(), std::strerror(errno));
    ::_exit(127);
  }
  ::close(out[1]);
  ::close(err[1]);
  p.fds[0] = out[0];
  p.fds[1] = err[0];
  return p;
}

// Forwards complete lines (and, at EOF, the rest) with the rank prefix.
void forward(RankProcess& p, int rank, int stream, bool eof) {
  std::string& buffer = p.partial[stream];
  FILE* sink = stream == 0 ? stdout : stderr;
  size_t start = 0;
  for (size_t nl; (nl = buffer.find('\n', start)) != std::string::npos; start = nl + 1) {
    fmt::print(sink, "[rank {}] {}\n", rank, std::string_view(buffer).substr(start, nl - start));
  }
  buffer.erase(0, start);
  if (eof && !buffer.empty()) {
    fmt::print(sink, "[rank {}] {}\n", rank, buffer);
    buffer.clear();
  }
  std::fflush(sink);
}

// Reads whatever is ready on the ranks' pipes for up to timeout_ms.
void pump(std::vector<RankProcess>& ranks, int timeout_ms) {
  std::vector<pollfd> polls;
  std::vector<std::pair<size_t, int>> owners;
  for (size_t r = 0; r < ranks.size(); ++r) {
    for (int s = 0; s < 2; ++s) {
      if (ranks[r].fds[s] >= 0) {
        polls.push_back({ranks[r].fds[s], POLLIN, 0});
        owners.emplace_back(r, s);
      }
    }
  }
  if (polls.empty()) {
    ::usleep(static_cast<useconds_t>(timeout_ms) * 1000);
    return;
  }
  if (::poll(polls.data(), polls.size(), timeout_ms) <= 0) return;
  for (size_t i = 0; i < polls.size(); ++i) {
    if (polls[i].revents == 0) continue;
    auto [r, s] = owners[i];
    char chunk[65536];
    const ssize_t n = ::read(polls[i].fd, chunk, sizeof(chunk));
    if (n > 0) {
      ranks[r].partial[s].append(chunk, static_cast<size_t>(n));
      forward(ranks[r], static_cast<int>(r), s, false);
    } else {
      forward(ranks[r], static_cast<int>(r), s, true);
      ::close(ranks[r].fds[s]);
      ranks[r].fds[s] = -1;
    }
  }
}

std::string describe(int status) {
  if (WIFEXITED(status)) return fmt::format("exited with code {}", WEXITSTATUS(status));
  if (WIFSIGNALED(status))
    return fmt::format("was killed by signal {} ({})", WTERMSIG(status),
                       strsignal(WTERMSIG(status)));
  return "ended";
}

bool failed(int status) { return !WIFEXITED(status) || WEXITSTATUS(status) != 0; }

void run(const LaunchOptions& o) {
  if (o.ranks < 1 || o.ranks > 1024)
    throw InvalidArgument(fmt::format("-n {}: expected 1..1024 ranks", o.ranks));
  if (o.command.empty())
    throw InvalidArgument("launch: no command, expected: compopt launch -n N -- <command> ...");
  if (o.command[0] == "launch")
    throw InvalidArgument("launch: the command cannot be another launch");
  const std::string exe = self_executable();
  const uint16_t port = o.master_port != 0 ? o.master_port : free_port();
  const std::string token = random_token();
  std::vector<RankProcess> ranks;
  ranks.reserve(static_cast<size_t>(o.ranks));
  for (int r = 0; r < o.ranks; ++r) ranks.push_back(start_rank(exe, o, r, port, token));

  using Clock = std::chrono::steady_clock;
  int first_failure = -1;
  Clock::time_point failed_at;
  for (;;) {
    pump(ranks, 100);
    int running = 0;
    for (size_t r = 0; r < ranks.size(); ++r) {
      RankProcess& p = ranks[r];
      if (p.running && ::waitpid(p.pid, &p.status, WNOHANG) == p.pid) {
        p.running = false;
        if (failed(p.status) && first_failure < 0) {
          first_failure = static_cast<int>(r);
          failed_at = Clock::now();
          fmt::print(stderr, "compopt launch: rank {} {}; stopping the other ranks\n", r,
                     describe(p.status));
        }
      }
      running += p.running ? 1 : 0;
    }
    if (running == 0) break;
    if (first_failure >= 0 &&
        std::chrono::duration<double>(Clock::now() - failed_at).count() > o.grace_s) {
      for (RankProcess& p : ranks) {
        if (p.running) ::kill(p.pid, SIGKILL);
      }
    }
  }
  for (int i = 0; i < 20; ++i) pump(ranks, 10);  // drain what the ranks wrote last
  if (first_failure >= 0) {
    const int status = ranks[static_cast<size_t>(first_failure)].status;
    const std::string what = fmt::format("launch: rank {} {}", first_failure, describe(status));
    // A rank that refused its arguments (exit code 2, message forwarded above) is bad input.
    if (WIFEXITED(status) && WEXITSTATUS(status) == 2) throw InvalidArgument(what + " (bad input)");
    throw std::runtime_error(what);
  }
}

}  // namespace

void register_launch_command(CLI::App& app) {
  auto o = std::make_shared<LaunchOptions>();
  CLI::App* cmd = app.add_subcommand(
      "launch",
      "Start N local ranks of a compopt command on the TCP backend (like torchrun): "
      "compopt launch -n 4 -- comm-bench --backend tcp");
  cmd->add_option("-n,--nproc", o->ranks, "number of ranks")->capture_default_str();
  cmd->add_option("--master-port", o->master_port, "rendezvous port (0: a free port)")
      ->capture_default_str();
  cmd->add_option("--grace", o->grace_s, "seconds the other ranks get to report after one failed")
      ->check(in_range("--grace", 0, kMaxGraceSeconds, "seconds, at most an hour"))
      ->capture_default_str();
  cmd->add_option("command", o->command, "compopt arguments of every rank (after --)")->required();
  cmd->callback([o] { run(*o); });
}

}  // namespace compopt::cli
