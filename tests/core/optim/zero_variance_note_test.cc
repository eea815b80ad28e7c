// The note 1-bit Adam and 1-bit LAMB leave at the freeze step when the frozen variance has exact
// zeros (core/optim/zero_variance_note.h): counted by hand here, and raised once, at the freeze.

#include "core/optim/zero_variance_note.h"

#include <gtest/gtest.h>

#include "tests/core/optim/optim_test_util.h"

namespace compopt::testing {
namespace {

TEST(ZeroVarianceNote, CountsExactZerosAndTheStepTheyTake) {
  const Vec v = {0.0f, 1e-30f, 0.0f, 2.0f};
  const auto note = zero_variance_note("onebit-adam", 9, v, 1e-3, 1e-8);
  ASSERT_TRUE(note.has_value());
  EXPECT_NE(note->find("onebit-adam"), std::string::npos) << *note;
  EXPECT_NE(note->find("step 9"), std::string::npos) << *note;
  EXPECT_NE(note->find("2 of 4 elements (50%)"), std::string::npos) << *note;
  // lr / eps = 1e-3 / 1e-8 = 1e5.
  EXPECT_NE(note->find("1e+05 x |m|"), std::string::npos) << *note;
}

TEST(ZeroVarianceNote, NoneWithoutExactZeros) {
  const Vec v = {1e-38f, 1.0f, 3.0f};
  EXPECT_FALSE(zero_variance_note("onebit-adam", 3, v, 1e-3, 1e-8).has_value());
}

// Gradient 0 on the last 3 of 8 elements at every step: their variance is exactly 0 at the
// freeze (step 2), so the optimizer notes 3 of 8 then, and nothing at the other steps.
TEST(ZeroVarianceNote, RaisedOnceAtTheFreezeStep) {
  for (const std::string name : {"onebit-adam", "onebit-lamb"}) {
    SCOPED_TRACE(name);
    run_local(1, [&](Communicator& comm) {
      auto opt = make_optimizer(name, {{"freeze_step", "2"}}, ParamLayout::from_sizes({{"w", 8}}));
      Vec x = initial_params(8);
      for (int step = 1; step <= 4; ++step) {
        Vec g = test_grad(0, step, x);
        std::fill(g.begin() + 5, g.end(), 0.0f);
        opt->step(x, g, comm);
        const std::vector<std::string> notes = opt->take_notes();
        if (step != 2) {
          EXPECT_TRUE(notes.empty()) << "step " << step;
          continue;
        }
        ASSERT_EQ(notes.size(), 1u);
        EXPECT_NE(notes[0].find("3 of 8 elements"), std::string::npos) << notes[0];
      }
    });
  }
}

}  // namespace
}  // namespace compopt::testing
