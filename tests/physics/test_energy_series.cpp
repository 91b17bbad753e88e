// The kinetic-energy time series ([output] energy_every, solver/energy_series.hpp) of a viscous 3D Taylor-Green
// vortex, against its analytic decay. At low Re the vortex decays without change of shape (the nonlinear term only
// feeds the pressure at first order): each velocity component has |k|^2 = 3 k^2, so
//   E_k(t) = E_k(0) exp(-6 nu k^2 t),   epsilon = -dE_k/dt = 6 nu k^2 E_k          (Taylor & Green 1937)
// with E_k(0) = U^2 / 8 (the mean of sin^2 cos^2 cos^2 is 1/8 for each of u and v). In the file's units (time in
// L / U, E_k in U^2, L = physics.length = N) the rate 6 nu k^2 is 6 (2 pi / N)^2 L^2 / Re.
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>

#include "io/csv_table.hpp"
#include "tests/cli_run.hpp"
#include "tests/test_support.hpp"

namespace eddy {
namespace {

TEST(EnergySeries, ViscousTaylorGreenDecay) {
  EDDY_REQUIRE_DEVICE();
  test::TempDir dir;
  const int N = 32;
  const double reynolds = 20.0;  // Re = U L / nu with L = N
  test::write_text(dir.file("case.toml"), R"([case]
name = "tg"
[domain]
size = [32, 32, 32]
periodic = [true, true, true]
[physics]
velocity = 0.02
reynolds = 20
[initial]
type = "taylor_green_3d"
[numerics]
storage = "double"
[run]
steps = 400
[output]
every = 0
vtk = false
energy_every = 40
)");
  std::string out;
  ASSERT_EQ(test::run_eddy(dir, "", out), 0) << out;
  const CsvTable t = read_csv(dir.file("out/tg_energy.csv"));
  const std::vector<double>& step = t.column("step");
  const std::vector<double>& time = t.column("time");
  const std::vector<double>& energy = t.column("kinetic_energy");
  const std::vector<double>& rate = t.column("dissipation_rate");
  ASSERT_EQ(step.size(), 11u);  // steps 0, 40, ..., 400
  EXPECT_EQ(step.back(), 400.0);
  EXPECT_NEAR(time.back(), 400.0 * 0.02 / N, 1e-15);  // t U / L
  EXPECT_TRUE(std::isnan(rate[0]));
  const double decay = 6.0 * std::pow(2.0 * M_PI / N, 2) * N * N / reynolds;  // 6 nu k^2 L / U, nu = U L / Re
  EXPECT_NEAR(energy[0], 0.125, 2e-3);  // the lattice's node-centred sum of the analytic field
  double worst_e = 0.0, worst_rate = 0.0;
  for (std::size_t k = 1; k < step.size(); ++k) {
    worst_e = std::max(worst_e, std::abs(energy[k] / (energy[0] * std::exp(-decay * time[k])) - 1.0));
    const double mid = 0.5 * (time[k] + time[k - 1]);
    const double expected = decay * energy[0] * std::exp(-decay * mid);
    worst_rate = std::max(worst_rate, std::abs(rate[k] / expected - 1.0));
  }
  std::cout << "[ energy ] Taylor-Green N 32, Re 20: E_k falls to " << energy.back() / energy[0]
            << " of E_k(0); largest relative error E_k " << worst_e << ", dissipation rate " << worst_rate << "\n";
  EXPECT_LT(energy.back() / energy[0], 0.7) << "the decay must be measurable";
  EXPECT_LT(worst_e, 0.01);
  EXPECT_LT(worst_rate, 0.02);
}

}  // namespace
}  // namespace eddy
