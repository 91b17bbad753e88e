// Conservation: a closed cavity keeps its mass to round-off (at rest and with a moving lid); a fluid at rest
// stays at rest; in a periodic box the Guo body force adds exactly F per cell per step to the momentum.
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>

#include "solver/simulation.hpp"
#include "tests/test_support.hpp"

namespace eddy {
namespace {

TEST(Conservation, ClosedCavityAtRestKeepsMassAndStaysAtRest) {
  EDDY_REQUIRE_DEVICE();
  CaseConfig c = test::box_case(16, 12, 10, 0.7);
  c.precision = Precision::float64;
  finalize_case(c);
  auto sim = Simulation::create(c);
  const double mass0 = sim->diagnose().mass;
  sim->advance(300);
  const Diagnostics d = sim->diagnose();
  EXPECT_NEAR(d.mass / mass0 - 1.0, 0.0, 1e-14);
  EXPECT_LT(d.max_speed, 1e-15);
}

TEST(Conservation, ClosedCavityWithMovingLidKeepsMass) {
  EDDY_REQUIRE_DEVICE();
  CaseConfig c = test::box_case(16, 16, 16, 0.6);
  c.faces[3] = {FaceKind::moving_wall, {0.1, 0.0, 0.0}};
  c.velocity = 0.1;
  c.precision = Precision::float64;
  finalize_case(c);
  auto sim = Simulation::create(c);
  const double mass0 = sim->diagnose().mass;
  sim->advance(500);
  const Diagnostics d = sim->diagnose();
  EXPECT_GT(d.max_speed, 0.01) << "the lid must drive a flow";
  std::cout << "[ conservation ] closed cavity with lid, 500 steps, double: relative mass drift "
            << d.mass / mass0 - 1.0 << "\n";
  EXPECT_NEAR(d.mass / mass0 - 1.0, 0.0, 1e-12);
}

TEST(Conservation, BodyForceAddsExactlyFPerStep) {
  EDDY_REQUIRE_DEVICE();
  CaseConfig c = test::box_case(8, 6, 4, 0.9);
  for (int a = 0; a < 3; ++a) test::make_periodic(c, a);
  c.body_force = {1e-6, -2e-6, 3e-6};
  c.precision = Precision::float64;
  finalize_case(c);
  auto sim = Simulation::create(c);
  const std::int64_t steps = 40;
  sim->advance(steps);
  const MacroscopicFields f = sim->fields();
  const double cells = 8 * 6 * 4;
  for (int a = 0; a < 3; ++a) {
    double momentum = 0.0;  // sum rho u = sum f c + F/2 per cell
    for (std::size_t k = 0; k < f.rho.size(); ++k) momentum += f.rho[k] * f.u[a][k];
    EXPECT_NEAR(momentum / cells, c.body_force[a] * (double(steps) + 0.5), 1e-15) << "axis " << a;
  }
}

}  // namespace
}  // namespace eddy
