// Launchers of the adjoint step (kernels/adjoint_step.cpp): the transpose of one stream-collide step of the fused
// kernel, for the reverse sweep of solver/adjoint.hpp.
//
// Arrays:
//   state:     a forward state as the fused kernel stores it (PopulationView of storage type T, kernels/storage.hpp:
//              f_i - w_i, scaled for fp16; in `layout`, kernels/streaming.hpp), ghost cells filled as the step that
//              follows would read them (Simulation::population_storage);
//   lambda:    adjoints of the 19 post-collision populations s_i at every cell, dL/ds_i, block fields of
//              kernels/block.hpp's index (ghost layer and row padding included), [i * n_cells + cell], arithmetic
//              type R = compute_t<T>, 0 on solid cells;
//   force_bar: dL/dF, 3 block fields, added to;
//   moments, moments_bar: 4 interior fields [c * n + k] (rho, ux, uy, uz; k as in MacroscopicFields, x fastest).
// The transposed streaming writes into the ghost cells next to faces that exchange (ranks, periodic axes); the
// caller sends them to their owners afterwards (FieldHalo::add_ghosts_to_owners per component), which add them into
// slots this pass set to 0. Only walls (resting and moving, halfway bounce-back) and periodic or rank faces: the
// callers refuse the other boundary kinds before they get here.
#pragma once

#include "kernels/backend.hpp"
#include "kernels/block.hpp"
#include "kernels/collision.hpp"
#include "kernels/cut_links.hpp"
#include "kernels/launchers.hpp"
#include "kernels/storage.hpp"
#include "kernels/views.hpp"

namespace eddy {

/// A block field of `components` back to back (the header's layout).
template <class R>
struct BlockFields {
  R* at = nullptr;
  std::int64_t n_cells = 0;
  EDDY_HOST_DEVICE R& operator()(int component, std::int64_t cell) const { return at[component * n_cells + cell]; }
};

/// Sets `components` block fields of `shape` (ghost layer included) to 0.
template <class R>
void zero_fields(const BlockFields<R>& fields, int components, const BlockShape& shape, const backend::Stream* stream);

/// The sums of one block field over each x-row of the interior of `shape`, in double: rows[(z - 1) * ny + (y - 1)]
/// (the caller adds the rows in a fixed order; dL/dtau from the rates' adjoints).
template <class R>
void row_sums(const R* field, const BlockShape& shape, double* rows, const backend::Stream* stream);

/// Adds `components` block fields `from` to `to` at the interior cells of `shape` (the window's seeds to lambda).
template <class R>
void add_fields(const BlockFields<R>& to, const BlockFields<const R>& from, int components, const BlockShape& shape,
                const backend::Stream* stream);

/// One step back: lambda = dL/ds^n from lambda_next = dL/ds^{n+1} about the forward state s^n in `state`, with
/// (dC/dF)^T lambda_next added to force_bar and (dC/domega+, dC/domega-)^T lambda_next to the 2 block fields of
/// omega_bar, at every interior fluid cell (kernels/adjoint_step.cpp's formula). F(x) is relax.force plus
/// force_field at x, with its Brinkman drag where force_field.porosity is set: then dL/dalpha is added to
/// porosity_bar (1 block field; unused otherwise). Offsets are 32-bit where 19 * n_cells fits, 64-bit otherwise or
/// with `wide_index` (tests compare both), as in the fused kernel.
template <class T>
void adjoint_step(const PopulationView<T>& state, PopulationLayout layout,
                  const BlockFields<const compute_t<T>>& lambda_next, const BlockFields<compute_t<T>>& lambda,
                  const BlockFields<compute_t<T>>& force_bar, const BlockFields<compute_t<T>>& omega_bar,
                  const BlockFields<compute_t<T>>& porosity_bar, const FlagView& flags, const BlockShape& shape,
                  const Relaxation<compute_t<T>>& relax, const WallVelocities<compute_t<T>>& walls,
                  const ForceFieldView<compute_t<T>>& force_field, const backend::Stream* stream,
                  bool wide_index = false);

/// The seed of a force objective L = F.d on solid `solid` (kernels/adjoint_step.cpp): lambda_i(x_f) += 2 c_i.d at
/// each of the solid's cut links (x_f, i) among `links` (device memory, n_links of them; half-way links only).
template <class R>
void adjoint_force_seed(const CutLink* links, std::int64_t n_links, int solid, const R (&direction)[3],
                        const BlockFields<R>& lambda, const backend::Stream* stream);

/// After the sweep, lambda = dL/ds^0: dL/drho0 and dL/du0 of a starting state s^0 = f_eq(rho0, u0) (the derivative
/// through the equilibrium, at the raw moments of s^0 in `state`: kernels/adjoint_step.cpp's formula) into the 4
/// block fields of `out` (rho, ux, uy, uz) at every interior cell, 0 on solid ones.
template <class T>
void initial_equilibrium_adjoint(const PopulationView<T>& state, PopulationLayout layout,
                                 const BlockFields<const compute_t<T>>& lambda, const BlockFields<compute_t<T>>& out,
                                 const FlagView& flags, const BlockShape& shape,
                                 const WallVelocities<compute_t<T>>& walls, const backend::Stream* stream);

/// An objective of solver/adjoint.hpp on the device: kind (0 velocity mismatch, 1 kinetic energy, 2 pressure drop),
/// the cells counted (block coordinates, [lo, hi) per axis, within the interior; kind 2: the upstream region, and
/// [down_lo, down_hi) the downstream one, with the weights c_s^2 / N of the two means) and the target velocity u_t
/// (3 interior fields, kind 0 only).
template <class R>
struct ObjectiveView {
  int kind = 1;
  int lo[3] = {1, 1, 1}, hi[3] = {1, 1, 1};
  int down_lo[3] = {1, 1, 1}, down_hi[3] = {1, 1, 1};
  R up_weight = R(0), down_weight = R(0);
  const R* target = nullptr;

