// Grid convergence of the 2D Taylor-Green vortex (x, y periodic, invariant along z), an exact Navier-Stokes
// solution (Taylor & Green 1937), with k = 2 pi / N:
//   u = U0 sin(k x) cos(k y) e^(-2 nu k^2 t),   v = -U0 cos(k x) sin(k y) e^(-2 nu k^2 t),
//   p = rho0 U0^2 / 4 [cos(2 k x) + cos(2 k y)] e^(-4 nu k^2 t).
// Diffusive scaling: tau = 0.8 (nu = 0.1) fixed, U0 = 0.64 / N (Re = U0 N / nu = 6.4, Ma = sqrt(3) U0 <= 0.07 for
// N >= 16), T = N^2 / 8 steps (2 nu k^2 T = pi^2 / 10, the same fraction of the decay time for every N). The LBM
// pressure is p = c_s^2 (rho - 1). Every error source then falls as N^-2: the lattice truncation error, O(dx^2);
// the compressibility error, O(Ma^2) with Ma ~ 1/N; and the sound waves that the O(dx^2) mismatch between the
// analytic start and the lattice's own solution launches. A start that is inconsistent at first order launches
// waves of relative size ~ nu k / c_s and U0 / c_s instead (kernels/initialize.cpp): with populations at
// equilibrium and a divergence-free velocity the pressure converges at first order (measured below).
//
// Errors are relative L2 norms over the N x N cells, e_p = ||p - p_exact|| / ||p_exact|| and likewise for (u, v).
// The pressure is compared as it is, without subtracting its mean: the mean of the analytic p over the nodes is
// zero (cosines summed over full periods), the initial rho has mean 1 on the grid, and the collisions conserve mass
// to round-off, so no constant offset appears in double (|mean p| < 1e-17 measured); subtracting it would hide
// the drift that float rounding causes.
//
// The sound waves make e_p(t) oscillate with the acoustic period sqrt(3) N / 2 steps (wave number 2k, the mode of
// p) and shorter ones, so e_p at one instant samples a phase that changes with N and its ratios between grids scatter
// (observed orders 1.5, 2.8, 1.1 at T, measured with the present start). The test takes the envelope instead: the
// largest e_p (and e_u) over the last sqrt(3) N / 2 steps before T, one period of the slowest wave.
//
// Measured (TRT, double, CPU, 2026-12-01): envelope e_p = 8.09e-2, 2.10e-2, 5.04e-3, 1.29e-3 for N = 16, 32, 64,
// 128 (orders 1.95, 2.06, 1.96; 1.98 on to N = 256); e_u = 2.08e-3, 4.70e-4, 1.04e-4, 2.53e-5 (orders 2.15, 2.18,
// 2.04). The equilibrium start with the divergence-free velocity gave e_p = 0.151, 7.07e-2, 3.45e-2, 1.71e-2
// (orders 1.09, 1.03, 1.01), and with f_neq but div u = 0: orders 1.23, 1.10, 1.05.
// Tolerance: order >= 1.8 between successive grids. The first-order defect gives ~1.0-1.2; what second-order
// schemes leave is the next term of the expansion, relative size O((k dx)^2) (15 % at N = 16, 4 % at N = 32, which
// moves the observed order by up to ~0.15 between 16 and 32, less beyond), plus the sampling of the envelope at whole steps (at N = 16 the slowest wave turns
// 0.45 rad per step: the sampled maximum can miss the true one by 2.5 % of the wave, ~0.04 in the order).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "solver/simulation.hpp"
#include "tests/test_support.hpp"

