// Physics validation of the particle kernels (kernels/particle_motion.hpp through move_particles), lattice units:
//
// (1) Settling of one inertial sphere in fluid at rest. Stokes' law (Stokes 1851; Clift, Grace & Weber 1978,
//     chapter 3): v_t = (rho_p - rho_f) g d^2 / (18 nu rho_f), reached as v(t) = v_t (1 - exp(-t / tau_p)),
//     tau_p = rho_p d^2 / (18 nu). At Re_p = 0.004 the Schiller-Naumann correction 0.15 Re_p^0.687 is 0.34 %, so
//     the terminal velocity must match Stokes within the 3 % tolerance. At Re_p ~ 1 the drag is 15 % above Stokes
//     (Schiller & Naumann 1933): the terminal velocity must match v = tau_p g' / (1 + 0.15 (v d / nu)^0.687),
//     solved by fixed-point iteration, within 1 % (the semi-implicit step's steady state is that fixed point).
// (2) A tracer in the steady 2D Taylor-Green field u = U sin(kx) cos(ky), v = -U cos(kx) sin(ky) (Taylor & Green
//     1937) with stream function psi = (U/k) sin(kx) sin(ky), sampled at the cell centres of a 64 x 64 periodic
//     block. Tracers go round the vortex centred at (N/4, N/4) on closed streamlines: after one turn (detected by
//     the winding angle around the centre) they must be back within 1e-3 N of the start, psi along the path must
//     stay within 1e-3 of its start (relative), and the turn must take the period of the analytic field (RK4 on
//     the exact velocity) within 0.5 %. Error budget: trilinear interpolation changes the speed by
//     ~ k^2/6 = 1.6e-3 (its leading error is parallel to u for this field, so streamlines are kept); Heun's method
//     drifts by ~ (U k)^4 / 8 per step in radius (~1e-7 per turn). Explicit Euler, first order, drifts outwards by
//     ~ (U k)^2 / 2 per step (~1.5 % per turn): the last test shows that the same tolerances reject it.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <functional>
#include <iostream>
#include <vector>

#include "kernels/particle_launchers.hpp"
#include "kernels/particle_motion.hpp"
#include "solver/device_buffer.hpp"
#include "tests/test_support.hpp"

