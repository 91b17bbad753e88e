// Host-callable launchers of the scalar transport (kernels/scalar_transport.hpp: scheme, boundary fluxes,
// stability limit and sources). Fields are cell fields: one value per block cell, ghost layer included,
// BlockShape::index order, device memory. Explicitly instantiated for R = float and double. Asynchronous on GPUs.
#pragma once

#include "kernels/scalar_transport.hpp"

namespace eddy {

/// One explicit step of dT/dt + u . grad T = kappa lap T over the fluid cells of `box` (interior cells of the block;
/// shape.interior() for all of them): t_next = t + dt * rate.
/// `t` and `u` must hold valid values on every fluid cell of `box` and its face neighbours (filled by the field
/// ghost exchange, solver/field_halo.hpp); walls come from `walls`. `t_next` is written on the cells of `box` only
/// (solid cells get T unchanged, so both buffers agree there) and must not overlap `t`. Each column is walked along z
/// (ScalarColumnStep). Traffic per fluid cell: 1 R read (neighbours from cache or carried along the column) + 3 R read
/// + 1 flag byte + 1 R written = 17 B (float), 33 B (double).
template <class R>
void advance_scalar(const R* t, R* t_next, const R* const (&u)[3], const FlagView& flags, const BlockShape& shape,
                    const Box& box, const ScalarWalls<R>& walls, R kappa, R dt,
                    const backend::Stream* stream = nullptr);

}  // namespace eddy
