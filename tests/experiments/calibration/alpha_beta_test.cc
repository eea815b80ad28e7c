// The closed-form latency-bandwidth fit (experiments/calibration/alpha_beta.h): rows made from
// a known alpha and beta give them back; nccl-tests' bus factor turns beta into busbw.

#include "experiments/calibration/alpha_beta.h"

#include <gtest/gtest.h>

#include "tests/support/invalid_argument_message.h"

namespace compopt::calibration {
namespace {

std::vector<Measurement> rows(const std::string& collective, double alpha, double beta) {
  std::vector<Measurement> out;
  for (double bytes = 8; bytes <= 1 << 30; bytes *= 4)
    out.push_back({"f", "f", collective, 2, 4, bytes, alpha + bytes * beta, nullptr});
  return out;
}

std::vector<const Measurement*> pointers(const std::vector<Measurement>& rows) {
  std::vector<const Measurement*> out;
  for (const Measurement& m : rows) out.push_back(&m);
  return out;
}

TEST(AlphaBeta, RecoversAKnownLatencyAndRate) {
  const auto all_gather = rows("all_gather", 25e-6, 1 / 20e9);  // 25 us, 20 GB/s algbw
  const AlphaBeta fit = fit_alpha_beta(pointers(all_gather));
  EXPECT_NEAR(fit.alpha_s, 25e-6, 1e-12);
  EXPECT_NEAR(fit.beta_s_per_byte, 1 / 20e9, 1e-18);
  EXPECT_NEAR(fit.busbw_gbps, 20.0 * 7 / 8, 1e-6);  // (n-1)/n on 8 ranks
  EXPECT_NEAR(fit.median_error_pct, 0, 1e-6);
  const AlphaBeta ar = fit_alpha_beta(pointers(rows("all_reduce", 25e-6, 1 / 20e9)));
  EXPECT_NEAR(ar.busbw_gbps, 20.0 * 2 * 7 / 8, 1e-6);  // 2(n-1)/n
}

TEST(AlphaBeta, LatencyBoundRowsShowNoBandwidth) {
  std::vector<Measurement> flat;
  for (double bytes : {8.0, 16.0, 32.0})
    flat.push_back({"f", "f", "sendrecv", 2, 1, bytes, 1e-5, nullptr});
  const AlphaBeta fit = fit_alpha_beta(pointers(flat));
  EXPECT_EQ(fit.busbw_gbps, 0);
  EXPECT_NEAR(fit.alpha_s, 1e-5, 1e-12);
}

TEST(AlphaBeta, RefusesOneSize) {
  const Measurement one{"f", "f", "sendrecv", 2, 1, 8, 1e-5, nullptr};
  EXPECT_NE(testing_support::invalid_argument_message([&] {
              fit_alpha_beta({&one, &one});
            }).find("1 distinct size"),
            std::string::npos);
}

}  // namespace
}  // namespace compopt::calibration