namespace eddy {
namespace {

/// A periodic block holding the whole domain, origin 0; u[a] filled from f(axis, X, Y, Z) at the cell centres of
/// the wrapped global cell (periodic ghost layer).
template <class R>
struct PeriodicField {
  BlockShape shape;
  std::vector<R> host[3];
  DeviceBuffer<R> u[3];
  PeriodicField(BlockShape s, const std::function<double(int, double, double, double)>& f) : shape(s) {
    for (int a = 0; a < 3; ++a) host[a].assign(static_cast<std::size_t>(shape.n_cells()), R(0));
    for (int z = 0; z < shape.extent(2); ++z) {
      for (int y = 0; y < shape.extent(1); ++y) {
        for (int x = 0; x < shape.extent(0); ++x) {
          const int l[3] = {x, y, z};
          double X[3];
          for (int a = 0; a < 3; ++a) X[a] = ((l[a] - 1 + shape.n[a]) % shape.n[a]) + 0.5;
          for (int a = 0; a < 3; ++a) host[a][shape.index(x, y, z)] = static_cast<R>(f(a, X[0], X[1], X[2]));
        }
      }
    }
    for (int a = 0; a < 3; ++a) {
      u[a] = DeviceBuffer<R>(host[a].size());
      u[a].upload(host[a]);
    }
  }
  VelocityFieldView<R> device_view() const { return {{u[0].data(), u[1].data(), u[2].data()}, shape, {0, 0, 0}}; }
  VelocityFieldView<R> host_view() const {
    return {{host[0].data(), host[1].data(), host[2].data()}, shape, {0, 0, 0}};
  }
};

/// Particles on the device; x, v downloaded after each step.
struct Particles {
  std::size_t n;
  std::vector<double> x[3], v[3];
  DeviceBuffer<double> dx[3], dv[3], df[3], d, rho;
  DeviceBuffer<std::int64_t> id;
  Particles(const std::vector<std::array<double, 3>>& start, double diameter, double density) : n(start.size()) {
    for (int a = 0; a < 3; ++a) {
      x[a].resize(n);
      v[a].assign(n, 0.0);
      for (std::size_t k = 0; k < n; ++k) x[a][k] = start[k][a];
      dx[a] = DeviceBuffer<double>(n);
      dv[a] = DeviceBuffer<double>(n);
      df[a] = DeviceBuffer<double>(n);
      dx[a].upload(x[a]);
      dv[a].upload(v[a]);
      df[a].upload(std::vector<double>(n, 0.0));
    }
    d = DeviceBuffer<double>(n);
    d.upload(std::vector<double>(n, diameter));
    rho = DeviceBuffer<double>(n);
    rho.upload(std::vector<double>(n, density));
    id = DeviceBuffer<std::int64_t>(n);
    std::vector<std::int64_t> ids(n);
    for (std::size_t k = 0; k < n; ++k) ids[k] = std::int64_t(k);
    id.upload(ids);
  }
  ParticleView view() const {
    return {{dx[0].data(), dx[1].data(), dx[2].data()},
            {dv[0].data(), dv[1].data(), dv[2].data()},
            d.data(),
            rho.data(),
            id.data(),
            {df[0].data(), df[1].data(), df[2].data()},
            std::int64_t(n)};
  }
  void download() {
    for (int a = 0; a < 3; ++a) {
      x[a] = dx[a].download();
      v[a] = dv[a].download();
    }
  }
};

ParticleModel periodic_model(int kind, std::array<int, 3> size, double nu, double g_z) {
  ParticleModel m{};
  m.kind = kind;
  m.wall_mode = ParticleModel::kBounce;
  m.nu = nu;
  m.two_way = false;
  for (int a = 0; a < 3; ++a) {
    m.gravity[a] = 0.0;
    m.global_size[a] = size[a];
    m.periodic[a] = true;
  }
  m.gravity[2] = g_z;
  return m;
}

// ---- (1) settling ----------------------------------------------------------------------------------------------

struct SettlingRun {
  std::vector<double> v_z;  ///< v_z after each step
};

SettlingRun settle(double d, double rho_p, double nu, double g, int steps) {
  const BlockShape shape{{16, 16, 16}};
  const PeriodicField<double> still(shape, [](int, double, double, double) { return 0.0; });
  const ParticleModel model = periodic_model(ParticleModel::kInertial, {16, 16, 16}, nu, -g);
  Particles p({{8.0, 8.0, 8.0}}, d, rho_p);
  SettlingRun run;
  for (int t = 0; t < steps; ++t) {
    move_particles(p.view(), model, still.device_view(), nullptr);
    p.download();
    run.v_z.push_back(p.v[2][0]);
  }
  return run;
}

TEST(ParticleSettling, StokesTerminalVelocityAtLowReynolds) {
  EDDY_REQUIRE_DEVICE();
  const double d = 4.0, rho_p = 2.5, nu = 0.05, g = 1.875e-6;
  const double tau_p = stokes_response_time(d, rho_p, nu);       // 44.4 steps
  const double v_t = stokes_settling_velocity(d, rho_p, nu, g);  // 5e-5
  const double Re_p = v_t * d / nu;                              // 0.004
  ASSERT_LT(Re_p, 0.005);
  ASSERT_LT(schiller_naumann(Re_p) - 1.0, 0.005);
  const int steps = int(20 * tau_p);
  const SettlingRun run = settle(d, rho_p, nu, g, steps);
  const double terminal = -run.v_z.back();
  const double error = terminal / v_t - 1.0;
  // One response time after release: v / v_t = 1 - 1/e.
  const int t1 = int(std::lround(tau_p));
  const double early = -run.v_z[t1 - 1] / terminal, early_expected = 1.0 - std::exp(-t1 / tau_p);
  std::cout << "[ settling ] Re_p = " << Re_p << ", tau_p = " << tau_p << ": terminal velocity " << terminal
            << " vs Stokes " << v_t << " (relative error " << error << "); at t = " << t1 << ": v / v_end = " << early
            << " vs 1 - exp(-t / tau_p) = " << early_expected << "\n";
  EXPECT_NEAR(error, 0.0, 0.03);
  EXPECT_NEAR(early / early_expected, 1.0, 0.03);
}

TEST(ParticleSettling, SchillerNaumannTerminalVelocityAtReynoldsOne) {
  EDDY_REQUIRE_DEVICE();
  const double d = 4.0, rho_p = 2.5, nu = 0.05, g = 5.39e-4;
  const double tau_p = stokes_response_time(d, rho_p, nu);
  const double v_stokes = stokes_settling_velocity(d, rho_p, nu, g);
  // v = tau_p g' / f_SN(v d / nu): a contraction (|d/dv| ~ 0.1 here), iterated to round-off.
  double v_sn = v_stokes;
  for (int i = 0; i < 200; ++i) v_sn = v_stokes / schiller_naumann(v_sn * d / nu);
  const double Re_p = v_sn * d / nu;
  ASSERT_GT(Re_p, 0.8);
  ASSERT_LT(Re_p, 1.2);
  const SettlingRun run = settle(d, rho_p, nu, g, int(25 * tau_p));
  const double terminal = -run.v_z.back();
  std::cout << "[ settling ] Re_p = " << Re_p << ": terminal velocity " << terminal << " vs Schiller-Naumann " << v_sn
            << " (relative error " << terminal / v_sn - 1.0 << "), Stokes " << v_stokes << "\n";
  EXPECT_NEAR(terminal / v_sn, 1.0, 0.01);
  EXPECT_GT(v_stokes / terminal - 1.0, 0.10) << "the drag correction must be applied at Re_p ~ 1";
}

// ---- (2) tracer in the Taylor-Green vortex -----------------------------------------------------------------------

constexpr int kN = 64;
constexpr double kU = 0.05;
const double kK = 2.0 * M_PI / kN;
constexpr double kCentre = kN / 4.0;  // the vortex of the cell (0, N/2)^2, counter-clockwise

double tg_velocity(int a, double x, double y) {
  if (a == 0) return kU * std::sin(kK * x) * std::cos(kK * y);
  if (a == 1) return -kU * std::cos(kK * x) * std::sin(kK * y);
  return 0.0;
}
double tg_psi(double x, double y) { return kU / kK * std::sin(kK * x) * std::sin(kK * y); }

/// Follows one tracer round the vortex centre: the winding angle, the first full turn (time and position,
/// interpolated linearly between the steps that straddle it), and the largest relative change of psi.
struct OrbitTracker {
  double start[2];
  double psi0;
  double prev[2];
  double prev_angle = 0.0;
  double winding = 0.0;
  bool done = false;
  double period = 0.0;
  double return_distance = 0.0;  ///< in units of the box side N
  double max_psi_change = 0.0;   ///< max |psi / psi0 - 1| over the turn

