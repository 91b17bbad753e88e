// The fused kernel's stability watch (StabilityView, kernels/views.hpp; Simulation::unstable_step): the first step
// whose collision sees |u| > kMaxLatticeSpeed (or NaN) is recorded on the device, every later step leaves the
// populations alone, and the simulation goes back to the time right after that step. Checked on the case that
// exposed the late report: a 2D cavity at U = 0.1, nu = 0.001 on 128 cells (tau = 0.503, Re = 12,800), NaN by
// about step 500 in float; the run loop used to look only at reports (step 3,000 there).
#include <gtest/gtest.h>

#include <cmath>

#include "solver/simulation.hpp"
#include "tests/test_support.hpp"

namespace eddy {
namespace {

CaseConfig blow_up_cavity(Precision precision) {
  CaseConfig c = test::box_case(128, 128, 1, 0.5);
  test::make_periodic(c, 2);
  c.faces[3] = {FaceKind::moving_wall, {0.1, 0.0, 0.0}};  // lattice units
  c.velocity = 0.1;
  c.tau = 0.0;
  c.nu = 0.001;
  c.min_tau = 0.502;  // accepts the risk, as the case must now say
  c.precision = precision;
  finalize_case(c);
  return c;
}

bool all_finite(const MacroscopicFields& f) {
  for (std::size_t k = 0; k < f.rho.size(); ++k) {
    if (!std::isfinite(f.rho[k]) || !std::isfinite(f.u[0][k]) || !std::isfinite(f.u[1][k]) ||
        !std::isfinite(f.u[2][k])) {
      return false;
    }
  }
  return true;
}

class StabilityWatch : public ::testing::TestWithParam<Precision> {};

TEST_P(StabilityWatch, FreezesTheStateRightAfterTheFirstUnstableStep) {
  EDDY_REQUIRE_DEVICE();
  const CaseConfig c = blow_up_cavity(GetParam());
  auto sim = Simulation::create(c);
  std::int64_t unstable = -1;
  while (unstable < 0 && sim->time_step() < 5000) {
    sim->advance(10);
    unstable = sim->unstable_step();
  }
  ASSERT_GE(unstable, 0) << "the case did not blow up within 5000 steps";
  EXPECT_EQ(sim->time_step(), unstable + 1) << "the time goes back to right after the first unstable step";
  EXPECT_TRUE(all_finite(sim->fields())) << "the fields written at an instability are finite";
  const std::vector<double> frozen = sim->populations();

  // An independent run of the same case, stepped one step at a time up to the step the watch named: the moments
  // that step collided are beyond the limit (or NaN), those of the step before are not.
  auto reference = Simulation::create(c);
  reference->advance(unstable - 1);
  const Diagnostics before = reference->diagnose();
  EXPECT_TRUE(before.finite && before.max_speed <= kMaxLatticeSpeed * (1 + 1e-6))
      << "max |u| " << before.max_speed << " before step " << unstable;
  reference->advance(1);
  const Diagnostics at = reference->diagnose();
  EXPECT_TRUE(!at.finite || at.max_speed > kMaxLatticeSpeed * (1 - 1e-6))
      << "max |u| " << at.max_speed << " collided in step " << unstable;
  // One step more and the reference is where the watched run stopped, bit for bit.
  reference->advance(1);
  EXPECT_EQ(reference->populations(), frozen);

  // Steps after the instability leave the state alone.
  sim->advance(25);
  EXPECT_EQ(sim->unstable_step(), unstable);
  EXPECT_EQ(sim->time_step(), unstable + 1);
  EXPECT_EQ(sim->populations(), frozen);
}

TEST_P(StabilityWatch, StaysQuietOnAStableRun) {
  EDDY_REQUIRE_DEVICE();
  CaseConfig c = blow_up_cavity(GetParam());
  c.tau = 0.0;
  c.nu = 0.1 * 128 / 100.0;  // Re = 100
  finalize_case(c);
  auto sim = Simulation::create(c);
  for (int i = 0; i < 30; ++i) {
    sim->advance(10);
    ASSERT_EQ(sim->unstable_step(), -1) << "at step " << sim->time_step();
  }
  EXPECT_EQ(sim->time_step(), 300);
}

INSTANTIATE_TEST_SUITE_P(Storage, StabilityWatch, ::testing::Values(Precision::float32, Precision::float16),
                         [](const auto& info) { return std::string(info.param == Precision::float32 ? "float" : "fp16"); });

}  // namespace
}  // namespace eddy
