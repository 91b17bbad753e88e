// The Brinkman drag of a porosity field (kernels/brinkman.hpp, Simulation::porosity_array) against analytic
// solutions:
//  - Darcy flow in a periodic box under a body force g and a uniform alpha: the steady velocity is u = g / alpha
//    (the drag balances the force), in the fused kernel's state and in the read-out (whose F/2 shift must carry the
//    drag too: without it the read-out would be off by g / 2, 2.5 % here);
//  - a Brinkman channel between half-way walls at y = 0 and y = H: nu u'' - alpha u + g = 0, u(0) = u(H) = 0, so
//    u(y) = (g / alpha) (1 - cosh(s (y - H/2)) / cosh(s H/2)), s = sqrt(alpha / nu) (the Brinkman equation's
//    channel solution); the error falls at second order in the grid spacing (H = 12 -> 24 at fixed s H);
//  - refusals: porosity with [particles].
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <vector>

#include "solver/precision.hpp"
#include "solver/simulation.hpp"
#include "tests/force_field_support.hpp"
#include "tests/test_support.hpp"

namespace eddy {
namespace {

TEST(Porosity, DarcyFlowReachesTheForceOverAlpha) {
  EDDY_REQUIRE_DEVICE();
  CaseConfig c = test::box_case(4, 4, 4, 0.8);
  for (int a = 0; a < 3; ++a) test::make_periodic(c, a);
  c.precision = Precision::float64;
  c.body_force = {1e-5, -4e-6, 2e-6};
  c.velocity = 1e-3;
  finalize_case(c);
  auto sim = Simulation::create(c);
  const double alpha = 0.05;
  test::set_porosity(*sim, [&](std::int64_t) { return alpha; });
  sim->advance(1500);  // the velocity relaxes as exp(-alpha t / (1 + alpha/2)): 73 e-folds
  const MacroscopicFields m = sim->fields();
  for (std::size_t k = 0; k < m.rho.size(); ++k)
    for (int a = 0; a < 3; ++a) {
      const double expected = c.body_force[std::size_t(a)] / alpha;
      ASSERT_NEAR(m.u[a][k], expected, 1e-9 * std::abs(expected) + 1e-15) << "cell " << k << ", component " << a;
    }
}

/// The relative L2 error of the Brinkman channel of height H (s H = 3.4, tau = 0.8) against the analytic profile.
double channel_error(int H) {
  const double nu = (0.8 - 0.5) / 3.0, sH = 3.4, s = sH / H, alpha = s * s * nu, g = 1e-6 * alpha;
  CaseConfig c = test::box_case(2, H, 1, 0.8);
  test::make_periodic(c, 0);
  test::make_periodic(c, 2);
  c.precision = Precision::float64;
  c.body_force = {g, 0.0, 0.0};
  c.velocity = g / alpha;
  finalize_case(c);
  auto sim = Simulation::create(c);
  test::set_porosity(*sim, [&](std::int64_t) { return alpha; });
  // Slowest mode: exp(-(alpha + nu pi^2 / H^2) t); 25 e-folds.
  sim->advance(std::int64_t(25.0 / (alpha + nu * M_PI * M_PI / (H * H))));
  const MacroscopicFields m = sim->fields();
  double error = 0.0, norm = 0.0;
  for (int y = 0; y < H; ++y) {
    const double exact = (g / alpha) * (1.0 - std::cosh(s * (y + 0.5 - 0.5 * H)) / std::cosh(0.5 * sH));
    const double u = m.u[0][std::size_t(m.index(0, y, 0))];
    error += (u - exact) * (u - exact);
    norm += exact * exact;
  }
  return std::sqrt(error / norm);
}

TEST(Porosity, BrinkmanChannelConvergesAtSecondOrder) {
  EDDY_REQUIRE_DEVICE();
  const double coarse = channel_error(12), fine = channel_error(24);
  EXPECT_LT(fine, 1e-3) << "H = 24";
  // second order: the error drops by 4 when the spacing halves (3 allows for the walls' higher-order terms)
  EXPECT_GT(coarse / fine, 3.0) << "H = 12: " << coarse << ", H = 24: " << fine;
  std::printf("Brinkman channel, relative L2 error: H = 12 %.3e, H = 24 %.3e\n", coarse, fine);
}

TEST(Porosity, RefusedWithParticles) {
  EDDY_REQUIRE_DEVICE();
  CaseConfig c = test::box_case(8, 8, 8, 0.8);
  c.particles.enabled = true;
  c.particles.count = 4;
  finalize_case(c);
  auto sim = Simulation::create(c);
  try {
    sim->porosity_array();
    ADD_FAILURE() << "porosity with particles was accepted";
  } catch (const std::logic_error& e) {
    EXPECT_NE(std::string(e.what()).find("not available with [particles]"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace eddy
