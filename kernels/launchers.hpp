// Host-callable launchers of the device kernels. Implemented in kernels/*.cpp, compiled by the backend's device
// compiler, explicitly instantiated for the storage types T = float, double and half_t (kernels/storage.hpp);
// arithmetic, relaxation rates, wall velocities and output fields use R = compute_t<T>.
// Launches are asynchronous on GPUs; call backend::synchronize() before reading results on the host.
#pragma once

#include "kernels/block.hpp"
#include "kernels/collision.hpp"
#include "kernels/storage.hpp"
#include "kernels/views.hpp"

namespace eddy {

/// Fused pull stream-collide over `box` (block-local coordinates, any sub-box of the interior): reads the
/// post-collision populations of step t from `src`, streams with bounce-back, collides, writes step t+1 to `dst`.
/// Solid cells in `box` are skipped. `src` and `dst` must not alias.
/// Traffic per fluid cell: 19 reads + 19 writes of T + 1 flag byte = 153 B (float), 305 B (double), 77 B (fp16).
template <class T>
void stream_collide(const PopulationView<T>& src, const PopulationView<T>& dst, const FlagView& flags,
                    const BlockShape& shape, const Box& box, const Relaxation<compute_t<T>>& relax,
                    const WallVelocities<compute_t<T>>& walls, const backend::Stream* stream = nullptr);

/// Macroscopic rho and u (with the Guo F/2 shift) of the populations that stream into each interior cell of
/// `src`, i.e. the fields at the current time (`stream_in` = true), or of each cell's own populations (false: the
/// initial state before the first step). Solid cells get rho = 0, u = 0. Writes the interior layout of MomentView.
template <class T>
void compute_moments(const PopulationView<T>& src, const FlagView& flags, const BlockShape& shape,
                     const compute_t<T> (&force)[3], const WallVelocities<compute_t<T>>& walls,
                     const MomentView<compute_t<T>>& out, bool stream_in = true, const backend::Stream* stream = nullptr);

/// Copies the interior plane at the opposite side into both ghost planes of `axis` (periodic wrap): the 5
/// populations per face that stream inwards. Call for x, then y, then z, so edges and corners are filled without
/// diagonal copies.
template <class T>
void fill_periodic_ghosts(const PopulationView<T>& f, const BlockShape& shape, int axis,
                          const backend::Stream* stream = nullptr);

/// Analytic initial fields; populations start at f_eq(rho, u).
struct InitialField {
  enum Kind : int { kRest = 0, kTaylorGreen2d = 1, kTaylorGreen3d = 2 };
  int kind;
  double amplitude;  ///< velocity amplitude U0 (lattice units)
  double k[3];       ///< wave numbers 2 pi / n per axis (lattice units)
  int offset[3];     ///< global index of the block's first interior cell (decomposed runs)
};

/// Taylor-Green initial state at node (px, py, pz) (lattice units, node centres): velocity and density.
///   2d: u = U0 sin(kx x) cos(ky y), v = -U0 (kx/ky) cos(kx x) sin(ky y), w = 0,
///       p = rho0 U0^2/4 [cos(2 kx x) + (kx/ky)^2 cos(2 ky y)]                       (Taylor & Green 1937)
///   3d: u = U0 sin x cos y cos z, v = -U0 (kx/ky) cos x sin y cos z, w = 0,
///       p = rho0 U0^2/16 [cos(2 kx x) + cos(2 ky y)] [cos(2 kz z) + 2]              (Brachet et al. 1983)
///   rho = 1 + p / c_s^2.
void initial_state(const InitialField& init, double px, double py, double pz, double& rho, double (&u)[3]);

/// Sets every cell of the block (ghosts included) to f_eq of the initial field; node (x, y, z) of the block
/// sits at (offset + x - 0.5, ...) lattice units from the lower domain corner.
template <class T>
void initialize_equilibrium(const PopulationView<T>& f, const BlockShape& shape, const InitialField& init);

}  // namespace eddy
