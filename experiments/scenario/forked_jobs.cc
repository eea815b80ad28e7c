#include "experiments/scenario/forked_jobs.h"

#include <fmt/format.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <stdexcept>
#include <thread>

#include "core/util/error.h"

namespace compopt::cli {
namespace {

// The exit status of a child whose job threw InvalidArgument (any other failure exits 1).
constexpr int kInvalidArgumentExit = 2;

struct Running {
  pid_t pid;
  size_t index;
  int fd;
  std::string text;
};

[[noreturn]] void child_main(const ForkedJobs& jobs, size_t index, int fd) {
  std::string text;
  int code = 0;
  try {
    text = jobs.work(index);
  } catch (const InvalidArgument& e) {
    text = e.what();
    code = kInvalidArgumentExit;
  } catch (const std::exception& e) {
    text = e.what();
    code = 1;
  }
  for (size_t off = 0; off < text.size();) {
    const ssize_t n = write(fd, text.data() + off, text.size() - off);
    if (n <= 0) break;
    off += static_cast<size_t>(n);
  }
  std::fflush(nullptr);
  _exit(code);
}

Running start(const ForkedJobs& jobs, size_t index) {
  int fds[2];
  if (pipe(fds) != 0) throw std::runtime_error("run_forked: pipe() failed");
  std::fflush(nullptr);
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("run_forked: fork() failed");
  if (pid == 0) {
    // A job dies with the process that waits for it (killed, it would otherwise simulate on
    // for minutes, its result unread); a parent gone before this line counts as well.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(1);
    close(fds[0]);
    child_main(jobs, index, fds[1]);
  }
  close(fds[1]);
  return {pid, index, fds[0], {}};
}

// Reads what is available; returns false at end of file.
bool drain(Running& r) {
  char buffer[65536];
  const ssize_t n = read(r.fd, buffer, sizeof buffer);
  if (n > 0) {
    r.text.append(buffer, static_cast<size_t>(n));
    return true;
  }
  return n < 0 && errno == EINTR;
}

struct Failure {
  std::string message;  // of the first failed job; empty: none failed
  bool invalid_argument = false;
};

// Reaps the child of `r` (its output fully read): its text into `results`, or the failure.
void finish(const ForkedJobs& jobs, Running r, std::vector<std::string>& results,
            Failure& failure) {
  close(r.fd);
  int status = 0;
  while (waitpid(r.pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    results[r.index] = std::move(r.text);
    if (jobs.on_done) jobs.on_done(r.index);
    return;
  }
  if (!failure.message.empty()) return;
  const std::string why =
      WIFSIGNALED(status) ? fmt::format("killed by signal {}", WTERMSIG(status)) : r.text;
  failure.message = fmt::format("{} failed: {}", jobs.describe(r.index), why);
  failure.invalid_argument = WIFEXITED(status) && WEXITSTATUS(status) == kInvalidArgumentExit;
}

}  // namespace

int parallel_jobs(int requested) {
  return requested > 0 ? requested
                       : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

std::vector<std::string> run_forked(const ForkedJobs& jobs) {
  std::vector<std::string> results(jobs.count);
  std::vector<Running> running;
  Failure failure;
  size_t next = 0;
  while (running.size() > 0 || (failure.message.empty() && next < jobs.count)) {
    while (failure.message.empty() && next < jobs.count &&
           static_cast<int>(running.size()) < std::max(1, jobs.parallel)) {
      running.push_back(start(jobs, next++));
    }
    std::vector<pollfd> fds;
    fds.reserve(running.size());
    for (const Running& r : running) fds.push_back({r.fd, POLLIN, 0});
    if (poll(fds.data(), fds.size(), -1) < 0 && errno != EINTR)
      throw std::runtime_error("run_forked: poll() failed");
    for (size_t i = running.size(); i-- > 0;) {
      if (fds[i].revents == 0 || drain(running[i])) continue;
      Running r = std::move(running[i]);
      running.erase(running.begin() + static_cast<std::ptrdiff_t>(i));
      finish(jobs, std::move(r), results, failure);
    }
  }
  if (failure.invalid_argument) throw InvalidArgument(failure.message);
  if (!failure.message.empty()) throw std::runtime_error(failure.message);
  return results;
}

}  // namespace compopt::cli
