// Smagorinsky LES (kernels/smagorinsky.hpp) against analytic and reference flows, on this build's backend.
//
// 1. Body-force driven channel between halfway bounce-back walls with the model on. Steady, so the shear stress
//    balances the force: (nu0 + C_S^2 |u'|) |u'| = F |y - H/2| (rho = 1; nu_t = (C_S dx)^2 |S| and |S| = |u'| for
//    a pure shear u = u(y), Smagorinsky 1963). With a = nu0, b = 4 C_S^2 F and eta = |y - H/2|:
//      |u'| = (sqrt(a^2 + b eta) - a) / (2 C_S^2),
//      u(eta) = [ -a (H/2 - eta) + 2 / (3 b) ((a^2 + b H/2)^(3/2) - (a^2 + b eta)^(3/2)) ] / (2 C_S^2).
//    The eddy viscosity reaches about a third of nu0 at the walls, so the profile is far from the laminar parabola;
//    at two resolutions with the same profile shape (C_S^2 / H, u_max and nu0 fixed, so nu_t / nu0 is the same
//    function of y / H) the lattice profile must converge to the formula at second order.
// 2. At Re = 100 the lid-driven cavity is laminar and resolved: the model must change its centreline profiles by
//    less than 0.1 % of the lid speed (the model is a no-op where the flow is resolved).
// 3. At Re = 20,000 on 64 x 64 the plain TRT run becomes unstable (exit 3); with the model the run completes and
//    conserves mass.
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>

#include "solver/simulation.hpp"
#include "tests/cli_run.hpp"
#include "tests/physics/cavity_reference.hpp"
#include "tests/test_support.hpp"

