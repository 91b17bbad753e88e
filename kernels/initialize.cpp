// Initial populations of analytic initial fields (rest, Taylor-Green, turbulent channel): equilibrium plus the first-order
// non-equilibrium part of the field's velocity gradient,
//   f_i = f_eq_i(rho, u) + f_neq_i,   f_neq_i = -(w_i rho tau / c_s^2) Q_iab d_a u_b,
// (Krueger et al. 2017, eq. 3.54 for f_eq; kernels/nonequilibrium.hpp for f_neq and its sources), stored shifted
// as f_i - w_i. These are the populations that have arrived at each cell at t = 0 ("own" layout,
// kernels/streaming.hpp), i.e. the pre-collision state the first (even) step collides, so f_neq carries tau, not
// tau - 1. The rest state has no gradient: f_i = f_eq_i(1, 0).
// A start at f_eq with the divergence-free velocity is inconsistent at first order in two ways, and each launches
// sound waves that dominate the pressure error: f_neq = 0 sets the viscous stress to zero, and div u = 0 gives
// d_t rho = 0 where the weakly compressible fluid has d_t rho = (1 / c_s^2) (d_t p + u . grad p) != 0. The 2D
// Taylor-Green start corrects both (taylor_green_2d_compression); the 3D one only the stress (its d_t p at t = 0
// involves the nonlinear evolution of a flow that is not an exact solution).
// Bytes per cell: 19 * sizeof(T) written.
#include <cmath>

#include "kernels/equilibrium.hpp"
#include "kernels/nonequilibrium.hpp"
#include "kernels/storage.hpp"
#include "kernels/launchers.hpp"
#include "kernels/lattice_units.hpp"
#include "kernels/parallel_for.hpp"

