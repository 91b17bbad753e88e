// Per-particle physics of Lagrangian point particles: pure EDDY_HOST_DEVICE functions (testable on the host), used
// by the launchers in kernels/particle_motion.cpp. Lattice units throughout: dx = dt = 1, fluid density rho_f = 1,
// dynamic viscosity mu = rho_f nu = nu. Positions are global lattice coordinates (kernels/particles.hpp).
//
// Interpolation (trilinear: the bilinear rule of Press et al. 2007, Numerical Recipes, 3rd ed., section 3.6,
// extended to three axes): the fluid velocity is known at cell centres X_i = i + 1/2. With g = x - 1/2, i = floor(g)
// and s = g - i on each axis,
//   u(x) = sum over the 8 corners (i + b), b in {0,1}^3, of  prod_a w_a(b_a) * u[i + b],  w_a(0) = 1 - s_a,
//          w_a(1) = s_a.
// Determinism: s and i are computed from the global coordinate only; the integer i is then shifted to block-local
// indices. The weights therefore have the same bits on every rank and block decomposition, so runs on 1 and N
// ranks are bitwise identical (the ghost layer holds the neighbour's values).
//
// Tracers (Heun's method, the explicit trapezoidal rule, 2nd order; Heun 1900, Z. Math. Phys. 45, 23; Hairer,
// Norsett & Wanner 1993, Solving Ordinary Differential Equations I, section II.1):
//   x* = x + dt u(x),  x_new = x + dt (u(x) + u(x*)) / 2,  v = (u(x) + u(x*)) / 2.
//
// Inertial spheres (Maxey & Riley 1983, Phys. Fluids 26, 883, keeping drag, gravity and buoyancy only):
//   dv/dt = (u - v) / tau' + g (1 - rho_f / rho_p) + F / m,
//   tau_p = rho_p d^2 / (18 nu rho_f)                              Stokes response time (Stokes 1851, Trans.
//                                                                  Camb. Phil. Soc. 9, 8),
//   Re_p  = |u - v| d / nu                                         particle Reynolds number,
//   f_SN  = 1 + 0.15 Re_p^0.687                                    Schiller & Naumann 1933, Z. Ver. Dtsch. Ing.
//                                                                  77, 318 (Clift, Grace & Weber 1978, Bubbles,
//                                                                  Drops and Particles, chapter 5; Re_p < 800),
//   tau'  = tau_p / f_SN,  m = rho_p pi d^3 / 6.
// Semi-implicit Euler (drag implicit, Re_p and f_SN from the old velocity, unconditionally stable for any tau'):
//   v_new = (v + dt (u / tau' + a_ext)) / (1 + dt / tau'),  x_new = x + dt v_new,  a_ext = g (1 - 1/rho_p) + F/m.
// Its steady state is exactly the terminal velocity v_t = tau' a_ext (Stokes' law v_t = (rho_p - rho_f) g d^2 /
// (18 nu rho_f) when f_SN = 1). Drag on the particle F_drag = m (u - v_new) / tau', so m (v_new - v) = dt (F_drag +
// m a_ext) to round-off; with two-way coupling -F_drag is spread on the fluid with the interpolation weights, in
// 64-bit fixed point (ForceDepositView, 2^-48 resolution), so the deposit is independent of the order of the adds.
//
// Walls (non-periodic axes, at 0 and n): a sphere whose surface crosses a wall (x - d/2 < 0 or x + d/2 > n) is
// mirrored about the contact plane x = d/2 (x = n - d/2) with its normal velocity reversed (bounce), or placed
// touching the wall with v = 0 (stick; a particle touching a wall does not move again). Periodic axes wrap x into
// [0, n) from the global coordinate alone.
//
// Memory traffic per particle and step: 11 doubles read (x, v, d, rho_p, F) and 6 written (x, v) = 136 B; the
// field: 8 cells x 3 components x sizeof(R) (inertial) or 16 x 3 x sizeof(R) (tracers, two interpolations); two-way
// deposit: 24 atomic 8-byte adds.
#pragma once

#include <cmath>
#include <cstdint>

