// The Poiseuille channel between a parabolic velocity inlet and a pressure outlet (tests/physics/
// test_open_boundaries.cpp, and at finer resolutions under the `long` label): the run, its errors against the exact
// solution, and the convergence check.
#pragma once

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <iostream>
#include <vector>

#include "solver/simulation.hpp"
#include "tests/reference/reference_lbm.hpp"
#include "tests/test_support.hpp"

namespace eddy::test {

inline FaceBoundary face_of(FaceKind kind) {
  FaceBoundary b;
  b.kind = kind;
  return b;
}

/// Post-collision populations f_eq(rho, u) of the fields rho(k), u(k) of a case's cells (k = x + nx (y + ny z)).
template <class Field>
std::vector<double> equilibrium_state(const CaseConfig& c, Field field) {
  const std::size_t n = std::size_t(c.size[0]) * c.size[1] * c.size[2];
  std::vector<double> f(19 * n);
  for (int z = 0; z < c.size[2]; ++z)
    for (int y = 0; y < c.size[1]; ++y)
      for (int x = 0; x < c.size[0]; ++x) {
        const std::size_t k = x + std::size_t(c.size[0]) * (y + std::size_t(c.size[1]) * z);
        double rho = 1.0, u[3] = {0.0, 0.0, 0.0};
        field(x, y, z, rho, u);
        for (int i = 0; i < 19; ++i) f[i * n + k] = reference::ReferenceLbm::equilibrium(i, rho, u);
      }
  return f;
}

// ---- Poiseuille flow between a velocity inlet and a pressure outlet ----------------------------------------------

struct ChannelErrors {
  double velocity;     ///< relative L2 error of u over the whole channel against the parabola
  double pressure;     ///< relative error of the pressure drop over the middle half (least-squares slope)
  double outlet;       ///< the pressure at the outlet face (extrapolated from the last column) over the whole drop
  double mass_change;  ///< relative change of the mass over the last quarter of the run
};

/// A 2H x H x 1 channel (periodic z), walls y_min, y_max, x_min a parabolic inlet with peak U_m = 0.8 / H (diffusive
/// scaling: Re = U_m H / nu = 8 at tau = 0.8), x_max a pressure outlet at rho = 1 (p = 0). Starts from the analytic
/// incompressible state and runs 2 H^2 / nu steps (transients decay as exp(-pi^2 nu t / H^2): by 2e-9). The exact
/// solution: u = U_m 4 y (H - y) / H^2, p = G (L - x), G = 8 nu U_m / H^2 (rho0 = 1); the lattice flow differs by its
/// weak compressibility (rho u is what stays constant along x: u ~ U_m / rho, rho - 1 ~ 3 G L ~ 2 / H^2 here) and
/// by the boundaries.
inline ChannelErrors poiseuille_channel(int h) {
  const int length = 2 * h;
  CaseConfig c = box_case(length, h, 1, 0.8);
  make_periodic(c, 2);
  const double peak = 0.8 / h;
  c.faces[0] = face_of(FaceKind::velocity_inlet);
  c.faces[0].profile = InletProfile::parabolic;
  c.faces[0].speed = peak;
  c.faces[1] = face_of(FaceKind::pressure_outlet);
  c.precision = Precision::float64;
  c.velocity = peak;
  finalize_case(c);
  const double nu = c.nu, gradient = 8.0 * nu * peak / (double(h) * h);  // -dp/dx
  const auto exact_u = [&](int y) {
    const double s = y + 0.5;
    return peak * 4.0 * s * (h - s) / (double(h) * h);
  };
  auto sim = Simulation::create(c);
  sim->set_populations(equilibrium_state(c, [&](int x, int y, int, double& rho, double(&u)[3]) {
    rho = 1.0 + 3.0 * gradient * (length - (x + 0.5));  // p = c_s^2 (rho - 1), 0 at the outlet face x = L
    u[0] = exact_u(y);
  }));
  const std::int64_t steps = std::int64_t(2.0 * h * h / nu);
  sim->advance(steps * 3 / 4);
  const double mass_before = sim->diagnose().mass;
  sim->advance(steps - sim->time_step());
  const MacroscopicFields f = sim->fields();
  ChannelErrors e{};
  e.mass_change = std::abs(sim->diagnose().mass - mass_before) / mass_before;
  double error = 0.0, norm = 0.0;
  std::vector<double> column(std::size_t(length), 0.0);  // the pressure averaged across the channel
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < length; ++x) {
      const std::size_t k = std::size_t(f.index(x, y, 0));
      const double du = f.u[0][k] - exact_u(y), dv = f.u[1][k];
      error += du * du + dv * dv;
      norm += exact_u(y) * exact_u(y);
      column[std::size_t(x)] += (f.rho[k] - 1.0) / 3.0 / h;
    }
  e.velocity = std::sqrt(error / norm);
  double sx = 0.0, sp = 0.0, sxx = 0.0, sxp = 0.0;
  const int first = length / 4, count = length / 2;
  for (int x = first; x < first + count; ++x) {
    const double at = x + 0.5, p = column[std::size_t(x)];
    sx += at;
    sp += p;
    sxx += at * at;
    sxp += at * p;
  }
  const double slope = (count * sxp - sx * sp) / (count * sxx - sx * sx);
  e.pressure = std::abs(-slope - gradient) / gradient;
  e.outlet = std::abs(column.back() - 0.5 * gradient) / (gradient * length);
  return e;
}

/// Runs the channel at the three widths `sizes` (doubling) and expects the velocity error and the pressure-drop error
/// to fall at second order (observed order 2 +- 0.2), the outlet to hold p = 0 at the face and the mass to settle.
inline void expect_second_order_channel(const std::array<int, 3>& sizes) {
  ChannelErrors e[3];

  for (int r = 0; r < 3; ++r) {
    e[r] = poiseuille_channel(sizes[r]);
    std::cout << "[ channel  ] H = " << sizes[r] << ": velocity error " << e[r].velocity << ", pressure-drop error "
              << e[r].pressure << ", outlet pressure " << e[r].outlet << " of the drop, mass change over the last "
              << "quarter " << e[r].mass_change << "\n";
  }
  for (int r = 0; r < 2; ++r) {
    const double order_u = std::log2(e[r].velocity / e[r + 1].velocity);
    const double order_p = std::log2(e[r].pressure / e[r + 1].pressure);
    std::cout << "[ channel  ] observed order H = " << sizes[r] << " -> " << sizes[r + 1] << ": velocity " << order_u
              << ", pressure drop " << order_p << "\n";
    EXPECT_NEAR(order_u, 2.0, 0.2) << "velocity, H = " << sizes[r] << " -> " << sizes[r + 1];
    EXPECT_NEAR(order_p, 2.0, 0.2) << "pressure drop, H = " << sizes[r] << " -> " << sizes[r + 1];
  }
  for (const ChannelErrors& x : e) {
    EXPECT_LT(x.outlet, 1e-3) << "the outlet does not hold p = 0 at the face";
    EXPECT_LT(x.mass_change, 1e-9) << "the mass has not settled";
  }
  EXPECT_LT(e[2].velocity, 5e-3 * std::pow(32.0 / sizes[2], 2));
  EXPECT_LT(e[2].pressure, 2e-3 * std::pow(32.0 / sizes[2], 2));
}

}  // namespace eddy::test
