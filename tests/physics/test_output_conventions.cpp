// What the snapshots hold, as cases/README.md ("Normalised output") documents it: the velocity is Guo's
// u = (sum_i f_i c_i + F/2) / rho, so a fluid that starts at rest under a body force F shows u = F/2 at step 0; the
// time of a snapshot is step U / L, and step / L when physics.velocity is unset (U = 0).
#include <gtest/gtest.h>

#include "solver/simulation.hpp"
#include "tests/test_support.hpp"

namespace eddy {
namespace {

TEST(OutputConventions, RestUnderABodyForceShowsHalfTheForceAtStepZero) {
  EDDY_REQUIRE_DEVICE();
  CaseConfig c = test::box_case(6, 5, 4, 0.8);
  for (int axis = 0; axis < 3; ++axis) test::make_periodic(c, axis);
  c.body_force = {2e-5, -1e-5, 4e-6};
  c.precision = Precision::float64;
  finalize_case(c);
  auto sim = Simulation::create(c);
  const MacroscopicFields f = sim->fields();
  for (std::size_t k = 0; k < f.rho.size(); ++k) {
    EXPECT_DOUBLE_EQ(f.rho[k], 1.0);
    for (int d = 0; d < 3; ++d) EXPECT_NEAR(f.u[d][k], 0.5 * c.body_force[d], 1e-18) << "cell " << k << ", " << d;
  }
}

TEST(OutputConventions, SnapshotTimeIsStepUOverLAndStepOverLWithoutU) {
  CaseConfig c = test::box_case(64, 32, 1, 0.8);
  c.length = 64;
  c.velocity = 0.05;
  EXPECT_DOUBLE_EQ(OutputScaling::of(c).time(1280), 1280 * 0.05 / 64);
  c.velocity = 0.0;
  EXPECT_DOUBLE_EQ(OutputScaling::of(c).time(1280), 1280.0 / 64);
}

}  // namespace
}  // namespace eddy