namespace eddy {
namespace {

/// Adds grad(phi) and its gradient for phi = -(C / K^2) cos(m kx x) cos(n ky y), K^2 = (m kx)^2 + (n ky)^2: the
/// periodic solution of lap(phi) = C cos(m kx x) cos(n ky y). u and grad_u as in taylor_green.
EDDY_HOST_DEVICE inline void add_potential_mode(double c, int m, int n, double kx, double ky, double px, double py,
                                                double (&u)[3], double (&grad_u)[3][3]) {
  const double mk = m * kx, nk = n * ky;
  const double f = c / (mk * mk + nk * nk);
  const double sm = sin(mk * px), cm = cos(mk * px), sn = sin(nk * py), cn = cos(nk * py);
  u[0] += f * mk * sm * cn;
  u[1] += f * nk * cm * sn;
  grad_u[0][0] += f * mk * mk * cm * cn;
  grad_u[1][1] += f * nk * nk * cm * cn;
  grad_u[0][1] += -f * mk * nk * sm * sn;
  grad_u[1][0] += -f * mk * nk * sm * sn;
}

/// The compressive part of the 2D Taylor-Green start: the LBM fluid is weakly compressible, rho = 1 + p / c_s^2,
/// so continuity, d_t rho + div(rho u) = 0, ties the velocity divergence to the pressure's rate of change,
///   div u = -(1 / (rho c_s^2)) Dp/Dt = -3 (d_t p + u . grad p) + O(Ma^4),
/// with p the exact pressure (d_t p = -2 nu (kx^2 + ky^2) p). A divergence-free start (div u = 0) gives the wrong
/// d_t rho at t = 0 and launches sound waves whose pressure, relative to p, is of order nu k / c_s (the viscous
/// decay) plus U0 / c_s (advection of the density): first order in 1/N under diffusive scaling. Adding the
/// potential flow grad(phi) with lap(phi) = -3 (d_t p + u . grad p), in closed form for the Fourier modes of the
/// right-hand side, leaves waves of second order. The correction to u is at most about 1.5 nu k U0^2 + 0.4 U0^3
/// (lattice units), a relative change O(nu k, U0) ~ 1/N^2 under diffusive scaling: second order, as the velocity's
/// own error. Source: the low-Mach-number expansion of the compressible equations with
/// "well-prepared" initial data (Klainerman & Majda 1982, Comm. Pure Appl. Math. 35, 629); the right-hand side
/// worked out here for the Taylor-Green field:
///   -3 d_t p      = (3/2) nu (kx^2 + ky^2) U0^2 [cos(2 kx x) + r^2 cos(2 ky y)],   r = kx / ky,
///   -3 u . grad p = (3/4) U0^3 kx [(1 - r^2) cos(kx x) cos(ky y) - cos(3 kx x) cos(ky y) + r^2 cos(kx x) cos(3 ky y)].
EDDY_HOST_DEVICE inline void taylor_green_2d_compression(const InitialField& init, double px, double py,
                                                         double (&u)[3], double (&grad_u)[3][3]) {
  const double a = init.amplitude, kx = init.k[0], ky = init.k[1], r = kx / ky;
  const double nu = viscosity_from_tau(init.tau);  // c_s^2 (tau - 1/2)
  const double viscous = 1.5 * nu * (kx * kx + ky * ky) * a * a;
  add_potential_mode(viscous, 2, 0, kx, ky, px, py, u, grad_u);
  add_potential_mode(viscous * r * r, 0, 2, kx, ky, px, py, u, grad_u);
  const double advective = 0.75 * a * a * a * kx;
  add_potential_mode(advective * (1.0 - r * r), 1, 1, kx, ky, px, py, u, grad_u);
  add_potential_mode(-advective, 3, 1, kx, ky, px, py, u, grad_u);
  add_potential_mode(advective * r * r, 1, 3, kx, ky, px, py, u, grad_u);
}

EDDY_HOST_DEVICE inline void taylor_green(const InitialField& init, double px, double py, double pz, double& rho,
                                          double (&u)[3], double (&grad_u)[3][3]) {
  const double a = init.amplitude;
  const double sx = sin(init.k[0] * px), cx = cos(init.k[0] * px);
  const double sy = sin(init.k[1] * py), cy = cos(init.k[1] * py);
  const double ratio = init.k[0] / init.k[1];
  const double c2x = cos(2.0 * init.k[0] * px), c2y = cos(2.0 * init.k[1] * py);
  const double kx = init.k[0], ky = init.k[1], kz = init.k[2];
  for (auto& row : grad_u) row[0] = row[1] = row[2] = 0.0;
  double p;
  if (init.kind == InitialField::kTaylorGreen2d) {
    u[0] = a * sx * cy;
    u[1] = -a * ratio * cx * sy;
    p = 0.25 * a * a * (c2x + ratio * ratio * c2y);
    grad_u[0][0] = a * kx * cx * cy;           // d_x u
    grad_u[1][0] = -a * ky * sx * sy;          // d_y u
    grad_u[0][1] = a * ratio * kx * sx * sy;   // d_x v
    grad_u[1][1] = -a * ratio * ky * cx * cy;  // d_y v = -d_x u
    if (init.tau > 0.0) taylor_green_2d_compression(init, px, py, u, grad_u);
  } else {
    const double cz = cos(kz * pz), sz = sin(kz * pz), c2z = cos(2.0 * kz * pz);
    u[0] = a * sx * cy * cz;
    u[1] = -a * ratio * cx * sy * cz;
    p = a * a / 16.0 * (c2x + c2y) * (c2z + 2.0);
    grad_u[0][0] = a * kx * cx * cy * cz;           // d_x u
    grad_u[1][0] = -a * ky * sx * sy * cz;          // d_y u
    grad_u[2][0] = -a * kz * sx * cy * sz;          // d_z u
    grad_u[0][1] = a * ratio * kx * sx * sy * cz;   // d_x v
    grad_u[1][1] = -a * ratio * ky * cx * cy * cz;  // d_y v = -d_x u
    grad_u[2][1] = a * ratio * kz * cx * sy * sz;   // d_z v
  }
  u[2] = 0.0;
  rho = 1.0 + 3.0 * p;  // rho = rho0 + p / c_s^2
}

/// One term a cos(kx x + phase_x) cos(kz z + phase_z) of a channel start's vector potential (turbulent_channel).
struct ChannelMode {
  double kx, kz, amplitude, phase_x, phase_z;
};

constexpr int kChannelModesX = 3;  ///< streamwise wave numbers 1..3 times 2 pi / L_x
constexpr int kChannelModesZ = 4;  ///< spanwise wave numbers 1..4 times 2 pi / L_z

/// Mode (m, n) of potential component `component` (0: psi_x, 1: psi_z), before the common scale: amplitude
/// 1 / (1 + (kx^2 + kz^2) / (pi / H)^2), so the short modes, whose wall-normal velocity grows with k, weigh less; phases from the additive recurrences of the golden ratio and the plastic number (frac(j alpha) is spread
/// evenly over [0, 1) for irrational alpha; Weyl 1916), fixed numbers so every rank count starts alike.
EDDY_HOST_DEVICE inline ChannelMode channel_mode(const InitialField& init, int component, int m, int n) {
  ChannelMode mode;
  mode.kx = m * init.k[0];
  mode.kz = n * init.k[2];
  const double wall = 0.5 * init.k[1];  // pi / H
  mode.amplitude = 1.0 / (1.0 + (mode.kx * mode.kx + mode.kz * mode.kz) / (wall * wall));
  const double j = 1.0 + component * kChannelModesX * kChannelModesZ + (m - 1) * kChannelModesZ + (n - 1);
  const double two_pi = 6.283185307179586;
  mode.phase_x = two_pi * (0.5 + j * 0.6180339887498949 - floor(0.5 + j * 0.6180339887498949));
  mode.phase_z = two_pi * (j * 0.7548776662466927 - floor(j * 0.7548776662466927));
  return mode;
}

/// A sum P of modes of one potential component and its x, z derivatives up to second order.
struct ChannelPotential {
  double p = 0, p_x = 0, p_z = 0, p_xx = 0, p_zz = 0, p_xz = 0;
  double bound_x = 0;   ///< sum of |a| kx: bounds |P_x|
  double bound_z = 0;   ///< sum of |a| kz: bounds |P_z|
  double bound = 0;     ///< sum of |a|: bounds |P|
};

EDDY_HOST_DEVICE inline ChannelPotential channel_potential(const InitialField& init, int component, double px,
                                                           double pz) {
  ChannelPotential s;
  for (int m = 1; m <= kChannelModesX; ++m)
    for (int n = 1; n <= kChannelModesZ; ++n) {
      const ChannelMode mode = channel_mode(init, component, m, n);
      const double a = mode.amplitude;
      const double ca = cos(mode.kx * px + mode.phase_x), sa = sin(mode.kx * px + mode.phase_x);
      const double cb = cos(mode.kz * pz + mode.phase_z), sb = sin(mode.kz * pz + mode.phase_z);
      s.p += a * ca * cb;
      s.p_x += -a * mode.kx * sa * cb;
      s.p_z += -a * mode.kz * ca * sb;
      s.p_xx += -a * mode.kx * mode.kx * ca * cb;
      s.p_zz += -a * mode.kz * mode.kz * ca * cb;
      s.p_xz += a * mode.kx * mode.kz * sa * sb;
      s.bound += a;
      s.bound_x += a * mode.kx;
      s.bound_z += a * mode.kz;
    }
  return s;
}

/// Start of a turbulent plane channel: walls at y = 0 and y = H (H = 2 delta = 2 pi / k[1]), x and z periodic,
/// flow along x with bulk velocity U_b = amplitude.
///   Mean: U(y) = (11/10) U_b (1 - eta^10), eta = y / delta - 1, whose mean over the height is U_b and whose wall
///     shear 11 U_b / delta is near the turbulent one at Re_tau = 180 (u_tau^2 / nu = Re_tau u_tau / delta =
///     11.5 U_b / delta with U_b = 15.7 u_tau, Moser, Kim & Mansour 1999), so the start neither races nor stalls.
///   Perturbation: u' = curl(psi), psi = g(y) (P(x, z), 0, Q(x, z)), g = sin^2(pi y / H): g and g' vanish at the
///     walls, so u' does (no slip) and so does d_y v' (continuity at the wall). P and Q are sums of 12 modes each
///     (channel_mode) of the largest scales (streamwise vortices from P, spanwise ones from Q, whose lift-up
///     starts streaks: Landahl 1980), with
///       u' = g' Q,   v' = g (P_z - Q_x),   w' = -g' P,   div u' = 0 exactly,
///     scaled so that |u'| <= perturbation * U_b: the components' bounds (|g'| <= pi / H, |g| <= 1 times the
///     modes' amplitude sums) combine to that length. So |u| <= (1.1 + perturbation) U_b everywhere.
///   rho = 1; grad_u[a][b] = d u_b / d x_a, analytic.
EDDY_HOST_DEVICE inline void turbulent_channel(const InitialField& init, double px, double py, double pz,
                                               double& rho, double (&u)[3], double (&grad_u)[3][3]) {
  const double ub = init.amplitude, delta = 3.141592653589793 / init.k[1];  // H / 2
  const double eta = py / delta - 1.0;
  const double eta9 = eta * eta * eta * eta * eta * eta * eta * eta * eta;
  const ChannelPotential p = channel_potential(init, 0, px, pz);  // psi_x
  const ChannelPotential q = channel_potential(init, 1, px, pz);  // psi_z
  const double wall = 0.5 * init.k[1];                              // pi / H
  const double bound_u = wall * q.bound, bound_v = p.bound_z + q.bound_x, bound_w = wall * p.bound;
  const double scale =
      init.perturbation * fabs(ub) / sqrt(bound_u * bound_u + bound_v * bound_v + bound_w * bound_w);
  const double s = wall * py;
  const double g = scale * sin(s) * sin(s), g1 = scale * wall * sin(2.0 * s),
               g2 = scale * 2.0 * wall * wall * cos(2.0 * s);
  u[0] = 1.1 * ub * (1.0 - eta9 * eta) + g1 * q.p;
  u[1] = g * (p.p_z - q.p_x);
  u[2] = -g1 * p.p;
  grad_u[0][0] = g1 * q.p_x;
  grad_u[1][0] = -11.0 * ub * eta9 / delta + g2 * q.p;
  grad_u[2][0] = g1 * q.p_z;
  grad_u[0][1] = g * (p.p_xz - q.p_xx);
  grad_u[1][1] = g1 * (p.p_z - q.p_x);
  grad_u[2][1] = g * (p.p_zz - q.p_xz);
  grad_u[0][2] = -g1 * p.p_x;
  grad_u[1][2] = -g2 * p.p;
  grad_u[2][2] = -g1 * p.p_z;
  rho = 1.0;
}

EDDY_HOST_DEVICE inline void initial_state_impl(const InitialField& init, double px, double py, double pz,
                                                double& rho, double (&u)[3], double (&grad_u)[3][3]) {
  if (init.kind == InitialField::kRest) {
    rho = 1.0;
    u[0] = u[1] = u[2] = 0.0;
    for (auto& row : grad_u) row[0] = row[1] = row[2] = 0.0;
  } else if (init.kind == InitialField::kTurbulentChannel) {
    turbulent_channel(init, px, py, pz, rho, u, grad_u);
  } else {
    taylor_green(init, px, py, pz, rho, u, grad_u);
  }
}

template <class T>
struct Initialize {
  PopulationView<T> f;
  BlockShape shape;
  InitialField init;

