// compopt_delay_switch: a userspace Ethernet switch that adds a fixed one-way delay,
// for kernels without the netem qdisc (experiments/validation/netns_validation.sh, DELAYS_US=...).
//
// Usage: compopt_delay_switch --ports N --prefix NAME --delay-us D --rate-mbit R [--queue-ms Q]
//
// Creates TAP devices NAME0..NAME{N-1} in the network namespace it is started in
// (the caller brings them up, and may move them to other namespaces: the open file
// keeps the device attached), prints one line "ready" on stdout, then forwards
// frames between them as a learning switch: to the port a destination MAC was last
// seen on, else (broadcast, multicast, unknown) to every other port.
//
// Timing of a frame of L bytes that is read at time t and leaves by port j: it
// starts leaving at max(t + D, the time port j is free), occupies port j for
// L*8/R microseconds, and is written to port j when its last bit is out. Frames
// keep their order per output port. A frame that would wait more than Q ms
// (default 50) for its port is dropped and counted. Wake-ups use a 1 ns timer
// slack, so frames leave within the scheduler's wake-up latency of their time.
//
// SIGTERM or SIGINT: per-port counters on stderr, exit status 0. Bad arguments:
// exit status 2; a system call failing at startup: exit status 1.

#include <fcntl.h>
#include <fmt/core.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <deque>
#include <limits>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

namespace {

constexpr size_t kEthernetHeaderBytes = 14;
constexpr size_t kReadBufferBytes = 65536;  // larger than any frame a TAP without offloads gives
constexpr int kFramesReadPerWakeup = 64;    // per port, so releases are not starved
constexpr size_t kMaxQueuedFramesPerPort = 16384;  // memory bound on top of the --queue-ms limit
constexpr int64_t kNoDeparture = std::numeric_limits<int64_t>::max();

struct Options {
  int ports = 0;
  std::string prefix;
  int64_t delay_us = 0;
  double rate_mbit = 0;
  double queue_ms = 50;
};

struct SystemError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

[[noreturn]] void fail_system(const std::string& what) {
  throw SystemError(fmt::format("{}: {}", what, std::strerror(errno)));
}

int64_t monotonic_now_ns() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return int64_t{now.tv_sec} * 1'000'000'000 + now.tv_nsec;
}

struct QueuedFrame {
  int64_t release_ns;
  std::vector<unsigned char> bytes;
};

struct PortCounters {
  uint64_t received_frames = 0;
  uint64_t received_bytes = 0;
  uint64_t forwarded_frames = 0;  // written to this port
  uint64_t forwarded_bytes = 0;
  uint64_t dropped_queue_full = 0;
  uint64_t write_errors = 0;
};

struct Port {
  std::string name;
  int fd = -1;
  bool attached = true;  // false once the device is gone (its namespace deleted)
  int64_t free_at_ns = 0;
  std::deque<QueuedFrame> queue;
  PortCounters counters;
};

uint64_t mac_at(const unsigned char* bytes) {
  uint64_t mac = 0;
  for (int i = 0; i < 6; ++i) mac = (mac << 8) | bytes[i];
  return mac;
}

bool is_group_address(const unsigned char* mac) { return (mac[0] & 1) != 0; }

int open_tap(const std::string& name) {
  int fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) fail_system("cannot open /dev/net/tun");
  ifreq request{};
  request.ifr_flags = IFF_TAP | IFF_NO_PI;
  name.copy(request.ifr_name, IFNAMSIZ - 1);
  if (ioctl(fd, TUNSETIFF, &request) < 0)
    fail_system(fmt::format("cannot create TAP device {} (TUNSETIFF)", name));
  return fd;
}

class DelaySwitch {
 public:
  explicit DelaySwitch(const Options& options)
      : delay_ns_(options.delay_us * 1000),
        ns_per_byte_(8.0 * 1000.0 / options.rate_mbit),
        queue_limit_ns_(static_cast<int64_t>(options.queue_ms * 1e6)),
        read_buffer_(kReadBufferBytes) {
    ports_.resize(static_cast<size_t>(options.ports));
    for (size_t i = 0; i < ports_.size(); ++i) {
      ports_[i].name = options.prefix + std::to_string(i);
      ports_[i].fd = open_tap(ports_[i].name);
    }
    epoll_fd_ = epoll_create1(EPOLL_CLOEXEC);
    if (epoll_fd_ < 0) fail_system("epoll_create1");
    sigset_t stop_signals;
    sigemptyset(&stop_signals);
    sigaddset(&stop_signals, SIGTERM);
    sigaddset(&stop_signals, SIGINT);
    if (sigprocmask(SIG_BLOCK, &stop_signals, nullptr) < 0) fail_system("sigprocmask");
    signal_fd_ = signalfd(-1, &stop_signals, SFD_NONBLOCK | SFD_CLOEXEC);
    if (signal_fd_ < 0) fail_system("signalfd");
    for (size_t i = 0; i < ports_.size(); ++i) watch(ports_[i].fd, i);
    watch(signal_fd_, kSignalTag);
  }

