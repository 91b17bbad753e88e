// Plain views passed by value to kernels: pointers, sizes and per-step constants. No ownership.
#pragma once

#include <cstdint>

#include "kernels/backend.hpp"
#include "kernels/block.hpp"
#include "kernels/brinkman.hpp"
#include "kernels/cell_flags.hpp"
#include "kernels/d3q19.hpp"

namespace eddy {

/// Populations of one block, structure of arrays: f[i * n_cells + cell], i in [0, 19), cell from BlockShape::index.
/// Stored shifted: the array holds f_i - w_i (see kernels/equilibrium.hpp).
template <class T>
struct PopulationView {
  T* f;
  std::int64_t n_cells;
};

/// Flags of one block, one per cell (ghost layer included), see kernels/cell_flags.hpp.
struct FlagView {
  const CellFlag* flag;
};

/// Macroscopic fields on the interior cells only: index = (x-1) + nx * ((y-1) + ny * (z-1)), lattice units.
template <class T>
struct MomentView {
  T* rho;
  T* u[3];
};

/// Per-cell force density added to the uniform body force (lattice units; block layout, ghost layer included):
/// the force deposited by two-way coupled particles (f), and the Boussinesq buoyancy of a scalar field,
///   F = buoyancy * (scalar[cell] - reference),  buoyancy = -rho0 g beta g_hat  (rho0 = 1; solver/thermal_field.hpp).
/// With `porosity` (alpha per cell, >= 0), the Brinkman drag of kernels/brinkman.hpp on top (cell_force).
/// Each part is absent when its pointer is null; all null: no per-cell force.
template <class R>
struct ForceFieldView {
  const R* f[3] = {nullptr, nullptr, nullptr};
  const R* scalar = nullptr;
  R buoyancy[3] = {R(0), R(0), R(0)};
  R reference = R(0);
  const R* porosity = nullptr;
  EDDY_HOST_DEVICE bool present() const { return f[0] != nullptr || scalar != nullptr || porosity != nullptr; }
  /// The total force density of `cell` whose populations are g (shifted, times `scale`): uniform `force` plus the
  /// cell's share, then the Brinkman drag of its porosity (kernels/brinkman.hpp). The fused kernel, the read-outs
  /// and the adjoint all take a cell's force from here.
  EDDY_HOST_DEVICE void cell_force(std::int64_t cell, const R (&g)[d3q19::Q], R scale, R (&force)[3]) const {
    add_to(cell, force);
    if (porosity != nullptr) {
      const R inv_scale = R(1) / scale;
      const R j[3] = {d3q19::c_moment(0, g) * inv_scale, d3q19::c_moment(1, g) * inv_scale,
                      d3q19::c_moment(2, g) * inv_scale};
      brinkman_force(porosity[cell], j, force);
    }
  }
  /// Uniform `force` plus this cell's share.
  EDDY_HOST_DEVICE void add_to(std::int64_t cell, R (&force)[3]) const {
    if (f[0] != nullptr) {
      for (int d = 0; d < 3; ++d) force[d] += f[d][cell];
    }
    if (scalar != nullptr) {
      const R excess = scalar[cell] - reference;
      for (int d = 0; d < 3; ++d) force[d] += buoyancy[d] * excess;
    }
  }
};

/// A cell velocity field u[d][cell] (block layout, ghost layer included; lattice units): where the fused kernel also
/// writes each fluid cell's velocity u = (sum_i f_i c_i + F/2) / rho of the time it collides, for the scalar
/// transport (all null: not written), and where compute_velocity_field writes its read-out.
template <class R>
struct VelocityOutView {
  R* u[3] = {nullptr, nullptr, nullptr};
  EDDY_HOST_DEVICE bool present() const { return u[0] != nullptr; }
  /// u[d][cell] = v[d] (an output adapter of the moment read-out, kernels/cell_moments.hpp).
  template <class Index>
  EDDY_HOST_DEVICE void store(Index cell, const R (&v)[3]) const {
    for (int d = 0; d < 3; ++d) u[d][cell] = v[d];
  }
};

/// The fused kernel's stability watch: a device word that every updated fluid cell whose velocity (the moments it
/// collides, lattice units) has |u|^2 > max_speed_squared, or a NaN or infinite moment, lowers to the step's index
/// (RoundingKey::step) with an atomic minimum. It holds kNoInstability until a cell does. With `freeze`, every later
/// step (index above the word) leaves the populations as they are: the state stays that after the first unstable
/// step, finite wherever it was finite then, however long the host takes to look (solver/lattice_simulation.cpp). A
/// null word watches nothing.
template <class R>
struct StabilityView {
  static constexpr std::uint32_t kNoInstability = 0xffffffffu;
  std::uint32_t* first_step = nullptr;
  R max_speed_squared = R(0);
  bool freeze = false;
  /// True when a step before `step` found an unstable cell and the watch freezes the state.
  EDDY_HOST_DEVICE bool frozen(std::uint32_t step) const {
    return freeze && first_step != nullptr && *first_step < step;
  }
  /// Records `step` when u is outside the stable range (the comparison is false for NaN, so a NaN records too).
  EDDY_HOST_DEVICE void watch(std::uint32_t step, const R (&u)[3]) const {
    if (first_step == nullptr) return;
    if (!(u[0] * u[0] + u[1] * u[1] + u[2] * u[2] <= max_speed_squared)) atomic_min(first_step, step);
  }
};

/// Where the fused kernel writes the density rho and velocity u = (sum_i c_i f_i + F/2) / rho (lattice units) it
/// collides, for the fluid cells of two planes next to one pressure outlet of the block: the face cells (coordinate
/// `face_plane` along `axis`, block-local) and the next cells inwards (`next_plane`). The outlet's rule needs exactly
/// these moments after the step (kernels/open_boundaries.hpp), which otherwise cost 2 x 19 scattered population reads
/// per face cell; they equal those of the post-collision populations, u = (sum_i c_i f*_i - F/2) / rho, because the
/// collision conserves mass and adds F to the momentum (kernels/collision.hpp).
/// Record r holds rho, u_x, u_y, u_z at [4 r + k]: r = (p_c - 1) n_b + (p_b - 1), plus n_b n_c on the next plane,
/// where b < c are the two axes across the face and n_b, n_c the block's extents along them. Null: nothing written.
template <class R>
struct OutletMomentsView {
  R* moments = nullptr;
  int axis = 0;
  int face_plane = 0, next_plane = 0;
  int n_b = 0, n_c = 0;

