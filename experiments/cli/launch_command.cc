// `compopt launch -n N [--nnodes M --node-rank K --master-addr A --master-port P] -- WORD ARGS`:
// starts N ranks on this node, like torchrun. WORD is a compopt subcommand (run by this
// binary) or any other program (found on PATH before any rank starts). Each rank gets the
// environment of launch_environment.h; its stdout/stderr lines are forwarded with a
// "[rank k] " prefix (k global). When a rank fails, the others get a grace period to report
// (they notice the failure themselves), then are killed; launch then fails naming the root
// cause (launch_failure.h), with exit code 2 when that rank refused its arguments. A rank
// stopped by a signal (SIGSTOP, SIGTSTP) for longer than --stopped-timeout (4 s, the TCP
// backend's peer-silence timeout) counts as failed: its peers cannot tell it from a hung rank
// before they are connected, so the launcher, which sees the stop, names it.

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

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/util/error.h"
#include "experiments/cli/commands.h"
#include "experiments/launch/launch_environment.h"
#include "experiments/launch/launch_failure.h"
#include "experiments/launch/launch_program.h"
#include "experiments/scenario/option_ranges.h"

namespace compopt::cli {
namespace {

struct LaunchOptions {
  LaunchLayout layout;
  double grace_s = 3.0;
  double stopped_timeout_s = 4.0;
  std::vector<std::string> command;
};

// What every rank executes: `file` with execv, or with execvp when `search_path`.
struct RankCommand {
  std::string file;
  bool search_path = false;
  std::vector<std::string> argv;
};

struct RankProcess {
  int rank = 0;  // global
  pid_t pid = -1;
  int fds[2] = {-1, -1};  // stdout, stderr read ends
  std::string partial[2];
  std::string last_error;  // the last complete line on stderr
  bool running = true;
  bool killed_by_launcher = false;
  bool failed_stopped = false;  // a failure already: stopped too long
  std::optional<std::chrono::steady_clock::time_point> stopped_since;
  int status = 0;
};

int g_child_exit_fds[2] = {-1, -1};

extern "C" void note_child_exit(int /*signal*/) {
  const int saved = errno;
  const char byte = 0;
  [[maybe_unused]] const ssize_t n = ::write(g_child_exit_fds[1], &byte, 1);
  errno = saved;
}

// SIGCHLD wakes the launcher's poll() through a pipe the moment a rank ends, stops or
// continues, so ranks are reaped in the order they end: the first failure is the root cause,
// not the first one a sweep over the ranks reaches. The previous SIGCHLD action comes back on
// destruction.
class ChildExitPipe {
 public:
  ChildExitPipe() {
    if (::pipe2(g_child_exit_fds, O_CLOEXEC | O_NONBLOCK) != 0)
      throw std::runtime_error(fmt::format("launch: pipe failed: {}", std::strerror(errno)));
    struct sigaction action {};
    action.sa_handler = note_child_exit;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    ::sigaction(SIGCHLD, &action, &previous_);
  }
  ~ChildExitPipe() {
    ::sigaction(SIGCHLD, &previous_, nullptr);
    for (int& fd : g_child_exit_fds) {
      ::close(fd);
      fd = -1;
    }
  }
  ChildExitPipe(const ChildExitPipe&) = delete;
  ChildExitPipe& operator=(const ChildExitPipe&) = delete;

  int fd() const { return g_child_exit_fds[0]; }
  void drain() const {
    char buffer[256];
    while (::read(fd(), buffer, sizeof(buffer)) > 0) {
    }
  }

