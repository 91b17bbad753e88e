// Host-callable launchers for cell fields beside the populations: the fluid velocity on every block cell (what
// particles interpolate, kernels/particles.hpp) and the plane copies of the field ghost exchange
// (solver/field_halo.hpp). Cell fields hold one value per block cell, ghost layer included, BlockShape::index order.
// Asynchronous on GPUs.
#pragma once

#include <cstdint>

#include "kernels/halo_plane.hpp"
#include "kernels/launchers.hpp"

namespace eddy {

/// Fluid velocity u = (sum_i f_i c_i + F/2) / rho (Guo et al. 2002, eq. 17) of the populations that have arrived
/// at each interior cell of `a` (held in `layout`, as compute_moments), written to u[a][cell] for the interior
/// cells; solid cells of the whole block (ghost walls included) get their wall's velocity (0 for resting walls).
/// Fluid ghost cells are left alone: the field ghost exchange fills them. `force_field` (when present) adds a
/// per-cell force density to the uniform `force`.
/// Traffic per fluid cell: 19 * sizeof(T) read + 1 flag byte + 3 * sizeof(R) written.
template <class T>
void compute_velocity_field(const PopulationView<T>& a, PopulationLayout layout, const FlagView& flags,
                            const BlockShape& shape, const compute_t<T> (&force)[3],
                            const ForceFieldView<compute_t<T>>& force_field, const WallVelocities<compute_t<T>>& walls,
                            compute_t<T>* const (&u)[3], const backend::Stream* stream = nullptr);

/// Copies plane `plane` (block-local coordinate along `axis`, 0..n+1) of `field` into `buffer`
/// (plane_cells values at their plane_slot, kernels/halo_plane.hpp: the lower of the other two axes fastest).
/// V = float, double, unsigned long long.
template <class V>
void pack_field_plane(const V* field, const BlockShape& shape, int axis, int plane, V* buffer,
                      const backend::Stream* stream = nullptr);

/// Writes `buffer` (as pack_field_plane) into plane `plane` of `field`, or adds it when `add` (unsigned values wrap,
/// so the two's complement fixed point of ForceDepositView adds exactly).
template <class V>
void unpack_field_plane(V* field, const BlockShape& shape, int axis, int plane, const V* buffer, bool add,
                        const backend::Stream* stream = nullptr);

/// Copies plane `plane` (0..n+1 along `axis`) of the three cell fields u into `buffer` for an outer layer
/// (kernels/stencil_launchers.hpp, OuterLayerView): component c at c * plane_cells + plane_slot, NaN where the cell
/// is not fluid (flags). A ghost plane is valid once the field ghost exchange has filled it: a block one cell thick
/// passes on its neighbour's plane. R = float, double. Traffic per plane cell: 3 R read + 1 flag byte + 3 R written.
template <class R>
void pack_outer_plane(const R* const (&u)[3], const FlagView& flags, const BlockShape& shape, int axis, int plane,
                      R* buffer, const backend::Stream* stream = nullptr);

/// Sets plane `plane` of `field` to zero.
template <class V>
void clear_field_plane(V* field, const BlockShape& shape, int axis, int plane, const backend::Stream* stream = nullptr);

}  // namespace eddy