#include "kernels/backend.hpp"
#include "kernels/block.hpp"
#include "kernels/particles.hpp"

namespace eddy {

inline constexpr double kParticlePi = 3.14159265358979323846;

// ---- interpolation stencil ---------------------------------------------------------------------------------------

/// The 8 cells and weights of trilinear interpolation at one position, in a given block (kernels/block.hpp).
/// Corner k in [0, 8): bit a of k picks the upper cell layer (hi) on axis a, else the lower (lo).
struct TrilinearStencil {
  int lo[3];       ///< block-local index of the lower cell layer per axis, clamped into [0, n + 1]
  int hi[3];       ///< block-local index of the upper layer (lo + 1 before clamping), clamped into [0, n + 1]
  double w_lo[3];  ///< weight of the lower layer, 1 - s (s = fractional offset from the lower cell centre)
  double w_hi[3];  ///< weight of the upper layer, s

  EDDY_HOST_DEVICE int corner(int k, int axis) const { return ((k >> axis) & 1) ? hi[axis] : lo[axis]; }
  /// Weight of corner k, (w_x w_y) w_z in this fixed order (the same bits on every rank).
  EDDY_HOST_DEVICE double weight(int k) const {
    const double wx = (k & 1) ? w_hi[0] : w_lo[0];
    const double wy = (k & 2) ? w_hi[1] : w_lo[1];
    const double wz = (k & 4) ? w_hi[2] : w_lo[2];
    return (wx * wy) * wz;
  }
};

/// Trilinear stencil of global position x (lattice units) in the block of `shape` whose local cell (1, 1, 1) is
/// global cell `origin`. Per axis: g = x - 1/2, i = floor(g), s = g - i (exact for g >= 0), computed in global
/// coordinates; only the integer i is shifted to the local index i - origin + 1. Indices are clamped into the
/// block, ghost layer included ([0, n + 1]); a non-finite x gives clamped indices (NaN weights for NaN x).
EDDY_HOST_DEVICE inline TrilinearStencil trilinear_stencil(const double (&x)[3], const BlockShape& shape,
                                                           const int (&origin)[3]) {
  TrilinearStencil s;
  for (int a = 0; a < 3; ++a) {
    const double g = x[a] - 0.5;
    double i = floor(g);
    const double frac = g - i;
    i = fmin(fmax(i, -1.0e9), 1.0e9);  // keeps the conversion defined (also for NaN and inf)
    const long long local = static_cast<long long>(i) - origin[a] + 1;
    const long long top = shape.n[a] + 1;
    const long long lo = local < 0 ? 0 : (local > top ? top : local);
    const long long hi = local + 1 < 0 ? 0 : (local + 1 > top ? top : local + 1);
    s.lo[a] = static_cast<int>(lo);
    s.hi[a] = static_cast<int>(hi);
    s.w_lo[a] = 1.0 - frac;
    s.w_hi[a] = frac;
  }
  return s;
}

/// Fluid velocity u (lattice units) interpolated with stencil `s` (built for field.shape and field.origin).
/// Sums the 8 corners in the order k = 0..7; at a cell centre it returns the cell's value exactly.
template <class R>
EDDY_HOST_DEVICE inline void interpolate(const VelocityFieldView<R>& field, const TrilinearStencil& s, double (&u)[3]) {
  u[0] = u[1] = u[2] = 0.0;
  for (int k = 0; k < 8; ++k) {
    const std::int64_t cell = field.shape.index(s.corner(k, 0), s.corner(k, 1), s.corner(k, 2));
    const double w = s.weight(k);
    for (int a = 0; a < 3; ++a) u[a] += w * static_cast<double>(field.u[a][cell]);
  }
}

/// Fluid velocity u (lattice units) at global position x, trilinear in the cell-centred field.
template <class R>
EDDY_HOST_DEVICE inline void interpolate_velocity(const VelocityFieldView<R>& field, const double (&x)[3],
                                                  double (&u)[3]) {
  interpolate(field, trilinear_stencil(x, field.shape, field.origin), u);
}

// ---- fixed-point deposit -----------------------------------------------------------------------------------------

/// value * 2^kFractionBits (ForceDepositView) rounded to the nearest integer (ties to even, rint in the default
/// rounding mode), as the two's-complement bits of an int64. NaN gives 0; magnitudes beyond 2^62 (value beyond
/// 2^(62 - kFractionBits)) saturate.
EDDY_HOST_DEVICE inline unsigned long long to_fixed(double value) {
  double scaled = value * ForceDepositView::kScale;  // exact scaling by a power of two
  if (!(scaled == scaled)) scaled = 0.0;
  const double limit = 4611686018427387904.0;  // 2^62
  scaled = fmin(fmax(scaled, -limit), limit);
  return static_cast<unsigned long long>(static_cast<long long>(rint(scaled)));
}

/// The value of a fixed-point sum: int64(fixed) * 2^-kFractionBits.
EDDY_HOST_DEVICE inline double from_fixed(unsigned long long fixed) {
  return static_cast<double>(static_cast<long long>(fixed)) * (1.0 / ForceDepositView::kScale);
}

/// Adds force f (lattice units) to the fixed-point deposit, spread over the 8 cells of stencil `s` (built for
/// deposit.shape and deposit.origin) with the interpolation weights: cell k receives to_fixed(w_k f). The total
/// deposited equals f within 8 * 2^-(kFractionBits + 1) per component (plus the round-off of the weights, ~1e-16 |f|).
EDDY_HOST_DEVICE inline void deposit_force(const ForceDepositView& deposit, const TrilinearStencil& s,
                                           const double (&f)[3]) {
  for (int k = 0; k < 8; ++k) {
    const double w = s.weight(k);
    if (w == 0.0) continue;
    const std::int64_t cell = deposit.shape.index(s.corner(k, 0), s.corner(k, 1), s.corner(k, 2));
    for (int a = 0; a < 3; ++a) atomic_add(deposit.fixed[a] + cell, to_fixed(w * f[a]));
  }
}

// ---- particle properties -----------------------------------------------------------------------------------------

/// Stokes response time tau_p = rho_p d^2 / (18 nu) (lattice time steps) of a sphere of diameter d (cells) and
/// density rho_p (relative to rho_f = 1) in fluid of kinematic viscosity nu (Stokes 1851; Clift, Grace & Weber
/// 1978, chapter 3; Maxey & Riley 1983).
EDDY_HOST_DEVICE inline double stokes_response_time(double d, double rho_p, double nu) {
  return rho_p * d * d / (18.0 * nu);
}

/// Mass m = rho_p pi d^3 / 6 (lattice units, rho_f = 1) of a sphere of diameter d.
EDDY_HOST_DEVICE inline double particle_mass(double d, double rho_p) { return rho_p * kParticlePi * d * d * d / 6.0; }

/// Schiller-Naumann drag correction f_SN = C_D Re_p / 24 = 1 + 0.15 Re_p^0.687 (Schiller & Naumann 1933; Clift,
/// Grace & Weber 1978, chapter 5), Re_p = |u - v| d / nu >= 0. Within ~5 % of the standard drag curve for
/// Re_p < 800; 1 at Re_p = 0 (Stokes drag).
EDDY_HOST_DEVICE inline double schiller_naumann(double Re_p) { return 1.0 + 0.15 * pow(Re_p, 0.687); }

/// Stokes' law for the terminal settling velocity of a sphere at low Re_p (lattice units, vector along g):
/// v_t = (rho_p - rho_f) g d^2 / (18 nu rho_f) = tau_p (1 - 1/rho_p) g, rho_f = 1 (Stokes 1851; Clift, Grace &
/// Weber 1978, chapter 3).
EDDY_HOST_DEVICE inline double stokes_settling_velocity(double d, double rho_p, double nu, double g) {
  return (rho_p - 1.0) * g * d * d / (18.0 * nu);
}

// ---- time integration (dt = 1) -------------------------------------------------------------------------------------

/// One Heun step of a tracer (dt = 1): x* = x + u(x), x <- x + (u(x) + u(x*)) / 2, v <- (u(x) + u(x*)) / 2.
/// x: global position (cells), v: velocity (lattice units). The predictor x* may leave the block by up to |u|;
/// the ghost layer covers it for |u| < 1/2 (beyond that, indices are clamped).
template <class R>
EDDY_HOST_DEVICE inline void tracer_step(const VelocityFieldView<R>& field, double (&x)[3], double (&v)[3]) {
  double u0[3], u1[3], xp[3];
  interpolate_velocity(field, x, u0);
  for (int a = 0; a < 3; ++a) xp[a] = x[a] + u0[a];
  interpolate_velocity(field, xp, u1);
  for (int a = 0; a < 3; ++a) {
    v[a] = 0.5 * (u0[a] + u1[a]);
    x[a] += v[a];
  }
}

/// One semi-implicit Euler step (dt = 1) of an inertial sphere (see the file comment):
///   u: fluid velocity at the particle (lattice units); d: diameter (cells); rho_p: density / rho_f; nu: fluid
///   viscosity; gravity: g (lattice units); force: external force F on the particle (contacts; lattice units);
///   x, v: position and velocity, updated; f_drag: the drag force on the particle over the step,
///   F_drag = m (u - v_new) / tau', so that m (v_new - v) = F_drag + m a_ext to round-off.
/// Re_p and f_SN use the old velocity. Written as v_new = (tau' (v + a_ext) + u) / (tau' + 1), the same value
/// multiplied through by tau' (no 1/tau' overflow for tiny particles). Requires d > 0, rho_p > 0, nu > 0.
EDDY_HOST_DEVICE inline void inertial_step(const double (&u)[3], double d, double rho_p, double nu,
                                           const double (&gravity)[3], const double (&force)[3], double (&x)[3],
                                           double (&v)[3], double (&f_drag)[3]) {
  const double tau_p = stokes_response_time(d, rho_p, nu);
  const double du[3] = {u[0] - v[0], u[1] - v[1], u[2] - v[2]};
  const double Re_p = sqrt(du[0] * du[0] + du[1] * du[1] + du[2] * du[2]) * d / nu;
  const double tau = tau_p / schiller_naumann(Re_p);  // tau'
  const double m = particle_mass(d, rho_p);
  const double buoyancy = 1.0 - 1.0 / rho_p;  // g' = (1 - rho_f / rho_p) g
  for (int a = 0; a < 3; ++a) {
    const double a_ext = buoyancy * gravity[a] + force[a] / m;
    const double v_new = (tau * (v[a] + a_ext) + u[a]) / (tau + 1.0);
    f_drag[a] = m * (u[a] - v_new) / tau;
    v[a] = v_new;
    x[a] += v_new;
  }
}

// ---- walls and periodic wrap -----------------------------------------------------------------------------------

/// True when a sphere of diameter d at x touches or crosses a wall of a non-periodic axis
/// (x - d/2 <= 0 or x >= n - d/2, the latter computed exactly as apply_walls places a stuck particle).
EDDY_HOST_DEVICE inline bool touches_wall(const ParticleModel& model, double d, const double (&x)[3]) {
  for (int a = 0; a < 3; ++a) {
    if (model.periodic[a]) continue;
    const double lo = 0.5 * d, hi = static_cast<double>(model.global_size[a]) - 0.5 * d;
    if (x[a] <= lo || x[a] >= hi) return true;
  }
  return false;
}

/// Walls at 0 and n on each non-periodic axis, for a sphere of diameter d (cells) at x with velocity v:
///   kBounce: x - d/2 < 0 -> x = d - x (mirrored about the contact plane d/2), v_a = -v_a; likewise at n - d/2;
///            a mirror that overshoots the opposite contact plane (step longer than the gap) is clamped to it;
///   kStick:  the particle is placed touching the wall (x = d/2 or n - d/2) and v = 0 (all components).
/// A sphere wider than the domain (d > n) sits at n/2 with v_a = 0.
EDDY_HOST_DEVICE inline void apply_walls(const ParticleModel& model, double d, double (&x)[3], double (&v)[3]) {
  for (int a = 0; a < 3; ++a) {
    if (model.periodic[a]) continue;
    const double n = static_cast<double>(model.global_size[a]);
    const double lo = 0.5 * d, hi = n - 0.5 * d;
    if (lo > hi) {
      x[a] = 0.5 * n;
      v[a] = 0.0;
      continue;
    }
    const bool below = x[a]<lo, above = x[a]> hi;
    if (!below && !above) continue;
    if (model.wall_mode == ParticleModel::kStick) {
      x[a] = below ? lo : hi;
      v[0] = v[1] = v[2] = 0.0;
    } else {
      x[a] = below ? 2.0 * lo - x[a] : 2.0 * hi - x[a];
      x[a] = fmin(fmax(x[a], lo), hi);
      v[a] = -v[a];
    }
  }
}

/// x wrapped into [0, L) (L = cells along a periodic axis): unchanged when already inside, else fmod (exact) and
/// one shift; -0 becomes +0. Uses the global coordinate only, so every rank gets the same bits.
EDDY_HOST_DEVICE inline double wrap_periodic_coordinate(double x, double L) {
  if (x >= 0.0 && x < L) return x + 0.0;  // + 0.0: -0 becomes +0
  x = fmod(x, L);
  if (x < 0.0) x += L;
  if (x >= L) x -= L;  // x + L rounded up to L (x a tiny negative number)
  return x + 0.0;
}

/// Wraps the periodic axes of x into [0, n).
EDDY_HOST_DEVICE inline void wrap_periodic(const ParticleModel& model, double (&x)[3]) {
  for (int a = 0; a < 3; ++a) {
    if (model.periodic[a]) x[a] = wrap_periodic_coordinate(x[a], static_cast<double>(model.global_size[a]));
  }
}

// ---- one particle, one step --------------------------------------------------------------------------------------

/// The whole step of particle k of `p` (what move_particles runs for each particle):
///  1. kStick: a particle touching a wall keeps v = 0 and does not move (no drag, no deposit);
///  2. kTracer: tracer_step; kInertial: interpolate u at x, inertial_step with p.force (zero when p.force[0] is
///     null), and with `deposit_drag` the reaction -F_drag added to `deposit` with the weights at the old x;
///  3. apply_walls, then wrap_periodic.
/// `deposit` must have the block of `field` (same shape and origin) when deposit_drag is set.
template <class R>
EDDY_HOST_DEVICE inline void move_particle(const ParticleView& p, std::int64_t k, const ParticleModel& model,
                                           const VelocityFieldView<R>& field, const ForceDepositView& deposit,
                                           bool deposit_drag) {
  double x[3] = {p.x[0][k], p.x[1][k], p.x[2][k]};
  double v[3] = {p.v[0][k], p.v[1][k], p.v[2][k]};
  const double d = p.diameter[k];
  if (model.wall_mode == ParticleModel::kStick && touches_wall(model, d, x)) {
    p.v[0][k] = p.v[1][k] = p.v[2][k] = 0.0;
    return;
  }
  if (model.kind == ParticleModel::kTracer) {
    tracer_step(field, x, v);
  } else {
    const double x_old[3] = {x[0], x[1], x[2]};
    double u[3];
    interpolate_velocity(field, x_old, u);
    double force[3] = {0.0, 0.0, 0.0};
    if (p.force[0] != nullptr) {
      for (int a = 0; a < 3; ++a) force[a] = p.force[a][k];
    }
    double f_drag[3];
    inertial_step(u, d, p.density[k], model.nu, model.gravity, force, x, v, f_drag);
    if (deposit_drag) {
      const double reaction[3] = {-f_drag[0], -f_drag[1], -f_drag[2]};
      deposit_force(deposit, trilinear_stencil(x_old, deposit.shape, deposit.origin), reaction);
    }
  }
  apply_walls(model, d, x, v);
  wrap_periodic(model, x);
  for (int a = 0; a < 3; ++a) {
    p.x[a][k] = x[a];
    p.v[a][k] = v[a];
  }
}

}  // namespace eddy
