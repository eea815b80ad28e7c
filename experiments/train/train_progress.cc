#include "experiments/train/train_progress.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>

namespace compopt::cli {

TrainProgress::TrainProgress(int64_t total_steps, bool quiet)
    : total_(total_steps), quiet_(quiet), tty_(::isatty(::fileno(stdout)) != 0) {}

void TrainProgress::note(int64_t step, const std::string& text) {
  fmt::print("{}note: step {}: {}\n", tty_ && !quiet_ ? "\r\033[K" : "", step, text);
  std::fflush(stdout);
}

void TrainProgress::update(const StepRecord& r) {
  if (quiet_) return;
  std::string eval;
  if (r.test_loss) {
    eval = fmt::format("test_loss {:.4f}", *r.test_loss);
    if (r.test_accuracy) eval += fmt::format(" test_acc {:.4f}", *r.test_accuracy);
    last_eval_ = eval;
  }
  if (!tty_) {
    if (r.test_loss) {
      fmt::print(
          "step {}/{} epoch {:.2f} stage {} lr {:.3g} train_loss {:.4f} {} bytes_sent {:.0f} "
          "time {:.1f}s\n",
          r.step, total_, r.epoch, r.stage, r.lr, r.train_loss, eval, r.bytes_sent, r.time_s);
      std::fflush(stdout);
    }
    return;
  }
  if (r.step != total_ && r.time_s - last_draw_s_ < 0.1) return;
  last_draw_s_ = r.time_s;
  constexpr int kWidth = 30;
  const int filled = static_cast<int>(kWidth * r.step / std::max<int64_t>(total_, 1));
  fmt::print("\r[{:=<{}}{:<{}}] {}/{} ep {:.2f} {} loss {:.4f} {}\033[K", "", filled, "",
             kWidth - filled, r.step, total_, r.epoch, r.stage, r.train_loss, last_eval_);
  std::fflush(stdout);
}

void TrainProgress::finish() {
  if (tty_ && !quiet_) fmt::print("\n");
}

}  // namespace compopt::cli
