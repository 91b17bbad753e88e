// The DFG benchmark "laminar flow around a cylinder" (Schaefer & Turek 1996) on the shipped cases, against the
// intervals of its result tables (tests/data/schaefer_turek1996_dfg_bounds.csv, which also gives the set-up and the
// definitions of c_D, c_L, St and dp). Label "long": GPU-sized, not in the default suite; on the GPU machine
//   ctest --test-dir build/cuda -L long -R Dfg --output-on-failure
// For development on a CPU, EDDY_DFG_CELLS=10 (cells per diameter, a multiple of 10; the convergence study starts
// there) runs every test on a coarser grid, with the case's lattice velocity; the bounds are then expected to fail
// (they hold at the resolution each test states).
//
// How each run is judged (the read-outs are in tests/physics/dfg_benchmark.hpp):
//   - 2D-1 and 3D-1Z are steady: sampled every 0.5 s of flow, a run is steady once C_D and dp vary by less than
//     1e-4 of themselves over a window of 1.25 periods of the channel's slowest sound wave (which the inlet's ramp
//     excites and which decays over tens of seconds). 1e-4 is a tenth of the narrowest bound's half-width (dp:
//     0.0002 / 0.1174 = 1.7e-3; C_D: 0.01 / 5.58 = 1.8e-3), so the transient cannot decide a bound.
//   - 2D-2 sheds vortices: after the spin-up, C_D and C_L are sampled about 200 times per period; St comes from the
//     dominant frequency of C_L (solver/force_statistics.hpp, the run summary's method), the maxima from the last
//     three periods (each refined by a parabola through the largest sample and its neighbours), and their spread
//     between those periods must be below a tenth of the bounds' width (the shedding's amplitude has settled).
//   - Only the targets are asserted; the other quantities of the table (dp of 2D-2 and 3D-1Z) are printed
//     with their bounds.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>

#include "tests/physics/dfg_benchmark.hpp"
#include "tests/test_support.hpp"