  EDDY_HOST_DEVICE void operator()(int x, int y, int z) const {
    double rho, u[3], grad_u[3][3];
    initial_state_impl(init, init.offset[0] + x - 0.5, init.offset[1] + y - 0.5, init.offset[2] + z - 0.5, rho, u,
                       grad_u);
    const std::int64_t cell = shape.index(x, y, z);
EDDY_UNROLL
    for (int i = 0; i < d3q19::Q; ++i) {
      const double g = equilibrium<double>(i, rho, u[0], u[1], u[2]) - d3q19::w<double>(i) +
                       nonequilibrium_from_gradient<double>(i, rho, init.tau, grad_u);
      f.f[i * f.n_cells + cell] = Stored<T>::store(compute_t<T>(g));
    }
  }
};

}  // namespace

void initial_state(const InitialField& init, double px, double py, double pz, double& rho, double (&u)[3],
                   double (&grad_u)[3][3]) {
  initial_state_impl(init, px, py, pz, rho, u, grad_u);
}

template <class T>
void initialize_populations(const PopulationView<T>& f, const BlockShape& shape, const InitialField& init) {
  parallel_for(shape.whole(), Initialize<T>{f, shape, init}, "initialize_populations");
}

template void initialize_populations<float>(const PopulationView<float>&, const BlockShape&, const InitialField&);
template void initialize_populations<double>(const PopulationView<double>&, const BlockShape&, const InitialField&);
template void initialize_populations<half_t>(const PopulationView<half_t>&, const BlockShape&, const InitialField&);

}  // namespace eddy
