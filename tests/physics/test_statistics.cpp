// Turbulence statistics ([statistics], solver/flow_statistics.hpp) on this build's backend:
//   - the running-sum kernel of a cell field (kernels/statistics_launchers.hpp) against a plain CPU loop;
//   - which steps sample (start, every) and the sample count;
//   - the mean of a steady field is the field: a converged Poiseuille channel's mean velocity, density and pressure
//     equal the instantaneous read-outs to round-off, its RMS and Reynolds stresses vanish;
//   - the RMS of a known oscillation: a standing sound wave in a periodic box, against the analytic RMS with the
//     viscous decay over the averaging window (derivation at StandingSoundWave below);
//   - the Reynolds stress tensor's definition <u_a u_b> - <u_a><u_b> on the host (statistics_field_values).
// The profile CSV, the snapshots' arrays and restarts: further down; 1 vs N ranks: tests/mpi/test_mpi_statistics.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "io/csv_table.hpp"
#include "kernels/statistics_launchers.hpp"
#include "solver/device_buffer.hpp"
#include "solver/flow_statistics.hpp"
#include "solver/simulation.hpp"
#include "solver/statistics_profile.hpp"
#include "tests/cli_run.hpp"
#include "tests/file_helpers.hpp"
#include "tests/physics/rounding_budget.hpp"
#include "tests/reference/reference_lbm.hpp"
#include "tests/test_support.hpp"

