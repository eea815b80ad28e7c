#pragma once
// Wall-clock time a thread spends compressing: the compressed allreduces wrap their
// encode and decode work (worker encode with error feedback, the server's average and
// re-encode, decoding the gathered messages) in a CompressionScope, which adds the
// scope's measured seconds to a per-thread total. The training loop reads the total
// before and after an optimizer step to split the step into compression and the rest
// (StepRecord::compression_s). Per thread because each rank drives its Communicator
// from one thread. Backends that run the compressed allreduce on a GPU (hybrid, nccl)
// do not mark their kernels, so their total stays 0.

namespace compopt {

// Seconds this thread has spent inside CompressionScopes so far.
double compression_seconds();

class CompressionScope {
 public:
  CompressionScope();
  ~CompressionScope();
  CompressionScope(const CompressionScope&) = delete;
  CompressionScope& operator=(const CompressionScope&) = delete;

 private:
  double start_s_;
};

}  // namespace compopt