  DelaySwitch(const DelaySwitch&) = delete;
  DelaySwitch& operator=(const DelaySwitch&) = delete;

  ~DelaySwitch() {
    for (const Port& port : ports_) close(port.fd);
    close(signal_fd_);
    close(epoll_fd_);
  }

  // Forwards until SIGTERM or SIGINT.
  void run() {
    std::array<epoll_event, 64> events{};
    for (;;) {
      int64_t departure_ns = next_departure_ns();
      timespec timeout{};
      if (departure_ns != kNoDeparture) {
        int64_t wait_ns = std::max<int64_t>(departure_ns - monotonic_now_ns(), 0);
        timeout.tv_sec = static_cast<time_t>(wait_ns / 1'000'000'000);
        timeout.tv_nsec = static_cast<long>(wait_ns % 1'000'000'000);
      }
      int ready = epoll_pwait2(epoll_fd_, events.data(), static_cast<int>(events.size()),
                               departure_ns == kNoDeparture ? nullptr : &timeout, nullptr);
      if (ready < 0) {
        if (errno == EINTR) continue;
        fail_system("epoll_pwait2");
      }
      for (int e = 0; e < ready; ++e) {
        uint64_t tag = events[static_cast<size_t>(e)].data.u64;
        if (tag == kSignalTag) return;
        read_frames(static_cast<size_t>(tag));
      }
      release_due_frames(monotonic_now_ns());
    }
  }

  void print_counters() const {
    uint64_t total_drops = 0;
    for (const Port& port : ports_) {
      const PortCounters& c = port.counters;
      fmt::print(stderr,
                 "compopt_delay_switch: {}: received {} frames {} bytes, forwarded to it {} frames "
                 "{} bytes, "
                 "dropped {} (queue full), {} write errors, {} still queued\n",
                 port.name, c.received_frames, c.received_bytes, c.forwarded_frames,
                 c.forwarded_bytes, c.dropped_queue_full, c.write_errors, port.queue.size());
      total_drops += c.dropped_queue_full;
    }
    fmt::print(stderr,
               "compopt_delay_switch: total drops {}, frames filtered (destination on the source "
               "port) {}\n",
               total_drops, filtered_frames_);
  }

 private:
  static constexpr uint64_t kSignalTag = std::numeric_limits<uint64_t>::max();

  void watch(int fd, uint64_t tag) {
    epoll_event event{};
    event.events = EPOLLIN;
    event.data.u64 = tag;
    if (epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &event) < 0) fail_system("epoll_ctl");
  }

  void detach(Port& port) {
    fmt::print(stderr,
               "compopt_delay_switch: {} is gone ({}); no longer forwarding to or from it\n",
               port.name, std::strerror(errno));
    epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, port.fd, nullptr);
    port.attached = false;
    port.queue.clear();
  }

  void read_frames(size_t source) {
    Port& port = ports_[source];
    for (int n = 0; n < kFramesReadPerWakeup && port.attached; ++n) {
      ssize_t length = read(port.fd, read_buffer_.data(), read_buffer_.size());
      if (length < 0) {
        if (errno == EAGAIN || errno == EINTR) return;
        detach(port);
        return;
      }
      int64_t arrival_ns = monotonic_now_ns();
      port.counters.received_frames++;
      port.counters.received_bytes += static_cast<uint64_t>(length);
      if (static_cast<size_t>(length) >= kEthernetHeaderBytes) {
        switch_frame(source, static_cast<size_t>(length), arrival_ns);
      }
    }
  }

  void switch_frame(size_t source, size_t length, int64_t arrival_ns) {
    const unsigned char* destination_mac = read_buffer_.data();
    const unsigned char* source_mac = read_buffer_.data() + 6;
    if (!is_group_address(source_mac)) port_of_mac_[mac_at(source_mac)] = source;
    if (!is_group_address(destination_mac)) {
      auto known = port_of_mac_.find(mac_at(destination_mac));
      if (known != port_of_mac_.end()) {
        if (known->second == source) {
          filtered_frames_++;
        } else {
          enqueue(known->second, length, arrival_ns);
        }
        return;
      }
    }
    for (size_t target = 0; target < ports_.size(); ++target) {
      if (target != source) enqueue(target, length, arrival_ns);
    }
  }

  void enqueue(size_t target, size_t length, int64_t arrival_ns) {
    Port& port = ports_[target];
    if (!port.attached) return;
    int64_t earliest_ns = arrival_ns + delay_ns_;
    int64_t start_ns = std::max(earliest_ns, port.free_at_ns);
    if (start_ns - earliest_ns > queue_limit_ns_ || port.queue.size() >= kMaxQueuedFramesPerPort) {
      port.counters.dropped_queue_full++;
      return;
    }
    port.free_at_ns = start_ns + static_cast<int64_t>(static_cast<double>(length) * ns_per_byte_);
    port.queue.push_back(
        {port.free_at_ns,
         std::vector<unsigned char>(read_buffer_.begin(),
                                    read_buffer_.begin() + static_cast<ptrdiff_t>(length))});
  }

