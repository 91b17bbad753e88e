// The DFG benchmark 2D-1 (Schaefer & Turek 1996) on a coarse grid, cheap enough for the default suite (about 20 s
// on 2 cores): the shipped case cylinder_2d_re20.toml at D = 10 cells instead of its 40 (its lattice velocity, so
// tau = 0.525), run to a steady state, C_D and dp compared with the precise reference values of 2D-1
// (tests/data/dfg_2d1_reference.csv).
//
// The tolerances are derived from a convergence study, not chosen (the CPU's of 2026-12-01: double, tau = 0.6,
// diffusive scaling, steady to 1e-4): the errors against the reference at D = 20 and 40 were C_D +0.01089,
// +0.00239 and dp -0.00113, -0.000236 Pa, an observed order p = 2.19 and 2.26. (The H200's study with the stricter
// steady criterion 1e-5, cases/README.md "cylinder_2d_re20.toml", gave the same +0.0109 at D = 20 and +0.00221 at
// D = 40, order 2.30, which would allow more.) Carried back from D = 20 to D = 10 at
// that order, the error may be 2^p times the one at D = 20: |C_D - 5.57954| < 0.01089 x 2^2.19 = 0.0497 (0.9 %) and
// |dp - 0.11752| < 0.00113 x 2^2.26 = 0.0054 Pa (4.6 %). Measured here: C_D +0.040, dp -0.0042 Pa (the study's own
// D = 10 run at tau = 0.6: +0.022, -0.0049). Half-way walls miss the drag's bound (C_D = 5.686 at D = 10). The lift
// (0.2 % of the drag) is not checked: at D = 10 it depends on how the 5-cell radius meets the grid.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "tests/physics/dfg_benchmark.hpp"
#include "tests/test_support.hpp"

namespace eddy {
namespace {

TEST(DfgCoarse, Cylinder2dRe20AtTenCellsPerDiameter) {
  EDDY_REQUIRE_DEVICE();
  const int cells = 10;
  // The errors at D = 20 of the convergence study, times 2^p (the header).
  const double drag_tolerance = 0.01089 * std::pow(2.0, 2.19), dp_tolerance = 0.00113 * std::pow(2.0, 2.26);
  const CaseConfig c = test::dfg::load_case_at("cylinder_2d_re20.toml", cells);
  const test::dfg::SteadyState s = test::dfg::run_to_steady_state(c, 0.5, 1e-4, 10.0, 60.0);
  const double drag = test::dfg::reference("c_D", "2D-1"), dp = test::dfg::reference("dp", "2D-1");
  std::printf(
      "[ dfg 2D-1 ] D = %d cells, tau %.4f: after %.1f s (%lld steps) C_D %.5f (%+.2f %%) C_L %.6f dp %.6f Pa"
      " (%+.2f %%)\n",
      cells, c.tau, s.time, (long long)s.steps, s.drag, 100.0 * (s.drag / drag - 1.0), s.lift, s.dp,
      100.0 * (s.dp / dp - 1.0));
  EXPECT_TRUE(s.steady) << "C_D or dp still varying after " << s.time << " s";
  EXPECT_NEAR(s.drag, drag, drag_tolerance);
  EXPECT_NEAR(s.dp, dp, dp_tolerance);
}

}  // namespace
}  // namespace eddy
