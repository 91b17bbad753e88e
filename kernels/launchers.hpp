// Host-callable launchers of the device kernels. Implemented in kernels/*.cpp, compiled by the backend's device
// compiler, explicitly instantiated for the storage types T = float, double and half_t (kernels/storage.hpp);
// arithmetic, relaxation rates, wall velocities and output fields use R = compute_t<T>.
// Launches are asynchronous on GPUs; call backend::synchronize() before reading results on the host.
#pragma once

#include "kernels/block.hpp"
#include "kernels/collision.hpp"
#include "kernels/rounding_bits.hpp"
#include "kernels/sponge_layers.hpp"
#include "kernels/storage.hpp"
#include "kernels/views.hpp"

namespace eddy {

/// What the single population array holds between steps (kernels/streaming.hpp, AA pattern):
///   own     - A[i][x] = f_i(x), the populations that have arrived at x (initially, and after an odd step);
///   swapped - A[opp(i)][x] = f*_i(x), x's post-collision populations before streaming (after an even step).
enum class PopulationLayout : int { own = 0, swapped = 1 };

/// The other layout: the one a step leaves.
inline PopulationLayout after_step(PopulationLayout layout) {
  return layout == PopulationLayout::own ? PopulationLayout::swapped : PopulationLayout::own;
}

/// One fused stream-collide step, in place, over the fluid cells of `box` (block-local coordinates, any sub-box of
/// the interior; solid cells are skipped). `a` holds `layout` for the whole block when called and the other
/// layout, for the cells of `box`, afterwards. From "own" (an even step) only the cells of `box` are touched; from
/// "swapped" (an odd step) the cells of `box` and their neighbours, ghost layer included, which the halo exchange
/// must have filled. Sub-boxes may be updated in any order or concurrently. `key` seeds fp16's stochastic rounding.
/// Population offsets are 32-bit when 19 * n_cells fits, 64-bit otherwise or with `wide_index` (tests compare both).
/// `force_field` (when present) adds each cell's force density to the uniform body force of `relax`;
/// `velocity_out` (when present) receives each updated fluid cell's velocity (with the F/2 shift) of the time the
/// step collides, i.e. the fields before the step (+3 * sizeof(R) written per cell).
/// `stability` (when its word is set) records the first step at which an updated cell's |u| leaves the stable range
/// and, with its `freeze`, leaves the populations alone in every later step (StabilityView, kernels/views.hpp).
/// `outlet` (when present) receives rho and u of the fluid cells of `box` on its two planes next to a pressure
/// outlet (OutletMomentsView, kernels/views.hpp), for the open-face pass after the step.
/// `les` (when on) replaces the rates of `relax` by each cell's Smagorinsky rates (kernels/smagorinsky.hpp): no
/// memory traffic. `sponge` (when present) raises the molecular relaxation time of the cells in its layers
/// (kernels/sponge_layers.hpp) and, like `les`, takes the kernel with local rates (`les` then carries tau0 and the
/// magic parameter, its factor 0 without LES): no memory traffic. `statistics` (when present) adds each updated fluid
/// cell's rho, u (and u_a u_b) to its running sums in double (StatisticsView, kernels/views.hpp).
/// `out` (when not null): the step writes its results into that array (a's shape) instead of `a`, slot for slot,
/// and leaves `a` as it was (out of place, kernels/streaming.hpp); slots the step does not write keep out's values.
/// Traffic per fluid cell: 19 reads + 19 writes of T + 1 flag byte = 153 B (float), 305 B (double), 77 B (fp16);
/// the stability word is one 4-byte value per step that every thread reads from cache.
template <class T>
void stream_collide(const PopulationView<T>& a, PopulationLayout layout, const FlagView& flags, const BlockShape& shape,
                    const Box& box, const Relaxation<compute_t<T>>& relax, const WallVelocities<compute_t<T>>& walls,
                    const RoundingKey& key, const backend::Stream* stream = nullptr, bool wide_index = false,
                    const ForceFieldView<compute_t<T>>& force_field = {},
                    const VelocityOutView<compute_t<T>>& velocity_out = {},
                    const StabilityView<compute_t<T>>& stability = {},
                    const OutletMomentsView<compute_t<T>>& outlet = {}, const Smagorinsky<compute_t<T>>& les = {},
                    const SpongeLayers<compute_t<T>>& sponge = {}, const StatisticsView& statistics = {},
                    T* out = nullptr);

/// Macroscopic rho and u (with the Guo F/2 shift) of the populations that have arrived at each interior cell of
/// `a` (held in `layout`; "swapped" reads the neighbours and the ghost layer), i.e. the fields at the current time.
/// Computes the z-planes [z_begin, z_end) of the interior (1-based block coordinates) and writes them to `out`
/// (interior layout of MomentView, starting at plane z_begin). Solid cells get rho = 0, u = 0. `force_field` (when
/// present) adds each cell's force density to `force` in the F/2 shift.
template <class T>
void compute_moments(const PopulationView<T>& a, PopulationLayout layout, const FlagView& flags,
                     const BlockShape& shape, const compute_t<T> (&force)[3],
                     const WallVelocities<compute_t<T>>& walls, const MomentView<compute_t<T>>& out, int z_begin,
                     int z_end, const backend::Stream* stream = nullptr,
                     const ForceFieldView<compute_t<T>>& force_field = {});

/// Copies between the ghost planes of a periodic `axis` and the interior planes at the other side of the block, for
/// the 5 populations per plane that point out of the block at the ghost plane (c_i[axis] = -1 at plane 0, +1 at
/// plane n + 1):
///   into_ghosts = true  (before an odd step): ghost plane 0 <- interior plane n, n + 1 <- 1;
///   into_ghosts = false (after an odd step):  interior plane n <- ghost plane 0, 1 <- n + 1.
/// Each plane spans the whole block; call x, y, z in that order into the ghosts and z, y, x out of them, so edges and
/// corners travel without diagonal copies. Out of the ghosts, slots whose upstream cell (x - c_i) is solid are
/// left alone: the odd step bounced a population into them. Into the ghosts, the ghost nodes of open faces
/// (is_open) are left alone: they hold the open-face pass's populations (kernels/open_boundaries.hpp).
template <class T>
void copy_periodic_ghosts(const PopulationView<T>& a, const FlagView& flags, const BlockShape& shape, int axis,
                          bool into_ghosts, const backend::Stream* stream = nullptr);

/// Analytic initial fields; populations start at f_eq(rho, u) plus the first-order non-equilibrium part of the
/// field's velocity gradient, f_neq = -(w_i rho tau / c_s^2) Q_iab d_a u_b (kernels/nonequilibrium.hpp), so the
/// initial viscous stress is that of the flow (zero for the rest state: there f = f_eq). The 2D Taylor-Green
/// velocity also gets the small compressive part the weakly compressible fluid has (kernels/initialize.cpp).
struct InitialField {
  enum Kind : int { kRest = 0, kTaylorGreen2d = 1, kTaylorGreen3d = 2, kTurbulentChannel = 3 };
  int kind;
  double amplitude;     ///< velocity amplitude U0; the bulk velocity U_b of the channel (lattice units)
  double perturbation;  ///< channel: the bound of |u'|, as a fraction of U_b
  double k[3];          ///< wave numbers 2 pi / n per axis, n the domain's size (lattice units)
  int offset[3];     ///< global index of the block's first interior cell (decomposed runs)
  double tau;        ///< relaxation time 1 / omega_plus (steps), > 1/2; 0: f = f_eq of the divergence-free field
};

/// Taylor-Green initial state at node (px, py, pz) (lattice units, node centres): velocity and density.
///   2d: u = U0 sin(kx x) cos(ky y), v = -U0 (kx/ky) cos(kx x) sin(ky y), w = 0,
///       p = rho0 U0^2/4 [cos(2 kx x) + (kx/ky)^2 cos(2 ky y)]                       (Taylor & Green 1937)
///   3d: u = U0 sin x cos y cos z, v = -U0 (kx/ky) cos x sin y cos z, w = 0,
///       p = rho0 U0^2/16 [cos(2 kx x) + cos(2 ky y)] [cos(2 kz z) + 2]              (Brachet et al. 1983)
///   rho = 1 + p / c_s^2;  grad_u[a][b] = d u_b / d x_a, the analytic gradient of u (1/step; zero at rest).
///   2d with tau > 0: u also holds the potential flow grad(phi), lap(phi) = -3 (d_t p + u . grad p), of relative
///   size O(nu k U0, U0^2) (kernels/initialize.cpp, taylor_green_2d_compression), so div u != 0 there.
/// Turbulent channel (walls at y = 0 and y = H, H = 2 delta = 2 pi / k[1], flow along x; kernels/initialize.cpp,
/// turbulent_channel): u = (11/10) U_b (1 - eta^10) e_x + u', eta = y / delta - 1, a blunt mean profile of bulk
/// velocity U_b, plus a divergence-free u' = curl(psi) that vanishes at the walls, |u'| <= perturbation * U_b;
/// rho = 1.
void initial_state(const InitialField& init, double px, double py, double pz, double& rho, double (&u)[3],
                   double (&grad_u)[3][3]);

/// Sets every cell of the block (ghosts included) to f_eq + f_neq of the initial field (InitialField), in the
/// "own" layout: the pre-collision populations of t = 0, which the first (even) step collides. Node (x, y, z) of
/// the block sits at (offset + x - 0.5, ...) lattice units from the lower domain corner. Flags are not read:
/// solid cells get the same values as fluid ones, which no step reads (halfway bounce-back takes a population
/// coming from a solid cell out of the fluid cell's own slot, kernels/streaming.hpp).
template <class T>
void initialize_populations(const PopulationView<T>& f, const BlockShape& shape, const InitialField& init);

/// Copies the 19 slots of every non-solid cell of the block (ghost layer included) from `from` to `to` (arrays of
/// one shape): a state as the next step reads it. The slots of solid cells, which no step reads, are left as `to`
/// has them (kernels/population_copy.cpp). For the adjoint's kept states (solver/adjoint.cpp).
template <class T>
void copy_fluid_populations(const PopulationView<T>& to, const PopulationView<T>& from, const FlagView& flags,
                            const BlockShape& shape, const backend::Stream* stream = nullptr);

/// Copies the 19 slots of the ghost nodes of open faces (is_open flags) on the ghost planes of the faces marked in
/// `faces` (x_min, x_max, y_min, ... as in CaseConfig::faces) from `from` to `to`: before an out-of-place step
/// (stream_collide with `out`), their slots it does not write then hold what an in-place step would have left
/// (kernels/population_copy.cpp).
template <class T>
void copy_open_ghost_populations(const PopulationView<T>& to, const PopulationView<T>& from, const FlagView& flags,
                                 const BlockShape& shape, const bool (&faces)[6],
                                 const backend::Stream* stream = nullptr);

/// STREAM Copy, b[k] = a[k] for k < n (floats), with the lattice kernels' parallel_for: the reference bandwidth
/// of `eddy bench`. Asynchronous on GPUs.
void stream_copy(float* b, const float* a, std::int64_t n);

}  // namespace eddy