  EDDY_HOST_DEVICE bool present() const { return moments != nullptr; }
  /// The record of block cell (x, y, z), or -1 off the two planes.
  EDDY_HOST_DEVICE std::int64_t record(int x, int y, int z) const {
    const int along = axis == 0 ? x : axis == 1 ? y : z;
    if (along != face_plane && along != next_plane) return -1;
    const int b = axis == 0 ? y : x, c = axis == 2 ? y : z;
    const std::int64_t plane = std::int64_t(n_b) * n_c;
    return std::int64_t(c - 1) * n_b + (b - 1) + (along == face_plane ? 0 : plane);
  }
  /// Writes the moments of cell (x, y, z) when it lies on the planes.
  EDDY_HOST_DEVICE void store(int x, int y, int z, R rho, const R (&u)[3]) const {
    if (moments == nullptr) return;
    const std::int64_t r = record(x, y, z);
    if (r < 0) return;
    moments[4 * r] = rho;
    for (int d = 0; d < 3; ++d) moments[4 * r + 1 + d] = u[d];
  }
};

/// Running sums of turbulence statistics (solver/flow_statistics.hpp) that the fused kernel adds to, in double, for
/// every fluid cell it updates: sums[k * n_cells + cell] (block layout, ghost layer included) with k = 0: rho,
/// 1..3: u_x, u_y, u_z and, with `second_moments`, 4..9: u_x u_x, u_y u_y, u_z u_z, u_x u_y, u_x u_z, u_y u_z, of
/// the moments the kernel collides (lattice units; u with the F/2 shift). One read-modify-write of 4 or 10 doubles
/// per cell (32 or 80 B each way). Null: nothing accumulated.
struct StatisticsView {
  double* sums = nullptr;
  std::int64_t n_cells = 0;
  bool second_moments = false;
  static constexpr int kFirstMoments = 4;    ///< rho, u_x, u_y, u_z
  static constexpr int kAllMoments = 10;     ///< and the six products u_a u_b
  EDDY_HOST_DEVICE bool present() const { return sums != nullptr; }
  /// The index k of the sum of u_a u_b (a, b in 0..2, either order).
  EDDY_HOST_DEVICE static constexpr int product(int a, int b) { return a == b ? 4 + a : 7 + a + b - 1; }
  /// Adds rho, u (and u_a u_b) of `cell` to the sums.
  template <class R, class Index>
  EDDY_HOST_DEVICE void add(Index cell, R rho, const R (&u)[3]) const {
    double* s = sums + std::int64_t(cell);
    const double v[3] = {double(u[0]), double(u[1]), double(u[2])};
    s[0] += double(rho);
    for (int d = 0; d < 3; ++d) s[(1 + d) * n_cells] += v[d];
    if (!second_moments) return;
    s[4 * n_cells] += v[0] * v[0];
    s[5 * n_cells] += v[1] * v[1];
    s[6 * n_cells] += v[2] * v[2];
    s[7 * n_cells] += v[0] * v[1];
    s[8 * n_cells] += v[0] * v[2];
    s[9 * n_cells] += v[1] * v[2];
  }
};

/// Velocity of each of the 6 faces' moving walls (lattice units), indexed by face (see cell_flags.hpp).
template <class R>
struct WallVelocities {
  R u[6][3];
};

}  // namespace eddy
