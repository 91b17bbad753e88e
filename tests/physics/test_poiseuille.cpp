// Body-force driven Poiseuille flow between halfway bounce-back walls at y = 0 and y = H:
//   u_x(y) = F / (2 rho nu) y (H - y)        (Krueger et al. 2017, section 5.3.4)
// BGK at fixed tau: the L2 error converges at second order over H = 8, 16, 32 (diffusive scaling, fixed u_max).
// TRT with Lambda = 3/16 puts the wall exactly midway, so the parabola is reproduced to round-off.
// Each claim runs on float, double and fp16 storage; tolerances beyond double's come from
// tests/physics/rounding_budget.hpp:
//   float: a steady state of round-to-nearest arithmetic is the fixed point of the rounded update, so its error is
//     the per-step defect divided by the slowest decay rate lambda_1 = nu pi^2 / H^2 of the channel:
//     ||u - u_exact|| / ||u_exact|| <= kFloatRoundings u R / lambda_1, with R = sum |g_i| / |sum c_ix g_i| over the
//     channel (~1: near equilibrium the populations carrying x-momentum all have the sign of u_x).
//   fp16: stochastic rounding keeps injecting zero-mean momentum noise, q per row and step, with
//     q <= 2^-22 max_row sum_{row, i} c_ix^2 g_i^2 (variance per store <= (2^-11 g)^2). Viscosity removes it at
//     the channel's shear-mode rates lambda_k = nu (k pi / H)^2, k = 1, 2, ... (sine modes, u = 0 at the walls),
//     so each mode holds a stationary variance q / (2 lambda_k), and the row-averaged velocity u_j = m_j / n_x has
//       sum_j Var(u_j) = sum_k q / (2 lambda_k n_x^2) = q H^2 / (12 nu n_x^2)      (sum 1/k^2 = pi^2 / 6).
//     The test allows kSigmas of that plus the float-arithmetic bound above (fp16 computes in float).
// The profile is the velocity averaged over the channel's n_x = 2 periodic cells in x: fp16 noise also drives the
// x-staggered (checkerboard) mode u(x = 0) - u(x = 1), which the lattice damps only weakly (it reached ~1 % of u_max
// in 2e5 fp16 steps at H = 16 and 32); it is no part of the channel flow and cancels exactly in the two-cell mean.
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>

#include "solver/simulation.hpp"
#include "tests/physics/rounding_budget.hpp"
#include "tests/test_support.hpp"