namespace eddy {
namespace {

// ---- the kernel ------------------------------------------------------------------------------------------------

template <class R>
void expect_field_sum_matches_cpu() {
  const BlockShape shape{{7, 5, 4}};
  const std::size_t n = std::size_t(shape.n_cells());
  std::mt19937_64 random(11);
  std::uniform_real_distribution<double> value(-2.0, 3.0);
  std::vector<R> field(n);
  std::vector<double> sum(n);
  std::vector<CellFlag> flags(n, kFluid);
  for (std::size_t c = 0; c < n; ++c) {
    field[c] = R(value(random));
    sum[c] = value(random);
    if (random() % 5 == 0) flags[c] = kWall;
  }
  DeviceBuffer<R> field_d(n);
  DeviceBuffer<double> sum_d(n);
  DeviceBuffer<CellFlag> flags_d(n);
  field_d.upload(field);
  sum_d.upload(sum);
  flags_d.upload(flags);
  for (int round = 0; round < 3; ++round)
    accumulate_cell_field<R>(field_d.data(), FlagView{flags_d.data()}, shape, sum_d.data());
  const std::vector<double> got = sum_d.download();
  int added = 0;
  for (int z = 0; z < shape.n[2] + 2; ++z)
    for (int y = 0; y < shape.n[1] + 2; ++y)
      for (int x = 0; x < shape.n[0] + 2; ++x) {
        const std::size_t c = std::size_t(shape.index(x, y, z));
        const bool interior = x >= 1 && y >= 1 && z >= 1 && x <= shape.n[0] && y <= shape.n[1] && z <= shape.n[2];
        double expected = sum[c];
        if (interior && !is_solid(flags[c])) {
          for (int round = 0; round < 3; ++round) expected += double(field[c]);
          ++added;
        }
        EXPECT_EQ(got[c], expected) << x << " " << y << " " << z;
      }
  EXPECT_GT(added, 50);
}

TEST(StatisticsKernel, FieldSumMatchesTheCpuReference) {
  EDDY_REQUIRE_DEVICE();
  expect_field_sum_matches_cpu<float>();
  expect_field_sum_matches_cpu<double>();
}

// ---- host-side definitions -------------------------------------------------------------------------------------

TEST(StatisticsFields, ReynoldsStressIsTheCovarianceOfTheSamples) {
  // Two cells, three samples each: u = (1, 2, 3), (0, -1, 4), (2, 0, 2) in cell 0; cell 1 solid.
  const double u[3][3] = {{1, 2, 3}, {0, -1, 4}, {2, 0, 2}};
  const double rho[3] = {1.0, 1.03, 0.97};
  StatisticsSums s;
  s.cells = 2;
  s.samples = 3;
  s.second_moments = true;
  s.sums.assign(20, 0.0);
  s.fluid = {1, 0};
  // The sums in StatisticsView's order (u_a u_b: xx, yy, zz, xy, xz, yz); the array in VTK's (xx, yy, zz, xy, yz,
  // xz), written out here rather than taken from kTensorComponents.
  const int sum_pairs[6][2] = {{0, 0}, {1, 1}, {2, 2}, {0, 1}, {0, 2}, {1, 2}};
  const int pairs[6][2] = {{0, 0}, {1, 1}, {2, 2}, {0, 1}, {1, 2}, {0, 2}};
  for (int n = 0; n < 3; ++n) {
    s.sums[0] += rho[n];
    for (int a = 0; a < 3; ++a) s.sums[2 * (1 + a)] += u[n][a];
    for (int c = 0; c < 6; ++c) s.sums[2 * (4 + c)] += u[n][sum_pairs[c][0]] * u[n][sum_pairs[c][1]];
  }
  const std::vector<double> stress = statistics_field_values(s, "reynolds_stress");
  const std::vector<double> rms = statistics_field_values(s, "velocity_rms");
  const std::vector<double> mean = statistics_field_values(s, "mean_velocity");
  const std::vector<double> p = statistics_field_values(s, "mean_pressure", {2.0, 0.5});
  for (int c = 0; c < 6; ++c) {
    double m[2] = {0, 0}, product = 0;
    for (int n = 0; n < 3; ++n) {
      m[0] += u[n][pairs[c][0]] / 3;
      m[1] += u[n][pairs[c][1]] / 3;
      product += u[n][pairs[c][0]] * u[n][pairs[c][1]] / 3;
    }
    EXPECT_NEAR(stress[2 * c], product - m[0] * m[1], 1e-14) << c;
    EXPECT_EQ(stress[2 * c + 1], 0.0) << "solid cell";
    if (c < 3) EXPECT_NEAR(rms[2 * c], std::sqrt(product - m[0] * m[1]), 1e-14);
    if (c < 3) EXPECT_NEAR(mean[2 * c], m[0], 1e-15);
  }
  // p = c_s^2 (<rho> - 1) times density / velocity^2 = 2 / 0.25.
  EXPECT_NEAR(p[0], ((rho[0] + rho[1] + rho[2]) / 3.0 - 1.0) / 3.0 * 8.0, 1e-14);
  EXPECT_EQ(p[1], 0.0) << "solid cell";
  s.samples = 0;
  EXPECT_TRUE(std::isnan(statistics_field_values(s, "mean_density")[0])) << "no sample yet: not defined";
  s.second_moments = false;
  s.samples = 3;
  EXPECT_THROW(statistics_field_values(s, "velocity_rms"), std::invalid_argument);
  EXPECT_THROW(statistics_field_values(s, "velocity"), std::invalid_argument);
}

// ---- steady channel ------------------------------------------------------------------------------------------------

/// A body-force driven channel 4 x H x 2 (periodic x and z, walls y) with TRT Lambda = 3/16 (the parabola exact to
/// round-off), started from the analytic profile at equilibrium, statistics from `start` every `every` steps.
CaseConfig channel(int H, Precision precision, std::int64_t steps, std::int64_t start, std::int64_t every) {
  const double tau = 0.8, nu = (tau - 0.5) / 3.0, u_max = 0.02;
  CaseConfig c = test::box_case(4, H, 2, tau);
  test::make_periodic(c, 0);
  test::make_periodic(c, 2);
  c.precision = precision;
  c.velocity = u_max;
  c.length = H;
  c.body_force = {8.0 * nu * u_max / (H * H), 0.0, 0.0};
  c.steps = steps;
  c.statistics.enabled = true;
  c.statistics.start = start;
  c.statistics.every = every;
  finalize_case(c);
  return c;
}

double channel_exact(const CaseConfig& c, double y) { return c.body_force[0] / (2.0 * c.nu) * y * (c.size[1] - y); }

std::vector<double> equilibrium_channel(const CaseConfig& c) {
  const std::size_t n = std::size_t(c.size[0]) * c.size[1] * c.size[2];
  std::vector<double> f(19 * n);
  for (int z = 0; z < c.size[2]; ++z)
    for (int y = 0; y < c.size[1]; ++y)
      for (int x = 0; x < c.size[0]; ++x) {
        const std::size_t k = x + std::size_t(c.size[0]) * (y + std::size_t(c.size[1]) * z);
        const double u[3] = {channel_exact(c, y + 0.5), 0.0, 0.0};
        for (int i = 0; i < 19; ++i) f[i * n + k] = reference::ReferenceLbm::equilibrium(i, 1.0, u);
      }
  return f;
}

TEST(Statistics, SamplesFromStartEveryKSteps) {
  EDDY_REQUIRE_DEVICE();
  const CaseConfig c = channel(8, Precision::float32, 100, 30, 7);
  auto sim = Simulation::create(c);
  ASSERT_TRUE(sim->has_statistics());
  sim->advance(30);
  EXPECT_EQ(sim->flow_statistics()->samples(), 0);
  EXPECT_TRUE(std::isnan(sim->statistics_field("mean_density")[0]));
  sim->advance(1);  // the step from time 30 samples
  EXPECT_EQ(sim->flow_statistics()->samples(), 1);
  EXPECT_EQ(sim->flow_statistics()->first_step(), 30);
  sim->advance(69);  // times 30, 37, ..., 93: (99 - 30) / 7 + 1 = 10
  EXPECT_EQ(sim->flow_statistics()->samples(), 10);
  // Without [statistics] nothing is held.
  CaseConfig off = c;
  off.statistics = StatisticsConfig{};
  finalize_case(off);
  EXPECT_FALSE(Simulation::create(off)->has_statistics());
}

/// The channel converged (25 e-folds of its slowest mode), then sampled every step for 300 steps: every statistic of
/// the steady state is the state itself.
void expect_steady_means(Precision precision, double tolerance) {
  const int H = 16;
  const double nu = 0.1, lambda1 = nu * M_PI * M_PI / (H * H);
  const std::int64_t converged = std::int64_t(25.0 / lambda1);
  const CaseConfig c = channel(H, precision, converged + 300, converged, 1);
  auto sim = Simulation::create(c);
  sim->set_populations(equilibrium_channel(c));
  sim->advance(converged + 300);
  ASSERT_EQ(sim->flow_statistics()->samples(), 300);
  const MacroscopicFields f = sim->fields();
  const std::vector<double> mean_u = sim->statistics_field("mean_velocity");
  const std::vector<double> rho = sim->statistics_field("mean_density");
  const std::vector<double> p = sim->statistics_field("mean_pressure");
  const std::vector<double> rms = sim->statistics_field("velocity_rms");
  const std::vector<double> stress = sim->statistics_field("reynolds_stress");
  const std::size_t n = f.rho.size();
  const double u_max = 0.02;
  double worst_u = 0, worst_rho = 0, worst_rms = 0, worst_stress = 0;
  for (std::size_t k = 0; k < n; ++k) {
    for (int a = 0; a < 3; ++a) worst_u = std::max(worst_u, std::abs(mean_u[a * n + k] - f.u[a][k]) / u_max);
    worst_rho = std::max(worst_rho, std::abs(rho[k] - f.rho[k]));
    EXPECT_NEAR(p[k], (rho[k] - 1.0) / 3.0, 1e-15) << k;
    for (int a = 0; a < 3; ++a) worst_rms = std::max(worst_rms, rms[a * n + k] / u_max);
    for (int b = 0; b < 6; ++b) worst_stress = std::max(worst_stress, std::abs(stress[b * n + k]) / (u_max * u_max));
  }
  const std::string name = test::storage_name(precision);
  EXPECT_LT(worst_u, tolerance) << name << ": the mean velocity is the steady velocity";
  EXPECT_LT(worst_rho, tolerance) << name << ": the mean density is the steady density";
  EXPECT_LT(worst_rms, std::sqrt(tolerance)) << name << ": no fluctuation, no RMS";
  EXPECT_LT(worst_stress, tolerance) << name << ": no fluctuation, no Reynolds stress";
  // And the steady velocity is the parabola.
  for (int j = 0; j < H; ++j) {
    EXPECT_NEAR(mean_u[f.index(1, j, 1)], channel_exact(c, j + 0.5), 1e3 * tolerance * u_max) << j;
  }
}

TEST(Statistics, MeanOfASteadyChannelIsTheChannel) {
  EDDY_REQUIRE_DEVICE();
  expect_steady_means(Precision::float64, 1e-12);
  expect_steady_means(Precision::float32, 1e-6);
}

// ---- standing sound wave -----------------------------------------------------------------------------------------

// A standing sound wave in a periodic box, rho = 1 + eps cos(k x), u = 0 at t = 0, k = 2 pi / n.
//
// Linear acoustics of the lattice Boltzmann fluid (isothermal, c_s^2 = 1/3): the recovered momentum flux is
// Pi = p I + rho u u - rho nu (grad u + grad u^T) (Krueger et al. 2017, eq. 4.7 and section 4.1: the trace is not
// removed, so the bulk viscosity is 2 nu / 3). Linearised in 1D, with j = rho u:
//   d_t rho' + d_x j = 0,   d_t j + c_s^2 d_x rho' = 2 nu d_x^2 j
// so d_t^2 rho' = c_s^2 d_x^2 rho' + 2 nu d_x^2 d_t rho'. For rho' ~ cos(k x) e^{s t}: s^2 + 2 nu k^2 s + c_s^2 k^2
// = 0, s = -Gamma +- i omega with Gamma = nu k^2 and omega = k sqrt(c_s^2 - nu^2 k^2). From rho'(0) = eps cos(k x),
// j(0) = 0:
//   rho'(x, t) = eps cos(k x) e^{-Gamma t} (cos(omega t) + Gamma / omega sin(omega t))
//   j(x, t)    = eps sin(k x) e^{-Gamma t} (c_s^2 k / omega) sin(omega t)
// (continuity: d_t rho' = -eps cos(k x) e^{-Gamma t} (Gamma^2 + omega^2) / omega sin(omega t), and Gamma^2 + omega^2
// = c_s^2 k^2). To first order in eps, u = j. Sampled at t_m = t0 + m, m = 0 .. N - 1, the statistics of cell x are
//   <u> = A(x) S1 / N,  <u^2> = A(x)^2 S2 / N,  rms = |A(x)| sqrt(S2 / N - (S1 / N)^2),
//   A(x) = eps sin(k x) c_s^2 k / omega,  S1 = sum_m e^{-Gamma t_m} sin(omega t_m),  S2 = sum_m e^{-2 Gamma t_m}
//   sin^2(omega t_m).
// Over a window of T = N steps the decay matters: for whole periods and Gamma T small, S2 / N ~ (1 - e^{-2 Gamma T})
// / (4 Gamma T), against 1/2 without decay; at nu = 0.02, n = 64 and 10 periods the RMS is 0.90 of the undamped one.
// The lattice departs from the continuum by O(k^2) in omega and Gamma (relative ~1e-3 at n = 64), and the start by
// the first streaming of the equilibrium populations (their moments are those of a state a fraction of a step on,
// with j ~ c_s^2 k eps, a relative change of the amplitude of order (k c_s)^2 / 2 ~ 2e-3): the test allows 0.5 % (it
// measured 0.1 %), and checks that the undamped RMS is more than 3 % off.
struct SoundWave {
  int n = 64;
  double eps = 1e-4;
  double tau = 0.56;
  double nu() const { return (tau - 0.5) / 3.0; }
  double k() const { return 2.0 * M_PI / n; }
  double gamma() const { return nu() * k() * k(); }
  double omega() const { return k() * std::sqrt(1.0 / 3.0 - nu() * nu() * k() * k()); }
  /// The analytic RMS of u at x over the samples t0 .. t0 + N - 1, with the decay (or without: gamma = 0).
  double rms(double x, std::int64_t t0, std::int64_t N, bool decay) const {
    const double g = decay ? gamma() : 0.0, w = omega();
    double s1 = 0.0, s2 = 0.0;
    for (std::int64_t m = 0; m < N; ++m) {
      const double t = double(t0 + m);
      const double v = std::exp(-g * t) * std::sin(w * t);
      s1 += v;
      s2 += v * v;
    }
    const double amplitude = eps * std::sin(k() * x) * (1.0 / 3.0) * k() / w;
    return std::abs(amplitude) * std::sqrt(std::max(0.0, s2 / N - (s1 / N) * (s1 / N)));
  }
};

TEST(Statistics, RmsOfAStandingSoundWaveIncludesItsViscousDecay) {
  EDDY_REQUIRE_DEVICE();
  const SoundWave wave;
  const double period = 2.0 * M_PI / wave.omega();
  const std::int64_t t0 = 40, samples = std::int64_t(std::round(10 * period));
  CaseConfig c = test::box_case(wave.n, 1, 1, wave.tau);
  for (int a = 0; a < 3; ++a) test::make_periodic(c, a);
  c.precision = Precision::float64;
  c.steps = t0 + samples;
  c.statistics.enabled = true;
  c.statistics.start = t0;
  c.statistics.fields = {"mean_velocity", "velocity_rms", "reynolds_stress", "mean_density"};
  finalize_case(c);
  auto sim = Simulation::create(c);
  std::vector<double> f(19 * std::size_t(wave.n));
  for (int x = 0; x < wave.n; ++x) {
    const double u[3] = {0.0, 0.0, 0.0};
    for (int i = 0; i < 19; ++i) {
      f[i * wave.n + x] = reference::ReferenceLbm::equilibrium(i, 1.0 + wave.eps * std::cos(wave.k() * x), u);
    }
  }
  sim->set_populations(f);
  sim->advance(c.steps);
  ASSERT_EQ(sim->flow_statistics()->samples(), samples);
  const std::vector<double> rms = sim->statistics_field("velocity_rms");
  const std::vector<double> stress = sim->statistics_field("reynolds_stress");
  const std::size_t n = std::size_t(wave.n);
  double worst = 0.0, worst_undamped = 1.0;
  const double peak = wave.rms(wave.n / 4.0, t0, samples, true);
  for (int x = 0; x < wave.n; ++x) {
    const double expected = wave.rms(x, t0, samples, true);
    const double undamped = wave.rms(x, t0, samples, false);
    EXPECT_NEAR(rms[x], expected, 0.005 * peak) << "x = " << x;
    EXPECT_NEAR(stress[x], rms[x] * rms[x], 1e-12 * peak * peak) << "xx is the x variance";
    EXPECT_LT(rms[n + x], 1e-6 * peak) << "no motion along y";
    if (std::abs(std::sin(wave.k() * x)) > 0.5) {
      worst = std::max(worst, std::abs(rms[x] / expected - 1.0));
      worst_undamped = std::min(worst_undamped, std::abs(rms[x] / undamped - 1.0));
    }
  }
  std::printf(
      "[ statistics ] standing wave: RMS within %.3g %% of the analytic value with decay; %.3g %% or more "
      "from the undamped one\n",
      100 * worst, 100 * worst_undamped);
  EXPECT_LT(worst, 0.005);
  EXPECT_GT(worst_undamped, 0.03) << "the decay over the window must show";
}

// ---- the profile file -------------------------------------------------------------------------------------------

TEST(StatisticsProfile, PoiseuilleAveragedOverXAndZIsTheParabola) {
  EDDY_REQUIRE_DEVICE();
  // The steady channel of MeanOfASteadyChannelIsTheChannel; with TRT Lambda = 3/16 its exact profile is the lattice's
  // (the wall half-way): the resolution's accuracy is that of the arithmetic, the steady state's per-step rounding
  // defect over the slowest decay rate lambda_1 (tests/physics/rounding_budget.hpp, as tests/physics/
  // test_poiseuille.cpp: kFloatRoundings u / lambda_1 relative to u_max, 8e-4 in float, 2e-12 in double; float
  // measured 2e-5). An x, z average over the 4 x 2 cells of each row.
  const int H = 16;
  const double lambda1 = 0.1 * M_PI * M_PI / (H * H);
  const std::int64_t converged = std::int64_t(25.0 / lambda1);
  for (const Precision precision : {Precision::float64, Precision::float32}) {
    CaseConfig c = channel(H, precision, converged + 200, converged, 3);
    c.statistics.average = {true, false, true};
    finalize_case(c);
    auto sim = Simulation::create(c);
    sim->set_populations(equilibrium_channel(c));
    sim->advance(c.steps);
    const OutputScaling scaling = OutputScaling::of(c);
    const StatisticsProfile p = statistics_profile(c, sim->statistics_sums(), sim->decomposition(), scaling);
    const std::vector<std::string> names = {"y",
                                            "fluid_cells",
                                            "mean_velocity_x",
                                            "mean_velocity_y",
                                            "mean_velocity_z",
                                            "velocity_rms_x",
                                            "velocity_rms_y",
                                            "velocity_rms_z",
                                            "reynolds_stress_xx",
                                            "reynolds_stress_yy",
                                            "reynolds_stress_zz",
                                            "reynolds_stress_xy",
                                            "reynolds_stress_yz",
                                            "reynolds_stress_xz",
                                            "mean_density",
                                            "mean_pressure"};
    ASSERT_EQ(p.names, names);
    ASSERT_EQ(p.columns[0].size(), std::size_t(H));
    const double tolerance = test::kFloatRoundings * test::arithmetic_unit_roundoff(precision) / lambda1;
    for (int j = 0; j < H; ++j) {
      const double y = j + 0.5;
      EXPECT_DOUBLE_EQ(p.columns[0][j], y / H) << "node centres over L = H";
      EXPECT_EQ(p.columns[1][j], 8.0);
      EXPECT_NEAR(p.columns[2][j] * c.velocity, channel_exact(c, y), tolerance * c.velocity) << "row " << j;
      EXPECT_NEAR(p.columns[3][j], 0.0, tolerance);
      for (int k = 5; k < 14; ++k) EXPECT_NEAR(p.columns[k][j], 0.0, std::sqrt(tolerance)) << p.names[k] << " " << j;
      EXPECT_NEAR(p.columns[14][j], 1.0, tolerance);
    }
  }
}

/// Writes `c`'s case file: the steady channel of the tests above, 4 x 16 x 2, statistics from `start`.
std::string channel_case(std::int64_t steps, std::int64_t start, const std::string& more = "") {
  return "[domain]\nsize = [4, 16, 2]\nperiodic = [true, false, true]\n"
         "[physics]\nvelocity = 0.02\nlength = 16\ntau = 0.8\nbody_force = [6.25e-5, 0, 0]\n"
         "[run]\nsteps = " +
         std::to_string(steps) + "\n[statistics]\nstart = " + std::to_string(start) + "\naverage = [\"x\", \"z\"]\n" +
         more;
}

TEST(StatisticsProfile, FileThroughEddyMatchesTheProfileAndTheSnapshotsHoldTheArrays) {
  EDDY_REQUIRE_DEVICE();
  if (!EDDY_TEST_WITH_VTK) GTEST_SKIP() << "SKIPPED: eddy was built without VTK (EDDY_WITH_VTK=OFF): no snapshots";
  test::TempDir dir;
  // 6400 steps reach the steady state (25 e-folds); the file is written with the snapshots at 6000 (not yet sampled:
  // skipped) and 6600, and at the end (6700).
  test::write_text(dir.file("case.toml"), channel_case(6700, 6400, "[output]\nevery = 600\n"));
  std::string out;
  ASSERT_EQ(test::run_eddy(dir, "", out), 0) << out;
  EXPECT_NE(out.find("statistics  mean_velocity, velocity_rms, reynolds_stress, mean_density, mean_pressure: the "
                     "states at steps 6400, 6401, ... (every 1, 300 samples by step 6700)"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("no sample before step 6400 yet"), std::string::npos) << out;
  EXPECT_NE(out.find("wrote out/case_statistics.csv (16 rows, 200 samples)"), std::string::npos) << out;
  EXPECT_NE(out.find("wrote out/case_statistics.csv (16 rows, 300 samples)"), std::string::npos) << out;
  const std::string text = test::read_text(dir.file("out/case_statistics.csv"));
  EXPECT_EQ(text.rfind("# eddy [statistics] profile of case case at step 6700: 300 samples (the states at steps 6400 "
                       "to 6699, every 1), averaged over x, z",
                       0),
            0u)
      << text;
  EXPECT_FALSE(test::has_temporary_files(dir.path() / "out"));
  const CsvTable table = read_csv(dir.file("out/case_statistics.csv"));
  const std::vector<double>& u = table.column("mean_velocity_x");
  ASSERT_EQ(u.size(), 16u);
  const double nu = 0.1, force = 6.25e-5, lambda1 = nu * M_PI * M_PI / 256;
  const double tolerance = test::kFloatRoundings * test::kFloatUnitRoundoff / lambda1;  // as above (float storage)
  for (int j = 0; j < 16; ++j) {
    const double y = j + 0.5;
    EXPECT_NEAR(u[j] * 0.02, force / (2 * nu) * y * (16 - y), tolerance * 0.02) << j;
    EXPECT_LT(table.column("velocity_rms_x")[j], 1e-3) << j;
  }
  if (!EDDY_TEST_WITH_VTK) return;
  const std::string vti = test::read_text(dir.file("out/case_00006700.vti"));
  for (const char* name :
       {"Name=\"mean_velocity\" NumberOfComponents=\"3\"", "Name=\"velocity_rms\" NumberOfComponents=\"3\"",
        "Name=\"reynolds_stress\" NumberOfComponents=\"6\" ComponentName0=\"xx\" ComponentName1=\"yy\" "
        "ComponentName2=\"zz\" ComponentName3=\"xy\" ComponentName4=\"yz\" ComponentName5=\"xz\"",
        "Name=\"mean_density\"", "Name=\"mean_pressure\""}) {
    EXPECT_NE(vti.find(name), std::string::npos) << name;
  }
  EXPECT_EQ(vti.find("mean_temperature"), std::string::npos);
}

// ---- restarts ------------------------------------------------------------------------------------------------------

/// The channel with a passive temperature (hot y_min, cold y_max), so that mean_temperature is summed too; the flow
/// starts from rest and is still developing, so the averages move.
CaseConfig developing_channel(std::int64_t steps) {
  CaseConfig c = channel(8, Precision::float32, steps, 100, 3);
  c.thermal.enabled = true;
  c.thermal.prandtl = 0.71;
  c.thermal.walls[2] = ThermalWall::fixed;
  c.thermal.wall_temperature[2] = 1.0;
  c.thermal.walls[3] = ThermalWall::fixed;
  c.thermal.wall_temperature[3] = 0.0;
  c.statistics.fields.clear();  // all that apply: mean_temperature too
  finalize_case(c);
  return c;
}

TEST(StatisticsRestart, RestoredStateContinuesTheSumsBitwise) {
  EDDY_REQUIRE_DEVICE();
  const CaseConfig c = developing_channel(400);
  ASSERT_EQ(c.statistics.fields.back(), "mean_temperature");
  auto whole = Simulation::create(c);
  whole->advance(400);
  const StatisticsSums expected = whole->statistics_sums();
  ASSERT_EQ(expected.components(), 11);
  auto first = Simulation::create(c);
  first->advance(250);  // mid-averaging: samples at 100, 103, ..., 247
  const RawState state = first->raw_state();
  EXPECT_EQ(state.statistics_samples, 50);
  EXPECT_EQ(state.statistics_first_step, 100);
  auto second = Simulation::create(c);
  second->set_raw_state(state);
  second->advance(150);
  const StatisticsSums got = second->statistics_sums();
  EXPECT_EQ(got.samples, expected.samples);
  EXPECT_EQ(got.first_step, 100);
  ASSERT_EQ(got.sums.size(), expected.sums.size());
  EXPECT_TRUE(std::equal(got.sums.begin(), got.sums.end(), expected.sums.begin())) << "the sums differ";
  // A state without sums (a checkpoint written without [statistics]) starts them afresh.
  RawState bare = state;
  bare.statistics.clear();
  auto third = Simulation::create(c);
  third->set_raw_state(bare);
  EXPECT_EQ(third->flow_statistics()->samples(), 0);
  // Sums of another size are refused.
  RawState wrong = state;
  wrong.statistics.resize(wrong.statistics.size() / 11 * 4);
  EXPECT_THROW(third->set_raw_state(wrong), std::invalid_argument);
}

TEST(StatisticsRestart, RestartThroughEddyMidAveragingIsBitwiseTheUninterruptedRun) {
  EDDY_REQUIRE_DEVICE();
  const std::string text = channel_case(700, 100, "every = 3\n[checkpoint]\nevery = 450\n[output]\nvtk = false\n");
  test::TempDir whole("eddy_whole_"), parts("eddy_parts_");
  test::write_text(whole.file("case.toml"), text);
  test::write_text(parts.file("case.toml"), text);
  std::string out;
  ASSERT_EQ(test::run_eddy(whole, "", out), 0) << out;
  ASSERT_EQ(test::run_eddy(parts, "--set run.steps=450", out), 0) << out;
  ASSERT_EQ(test::run_eddy(parts, "--restart out/checkpoints/case_checkpoint_00000450.toml", out), 0) << out;
  EXPECT_NE(out.find("statistics  continued from the checkpoint: 117 samples since step 100"), std::string::npos)
      << out;  // 100, 103, ..., 448
  const std::string manifest = test::read_text(parts.file("out/checkpoints/case_checkpoint_00000450.toml"));
  EXPECT_NE(manifest.find("[counters]\nstatistics_first_step = 100\nstatistics_samples = 117\n"), std::string::npos)
      << manifest;
  EXPECT_NE(manifest.find("name = \"statistics\"\ncomponents = 10\nvalue_bytes = 8"), std::string::npos) << manifest;
  const std::string a = test::read_text(whole.file("out/checkpoints/case_checkpoint_00000700.data"));
  const std::string b = test::read_text(parts.file("out/checkpoints/case_checkpoint_00000700.data"));
  ASSERT_FALSE(a.empty());
  EXPECT_TRUE(a == b) << "the final states and sums differ after the restart";
  EXPECT_EQ(test::read_text(whole.file("out/case_statistics.csv")),
            test::read_text(parts.file("out/case_statistics.csv")));

  // The checkpoint at 450 restarted with other fields (no second moments) is refused, naming the sums (exit 6).
  const std::string fewer = channel_case(700, 100, "every = 3\nfields = [\"mean_velocity\"]\n");
  test::write_text(parts.file("case.toml"), fewer);
  EXPECT_EQ(test::run_eddy(parts, "--restart out/checkpoints/case_checkpoint_00000450.toml", out), 6) << out;
  EXPECT_NE(out.find("its [statistics] hold 10 sums per cell (rho, u and u_a u_b), the case's statistics.fields need 4 "
                     "sums per cell (rho and u)"),
            std::string::npos)
      << out;
  // Without [statistics] the checkpoint's sums are dropped, with a note.
  const std::string none =
      "[domain]\nsize = [4, 16, 2]\nperiodic = [true, false, true]\n"
      "[physics]\nvelocity = 0.02\nlength = 16\ntau = 0.8\nbody_force = [6.25e-5, 0, 0]\n"
      "[run]\nsteps = 500\n[output]\nvtk = false\n";
  test::write_text(parts.file("case.toml"), none);
  EXPECT_EQ(test::run_eddy(parts, "--restart out/checkpoints/case_checkpoint_00000450.toml", out), 0) << out;
  EXPECT_NE(out.find("the checkpoint's running averages are not continued"), std::string::npos) << out;
  // And a checkpoint without them starts the averages at the restart (a warning: start lies before it).
  test::write_text(parts.file("case.toml"), none + "[checkpoint]\nevery = 500\n");
  ASSERT_EQ(test::run_eddy(parts, "", out), 0) << out;
  test::write_text(parts.file("case.toml"), channel_case(700, 100, "[output]\nvtk = false\n"));
  EXPECT_EQ(test::run_eddy(parts, "--restart out/checkpoints/case_checkpoint_00000500.toml", out), 0) << out;
  EXPECT_NE(out.find("statistics  the checkpoint holds none: the averages start from step 500"), std::string::npos)
      << out;
  EXPECT_NE(out.find("warning: statistics.start = 100 lies before the restart's step 500"), std::string::npos) << out;
  EXPECT_NE(out.find("wrote out/case_statistics.csv (16 rows, 200 samples)"), std::string::npos) << out;
}

}  // namespace
}  // namespace eddy
