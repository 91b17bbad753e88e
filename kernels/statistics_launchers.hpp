// Host-callable launchers of the turbulence statistics' own kernels (kernels/statistics.cpp): the running sum of a
// cell field, for the mean temperature of [statistics] (solver/flow_statistics.hpp), and the read-out of an average.
// The fused kernel adds rho, u and u_a u_b itself (StatisticsView, kernels/views.hpp). Cell fields hold one value per
// block cell, ghost layer included, BlockShape::index order, device memory. Asynchronous on GPUs.
#pragma once

#include "kernels/backend.hpp"
#include "kernels/block.hpp"
#include "kernels/statistics_values.hpp"
#include "kernels/views.hpp"

namespace eddy {

/// sum[cell] += double(field[cell]) on every interior cell of `shape` that is not solid (the cells the fused kernel
/// updates and StatisticsView adds to); other cells of `sum` are left alone. R = float or double. Traffic per
/// interior cell: 1 flag byte + sizeof(R) read, 8 B read and written on the non-solid ones.
template <class R>
void accumulate_cell_field(const R* field, const FlagView& flags, const BlockShape& shape, double* sum,
                           const backend::Stream* stream = nullptr);

/// The averages of quantity `quantity` (kernels/statistics_values.hpp) of every interior cell of `shape` from the
/// running sums `sums` (components x shape.n_cells() doubles, block layout: StatisticsView's, then T's sum at
/// `temperature_component`) over `samples` samples, into `out`: statistics_components(quantity) blocks of
/// interior_cells() doubles, x fastest (MacroscopicFields order); 0 in solid cells, NaN everywhere while `samples`
/// is 0. Device memory; asynchronous on GPUs. The caller checks that the sums hold the quantity.
void statistics_readout(const double* sums, const FlagView& flags, const BlockShape& shape,
                        StatisticsQuantity quantity, std::int64_t samples, int temperature_component,
                        const StatisticsUnits& units, double* out, const backend::Stream* stream = nullptr);

}  // namespace eddy