namespace eddy {
namespace {

/// The analytic LES channel profile of the header at y (cells, walls at 0 and H).
double les_channel_u(double y, double H, double nu0, double C, double F) {
  const double a = nu0, b = 4.0 * C * C * F, eta = std::abs(y - 0.5 * H);
  return (-a * (0.5 * H - eta) + 2.0 / (3.0 * b) * (std::pow(a * a + b * 0.5 * H, 1.5) - std::pow(a * a + b * eta, 1.5))) /
         (2.0 * C * C);
}

struct LesChannel {
  double l2_error = 0.0;       ///< ||u - u_LES|| / ||u_LES|| over the rows
  double laminar_change = 0.0;  ///< ||u_laminar - u_LES|| / ||u_LES||: how far the model moves the profile
  double nu_t_wall = 0.0;       ///< C_S^2 |u'| at the wall over nu0
};

/// The steady channel of height H with C_S = C0 sqrt(H / 32) and the force that gives the same profile shape.
LesChannel les_channel(int H, Collision collision, Precision precision) {
  const double nu0 = 0.005, C = 0.5 * std::sqrt(H / 32.0), F = 2e-6 * (32.0 / H) * (32.0 / H);
  const int nx = 2;
  CaseConfig c = test::box_case(nx, H, 1, 3.0 * nu0 + 0.5);
  test::make_periodic(c, 0);
  test::make_periodic(c, 2);
  c.collision = collision;
  c.precision = precision;
  c.velocity = 0.05;
  c.length = H;
  c.body_force = {F, 0.0, 0.0};
  c.les = LesModel::smagorinsky;
  c.smagorinsky_constant = C;
  finalize_case(c);
  auto sim = Simulation::create(c);
  // 25 e-folds of the slowest laminar mode exp(-nu0 pi^2 t / H^2); the eddy viscosity only speeds the decay.
  sim->advance(std::int64_t(25.0 * H * H / (nu0 * M_PI * M_PI)));
  const MacroscopicFields f = sim->fields();
  double err2 = 0.0, ref2 = 0.0, lam2 = 0.0;
  for (int j = 0; j < H; ++j) {
    const double y = j + 0.5;
    double u = 0.0;
    for (int x = 0; x < nx; ++x) u += f.u[0][f.index(x, j, 0)] / nx;
    const double exact = les_channel_u(y, H, nu0, C, F);
    const double laminar = F / (2.0 * nu0) * y * (H - y);
    err2 += (u - exact) * (u - exact);
    ref2 += exact * exact;
    lam2 += (laminar - exact) * (laminar - exact);
  }
  LesChannel ch;
  ch.l2_error = std::sqrt(err2 / ref2);
  ch.laminar_change = std::sqrt(lam2 / ref2);
  const double a = nu0, b = 4.0 * C * C * F;
  ch.nu_t_wall = C * C * (std::sqrt(a * a + b * 0.5 * H) - a) / (2.0 * C * C) / nu0;
  return ch;
}

TEST(LesChannel, SteadyProfileConvergesToTheEddyViscosityFormula) {
  EDDY_REQUIRE_DEVICE();
  for (Collision collision : {Collision::trt, Collision::bgk}) {
    const LesChannel coarse = les_channel(16, collision, Precision::float64);
    const LesChannel fine = les_channel(32, collision, Precision::float64);
    const double order = std::log2(coarse.l2_error / fine.l2_error);
    std::cout << "[ les ] channel, " << (collision == Collision::trt ? "TRT" : "BGK") << ": nu_t / nu0 at the wall "
              << fine.nu_t_wall << ", laminar parabola off by " << fine.laminar_change << "; L2 error H = 16: "
              << coarse.l2_error << ", H = 32: " << fine.l2_error << ", order " << order << "\n";
    EXPECT_GT(fine.nu_t_wall, 0.2) << "the model must matter in this test";
    EXPECT_GT(fine.laminar_change, 0.1);
    EXPECT_LT(fine.l2_error, 0.05 * fine.laminar_change);  // the model's effect is reproduced, not just its sign
    EXPECT_GT(order, 1.8);                                  // second order (the lattice Boltzmann method's)
  }
}

TEST(LesCavity, Re100CenterlinesChangeByLessThanAThousandthOfTheLid) {
  EDDY_REQUIRE_DEVICE();
  const CavityCenterlines plain = test::cavity_run(64, 100.0, 30.0, Precision::float32);
  const CavityCenterlines les = test::cavity_run(64, 100.0, 30.0, Precision::float32, LesModel::smagorinsky);
  ASSERT_EQ(plain.u_vertical.value.size(), les.u_vertical.value.size());
  double change = 0.0;
  for (std::size_t k = 0; k < plain.u_vertical.value.size(); ++k)
    change = std::max(change, std::abs(plain.u_vertical.value[k] - les.u_vertical.value[k]));
  for (std::size_t k = 0; k < plain.v_horizontal.value.size(); ++k)
    change = std::max(change, std::abs(plain.v_horizontal.value[k] - les.v_horizontal.value[k]));
  std::cout << "[ les ] cavity Re 100, N 64: largest centreline change " << change << " of the lid speed\n";
  EXPECT_LT(change, 1e-3);
  EXPECT_GT(change, 0.0) << "the model did not run";
}

TEST(LesCavity, HighReynoldsRunThatFailsWithoutTheModelCompletes) {
  EDDY_REQUIRE_DEVICE();
  test::TempDir dir;
  test::write_text(dir.file("case.toml"), R"([domain]
size = [64, 64, 1]
periodic = [false, false, true]
[boundary]
y_max = { type = "moving_wall", velocity = [0.1, 0.0, 0.0] }
[physics]
velocity = 0.1
reynolds = 20000
[numerics]
min_tau = 0.5001
[run]
steps = 30000
report_every = 5000
[output]
every = 0
vtk = false
)");
  std::string out;
  EXPECT_EQ(test::run_eddy(dir, "", out), 3) << out;
  EXPECT_NE(out.find("unstable"), std::string::npos) << out;
  ASSERT_EQ(test::run_eddy(dir, "--set 'numerics.les=\"smagorinsky\"'", out), 0) << out;
  const double drift = test::last_reported(out, "mass drift");
  std::cout << "[ les ] cavity Re 20000, N 64, 30000 steps with the model: mass drift " << drift << "\n";
  EXPECT_LT(std::abs(drift), 1e-6) << out;  // float storage: rounding only (the collision conserves mass exactly)
}

}  // namespace
}  // namespace eddy
