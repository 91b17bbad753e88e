// Host-callable launcher of the turbulence statistics' own kernel (kernels/statistics.cpp): the running sum of a
// cell field, for the mean temperature of [statistics] (solver/flow_statistics.hpp). The fused kernel adds rho, u
// and u_a u_b itself (StatisticsView, kernels/views.hpp). Cell fields hold one value per block cell, ghost layer
// included, BlockShape::index order, device memory. Asynchronous on GPUs.
#pragma once

#include "kernels/backend.hpp"
#include "kernels/block.hpp"
#include "kernels/views.hpp"

namespace eddy {

/// sum[cell] += double(field[cell]) on every interior cell of `shape` that is not solid (the cells the fused kernel
/// updates and StatisticsView adds to); other cells of `sum` are left alone. R = float or double. Traffic per
/// interior cell: 1 flag byte + sizeof(R) read, 8 B read and written on the non-solid ones.
template <class R>
void accumulate_cell_field(const R* field, const FlagView& flags, const BlockShape& shape, double* sum,
                           const backend::Stream* stream = nullptr);

}  // namespace eddy
