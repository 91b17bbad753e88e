// Heat transport ([thermal]: solver/thermal_field.hpp, kernels/scalar_transport.hpp) against an analytic solution
// and published data, on this build's backend:
//  - a Gaussian temperature spot diffusing in fluid at rest against the heat kernel;
//  - the differentially heated square cavity (hot wall x_min, cold wall x_max, adiabatic y walls, gravity -y,
//    Pr = 0.71) against the benchmark of de Vahl Davis (1983, tests/data/devahldavis1983_square_cavity.csv): the
//    hot wall's average Nusselt number and the velocity maxima on the centrelines, within 2 %, at Ra = 1e4 and 1e5;
//  - a uniform temperature staying uniform in a moving flow (consistency of the advective form).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "io/csv_table.hpp"
#include "solver/lattice_setup.hpp"
#include "solver/simulation.hpp"
#include "tests/test_support.hpp"

namespace eddy {
namespace {

constexpr double kPi = 3.14159265358979323846;

/// A 2D square cavity of n cells (periodic z): hot wall x_min (T = +1/2), cold wall x_max (-1/2), free-fall velocity
/// U = `velocity`, Pr = 0.71; finalize derives nu = U L sqrt(Pr / Ra), kappa and g beta.
CaseConfig heated_cavity(int n, double rayleigh, double velocity, Precision precision) {
  CaseConfig c = test::box_case(n, n, 1, 0.0);
  test::make_periodic(c, 2);
  c.velocity = velocity;
  c.precision = precision;
  c.thermal.enabled = true;
  c.thermal.prandtl = 0.71;
  c.thermal.rayleigh = rayleigh;
  c.thermal.walls[0] = ThermalWall::fixed;
  c.thermal.wall_temperature[0] = 0.5;
  c.thermal.walls[1] = ThermalWall::fixed;
  c.thermal.wall_temperature[1] = -0.5;
  finalize_case(c);
  return c;
}

/// Largest value of `profile` with a parabola through the largest sample and its neighbours (the peak between
/// nodes), and where it lies (node units).
std::pair<double, double> peak(const std::vector<double>& profile) {
  const std::size_t i = std::size_t(std::max_element(profile.begin(), profile.end()) - profile.begin());
  if (i == 0 || i + 1 == profile.size()) return {profile[i], double(i)};
  const double a = profile[i - 1], b = profile[i], c = profile[i + 1];
  const double shift = 0.5 * (a - c) / (a - 2.0 * b + c);
  return {b - 0.25 * (a - c) * shift, double(i) + shift};
}

struct CavityResult {
  double nusselt, u_max, y_u_max, v_max, x_v_max;
};

/// Runs the cavity until the hot-wall Nusselt number changes by less than 1e-5 (relative) over 2000 steps, then
/// measures the benchmark's quantities (velocities in units of kappa / L, positions over L).
CavityResult run_cavity(const CaseConfig& c, std::int64_t max_steps) {
  auto sim = Simulation::create(c);
  const int n = c.size[0];
  double nusselt = 0.0, previous = -1.0;
  while (sim->time_step() < max_steps) {
    sim->advance(2000);
    nusselt = nusselt_number(c, 0, sim->face_heat_inflow()[0]);
    if (std::abs(nusselt - previous) < 1e-5 * std::abs(nusselt)) break;
    previous = nusselt;
  }
  EXPECT_LT(sim->time_step(), max_steps) << "the cavity did not reach a steady state";
  const MacroscopicFields f = sim->fields();
  const double scale = c.length / c.thermal.diffusivity;  // lattice velocity -> kappa / L
  std::vector<double> u_centre(n), v_centre(n);
  for (int j = 0; j < n; ++j) {
    // x = 1/2 and y = 1/2 lie between the two middle nodes (n even): their mean.
    u_centre[j] = 0.5 * (f.u[0][f.index(n / 2 - 1, j, 0)] + f.u[0][f.index(n / 2, j, 0)]) * scale;
    v_centre[j] = 0.5 * (f.u[1][f.index(j, n / 2 - 1, 0)] + f.u[1][f.index(j, n / 2, 0)]) * scale;
  }
  const auto [u_max, j_u] = peak(u_centre);
  const auto [v_max, i_v] = peak(v_centre);
  return {nusselt, u_max, (j_u + 0.5) / n, v_max, (i_v + 0.5) / n};
}

void expect_de_vahl_davis(double rayleigh, double velocity) {
  const CsvTable reference = read_csv(test::data_file("devahldavis1983_square_cavity.csv"));
  const auto& ra = reference.column("rayleigh");
  const std::size_t row = std::size_t(std::find(ra.begin(), ra.end(), rayleigh) - ra.begin());
  ASSERT_LT(row, ra.size()) << "no reference row for Ra = " << rayleigh;
  auto ref = [&](const char* name) { return reference.column(name)[row]; };

  const CaseConfig c = heated_cavity(48, rayleigh, velocity, Precision::float64);
  const CavityResult r = run_cavity(c, 200000);
  EXPECT_NEAR(r.nusselt, ref("nusselt_average"), 0.02 * ref("nusselt_average")) << "hot-wall Nu, Ra = " << rayleigh;
  EXPECT_NEAR(r.u_max, ref("u_max"), 0.02 * ref("u_max")) << "u_max on x = 1/2, Ra = " << rayleigh;
  EXPECT_NEAR(r.v_max, ref("v_max"), 0.02 * ref("v_max")) << "v_max on y = 1/2, Ra = " << rayleigh;
  // Positions: within one cell of the benchmark's.
  EXPECT_NEAR(r.y_u_max, ref("y_u_max"), 1.0 / c.size[1]) << "height of u_max, Ra = " << rayleigh;
  EXPECT_NEAR(r.x_v_max, ref("x_v_max"), 1.0 / c.size[0]) << "position of v_max, Ra = " << rayleigh;
  ::testing::Test::RecordProperty("nusselt", std::to_string(r.nusselt));
  ::testing::Test::RecordProperty("u_max", std::to_string(r.u_max));
  ::testing::Test::RecordProperty("v_max", std::to_string(r.v_max));
}

TEST(Thermal, HeatedCavityRa1e4MatchesDeVahlDavis) {
  EDDY_REQUIRE_DEVICE();
  expect_de_vahl_davis(1e4, 0.1);
}

TEST(Thermal, HeatedCavityRa1e5MatchesDeVahlDavis) {
  EDDY_REQUIRE_DEVICE();
  expect_de_vahl_davis(1e5, 0.1);
}

/// A periodic 2D box at rest with a passive scalar (Ra = 0): a Gaussian spot of width sigma0 spreads as the heat
/// kernel, T = A sigma0^2 / sigma^2 exp(-r^2 / (2 sigma^2)), sigma^2 = sigma0^2 + 2 kappa t (2D).
TEST(Thermal, GaussianDiffusesAsTheHeatKernel) {
  EDDY_REQUIRE_DEVICE();
  const int n = 64;
  CaseConfig c = test::box_case(n, n, 1, 0.8);
  for (int a = 0; a < 3; ++a) test::make_periodic(c, a);
  c.precision = Precision::float64;
  c.thermal.enabled = true;
  c.thermal.prandtl = 1.0;  // kappa = nu = 0.1
  finalize_case(c);
  ASSERT_NEAR(c.thermal.diffusivity, 0.1, 1e-12);
  auto sim = Simulation::create(c);
  const double sigma0 = 3.0, amplitude = 1.0, centre = 0.5 * n;
  auto kernel = [&](double sigma2, int x, int y) {
    const double dx = x + 0.5 - centre, dy = y + 0.5 - centre;
    return amplitude * sigma0 * sigma0 / sigma2 * std::exp(-(dx * dx + dy * dy) / (2.0 * sigma2));
  };
  std::vector<double> t(std::size_t(n) * n);
  for (int y = 0; y < n; ++y)
    for (int x = 0; x < n; ++x) t[std::size_t(x + n * y)] = kernel(sigma0 * sigma0, x, y);
  sim->set_temperature(t);
  const double total0 = sim->thermal_diagnostics().total;
  const int steps = 200;
  sim->advance(steps);
  const double sigma2 = sigma0 * sigma0 + 2.0 * c.thermal.diffusivity * steps;  // sigma = 7
  const std::vector<double> got = sim->temperature();
  double worst = 0.0, peak_value = 0.0;
  for (int y = 0; y < n; ++y)
    for (int x = 0; x < n; ++x) {
      const double expected = kernel(sigma2, x, y);
      peak_value = std::max(peak_value, expected);
      worst = std::max(worst, std::abs(got[std::size_t(x + n * y)] - expected));
    }
  ::testing::Test::RecordProperty("max_error_over_peak", std::to_string(worst / peak_value));
  EXPECT_LT(worst / peak_value, 0.01) << "max |T - heat kernel| over the peak after " << steps << " steps";
  // Fluid at rest, periodic: the total is conserved up to round-off.
  EXPECT_NEAR(sim->thermal_diagnostics().total, total0, 1e-12 * steps * total0);
}

/// A uniform temperature in a moving, weakly compressible flow (the Re = 100 lid cavity, its acoustic start-up
/// included) stays exactly uniform, and walls at the same temperature exchange no heat: the advective form's
/// consistency. (In conservative form T drifts with the flow's divergence: by about 1e-2 here.)
TEST(Thermal, UniformTemperatureStaysUniformInAMovingFlow) {
  EDDY_REQUIRE_DEVICE();
  CaseConfig c = test::box_case(20, 20, 4, 0.0);
  test::make_periodic(c, 2);
  c.velocity = 0.1;
  c.reynolds = 100.0;
  c.faces[3] = {FaceKind::moving_wall, {0.1, 0.0, 0.0}};
  c.precision = Precision::float64;
  c.thermal.enabled = true;
  c.thermal.prandtl = 2.0;
  c.thermal.initial_temperature = 1.0;
  for (int f = 0; f < 4; ++f) {
    c.thermal.walls[f] = ThermalWall::fixed;
    c.thermal.wall_temperature[f] = 1.0;
  }
  finalize_case(c);
  auto sim = Simulation::create(c);
  sim->advance(300);
  EXPECT_GT(sim->diagnose().max_speed, 0.05) << "the lid should drive the flow";
  const ThermalDiagnostics d = sim->thermal_diagnostics();
  EXPECT_EQ(d.min, 1.0);
  EXPECT_EQ(d.max, 1.0);
  for (double q : sim->face_heat_inflow()) EXPECT_EQ(q, 0.0);
}

// The progress line's T range and total are over fluid cells (ThermalDiagnostics): a solid body keeps its initial T
// (the scalar step carries it unchanged), which is no heat of the fluid. A periodic box at T = 2 with a random
// perturbation around a sphere: diffusion evens the fluid out, the solid cells keep their extremes.
TEST(Thermal, DiagnosticsCountFluidCellsOnly) {
  EDDY_REQUIRE_DEVICE();
  CaseConfig c = test::box_case(16, 12, 10, 0.0);
  for (int a = 0; a < 3; ++a) test::make_periodic(c, a);
  c.velocity = 0.1;
  c.reynolds = 20.0;
  c.precision = Precision::float64;
  c.thermal.enabled = true;
  c.thermal.prandtl = 1.0;
  c.thermal.initial_temperature = 2.0;
  c.thermal.perturbation = 0.3;
  c.solids.push_back(test::halfway_ball({8.0, 6.0, 5.0}, 3.2));
  finalize_case(c);
  auto sim = Simulation::create(c);
  sim->advance(200);
  const std::vector<double> t = sim->temperature();
  const std::vector<std::int32_t> labels = solid_labels(c, serial_decomposition(c));
  ASSERT_EQ(t.size(), labels.size());
  double lo = 1e300, hi = -1e300, total = 0.0, solid_max = -1e300;
  int solids = 0;
  for (std::size_t k = 0; k < t.size(); ++k) {
    if (labels[k] != 0) {
      ++solids;
      solid_max = std::max(solid_max, t[k]);
      continue;
    }
    lo = std::min(lo, t[k]);
    hi = std::max(hi, t[k]);
    total += t[k];
  }
  ASSERT_GT(solids, 50);
  ASSERT_GT(solid_max, hi + 0.1) << "diffusion should have narrowed the fluid's range below the solid's";
  const ThermalDiagnostics d = sim->thermal_diagnostics();
  EXPECT_EQ(d.min, lo);
  EXPECT_EQ(d.max, hi);
  EXPECT_DOUBLE_EQ(d.total, total);
}

}  // namespace
}  // namespace eddy
