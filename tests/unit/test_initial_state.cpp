// The initial populations: the first-order non-equilibrium part (kernels/nonequilibrium.hpp) carries no mass and
// no momentum and has the viscous stress of the gradient as its second moment; the analytic Taylor-Green gradient
// matches finite differences of the analytic velocity; and the populations initialize_populations stores have the
// analytic rho, u and the stress -rho c_s^2 tau (d_a u_b + d_b u_a).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <random>
#include <vector>

#include "kernels/equilibrium.hpp"
#include "kernels/launchers.hpp"
#include "kernels/nonequilibrium.hpp"
#include "solver/decomposition.hpp"
#include "solver/device_buffer.hpp"
#include "solver/lattice_setup.hpp"
#include "tests/test_support.hpp"

namespace eddy {
namespace {

using d3q19::c;
using d3q19::Q;

TEST(NonEquilibrium, NoMassNoMomentumAndTheViscousStress) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  const double rho = 1.03, tau = 0.83, cs2 = 1.0 / 3.0;
  double grad[3][3];  // any gradient, also with a divergence
  for (auto& row : grad)
    for (double& g : row) g = 1e-3 * unit(rng);
  double m0 = 0, m1[3] = {0, 0, 0}, m2[3][3] = {};
  for (int i = 0; i < Q; ++i) {
    const double f = nonequilibrium_from_gradient<double>(i, rho, tau, grad);
    EXPECT_EQ(f, nonequilibrium_from_gradient<double>(d3q19::opp(i), rho, tau, grad)) << "even in c_i, i = " << i;
    m0 += f;
    for (int a = 0; a < 3; ++a) {
      m1[a] += f * c(i, a);
      for (int b = 0; b < 3; ++b) m2[a][b] += f * c(i, a) * c(i, b);
    }
  }
  EXPECT_NEAR(m0, 0.0, 1e-18);
  for (int a = 0; a < 3; ++a) {
    EXPECT_NEAR(m1[a], 0.0, 1e-18);
    for (int b = 0; b < 3; ++b)
      EXPECT_NEAR(m2[a][b], -rho * cs2 * tau * (grad[a][b] + grad[b][a]), 1e-17) << a << "," << b;
  }
}

InitialField taylor_green_field(InitialField::Kind kind) {
  InitialField init{};
  init.kind = kind;
  init.amplitude = 0.03;
  init.k[0] = 2 * M_PI / 24;  // unequal wave numbers: the (kx / ky) factors of v count
  init.k[1] = 2 * M_PI / 16;
  init.k[2] = 2 * M_PI / 20;
  init.tau = 0.7;
  return init;
}

/// Checks initial_state's analytic gradient at p0 against central differences of its velocity (step 1e-5: error
/// ~ h^2 |d^3 u| ~ 1e-12 for these fields, round-off ~ 1e-16 |u| / h) and returns the gradient.
void expect_gradient_matches_differences(const InitialField& init, const double (&p0)[3], double (&grad)[3][3]) {
  const double h = 1e-5;
  double rho, u[3];
  initial_state(init, p0[0], p0[1], p0[2], rho, u, grad);
  for (int a = 0; a < 3; ++a) {
    double lo[3] = {p0[0], p0[1], p0[2]}, hi[3] = {p0[0], p0[1], p0[2]};
    lo[a] -= h;
    hi[a] += h;
    double r, u_lo[3], u_hi[3], g[3][3];
    initial_state(init, lo[0], lo[1], lo[2], r, u_lo, g);
    initial_state(init, hi[0], hi[1], hi[2], r, u_hi, g);
    for (int b = 0; b < 3; ++b)
      EXPECT_NEAR(grad[a][b], (u_hi[b] - u_lo[b]) / (2 * h), 1e-10)
          << "kind " << init.kind << " at (" << p0[0] << ", " << p0[1] << ", " << p0[2] << "): d_" << a << " u_" << b;
  }
}

TEST(InitialState, TaylorGreenGradientMatchesFiniteDifferences) {
  for (const auto kind : {InitialField::kTaylorGreen2d, InitialField::kTaylorGreen3d}) {
    const InitialField init = taylor_green_field(kind);
    double grad[3][3];
    expect_gradient_matches_differences(init, {3.3, 7.1, 2.6}, grad);
    if (kind == InitialField::kTaylorGreen3d)  // the 2D start has a compressive part (next test)
      EXPECT_NEAR(grad[0][0] + grad[1][1] + grad[2][2], 0.0, 1e-17) << "divergence-free";
  }
  InitialField rest{};
  double rho, u[3], grad[3][3];
  initial_state(rest, 1.5, 2.5, 3.5, rho, u, grad);
  for (auto& row : grad)
    for (double g : row) EXPECT_EQ(g, 0.0);
}

/// The 2D start is the Taylor-Green field plus a potential flow (kernels/initialize.cpp): its curl is that of the
/// Taylor-Green field, and its divergence is the weakly compressible value -3 (d_t p + u . grad p) with
/// d_t p = -2 nu (kx^2 + ky^2) p, nu = (tau - 1/2) / 3, checked by central differences of initial_state.
TEST(InitialState, TaylorGreen2dDivergenceFollowsThePressure) {
  const InitialField init = taylor_green_field(InitialField::kTaylorGreen2d);
  const double a = init.amplitude, kx = init.k[0], ky = init.k[1], r = kx / ky;
  const double nu = (init.tau - 0.5) / 3.0, h = 1e-4;
  double largest = 0.0;
  for (const double px : {0.5, 3.3, 11.9})
    for (const double py : {1.5, 7.1, 14.2}) {
      double u_hx[3], u_lx[3], u_hy[3], u_ly[3], u_c[3], rho, g[3][3];
      initial_state(init, px + h, py, 0.5, rho, u_hx, g);
      initial_state(init, px - h, py, 0.5, rho, u_lx, g);
      initial_state(init, px, py + h, 0.5, rho, u_hy, g);
      initial_state(init, px, py - h, 0.5, rho, u_ly, g);
      initial_state(init, px, py, 0.5, rho, u_c, g);
      const double div = (u_hx[0] - u_lx[0]) / (2 * h) + (u_hy[1] - u_ly[1]) / (2 * h);
      const double curl = (u_hx[1] - u_lx[1]) / (2 * h) - (u_hy[0] - u_ly[0]) / (2 * h);
      const double p = (rho - 1.0) / 3.0;
      const double tg[2] = {a * std::sin(kx * px) * std::cos(ky * py), -a * r * std::cos(kx * px) * std::sin(ky * py)};
      const double grad_p[2] = {-0.5 * a * a * kx * std::sin(2 * kx * px), -0.5 * a * a * r * r * ky * std::sin(2 * ky * py)};
      const double dt_p = -2.0 * nu * (kx * kx + ky * ky) * p;
      const double expected_div = -3.0 * (dt_p + tg[0] * grad_p[0] + tg[1] * grad_p[1]);
      const double tg_curl = a * (r * kx + ky) * std::sin(kx * px) * std::sin(ky * py);  // d_x v - d_y u
      // Differences of size a k^3 h^2 ~ 1e-12 and round-off ~ 1e-16 a / h ~ 1e-14; the divergence is ~ 1e-7.
      EXPECT_NEAR(div, expected_div, 1e-11) << px << ", " << py;
      largest = std::max(largest, std::abs(expected_div));
      EXPECT_NEAR(curl, tg_curl, 1e-11) << px << ", " << py;
    }
  EXPECT_GT(largest, 1e-7) << "the start must be compressive somewhere";
}

/// A channel start on a small box: L_x = 48, H = 2 delta = 32, L_z = 24 (lattice units), U_b = 0.06.
InitialField channel_field(double perturbation) {
  InitialField init{};
  init.kind = InitialField::kTurbulentChannel;
  init.amplitude = 0.06;
  init.perturbation = perturbation;
  init.k[0] = 2 * M_PI / 48;
  init.k[1] = 2 * M_PI / 32;
  init.k[2] = 2 * M_PI / 24;
  init.tau = 0.51;
  return init;
}

TEST(InitialState, TurbulentChannelGradientMatchesFiniteDifferencesAndIsDivergenceFree) {
  const InitialField init = channel_field(0.5);
  for (const double px : {0.5, 13.7, 40.2})
    for (const double py : {0.5, 3.1, 16.0, 29.9})
      for (const double pz : {2.5, 17.3}) {
        double rho, u[3], grad[3][3];
        initial_state(init, px, py, pz, rho, u, grad);
        EXPECT_EQ(rho, 1.0);
        expect_gradient_matches_differences(init, {px, py, pz}, grad);
        EXPECT_NEAR(grad[0][0] + grad[1][1] + grad[2][2], 0.0, 1e-17) << "divergence-free";
      }
}

/// At the walls (y = 0 and H) the velocity is zero (no slip), and so are its derivatives along the wall and d_y v
/// (continuity); the mean shear d_y u is +-11 U_b / delta there, plus the perturbation's own.
TEST(InitialState, TurbulentChannelVanishesAtTheWalls) {
  const InitialField init = channel_field(1.0);
  const double delta = 16.0;
  for (const double py : {0.0, 32.0})
    for (const double px : {1.5, 30.5})
      for (const double pz : {0.5, 11.0}) {
        double rho, u[3], grad[3][3];
        initial_state(init, px, py, pz, rho, u, grad);
        for (int a = 0; a < 3; ++a) {
          EXPECT_NEAR(u[a], 0.0, 1e-17) << "y = " << py << ", u_" << a;
          EXPECT_NEAR(grad[0][a], 0.0, 1e-17) << "y = " << py << ", d_x u_" << a;
          EXPECT_NEAR(grad[2][a], 0.0, 1e-17) << "y = " << py << ", d_z u_" << a;
        }
        EXPECT_NEAR(grad[1][1], 0.0, 1e-17) << "y = " << py << ", d_y v";
        EXPECT_GT(grad[1][0] * (py == 0.0 ? 1.0 : -1.0), 0.5 * 11.0 * init.amplitude / delta)
            << "y = " << py << ": the mean shear, perturbed by less than half";
      }
}

/// On the nodes of whole periods the modes average out over each x-z plane: the plane means are the mean profile
/// U(y) = (11/10) U_b (1 - eta^10) and no cross flow; the height average of U is U_b up to the midpoint rule's
/// error -(h^2 / 48) (U'(1) - U'(-1)) = +0.458 h^2 U_b (eta units, h = 1 / delta); the perturbation's speed
/// |u'| stays within perturbation * U_b and reaches a good part of it.
TEST(InitialState, TurbulentChannelHasTheMeanProfileAndABoundedPerturbation) {
  const double perturbation = 0.4;
  const InitialField init = channel_field(perturbation);
  const double ub = init.amplitude, delta = 16.0;
  double largest = 0.0, square[3] = {0, 0, 0}, bulk = 0.0;
  for (int y = 0; y < 32; ++y) {
    const double py = y + 0.5, eta = py / delta - 1.0;
    const double mean = 1.1 * ub * (1.0 - std::pow(eta, 10));
    double sum[3] = {0, 0, 0};
    for (int z = 0; z < 24; ++z)
      for (int x = 0; x < 48; ++x) {
        double rho, u[3], grad[3][3];
        initial_state(init, x + 0.5, py, z + 0.5, rho, u, grad);
        double speed = 0.0;
        for (int a = 0; a < 3; ++a) {
          sum[a] += u[a];
          const double fluctuation = u[a] - (a == 0 ? mean : 0.0);
          speed += fluctuation * fluctuation;
          square[a] += fluctuation * fluctuation;
        }
        largest = std::max(largest, std::sqrt(speed));
      }
    EXPECT_NEAR(sum[0] / (48 * 24), mean, 1e-15) << "y = " << py;
    EXPECT_NEAR(sum[1] / (48 * 24), 0.0, 1e-15) << "y = " << py;
    EXPECT_NEAR(sum[2] / (48 * 24), 0.0, 1e-15) << "y = " << py;
    bulk += mean / 32;
  }
  EXPECT_NEAR(bulk / ub, 1.0 + 0.458 / (delta * delta), 2e-4) << "the midpoint rule's error of the profile's mean";
  EXPECT_LE(largest, perturbation * ub);
  EXPECT_GT(largest, 0.3 * perturbation * ub);
  std::cout << "[ channel start ] max |u'| " << largest / ub << " U_b; rms of u', v', w' (U_b):";
  for (int a = 0; a < 3; ++a) std::cout << " " << std::sqrt(square[a] / (48 * 32 * 24)) / ub;
  std::cout << "\n";
}

/// The stored populations of a 3D Taylor-Green start (double) against f_eq + f_neq's moments: rho and u of the
/// analytic field, Pi - Pi_eq = -rho c_s^2 tau (d_a u_b + d_b u_a) at every interior cell.
TEST(InitialState, StoredPopulationsHaveTheAnalyticStress) {
  const CaseConfig cfg = test::periodic_taylor_green_3d(12, 10, 8, 0.9, 0.04);
  const Decomposition d = serial_decomposition(cfg);
  const BlockShape s = block_shape(d);
  const InitialField init = initial_field(cfg, d);
  ASSERT_EQ(init.tau, 0.9);
  DeviceBuffer<double> buffer(std::size_t(Q) * std::size_t(s.n_cells()));
  initialize_populations(PopulationView<double>{buffer.data(), s.n_cells()}, s, init);
  backend::synchronize();
  const std::vector<double> g = buffer.download();
  const double cs2 = 1.0 / 3.0;
  double worst = 0.0, scale = 0.0;
  for (int z = 1; z <= s.n[2]; ++z)
    for (int y = 1; y <= s.n[1]; ++y)
      for (int x = 1; x <= s.n[0]; ++x) {
        double rho_exact, u_exact[3], grad[3][3];
        initial_state(init, x - 0.5, y - 0.5, z - 0.5, rho_exact, u_exact, grad);
        const std::int64_t cell = s.index(x, y, z);
        double rho = 0, j[3] = {0, 0, 0}, pi[3][3] = {};
        for (int i = 0; i < Q; ++i) {
          const double f = g[std::size_t(i * s.n_cells() + cell)] + d3q19::w<double>(i);
          rho += f;
          for (int a = 0; a < 3; ++a) {
            j[a] += f * c(i, a);
            for (int b = 0; b < 3; ++b) pi[a][b] += f * c(i, a) * c(i, b);
          }
        }
        EXPECT_NEAR(rho, rho_exact, 1e-15);
        for (int a = 0; a < 3; ++a) {
          EXPECT_NEAR(j[a] / rho, u_exact[a], 1e-15);
          for (int b = 0; b < 3; ++b) {
            const double pi_eq = rho * u_exact[a] * u_exact[b] + (a == b ? rho * cs2 : 0.0);
            const double expected = -rho * cs2 * init.tau * (grad[a][b] + grad[b][a]);
            worst = std::max(worst, std::abs(pi[a][b] - pi_eq - expected));
            scale = std::max(scale, std::abs(expected));
          }
        }
      }
  EXPECT_GT(scale, 1e-3) << "the field must have a stress to test";
  EXPECT_LT(worst, 1e-15);
}

}  // namespace
}  // namespace eddy
