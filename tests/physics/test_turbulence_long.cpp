// Turbulence benchmarks on the GPU (label long): the Taylor-Green vortex at Re = 1600 (cases/
// taylor_green_re1600.toml) against the 512^3 pseudo-spectral DNS of tests/data/tgv_re1600_dissipation_dns.csv:
// the peak of the dissipation rate epsilon = -dE_k/dt within 5 % of the DNS peak and reached within 0.5 L / V0 of
// its time at N = 256 without a model; within 15 % at N = 128 with the Smagorinsky model. The run's epsilon is the
// backward difference over each sampling interval (solver/energy_series.hpp), taken at the interval's midpoint.
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
  if (!backend::is_gpu() || backend::device_count() == 0) GTEST_SKIP() << "SKIPPED: a GPU run (256^3, 16,300 steps)";
  expect_peak(run_taylor_green(""), 0.05, "N 256, no model");
}

TEST(TaylorGreenRe1600, DissipationPeakAtN128WithLes) {
  if (!backend::is_gpu() || backend::device_count() == 0) GTEST_SKIP() << "SKIPPED: a GPU run (128^3, 8,150 steps)";
  expect_peak(run_taylor_green("--set physics.velocity=0.05 --set domain.size=[128,128,128] --set physics.length=20.371832715762604 "
                               "--set run.steps=8150 --set output.energy_every=20 --set numerics.min_tau=0.5015 "
                               "--set 'numerics.les=\"smagorinsky\"'"),
              0.15, "N 128, Smagorinsky");
}

}  // namespace
}  // namespace eddy
