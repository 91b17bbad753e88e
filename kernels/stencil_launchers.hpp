// Host-callable launchers of the stencil kernels (kernels/stencils.hpp, kernels/stencils.cpp) on the interior cells
// of a block: vorticity, Q-criterion, strain-rate magnitude, divergence, gradient and Laplacian of cell fields.
//
// Formulas (lattice units, dx = 1; G_ij = d u_i / d x_j by second-order central differences, one-sided second-order
// differences next to solid cells, see kernels/stencils.hpp for the stencils, fallbacks and sources):
//   vorticity   omega = curl u = (G_zy - G_yz, G_xz - G_zx, G_yx - G_xy)
//   Q           Q = (Omega_ij Omega_ij - S_ij S_ij) / 2, S = (G + G^T) / 2, Omega = (G - G^T) / 2
//               (Hunt, Wray & Moin 1988, CTR Report CTR-S88, eq. 2.2)
//   |S|         sqrt(2 S_ij S_ij) (Pope 2000, Turbulent Flows, eq. 13.74)
//   divergence  G_ii
//   gradient    d f / d x_j of a scalar f
//   Laplacian   sum_j d^2 f / d x_j^2 of a scalar f (central f(x+1) - 2 f(x) + f(x-1); one-sided
//               2 f(x) - 5 f(x+s) + 4 f(x+2s) - f(x+3s) next to solid cells, also second order)
//
// Fields: one value per block cell, ghost layer included, BlockShape::index order (as kernels/field_launchers.hpp),
// device memory. Inputs must be valid on every non-solid cell of the whole block: the ghost layer filled by the field
// ghost exchange (solver/field_halo.hpp). Outputs are written on the interior cells only (ghost cells untouched);
// solid interior cells get 0. Inputs and outputs must not overlap.
// Flags as solver/lattice_setup.cpp builds them: a fluid cell flagged kFluid has no solid neighbour (it takes central
// differences without reading its neighbours' flags); fluid cells next to solid cells must be kFluidNearSolid.
//
// Variants: plain reads each neighbour from the field (global memory, caches); tiled stages blocks of
// 32 x 4 x 2 cells plus a one-cell halo (all input components) in shared memory once per block and reads the
// neighbours from there (kernels/stencil_tiles.hpp, parallel_for_tiled). Both run the same per-cell code on the same
// values: results agree bit for bit on cpu (tested); on GPUs the compiler may contract multiply-adds differently in the
// two kernels (agreement to round-off is expected there).
//
// Memory traffic per interior cell (compulsory: each input value read once, 1 flag byte, outputs written once; the
// tiled variant also reads its halo, 816 staged cells per 256 computed = 3.2 loads per input value, mostly from L2;
// cells next to walls read up to 3 more cells along each axis, and their neighbours' flags):
//   vorticity                  3 R read + 1 + 3 R written = 25 B (float), 49 B (double)
//   q_criterion, strain_rate_magnitude, divergence
//                              3 R read + 1 + 1 R written = 17 B (float), 33 B (double)
//   gradient                   1 R read + 1 + 3 R written = 17 B (float), 33 B (double)
//   laplacian                  1 R read + 1 + 1 R written =  9 B (float), 17 B (double)
//
// Explicitly instantiated for R = float and double. Asynchronous on GPUs (call backend::synchronize() or the
// stream's synchronize() before reading results on the host); kernel launch failures throw DeviceError.
#pragma once

#include "kernels/backend.hpp"
#include "kernels/block.hpp"
#include "kernels/views.hpp"

namespace eddy {

/// Which kernel a stencil launcher runs: the same results (see above), different memory access.
enum class StencilVariant : int { plain = 0, tiled = 1 };

/// The second layer of cells beyond a block's faces, for the velocity stencils (vorticity, Q, |S|). A cell of the
/// block's edge plane (1 or n along an axis) whose inner neighbour is solid takes the one-sided difference
/// s (-3 f0 + 4 f1 - f2) / 2 outwards (kernels/stencils.hpp): f1 is a ghost cell and f2 lies beyond the ghost layer.
/// Without this layer the stencil falls back to first order there, so a rank boundary (or a periodic face) next to
/// a body changed the values; with it, every rank count gives the values of one block (solver/outer_layer.hpp).
/// face[2 axis + side] (side 0: the cells at coordinate -1 along `axis`, side 1: at n + 2): C components of
/// plane_cells(shape, axis) values each, component after component, at their plane_slot (kernels/halo_plane.hpp);
/// NaN where the cell is not fluid. A null face (a wall there, or nothing filled) makes those cells not open, as
/// cells beyond the block are without it. Device memory; lattice units like the field.
template <class R>
struct OuterLayerView {
  const R* face[6] = {nullptr, nullptr, nullptr, nullptr, nullptr, nullptr};
};

/// Vorticity omega = curl u on the interior cells. u[a], omega[a]: cell fields (a = x, y, z); `outer`: the second
/// layer of u beyond the block (OuterLayerView; none by default). The same `outer` for q_criterion and
/// strain_rate_magnitude.
template <class R>
void vorticity(const R* const (&u)[3], const FlagView& flags, const BlockShape& shape, R* const (&omega)[3],
               StencilVariant variant, const backend::Stream* stream = nullptr, const OuterLayerView<R>& outer = {});

/// Q-criterion (Hunt, Wray & Moin 1988) of u on the interior cells, into the cell field q (lattice units: 1/step^2).
template <class R>
void q_criterion(const R* const (&u)[3], const FlagView& flags, const BlockShape& shape, R* q, StencilVariant variant,
                 const backend::Stream* stream = nullptr, const OuterLayerView<R>& outer = {});

/// Strain-rate magnitude |S| = sqrt(2 S_ij S_ij) of u on the interior cells, into the cell field s (1/step).
template <class R>
void strain_rate_magnitude(const R* const (&u)[3], const FlagView& flags, const BlockShape& shape, R* s,
                           StencilVariant variant, const backend::Stream* stream = nullptr,
                           const OuterLayerView<R>& outer = {});

/// Divergence d u_i / d x_i of u on the interior cells, into the cell field div (1/step).
template <class R>
void divergence(const R* const (&u)[3], const FlagView& flags, const BlockShape& shape, R* div, StencilVariant variant,
                const backend::Stream* stream = nullptr);

/// Gradient of the scalar cell field f on the interior cells, into the cell fields g[j] = d f / d x_j.
template <class R>
void gradient(const R* f, const FlagView& flags, const BlockShape& shape, R* const (&g)[3], StencilVariant variant,
              const backend::Stream* stream = nullptr);

/// Laplacian of the scalar cell field f on the interior cells, into the cell field lap.
template <class R>
void laplacian(const R* f, const FlagView& flags, const BlockShape& shape, R* lap, StencilVariant variant,
               const backend::Stream* stream = nullptr);

}  // namespace eddy