 private:
  struct sigaction previous_ {};
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

std::string self_executable() {
  char path[4096] = {};
  const ssize_t n = ::readlink("/proc/self/exe", path, sizeof(path) - 1);
  if (n <= 0)
    throw std::runtime_error("launch: cannot find the compopt executable (/proc/self/exe)");
  return std::string(path, static_cast<size_t>(n));
}

// This binary for a compopt subcommand (the app's own list), else the program on PATH.
RankCommand rank_command(const std::vector<std::string>& words, const CLI::App& launch) {
  if (words.empty())
    throw InvalidArgument("launch: no command, expected: compopt launch -n N -- <command> ...");
  const std::string& word = words[0];
  const auto subcommands =
      std::as_const(*launch.get_parent()).get_subcommands([&](const CLI::App* s) {
        return s->check_name(word);
      });
  if (subcommands.empty()) {
    resolve_program(word);  // refuses a missing program now, before any rank starts
    return {.file = word, .search_path = true, .argv = words};
  }
  if (subcommands.front() == &launch)
    throw InvalidArgument("launch: the command cannot be another launch");
  RankCommand command{.file = self_executable(), .search_path = false, .argv = {}};
  command.argv.push_back(command.file);
  command.argv.insert(command.argv.end(), words.begin(), words.end());
  return command;
}

[[noreturn]] void exec_rank(const RankCommand& command, const RankEnvironment& env, int out,
                            int err) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlive the launcher
  ::dup2(out, STDOUT_FILENO);
  ::dup2(err, STDERR_FILENO);
  for (const auto& [name, value] : env.set) ::setenv(name.c_str(), value.c_str(), 1);
  for (const std::string& name : env.unset) ::unsetenv(name.c_str());
  std::vector<char*> argv;
  for (const std::string& a : command.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  if (command.search_path) {
    ::execvp(command.file.c_str(), argv.data());
  } else {
    ::execv(command.file.c_str(), argv.data());
  }
  std::fprintf(stderr, "launch: exec %s failed: %s\n", command.file.c_str(), std::strerror(errno));
  ::_exit(127);
}

RankProcess start_rank(const RankCommand& command, const RankEnvironment& env, int rank) {
  int out[2], err[2];  // close-on-exec: no rank inherits another rank's pipes
  if (::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0)
    throw std::runtime_error(fmt::format("launch: pipe failed: {}", std::strerror(errno)));
  RankProcess p;
  p.rank = rank;
  p.pid = ::fork();
  if (p.pid < 0)
    throw std::runtime_error(fmt::format("launch: fork failed: {}", std::strerror(errno)));
  if (p.pid == 0) exec_rank(command, env, out[1], err[1]);
  ::close(out[1]);
  ::close(err[1]);
  p.fds[0] = out[0];
  p.fds[1] = err[0];
  return p;
}

void emit_line(RankProcess& p, int stream, std::string_view line) {
  fmt::print(stream == 0 ? stdout : stderr, "[rank {}] {}\n", p.rank, line);
  if (stream == 1 && !line.empty()) p.last_error = line;
}

// Forwards complete lines (and, at EOF, the rest) with the rank prefix.
void forward(RankProcess& p, int stream, bool eof) {
  std::string& buffer = p.partial[stream];
  size_t start = 0;
  for (size_t nl; (nl = buffer.find('\n', start)) != std::string::npos; start = nl + 1)
    emit_line(p, stream, std::string_view(buffer).substr(start, nl - start));
  buffer.erase(0, start);
  if (eof && !buffer.empty()) {
    emit_line(p, stream, buffer);
    buffer.clear();
  }
  std::fflush(stream == 0 ? stdout : stderr);
}

void read_rank_output(RankProcess& p, int stream) {
  char chunk[65536];
  const ssize_t n = ::read(p.fds[stream], chunk, sizeof(chunk));
  if (n < 0 && (errno == EINTR || errno == EAGAIN)) return;
  if (n > 0) {
    p.partial[stream].append(chunk, static_cast<size_t>(n));
    forward(p, stream, false);
    return;
  }
  forward(p, stream, true);
  ::close(p.fds[stream]);
  p.fds[stream] = -1;
}

// Reads whatever the ranks wrote, for up to timeout_ms or until a rank ends.
void pump(std::vector<RankProcess>& ranks, const ChildExitPipe& exits, int timeout_ms) {
  std::vector<pollfd> polls{{exits.fd(), POLLIN, 0}};
  std::vector<std::pair<size_t, int>> owners{{0, -1}};
  for (size_t r = 0; r < ranks.size(); ++r) {
    for (int s = 0; s < 2; ++s) {
      if (ranks[r].fds[s] < 0) continue;
      polls.push_back({ranks[r].fds[s], POLLIN, 0});
      owners.emplace_back(r, s);
    }
  }
  if (::poll(polls.data(), polls.size(), timeout_ms) <= 0) return;
  exits.drain();
  for (size_t i = 1; i < polls.size(); ++i) {
    if (polls[i].revents != 0) read_rank_output(ranks[owners[i].first], owners[i].second);
  }
}

// Notes a rank's stop or continuation (waitpid WUNTRACED / WCONTINUED); true when the rank
// has now been stopped for longer than `stopped_timeout_s`, the first time only.
bool stopped_too_long(RankProcess& p, int status, double stopped_timeout_s) {
  using Clock = std::chrono::steady_clock;
  if (WIFCONTINUED(status)) {
    p.stopped_since.reset();
    return false;
  }
  if (WIFSTOPPED(status) && !p.stopped_since) {
    p.stopped_since = Clock::now();
    p.status = status;
    fmt::print(stderr, "compopt launch: rank {} (pid {}) {}\n", p.rank, p.pid,
               describe_status(status));
  }
  if (!p.stopped_since || p.failed_stopped ||
      std::chrono::duration<double>(Clock::now() - *p.stopped_since).count() <= stopped_timeout_s)
    return false;
  p.failed_stopped = true;
  return true;
}

// Reaps the ranks that ended, and counts a rank stopped for longer than `stopped_timeout_s`
// as failed. Failures the launcher did not cause are appended in the order they ended; of
// several found at once, those killed or stopped by a signal come first (the others are most
// likely the ranks that noticed).
void reap(std::vector<RankProcess>& ranks, std::vector<RankEnd>& failures,
          double stopped_timeout_s) {
  std::vector<RankEnd> ended;
  for (RankProcess& p : ranks) {
    if (!p.running) continue;
    int status = 0;
    const bool changed = ::waitpid(p.pid, &status, WNOHANG | WUNTRACED | WCONTINUED) == p.pid;
    if (!changed || WIFSTOPPED(status) || WIFCONTINUED(status)) {
      if (stopped_too_long(p, changed ? status : 0, stopped_timeout_s))
        ended.push_back({.rank = p.rank, .status = p.status, .last_error = {}});
      continue;
    }
    p.running = false;
    p.status = status;
    if (!p.killed_by_launcher && !p.failed_stopped && failed_status(p.status))
      ended.push_back({.rank = p.rank, .status = p.status, .last_error = {}});
  }
  std::stable_sort(ended.begin(), ended.end(), [](const RankEnd& a, const RankEnd& b) {
    return !WIFEXITED(a.status) && WIFEXITED(b.status);
  });
  failures.insert(failures.end(), ended.begin(), ended.end());
}

bool any(const std::vector<RankProcess>& ranks, bool (*test)(const RankProcess&)) {
  return std::any_of(ranks.begin(), ranks.end(), test);
}
bool is_running(const RankProcess& p) { return p.running; }
bool has_open_output(const RankProcess& p) { return p.fds[0] >= 0 || p.fds[1] >= 0; }

// Runs the ranks to their end; returns the failures in the order the ranks ended.
std::vector<RankEnd> supervise(std::vector<RankProcess>& ranks, const ChildExitPipe& exits,
                               const LaunchOptions& o) {
  using Clock = std::chrono::steady_clock;
  std::vector<RankEnd> failures;
  Clock::time_point failed_at;
  while (any(ranks, is_running)) {
    pump(ranks, exits, 100);
    const bool first = failures.empty();
    reap(ranks, failures, o.stopped_timeout_s);
    if (first && !failures.empty()) {
      failed_at = Clock::now();
      fmt::print(stderr, "compopt launch: rank {} {}; stopping the other ranks\n",
                 failures.front().rank, describe_status(failures.front().status));
    }
    if (failures.empty() ||
        std::chrono::duration<double>(Clock::now() - failed_at).count() <= o.grace_s)
      continue;
    for (RankProcess& p : ranks) {
      if (!p.running || p.killed_by_launcher) continue;
      ::kill(p.pid, SIGKILL);
      p.killed_by_launcher = true;
    }
  }
  for (int i = 0; i < 20 && any(ranks, has_open_output); ++i)
    pump(ranks, exits, 10);  // the last lines
  for (RankEnd& end : failures) {
    for (const RankProcess& p : ranks) {
      if (p.rank == end.rank) end.last_error = p.last_error;
    }
  }
  return failures;
}

void run(const LaunchOptions& o, const CLI::App& launch) {
  const LaunchLayout& layout = o.layout;
  validate(layout);
  const RankCommand command = rank_command(o.command, launch);
  const std::string token = launch_job_token(layout, std::getenv("COMPOPT_JOB_TOKEN"));
  const uint16_t port = layout.master_port != 0 ? layout.master_port : free_port();
  const ChildExitPipe exits;
  std::vector<RankProcess> ranks;
  ranks.reserve(static_cast<size_t>(layout.nproc));
  for (int local = 0; local < layout.nproc; ++local) {
    ranks.push_back(start_rank(command, rank_environment(layout, local, port, token),
                               layout.node_rank * layout.nproc + local));
  }
  const std::vector<RankEnd> failures = supervise(ranks, exits, o);
  if (failures.empty()) return;
  const std::string what = "launch: " + failure_summary(failures, layout.nnodes * layout.nproc);
  // A rank that refused its arguments (exit code 2, message forwarded above) is bad input.
  const int status = failures.front().status;
  if (WIFEXITED(status) && WEXITSTATUS(status) == 2) throw InvalidArgument(what + " (bad input)");
  throw std::runtime_error(what);
}

}  // namespace

void register_launch_command(CLI::App& app) {
  auto o = std::make_shared<LaunchOptions>();
  CLI::App* cmd = app.add_subcommand(
      "launch",
      "Start N ranks of a compopt subcommand or of any program on this node, like torchrun: "
      "compopt launch -n 4 -- comm-bench --backend tcp");
  LaunchLayout& l = o->layout;
  cmd->add_option("-n,--nproc,--nproc-per-node", l.nproc, "ranks on this node")
      ->capture_default_str();
  cmd->add_option("--nnodes", l.nnodes, "nodes of the job, one launch on each")
      ->capture_default_str();
  cmd->add_option("--node-rank", l.node_rank, "this node, 0..nnodes-1")->capture_default_str();
  cmd->add_option("--master-addr", l.master_addr, "address of node 0, where rank 0 listens")
      ->capture_default_str();
  cmd->add_option("--master-port", l.master_port,
                  "rendezvous port on node 0 (0: a free one; required with --nnodes > 1)")
      ->capture_default_str();
  cmd->add_option("--run-id", l.run_id,
                  "job id, the same on every node: the job token is derived from it");
  cmd->add_option("--job-token", l.job_token,
                  "shared job secret of 16+ characters (default: from --run-id, else "
                  "COMPOPT_JOB_TOKEN, else random on one node)");
  cmd->add_option("--grace", o->grace_s, "seconds the other ranks get to report after one failed")
      ->check(in_range("--grace", 0, kMaxGraceSeconds, "seconds, at most an hour"))
      ->capture_default_str();
  cmd->add_option("--stopped-timeout", o->stopped_timeout_s,
                  "seconds a rank may stay stopped by a signal (SIGSTOP) before it counts as "
                  "failed")
      ->check(in_range("--stopped-timeout", 0, kMaxGraceSeconds, "seconds, at most an hour"))
      ->capture_default_str();
  cmd->add_option("command", o->command,
                  "compopt subcommand or program, and its arguments (after --)")
      ->required();
  cmd->callback([o, cmd] { run(*o, *cmd); });
}

}  // namespace compopt::cli