namespace eddy {
namespace {

using test::dfg::Bounds;

// 2D-2: the shedding starts from the cylinder's offset (C_L grows from about 2 s) and has settled by about 6 s
// (measured at D = 20 and 30 on the CPU); the 4 s window holds about 12 periods (f ~ 3 Hz), enough for the frequency
// to better than 1e-4 of itself (solver/force_statistics.hpp), and the maxima are taken over its last 3 periods.
constexpr double kSheddingSpinup = 8.0, kSheddingWindow = 4.0;

void expect_within(const char* what, double value, const Bounds& b) {
  EXPECT_TRUE(b.contains(value)) << what << " = " << value << " outside [" << b.lower << ", " << b.upper << "]";
}

// 2D-1 at D = 40 cells (the case file's resolution and lattice: U_mean = 1/60 lattice, tau = 0.6, Ma = 0.043).
TEST(DfgLong, Cylinder2dRe20WithinTheBounds) {
  EDDY_REQUIRE_DEVICE();
  std::string note;
  const int cells = test::dfg::cells_per_diameter(40, &note);
  const CaseConfig c = test::dfg::load_case_at("cylinder_2d_re20.toml", cells);
  const test::dfg::SteadyState s = test::dfg::run_to_steady_state(c, 0.5, 1e-4, 10.0, 80.0);
  std::printf(
      "[ dfg 2D-1 ] %s; tau %.4f, U_mean %.5f lattice: after %.1f s (%lld steps) C_D %.5f C_L %.6f dp %.6f Pa"
      " (spreads %.1e, %.1e)\n",
      note.c_str(), c.tau, c.velocity, s.time, (long long)s.steps, s.drag, s.lift, s.dp, s.spread_drag, s.spread_dp);
  EXPECT_TRUE(s.steady) << "C_D or dp still varying after " << s.time << " s";
  expect_within("C_D", s.drag, test::dfg::bounds("c_D", "2D-1"));
  expect_within("C_L", s.lift, test::dfg::bounds("c_L", "2D-1"));
  expect_within("dp", s.dp, test::dfg::bounds("dp", "2D-1"));
}

// The drag of 2D-1 against resolution, D = N, 2N, 4N cells (N = 20; EDDY_DFG_CELLS sets N), at the case's tau =
// 0.6: diffusive scaling, U_mean = (1/60) (40 / D) lattice, so the compressibility error (order Ma^2) falls with
// dx^2 too and the viscosity-dependent part of the interpolation's error stays the same. The error is against the
// reference C_D = 5.57953523384 (tests/data/dfg_2d1_reference.csv), far more precise than the interval (whose
// midpoint is 5e-4 off it, about the error expected at D = 80). Steady here means a spread of 1e-5 over the window
// (3e-5 of C_D's ~6e-4 error at D = 80: the order is then known to about 0.1).
// Interpolated walls: the order of the least-squares fit of log e against log D over the three resolutions (for
// doubling steps, log2(e(N) / e(4N)) / 2) at least 2 - 0.2 (the tolerance of the suite's other second-order
// tests). Not each step's order: on a curved wall the wall distances q that the grid cuts change with D, so the
// error constant, and with it the order of a single doubling, scatters about 2 (the H200, 2026-12-02: 2.30 from
// D = 20 to 40 and 1.72 from 40 to 80, the fit 2.01). Half-way walls (the staircase) for comparison: their error is
// larger than the interpolated walls' at every resolution.
TEST(DfgLong, Cylinder2dRe20DragConvergesAtSecondOrderWithInterpolatedWalls) {
  EDDY_REQUIRE_DEVICE();
  const int coarsest = test::dfg::cells_per_diameter(20);
  const double reference = test::dfg::reference("c_D", "2D-1");
  double error[2][3];
  for (int w = 0; w < 2; ++w)
    for (int k = 0; k < 3; ++k) {
      const int cells = coarsest << k;
      CaseConfig c = test::dfg::load_case_at("cylinder_2d_re20.toml", cells, (1.0 / 60.0) * 40.0 / cells);
      c.solids[0].wall = w == 0 ? SolidWall::interpolated : SolidWall::halfway;
      const test::dfg::SteadyState s = test::dfg::run_to_steady_state(c, 0.5, 1e-5, 10.0, 120.0);
      error[w][k] = std::abs(s.drag - reference);
      std::printf("[ dfg 2D-1 ] %s walls, D = %3d, tau %.4f: C_D %.5f (error %.2e) C_L %.6f dp %.6f Pa, %.1f s%s\n",
                  w == 0 ? "interpolated" : "half-way", cells, c.tau, s.drag, error[w][k], s.lift, s.dp, s.time,
                  s.steady ? "" : " (not steady)");
      EXPECT_TRUE(s.steady) << "D = " << cells;
    }
  for (int k = 0; k < 2; ++k) {
    std::printf("[ dfg 2D-1 ] D = %d -> %d: observed order of the drag error: interpolated %.2f, half-way %.2f\n",
                coarsest << k, coarsest << (k + 1), std::log2(error[0][k] / error[0][k + 1]),
                std::log2(error[1][k] / error[1][k + 1]));
  }
  const double fitted = 0.5 * std::log2(error[0][0] / error[0][2]);
  std::printf("[ dfg 2D-1 ] D = %d -> %d: order of the least-squares fit: interpolated %.2f, half-way %.2f\n", coarsest,
              coarsest << 2, fitted, 0.5 * std::log2(error[1][0] / error[1][2]));
  EXPECT_GE(fitted, 1.8) << "D = " << coarsest << " -> " << (coarsest << 2);
  for (int k = 0; k < 3; ++k) EXPECT_LT(error[0][k], error[1][k]) << "D = " << (coarsest << k);
}

// 2D-2 at D = 80 cells (the case file's: U_mean = 0.025 lattice, tau = 0.56, Ma = 0.065; why this resolution and
// lattice velocity, with the runs that missed a bound at D = 40 and at other velocities: the case file's header).
TEST(DfgLong, Cylinder2dRe100WithinTheBounds) {
  EDDY_REQUIRE_DEVICE();
  std::string note;
  const int cells = test::dfg::cells_per_diameter(80, &note);
  const CaseConfig c = test::dfg::load_case_at("cylinder_2d_re100.toml", cells);
  const test::dfg::Shedding s = test::dfg::run_shedding(c, kSheddingSpinup, kSheddingWindow, 200, 3);
  ASSERT_TRUE(s.found) << "no shedding frequency: " << s.reason;
  const Bounds drag = test::dfg::bounds("c_D_max", "2D-2"), lift = test::dfg::bounds("c_L_max", "2D-2");
  const Bounds dp = test::dfg::bounds("dp", "2D-2");
  std::printf(
      "[ dfg 2D-2 ] %s; tau %.4f, U_mean %.4f lattice: St %.5f (f %.4f Hz), max C_D %.5f, max C_L %.5f"
      " (spread over 3 periods %.1e, %.1e), dp half a period after max C_L %.5f Pa (bounds [%.2f, %.2f],"
      " not asserted), %.1f s\n",
      note.c_str(), c.tau, c.velocity, s.strouhal, s.frequency, s.drag_max, s.lift_max, s.drag_max_spread,
      s.lift_max_spread, s.dp, dp.lower, dp.upper, s.time);
  expect_within("St", s.strouhal, test::dfg::bounds("St", "2D-2"));
  expect_within("max C_D", s.drag_max, drag);
  expect_within("max C_L", s.lift_max, lift);
  EXPECT_LT(s.drag_max_spread, 0.1 * (drag.upper - drag.lower)) << "the shedding has not settled";
  EXPECT_LT(s.lift_max_spread, 0.1 * (lift.upper - lift.lower)) << "the shedding has not settled";
}

// 3D-1Z at D = 20 cells (the case file's: U_mean = 1/45 lattice, tau = 0.567, Ma = 0.087), 3.4e6 cells.
TEST(DfgLong, Cylinder3dRe20WithinTheBounds) {
  EDDY_REQUIRE_DEVICE();
  std::string note;
  const int cells = test::dfg::cells_per_diameter(20, &note);
  const CaseConfig c = test::dfg::load_case_at("cylinder_3d_re20.toml", cells);
  const test::dfg::SteadyState s = test::dfg::run_to_steady_state(c, 0.5, 1e-4, 10.0, 80.0);
  const Bounds dp = test::dfg::bounds("dp", "3D-1Z");
  std::printf(
      "[ dfg 3D-1Z] %s; tau %.4f, U_mean %.5f lattice: after %.1f s (%lld steps) C_D %.5f C_L %.6f"
      " (spreads %.1e, %.1e), dp %.5f Pa (bounds [%.3f, %.3f], not asserted)\n",
      note.c_str(), c.tau, c.velocity, s.time, (long long)s.steps, s.drag, s.lift, s.spread_drag, s.spread_dp, s.dp,
      dp.lower, dp.upper);
  EXPECT_TRUE(s.steady) << "C_D or dp still varying after " << s.time << " s";
  expect_within("C_D", s.drag, test::dfg::bounds("c_D", "3D-1Z"));
  expect_within("C_L", s.lift, test::dfg::bounds("c_L", "3D-1Z"));
}

}  // namespace
}  // namespace eddy
