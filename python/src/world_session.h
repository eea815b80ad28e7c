#pragma once
// WorldSession: this process's place in a world of ranks, held open between calls, for callers
// that cannot hand their whole program to Backend::run as one callback (Python scripts).
//
// The backend runs on a thread of its own: its run() function receives the world Communicator
// and parks until close(). Meanwhile the caller's thread drives the communicator (one thread at
// a time, as Communicator requires: the backend thread never touches it while parked). close()
// releases the backend thread, which then leaves the world as the backend does after a callback
// (TCP: goodbyes); close(failure) makes the callback throw it, so peers are told this rank
// failed. The constructor returns once the communicator is ready, or rethrows the backend's
// setup error (bad options, failed rendezvous).

#include <condition_variable>
#include <exception>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "core/comm/backend.h"

namespace compopt::python {

class WorldSession {
 public:
  WorldSession(const BackendEntry& backend, const WorldOptions& options);
  ~WorldSession();  // close() when still open; never throws
  WorldSession(const WorldSession&) = delete;
  WorldSession& operator=(const WorldSession&) = delete;

  // Throws InvalidArgument after close().
  Communicator& comm();
  bool open() const;
  // Leaves the world; with `failure`, as a rank that failed with that message. Rethrows the
  // backend's error when leaving fails (a peer that had failed). Idempotent.
  void close(const std::optional<std::string>& failure = std::nullopt);

 private:
  void serve(Communicator& comm);

  mutable std::mutex mutex_;
  std::condition_variable changed_;
  Communicator* comm_ = nullptr;
  bool ready_ = false;     // comm_ set, or the backend ended before it was
  bool release_ = false;   // close() asked the backend thread to return
  bool finished_ = false;  // the backend's run() returned or threw
  std::optional<std::string> failure_;
  std::exception_ptr error_;
  std::thread thread_;
};

}  // namespace compopt::python
