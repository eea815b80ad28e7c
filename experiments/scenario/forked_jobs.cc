#include "experiments/scenario/forked_jobs.h"

#include <fmt/format.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <stdexcept>
#include <thread>

namespace compopt::cli {
namespace {

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
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("run_forked: fork() failed");
  if (pid == 0) {
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

}  // namespace

int parallel_jobs(int requested) {
  return requested > 0 ? requested
                       : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

std::vector<std::string> run_forked(const ForkedJobs& jobs) {
  std::vector<std::string> results(jobs.count);
  std::vector<Running> running;
  std::string failure;
  size_t next = 0;
  while (running.size() > 0 || (failure.empty() && next < jobs.count)) {
    while (failure.empty() && next < jobs.count &&
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
      close(r.fd);
      int status = 0;
      while (waitpid(r.pid, &status, 0) < 0 && errno == EINTR) {
      }
      if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        if (failure.empty()) {
          const std::string why =
              WIFSIGNALED(status) ? fmt::format("killed by signal {}", WTERMSIG(status)) : r.text;
          failure = fmt::format("{} failed: {}", jobs.describe(r.index), why);
        }
        continue;
      }
      results[r.index] = std::move(r.text);
      if (jobs.on_done) jobs.on_done(r.index);
    }
  }
  if (!failure.empty()) throw std::runtime_error(failure);
  return results;
}

}  // namespace compopt::cli