namespace eddy {
namespace {

/// Steady channel at height H: row profile and its error bounds.
struct Channel {
  int H = 0;
  std::vector<double> u, exact;  ///< row-averaged u_x and the analytic profile at y = j + 1/2
  double l2_error = 0.0;         ///< ||u - exact|| / ||exact||
  double umax_error = 0.0;       ///< (u - exact) / exact at the centre rows j = H/2 - 1, H/2 (mean of the two)
  double fp16_noise = 0.0;       ///< standard deviation bound of the fp16 noise, relative L2 (see the header)
  double float_bound = 0.0;      ///< bound on the arithmetic's steady-state error, relative L2
  double norm = 0.0;             ///< ||exact||
};

Channel steady_channel(int H, Collision collision, double tau, Precision precision) {
  const double u_max = 0.02;
  const int nx = 2;
  CaseConfig c = test::box_case(nx, H, 1, tau);
  test::make_periodic(c, 0);
  test::make_periodic(c, 2);
  c.collision = collision;
  c.precision = precision;
  c.velocity = u_max;
  c.length = H;
  const double nu = (tau - 0.5) / 3.0;
  c.body_force = {8.0 * nu * u_max / (H * H), 0.0, 0.0};
  finalize_case(c);
  auto sim = Simulation::create(c);
  // 25 e-folds of the slowest mode exp(-nu pi^2 t / H^2): transients far below the discretisation error.
  const double lambda1 = nu * M_PI * M_PI / (H * H);
  sim->advance(std::int64_t(25.0 / lambda1));
  const MacroscopicFields f = sim->fields();

  Channel ch;
  ch.H = H;
  double err2 = 0.0, ref2 = 0.0;
  for (int j = 0; j < H; ++j) {
    const double y = j + 0.5;
    double u = 0.0;
    for (int x = 0; x < nx; ++x) u += f.u[0][f.index(x, j, 0)] / nx;
    ch.u.push_back(u);
    ch.exact.push_back(c.body_force[0] / (2.0 * nu) * y * (H - y));
    err2 += (u - ch.exact[j]) * (u - ch.exact[j]);
    ref2 += ch.exact[j] * ch.exact[j];
  }
  ch.norm = std::sqrt(ref2);
  ch.l2_error = std::sqrt(err2) / ch.norm;
  ch.umax_error = (ch.u[H / 2 - 1] + ch.u[H / 2]) / (ch.exact[H / 2 - 1] + ch.exact[H / 2]) - 1.0;

  // Error budgets from the stored (post-collision) populations of the steady state.
  const std::vector<double> g = test::shifted(sim->populations());
  const std::size_t n = g.size() / d3q19::Q;
  double q_max = 0.0, abs_sum = 0.0, momentum = 0.0;
  for (int j = 0; j < H; ++j) {
    double q = 0.0;
    for (int x = 0; x < nx; ++x) {
      const std::size_t k = std::size_t(f.index(x, j, 0));
      double jx = 0.0;
      for (int i = 0; i < d3q19::Q; ++i) {
        const double gi = g[i * n + k], cx = d3q19::c(i, 0);
        q += cx * cx * gi * gi;
        abs_sum += std::abs(gi);
        jx += cx * gi;
      }
      momentum += std::abs(jx);
    }
    q_max = std::max(q_max, q);
  }
  q_max *= test::kHalfStoreSigma * test::kHalfStoreSigma;
  ch.fp16_noise = std::sqrt(q_max * H * H / (12.0 * nu * nx * nx)) / ch.norm;
  ch.float_bound =
      test::kFloatRoundings * test::arithmetic_unit_roundoff(precision) * (abs_sum / momentum) / lambda1;
  return ch;
}

/// ||a.u - b.u|| / ||exact||.
double profile_difference(const Channel& a, const Channel& b) {
  double d2 = 0.0;
  for (std::size_t j = 0; j < a.u.size(); ++j) d2 += (a.u[j] - b.u[j]) * (a.u[j] - b.u[j]);
  return std::sqrt(d2) / a.norm;
}

class Poiseuille : public ::testing::TestWithParam<Precision> {};

TEST_P(Poiseuille, BgkConvergesAtSecondOrder) {
  EDDY_REQUIRE_DEVICE();
  const Precision p = GetParam();
  const std::string name = test::storage_name(p);
  std::vector<Channel> ch;
  for (int H : {8, 16, 32}) ch.push_back(steady_channel(H, Collision::bgk, 0.8, p));
  const double order1 = std::log2(ch[0].l2_error / ch[1].l2_error), order2 = std::log2(ch[1].l2_error / ch[2].l2_error);
  std::cout << "[ poiseuille ] BGK tau 0.8, " << name << ": L2 errors " << ch[0].l2_error << ", " << ch[1].l2_error
            << ", " << ch[2].l2_error << "; orders " << order1 << ", " << order2 << "; u_max errors "
            << ch[0].umax_error << ", " << ch[1].umax_error << ", " << ch[2].umax_error << "\n";
  if (p == Precision::float64) {
    EXPECT_GT(ch[2].l2_error, 1e-8) << "BGK at tau 0.8 should not be exact: the test would not measure an order";
    EXPECT_NEAR(order1, 2.0, 0.1);
    EXPECT_NEAR(order2, 2.0, 0.1);
    return;
  }
  // float and fp16: the order itself is double's (checked above). Their steady states differ from double's by
  // rounding: for float about a tenth of the discretisation error at H = 32 (its order there measured 1.87 to 1.93
  // depending on how the collision's products round, FMA contraction on GPUs included), for fp16 (sigma ~8e-4
  // relative) as much as the error (7e-4), so an order from one snapshot measures the rounding, not the scheme.
  // Checked instead: at every width the profile equals the double one within the storage's rounding budget. For
  // fp16 with round to nearest in place of stochastic rounding (the stall) this fails at 3x, 8x and 17x the
  // tolerance at H = 8, 16, 32.
  for (const Channel& c : ch) {
    const Channel c64 = steady_channel(c.H, Collision::bgk, 0.8, Precision::float64);
    const double diff = profile_difference(c, c64);
    const double tolerance = (p == Precision::float16 ? test::kSigmas * c.fp16_noise : 0.0) + c.float_bound;
    std::cout << "[ poiseuille ] BGK " << name << " H " << c.H << ": ||u_" << name << " - u_double|| / ||u|| "
              << diff << " (noise sigma " << c.fp16_noise << ", float bound " << c.float_bound << ", tolerance "
              << tolerance << "); u_max error " << name << " " << c.umax_error << ", double " << c64.umax_error
              << "\n";
    EXPECT_LT(diff, tolerance) << "H " << c.H;
  }
}

TEST_P(Poiseuille, TrtMagicThreeSixteenthsIsExact) {
  // H = 16 (the double check so far) and H = 8: float and fp16 bounds grow like H^2 (1 / lambda_1), so H = 8 is
  // where they are smallest against the BGK-like error a wrong wall position would give (1.1e-2 at H = 8).
  EDDY_REQUIRE_DEVICE();
  const Precision p = GetParam();
  for (int H : {8, 16}) {
    const Channel ch = steady_channel(H, Collision::trt, 0.8, p);
    double tolerance = 1e-8;  // double: round-off
    if (p == Precision::float32) tolerance = ch.float_bound;
    if (p == Precision::float16) tolerance = test::kSigmas * ch.fp16_noise + ch.float_bound;
    std::cout << "[ poiseuille ] TRT Lambda 3/16, " << test::storage_name(p) << ", H " << H << ": L2 error "
              << ch.l2_error << ", u_max error " << ch.umax_error << " (tolerance " << tolerance << ")\n";
    EXPECT_LT(ch.l2_error, tolerance) << "H " << H;
  }
}

INSTANTIATE_TEST_SUITE_P(Storage, Poiseuille,
                         ::testing::Values(Precision::float32, Precision::float64, Precision::float16),
                         [](const auto& info) { return "storage_" + test::storage_name(info.param); });

}  // namespace
}  // namespace eddy