  EDDY_HOST_DEVICE bool upstream(int x, int y, int z) const {
    return x >= lo[0] && x < hi[0] && y >= lo[1] && y < hi[1] && z >= lo[2] && z < hi[2];
  }
  EDDY_HOST_DEVICE bool downstream(int x, int y, int z) const {
    return kind == 2 && x >= down_lo[0] && x < down_hi[0] && y >= down_lo[1] && y < down_hi[1] && z >= down_lo[2] &&
           z < down_hi[2];
  }
};

/// From the arrived moments (4 interior fields), the objective's derivative moments_bar = (dL/drho, dL/du) at every
/// interior cell (0 outside the counted cells and on solid cells, whose rho is 0) and the sum of L over each x-row
/// of interior cells into row_sums[(z - 1) * ny + (y - 1)] (double; the caller adds the rows: a fixed order, so
/// the same bits on every run). kernels/adjoint_collision.hpp's cell_objective.
template <class R>
void adjoint_objective(const R* moments, const ObjectiveView<R>& objective, R* moments_bar, double* row_sums,
                       const BlockShape& shape, const backend::Stream* stream);

/// The seed of the sweep: lambda = S^T dL/df for an objective of the arrived moments, from moments_bar = (dL/drho,
/// dL/du) and the moments at every interior fluid cell (kernels/adjoint_collision.hpp's moments_adjoint); the F/2
/// shift's part of dL/dF added to force_bar; with `porosity` (alpha per block cell, else null) through the Brinkman
/// drag, dL/dalpha added to porosity_bar.
template <class R>
void adjoint_seed(const R* moments, const R* moments_bar, const BlockFields<R>& lambda, const BlockFields<R>& force_bar,
                  const BlockFields<R>& porosity_bar, const R* porosity, const FlagView& flags, const BlockShape& shape,
                  const backend::Stream* stream);

}  // namespace eddy
