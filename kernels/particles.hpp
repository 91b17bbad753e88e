// Lagrangian particles: the plain views and parameters the particle kernels take (device code only; the owner of
// the arrays is solver/particle_system.hpp).
//
// Units: lattice units throughout (dx = dt = 1, fluid density rho_f = 1). Positions are global lattice coordinates:
// the domain spans [0, n_axis) on each axis and global cell i has its centre at i + 1/2, so the same particle has
// the same coordinates on every rank. Particle state is double precision on every backend (particles are few next
// to cells, and double keeps trajectories of 1 and N ranks bitwise identical on the CPU).
#pragma once

#include <cstdint>

#include "kernels/backend.hpp"
#include "kernels/block.hpp"

namespace eddy {

/// Particles of one rank, structure of arrays, `n` entries each.
struct ParticleView {
  double* x[3];       ///< position, global lattice coordinates
  double* v[3];       ///< velocity, lattice units
  double* diameter;   ///< lattice units (cells)
  double* density;    ///< particle density / fluid density rho_f (dimensionless)
  std::int64_t* id;   ///< unique over all ranks, kept through migration
  double* force[3];   ///< particle-particle force (contacts, pair forces) of the current step, lattice units;
                      ///< written by kernels/contact_launchers.hpp, read by move_particles
  std::int64_t n;
};

/// How particles move (case section [particles], cases/README.md).
struct ParticleModel {
  enum Kind : int {
    kTracer = 0,    ///< moves with the interpolated fluid velocity (Heun's method, 2nd order)
    kInertial = 1,  ///< Stokes drag with the Schiller-Naumann correction, gravity and buoyancy (semi-implicit Euler)
  };
  enum WallMode : int {
    kBounce = 0,  ///< elastic reflection at walls
    kStick = 1,   ///< a particle touching a wall stops there for good
  };
  int kind;
  int wall_mode;
  double nu;              ///< fluid kinematic viscosity (lattice units)
  double gravity[3];      ///< gravitational acceleration g (lattice units)
  bool two_way;           ///< deposit the reaction of the drag on the fluid (ForceDepositView)
  int global_size[3];     ///< domain cells per axis
  bool periodic[3];       ///< periodic axes wrap; the others have walls at 0 and n_axis
};

/// Fluid velocity on every cell of this rank's block, ghost layer included (so a particle anywhere in the block's
/// interior, and a Heun predictor up to half a cell outside it, interpolates from cells the block holds).
/// u[a][shape.index(x, y, z)], block-local (x, y, z); block-local cell (1, 1, 1) is global cell `origin`.
/// Solid cells hold their wall's velocity (0 for resting walls).
template <class R>
struct VelocityFieldView {
  const R* u[3];
  BlockShape shape;
  int origin[3];
};

/// Two-way coupling: force density accumulated on every cell of the block (ghost layer included) in 64-bit fixed
/// point, value * 2^kFractionBits, so the sum does not depend on the order of the additions (bitwise the same on
/// any rank count and thread schedule). Index as VelocityFieldView.
struct ForceDepositView {
  /// Resolution 2^-48 = 3.6e-15, saturating at +-2^14 = 16384 (lattice force units per cell and step, far beyond
  /// any stable coupling): momentum in transit is exact to ~1e-14 of O(1) forces.
  static constexpr int kFractionBits = 48;
  static constexpr double kScale = double(1ull << kFractionBits);
  unsigned long long* fixed[3];             ///< two's complement int64 stored as unsigned (atomic add wraps alike)
  BlockShape shape;
  int origin[3];
};

}  // namespace eddy
