// Body-force driven Poiseuille flow between halfway bounce-back walls at y = 0 and y = H:
//   u_x(y) = F / (2 rho nu) y (H - y)        (Krueger et al. 2017, section 5.3.4)
// BGK at fixed tau: the L2 error converges at second order over H = 8, 16, 32 (diffusive scaling, fixed u_max).
// TRT with Lambda = 3/16 puts the wall exactly midway, so the parabola is reproduced to round-off.
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>

#include "solver/simulation.hpp"
#include "tests/test_support.hpp"

namespace eddy {
namespace {

/// Relative L2 error of the steady channel profile at height H.
double poiseuille_error(int H, Collision collision, double tau) {
  const double u_max = 0.02;
  CaseConfig c = test::box_case(2, H, 1, tau);
  test::make_periodic(c, 0);
  test::make_periodic(c, 2);
  c.collision = collision;
  c.precision = Precision::float64;
  c.velocity = u_max;
  c.length = H;
  const double nu = (tau - 0.5) / 3.0;
  c.body_force = {8.0 * nu * u_max / (H * H), 0.0, 0.0};
  finalize_case(c);
  auto sim = Simulation::create(c);
  // 25 e-folds of the slowest mode exp(-nu pi^2 t / H^2): transients far below the discretisation error.
  sim->advance(std::int64_t(25.0 * H * H / (nu * M_PI * M_PI)));
  const MacroscopicFields f = sim->fields();
  double err2 = 0.0, ref2 = 0.0;
  for (int j = 0; j < H; ++j) {
    const double y = j + 0.5;
    const double exact = c.body_force[0] / (2.0 * nu) * y * (H - y);
    const double u = f.u[0][f.index(0, j, 0)];
    err2 += (u - exact) * (u - exact);
    ref2 += exact * exact;
  }
  return std::sqrt(err2 / ref2);
}

TEST(Poiseuille, BgkConvergesAtSecondOrder) {
  EDDY_REQUIRE_DEVICE();
  const double e8 = poiseuille_error(8, Collision::bgk, 0.8);
  const double e16 = poiseuille_error(16, Collision::bgk, 0.8);
  const double e32 = poiseuille_error(32, Collision::bgk, 0.8);
  const double order1 = std::log2(e8 / e16), order2 = std::log2(e16 / e32);
  std::cout << "[ poiseuille ] BGK tau 0.8: L2 errors " << e8 << ", " << e16 << ", " << e32 << "; orders " << order1
            << ", " << order2 << "\n";
  EXPECT_GT(e32, 1e-8) << "BGK at tau 0.8 should not be exact: the test would not measure an order";
  EXPECT_NEAR(order1, 2.0, 0.1);
  EXPECT_NEAR(order2, 2.0, 0.1);
}

TEST(Poiseuille, TrtMagicThreeSixteenthsIsExact) {
  EDDY_REQUIRE_DEVICE();
  const double e = poiseuille_error(16, Collision::trt, 0.8);
  std::cout << "[ poiseuille ] TRT Lambda 3/16: L2 error " << e << "\n";
  EXPECT_LT(e, 1e-8);
}

}  // namespace
}  // namespace eddy
