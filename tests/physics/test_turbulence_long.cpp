// Turbulence benchmarks on the GPU (label long): the Taylor-Green vortex at Re = 1600 (cases/
// taylor_green_re1600.toml) against the 512^3 pseudo-spectral DNS of tests/data/tgv_re1600_dissipation_dns.csv:
// the peak of the dissipation rate epsilon = -dE_k/dt within 5 % of the DNS peak and reached within 0.5 L / V0 of
// its time at N = 256 without a model; within 15 % at N = 128 with the Smagorinsky model. The run's epsilon is the
// backward difference over each sampling interval (solver/energy_series.hpp), taken at the interval's midpoint.
// The turbulent channel at Re_tau = 180 (cases/channel_re180.toml) against the DNS of Kim, Moin & Moser (1987) and
// Moser, Kim & Mansour (1999, tests/data/channel_re180_mean_profile_dns.csv): from the x-z averaged mean profile,
// the bulk Reynolds number 2 delta U_b / nu within 3 % of 5,600, the centreline velocity U_c / u_tau within 3 % of
// 18.2, and the log-law slope d u+ / d ln y+ between y+ = 30 and 100 within 10 % of 1 / kappa = 1 / 0.41.
// Measured at the case's delta = 64 (docs/performance.md): Re_b +8.3 %, U_c+ +6.3 %, slope -8.6 %: the first two
// checks fail there; the excess converges away with the resolution (cases/README.md, channel_re180.toml).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>

#include "io/csv_table.hpp"
#include "tests/cli_run.hpp"
#include "kernels/backend.hpp"
#include "tests/test_support.hpp"

namespace eddy {
namespace {

struct Peak {
  double time = 0.0, epsilon = 0.0;
};

/// The largest epsilon of a table and its time (`midpoint`: the run's rows hold the rate of the interval before).
Peak peak_of(const CsvTable& t, bool midpoint) {
  const std::vector<double>& time = t.column(midpoint ? "time" : "t");
  const std::vector<double>& rate = t.column(midpoint ? "dissipation_rate" : "epsilon");
  Peak p;
  for (std::size_t k = 1; k < rate.size(); ++k) {
    if (!(rate[k] > p.epsilon)) continue;
    p.epsilon = rate[k];
    p.time = midpoint ? 0.5 * (time[k] + time[k - 1]) : time[k];
  }
  return p;
}

Peak run_taylor_green(const std::string& args) {
  test::TempDir dir;
  test::write_text(dir.file("case.toml"), test::read_text(std::string(EDDY_SOURCE_DIR) + "/cases/taylor_green_re1600.toml"));
  std::string out;
  EXPECT_EQ(test::run_eddy(dir, "--set output.vtk=false " + args, out), 0) << out;
  return peak_of(read_csv(dir.file("out/taylor_green_re1600_energy.csv")), true);
}

void expect_peak(const Peak& run, double tolerance, const char* what) {
  const Peak dns = peak_of(read_csv(test::data_file("tgv_re1600_dissipation_dns.csv")), false);
  std::cout << "[ tgv ] " << what << ": peak epsilon " << run.epsilon << " at t = " << run.time << "; DNS "
            << dns.epsilon << " at t = " << dns.time << " (" << 100.0 * (run.epsilon / dns.epsilon - 1.0) << " %)\n";
  EXPECT_LT(std::abs(run.epsilon / dns.epsilon - 1.0), tolerance);
  EXPECT_LT(std::abs(run.time - dns.time), 0.5);
}

TEST(TaylorGreenRe1600, DissipationPeakAtN256) {
  if (!backend::is_gpu() || backend::device_count() == 0) GTEST_SKIP() << "SKIPPED: a GPU run (256^3, 8,150 steps)";
  expect_peak(run_taylor_green(""), 0.05, "N 256, no model");
}

TEST(TaylorGreenRe1600, DissipationPeakAtN128WithLes) {
  if (!backend::is_gpu() || backend::device_count() == 0) GTEST_SKIP() << "SKIPPED: a GPU run (128^3, 8,150 steps)";
  expect_peak(run_taylor_green("--set physics.velocity=0.05 --set domain.size=[128,128,128] --set physics.length=20.371832715762604 "
                               "--set run.steps=8150 --set output.energy_every=20 --set numerics.min_tau=0.5015 "
                               "--set 'numerics.les=\"smagorinsky\"'"),
              0.15, "N 128, Smagorinsky");
}

/// Least-squares slope of u+ against ln y+ over the points with 30 <= y+ <= 100.
double log_law_slope(const std::vector<double>& y_plus, const std::vector<double>& u_plus) {
  double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (std::size_t k = 0; k < y_plus.size(); ++k) {
    if (y_plus[k] < 30.0 || y_plus[k] > 100.0) continue;
    const double x = std::log(y_plus[k]);
    n += 1;
    sx += x;
    sy += u_plus[k];
    sxx += x * x;
    sxy += x * u_plus[k];
  }
  return n < 3 ? std::nan("") : (n * sxy - sx * sy) / (n * sxx - sx * sx);
}

TEST(ChannelRe180, MeanProfileMatchesTheDns) {
  if (!backend::is_gpu() || backend::device_count() == 0)
    GTEST_SKIP() << "SKIPPED: a GPU run (400 x 128 x 200 cells, 640,000 steps)";
  test::TempDir dir;
  test::write_text(dir.file("case.toml"), test::read_text(std::string(EDDY_SOURCE_DIR) + "/cases/channel_re180.toml"));
  std::string out;
  ASSERT_EQ(test::run_eddy(dir, "--set output.vtk=false", out), 0) << out;
  const CsvTable profile = read_csv(dir.file("out/channel_re180_statistics.csv"));
  // Velocities in units of u_tau (physics.velocity), y in units of delta (physics.length), Re = Re_tau = 180.
  const std::vector<double>& y = profile.column("y");
  const std::vector<double>& u = profile.column("mean_velocity_x");
  const std::size_t rows = y.size();
  ASSERT_EQ(rows, 128u);
  const double re_tau = 180.0;
  double bulk = 0.0;
  for (const double value : u) bulk += value / double(rows);  // rows of equal height and equal fluid cells
  const double re_b = 2.0 * re_tau * bulk;
  const double centre = 0.5 * (u[rows / 2 - 1] + u[rows / 2]);
  std::vector<double> y_plus, u_plus;  // the two halves folded onto one, y+ from the nearer wall
  for (std::size_t k = 0; k < rows / 2; ++k) {
    y_plus.push_back(y[k] * re_tau);
    u_plus.push_back(0.5 * (u[k] + u[rows - 1 - k]));
  }
  const double slope = log_law_slope(y_plus, u_plus);
  const CsvTable dns = read_csv(test::data_file("channel_re180_mean_profile_dns.csv"));
  const double dns_slope = log_law_slope(dns.column("y_plus"), dns.column("u_plus"));
  std::cout << "[ channel ] Re_b " << re_b << " (U_b+ " << bulk << "), U_c+ " << centre << ", log-law slope " << slope
            << " (DNS profile " << dns_slope << ", 1/kappa " << 1.0 / 0.41 << ")\n";
  EXPECT_LT(std::abs(re_b / 5600.0 - 1.0), 0.03);
  EXPECT_LT(std::abs(centre / 18.2 - 1.0), 0.03);
  EXPECT_LT(std::abs(slope * 0.41 - 1.0), 0.10);
  EXPECT_LT(std::abs(dns_slope * 0.41 - 1.0), 0.10) << "the reference itself";
}

}  // namespace
}  // namespace eddy