  void release_due_frames(int64_t now_ns) {
    for (Port& port : ports_) {
      while (port.attached && !port.queue.empty() && port.queue.front().release_ns <= now_ns) {
        const std::vector<unsigned char>& bytes = port.queue.front().bytes;
        if (write(port.fd, bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size())) {
          port.counters.forwarded_frames++;
          port.counters.forwarded_bytes += bytes.size();
        } else if (errno == EBADFD || errno == ENODEV) {
          detach(port);
          break;
        } else {
          port.counters.write_errors++;  // e.g. EIO while the device is down
        }
        port.queue.pop_front();
      }
    }
  }

  int64_t next_departure_ns() const {
    int64_t next = kNoDeparture;
    for (const Port& port : ports_) {
      if (port.attached && !port.queue.empty())
        next = std::min(next, port.queue.front().release_ns);
    }
    return next;
  }

  int64_t delay_ns_;
  double ns_per_byte_;
  int64_t queue_limit_ns_;
  std::vector<Port> ports_;
  std::unordered_map<uint64_t, size_t> port_of_mac_;
  std::vector<unsigned char> read_buffer_;
  uint64_t filtered_frames_ = 0;
  int epoll_fd_ = -1;
  int signal_fd_ = -1;
};

// NAME plus the largest port number must fit a Linux interface name (15 characters).
std::string check_prefix(const std::string& prefix, int ports) {
  size_t longest = prefix.size() + std::to_string(std::max(ports - 1, 0)).size();
  if (prefix.empty() || longest > IFNAMSIZ - 1) {
    return fmt::format("--prefix '{}': the device names {}0..{}{} must be 1 to {} characters",
                       prefix, prefix, prefix, ports - 1, IFNAMSIZ - 1);
  }
  for (char c : prefix) {
    bool allowed = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                   c == '_' || c == '-' || c == '.';
    if (!allowed)
      return fmt::format("--prefix '{}': expected letters, digits, '_', '-' or '.' only", prefix);
  }
  return "";
}

// CLI11's own number validators print the whole double range; these say what is expected.
CLI::Validator number_check(const std::string& unit, double bound, bool bound_allowed) {
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        double value = 0;
        size_t used = 0;
        try {
          value = std::stod(text, &used);
        } catch (const std::exception&) {
          used = 0;
        }
        bool ok = used == text.size() && std::isfinite(value) &&
                  (bound_allowed ? value >= bound : value > bound);
        if (ok) return "";
        return fmt::format("value '{}' is not a number {} {} ({})", text,
                           bound_allowed ? ">=" : ">", bound, unit);
      },
      "");
}
CLI::Validator number_above(const std::string& unit, double bound) {
  return number_check(unit, bound, false);
}
CLI::Validator number_at_least(const std::string& unit, double bound) {
  return number_check(unit, bound, true);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "compopt_delay_switch: learning Ethernet switch over TAP devices with a fixed one-way delay "
      "and a per-port output rate"};
  Options options;
  app.add_option("--ports", options.ports, "number of TAP ports")
      ->required()
      ->check(CLI::Range(1, 1024));
  app.add_option("--prefix", options.prefix, "TAP devices are named PREFIX0..PREFIX{N-1}")
      ->required();
  app.add_option("--delay-us", options.delay_us, "one-way delay added to every frame, microseconds")
      ->required()
      ->check(CLI::Range(int64_t{0}, int64_t{10'000'000}));
  app.add_option("--rate-mbit", options.rate_mbit, "output rate of every port, Mbit/s")
      ->required()
      ->check(number_above("Mbit/s", 0.0));
  app.add_option("--queue-ms", options.queue_ms,
                 "drop a frame that would wait longer than this for its port")
      ->capture_default_str()
      ->check(number_at_least("ms", 0.0));
  try {
    app.parse(argc, argv);
    if (std::string problem = check_prefix(options.prefix, options.ports); !problem.empty()) {
      throw CLI::ValidationError(problem);
    }
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    fmt::print(stderr,
               "compopt_delay_switch: error: {}\nRun with --help for the accepted options.\n",
               e.what());
    return 2;
  }

  try {
    prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);  // wake up on time: the delay is the point
    DelaySwitch delay_switch(options);
    fmt::print("ready\n");
    std::fflush(stdout);
    delay_switch.run();
    delay_switch.print_counters();
  } catch (const SystemError& e) {
    fmt::print(stderr, "compopt_delay_switch: failed: {}\n", e.what());
    return 1;
  }
  return 0;
}
