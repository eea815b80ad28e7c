#pragma once
// Progress of `compopt train` on stdout: a one-line bar redrawn in place when
// stdout is a terminal (isatty), plain lines at evaluation steps otherwise.
// The optimizer's notes are printed as "note: step N: ..." lines even when quiet, like the
// start-up warnings. Called from one thread (rank 0's).

#include <cstdint>
#include <string>

#include "core/train/step_record.h"

namespace compopt::cli {

class TrainProgress {
 public:
  TrainProgress(int64_t total_steps, bool quiet);
  void update(const StepRecord& r);
  // An optimizer's note at `step` (TrainHooks::on_note), printed even when quiet.
  void note(int64_t step, const std::string& text);
  // Ends the bar's line (terminal mode).
  void finish();

 private:
  int64_t total_;
  bool quiet_;
  bool tty_;
  double last_draw_s_ = -1;
  std::string last_eval_;
};

}  // namespace compopt::cli