namespace eddy {
namespace {

struct TaylorGreenErrors {
  double pressure = 0.0;  ///< envelope of the relative L2 error of p = c_s^2 (rho - 1)
  double velocity = 0.0;  ///< envelope of the relative L2 error of (u, v)
  double mean_p = 0.0;    ///< mean of the computed p over the cells at T
};

/// Relative L2 errors of p and (u, v) at step t.
void errors_at(const MacroscopicFields& f, int n, double u0, double nu, std::int64_t t, double& e_p, double& e_u,
               double& mean_p) {
  const double k = 2.0 * M_PI / n;
  const double decay_u = std::exp(-2.0 * nu * k * k * double(t));
  const double decay_p = decay_u * decay_u;
  double dp2 = 0, p2 = 0, du2 = 0, u2 = 0, sum_p = 0;
  for (int y = 0; y < n; ++y)
    for (int x = 0; x < n; ++x) {
      const double px = x + 0.5, py = y + 0.5;  // node centres (kernels/launchers.hpp, initialize_populations)
      const double p_exact = 0.25 * u0 * u0 * (std::cos(2 * k * px) + std::cos(2 * k * py)) * decay_p;
      const double u_exact = u0 * std::sin(k * px) * std::cos(k * py) * decay_u;
      const double v_exact = -u0 * std::cos(k * px) * std::sin(k * py) * decay_u;
      const std::int64_t cell = f.index(x, y, 0);
      const double p = (f.rho[cell] - 1.0) / 3.0;
      const double du = f.u[0][cell] - u_exact, dv = f.u[1][cell] - v_exact;
      dp2 += (p - p_exact) * (p - p_exact);
      p2 += p_exact * p_exact;
      du2 += du * du + dv * dv;
      u2 += u_exact * u_exact + v_exact * v_exact;
      sum_p += p;
    }
  e_p = std::sqrt(dp2 / p2);
  e_u = std::sqrt(du2 / u2);
  mean_p = sum_p / (double(n) * n);
}

/// Runs the 2D Taylor-Green vortex on an N x N x 1 periodic grid for T = N^2 / 8 steps; the envelope of the
/// errors over the last acoustic period sqrt(3) N / 2 before T.
TaylorGreenErrors run_taylor_green(int n, Precision precision, Collision collision) {
  CaseConfig c = test::box_case(n, n, 1, 0.8);
  for (int a = 0; a < 3; ++a) test::make_periodic(c, a);
  const double u0 = 0.64 / n;
  c.velocity = u0;
  c.initial = {InitialKind::taylor_green_2d, u0};  // lattice units (the case file gives it in units of U)
  c.collision = collision;
  c.precision = precision;
  finalize_case(c);
  auto sim = Simulation::create(c);
  const std::int64_t steps = std::int64_t(n) * n / 8;
  const std::int64_t window = std::int64_t(std::ceil(std::sqrt(3.0) * n / 2.0));
  sim->advance(steps - window);
  TaylorGreenErrors e;
  for (std::int64_t t = steps - window; t <= steps; ++t) {
    if (t > steps - window) sim->advance(1);
    double e_p, e_u;
    errors_at(sim->fields(), n, u0, c.nu, t, e_p, e_u, e.mean_p);
    e.pressure = std::max(e.pressure, e_p);
    e.velocity = std::max(e.velocity, e_u);
  }
  return e;
}

/// Errors for each N of `sizes`, printed with the observed orders log2(e(N/2) / e(N)).
std::vector<TaylorGreenErrors> convergence(const std::vector<int>& sizes, Precision precision, Collision collision,
                                           const char* name) {
  std::vector<TaylorGreenErrors> e;
  for (std::size_t j = 0; j < sizes.size(); ++j) {
    e.push_back(run_taylor_green(sizes[j], precision, collision));
    std::printf("[ taylor-green %s ] N = %4d: e_p = %.3e  e_u = %.3e  mean p = %+.2e", name, sizes[j], e[j].pressure,
                e[j].velocity, e[j].mean_p);
    if (j > 0)
      std::printf("  order p %.2f  u %.2f", std::log2(e[j - 1].pressure / e[j].pressure),
                  std::log2(e[j - 1].velocity / e[j].velocity));
    std::printf("\n");
    std::fflush(stdout);
  }
  return e;
}

TEST(TaylorGreenConvergence, PressureAndVelocitySecondOrderDouble) {
  EDDY_REQUIRE_DEVICE();
  const std::vector<int> sizes = {16, 32, 64, 128};
  const auto e = convergence(sizes, Precision::float64, Collision::trt, "TRT double");
  for (std::size_t j = 1; j < sizes.size(); ++j) {
    EXPECT_GE(std::log2(e[j - 1].pressure / e[j].pressure), 1.8) << "pressure, N = " << sizes[j - 1] << " -> " << sizes[j];
    EXPECT_GE(std::log2(e[j - 1].velocity / e[j].velocity), 1.8) << "velocity, N = " << sizes[j - 1] << " -> " << sizes[j];
  }
  EXPECT_LT(std::abs(e.back().mean_p), 1e-15) << "mass is conserved: the mean pressure stays 0";
}

// The same for BGK, and for float storage up to N = 256 (where the pressure stops converging, README), as a
// measurement (minutes on 2 cores): test_validation --gtest_also_run_disabled_tests
// --gtest_filter='TaylorGreenConvergence.DISABLED_*'.
TEST(TaylorGreenConvergence, DISABLED_MeasureBgkAndFloat) {
  convergence({16, 32, 64, 128, 256}, Precision::float64, Collision::bgk, "BGK double");
  convergence({16, 32, 64, 128, 256}, Precision::float32, Collision::trt, "TRT float");
  convergence({16, 32, 64, 128, 256}, Precision::float32, Collision::bgk, "BGK float");
}

}  // namespace
}  // namespace eddy