  OrbitTracker(double x, double y)
      : start{x, y}, psi0(tg_psi(x, y)), prev{x, y}, prev_angle(std::atan2(y - kCentre, x - kCentre)) {}

  void add(double t, double x, double y) {
    if (done) return;
    const double angle = std::atan2(y - kCentre, x - kCentre);
    double step = angle - prev_angle;
    if (step > M_PI) step -= 2.0 * M_PI;
    if (step < -M_PI) step += 2.0 * M_PI;
    const double before = winding;
    winding += step;
    if (std::abs(winding) >= 2.0 * M_PI) {
      const double alpha = (2.0 * M_PI - std::abs(before)) / (std::abs(winding) - std::abs(before));
      const double rx = prev[0] + alpha * (x - prev[0]), ry = prev[1] + alpha * (y - prev[1]);
      period = t - 1.0 + alpha;
      return_distance = std::hypot(rx - start[0], ry - start[1]) / kN;
      done = true;
    }
    max_psi_change = std::max(max_psi_change, std::abs(tg_psi(x, y) / psi0 - 1.0));
    prev[0] = x;
    prev[1] = y;
    prev_angle = angle;
  }
};

const std::vector<std::array<double, 3>> kStarts = {{{20.3, 16.9, 0.5}}, {{24.1, 17.3, 0.5}}, {{26.7, 19.2, 0.5}}};

/// Period of the analytic field's orbit through (x, y): RK4 with dt = 0.25 (error ~ (U k dt)^4 ~ 1e-12 per step).
double analytic_period(double x, double y) {
  OrbitTracker orbit(x, y);
  const double dt = 0.25;
  double p[2] = {x, y};
  for (int i = 1; !orbit.done && i < 400000; ++i) {
    const auto f = [](const double(&q)[2], double(&r)[2]) {
      r[0] = tg_velocity(0, q[0], q[1]);
      r[1] = tg_velocity(1, q[0], q[1]);
    };
    double k1[2], k2[2], k3[2], k4[2], q[2];
    f(p, k1);
    for (int a = 0; a < 2; ++a) q[a] = p[a] + 0.5 * dt * k1[a];
    f(q, k2);
    for (int a = 0; a < 2; ++a) q[a] = p[a] + 0.5 * dt * k2[a];
    f(q, k3);
    for (int a = 0; a < 2; ++a) q[a] = p[a] + dt * k3[a];
    f(q, k4);
    for (int a = 0; a < 2; ++a) p[a] += dt / 6.0 * (k1[a] + 2.0 * k2[a] + 2.0 * k3[a] + k4[a]);
    orbit.add(i, p[0], p[1]);  // time in units of dt, rescaled below
  }
  return orbit.period * dt;
}

BlockShape tg_shape() { return BlockShape{{kN, kN, 1}}; }

template <class R>
PeriodicField<R> tg_field() {
  return PeriodicField<R>(tg_shape(), [](int a, double x, double y, double) { return tg_velocity(a, x, y); });
}

/// Tracks every start through up to max_steps of `step` (which advances all positions by one time step).
std::vector<OrbitTracker> orbits(const std::function<void(std::vector<std::array<double, 3>>&)>& step,
                                 int max_steps = 10000) {
  std::vector<OrbitTracker> tracks;
  for (const auto& s : kStarts) tracks.emplace_back(s[0], s[1]);
  std::vector<std::array<double, 3>> x = kStarts;
  for (int t = 1; t <= max_steps; ++t) {
    step(x);
    bool all = true;
    for (std::size_t k = 0; k < x.size(); ++k) {
      tracks[k].add(t, x[k][0], x[k][1]);
      all = all && tracks[k].done;
    }
    if (all) break;
  }
  return tracks;
}

constexpr double kReturnTolerance = 1e-3;  // box sides
constexpr double kPsiTolerance = 1e-3;     // relative
constexpr double kPeriodTolerance = 5e-3;  // relative

template <class R>
void expect_closed_orbits(const char* name) {
  const PeriodicField<R> field = tg_field<R>();
  const ParticleModel model = periodic_model(ParticleModel::kTracer, {kN, kN, 1}, 0.1, 0.0);
  Particles p(kStarts, 1.0, 1.0);
  const auto tracks = orbits([&](std::vector<std::array<double, 3>>& x) {
    move_particles(p.view(), model, field.device_view(), nullptr);
    p.download();
    for (std::size_t k = 0; k < x.size(); ++k)
      for (int a = 0; a < 3; ++a) x[k][a] = p.x[a][k];
  });
  for (std::size_t k = 0; k < tracks.size(); ++k) {
    const auto& o = tracks[k];
    ASSERT_TRUE(o.done) << "tracer " << k << " did not complete a turn";
    const double expected = analytic_period(kStarts[k][0], kStarts[k][1]);
    std::cout << "[ taylor-green tracer ] " << name << " field, start (" << kStarts[k][0] << ", " << kStarts[k][1]
              << "): period " << o.period << " vs analytic " << expected << " (relative " << o.period / expected - 1.0
              << "), return distance " << o.return_distance << " N, max |psi/psi0 - 1| " << o.max_psi_change << "\n";
    EXPECT_LT(o.return_distance, kReturnTolerance) << "tracer " << k;
    EXPECT_LT(o.max_psi_change, kPsiTolerance) << "tracer " << k;
    EXPECT_NEAR(o.period / expected, 1.0, kPeriodTolerance) << "tracer " << k;
    EXPECT_EQ(p.x[2][k], 0.5) << "the flow is 2D: z must not change";
  }
}

TEST(ParticleTracer, TaylorGreenClosedStreamlinesDouble) {
  EDDY_REQUIRE_DEVICE();
  expect_closed_orbits<double>("double");
}

TEST(ParticleTracer, TaylorGreenClosedStreamlinesFloat) {
  EDDY_REQUIRE_DEVICE();
  expect_closed_orbits<float>("float");
}

TEST(ParticleTracer, TolerancesRejectExplicitEuler) {
  // Negative control: the same field, interpolation and tolerances with a first-order integrator,
  // x <- x + u(x) (host-side, interpolate_velocity). Every tracer must violate the psi or the return tolerance.
  const PeriodicField<double> field = tg_field<double>();
  const VelocityFieldView<double> view = field.host_view();
  const auto tracks = orbits([&](std::vector<std::array<double, 3>>& x) {
    for (auto& q : x) {
      const double pos[3] = {q[0], q[1], q[2]};
      double u[3];
      interpolate_velocity(view, pos, u);
      for (int a = 0; a < 3; ++a) q[a] += u[a];
    }
  });
  for (std::size_t k = 0; k < tracks.size(); ++k) {
    const auto& o = tracks[k];
    ASSERT_TRUE(o.done);
    std::cout << "[ taylor-green tracer ] explicit Euler, start (" << kStarts[k][0] << ", " << kStarts[k][1]
              << "): return distance " << o.return_distance << " N, max |psi/psi0 - 1| " << o.max_psi_change << "\n";
    EXPECT_TRUE(o.return_distance > kReturnTolerance || o.max_psi_change > kPsiTolerance)
        << "explicit Euler passes the tolerances: they cannot tell a first-order integrator (tracer " << k << ")";
  }
}

}  // namespace
}  // namespace eddy
