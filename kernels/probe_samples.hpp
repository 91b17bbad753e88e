// Probe samples: the fields of a short list of cells (the interpolation nodes of the [[output.probe]] points,
// solver/probes.hpp), so a run can sample every step without reading back whole fields.
//   rho = sum_i f_i,   rho u = sum_i f_i c_i + F / 2                       Guo, Zheng & Shi 2002, eq. 17
// through the one moment read-out of the populations that have arrived at the cell (arrived_moments,
// kernels/cell_moments.hpp: the same arithmetic as compute_moments, so a probe node holds the bits of the snapshot's
// value), and T of [thermal] as stored.
// Memory traffic per listed cell: 19 * sizeof(T) read (+ the flags of solid neighbours in the "swapped" layout), the
// flag, the cell index (8 B), T (sizeof(R)) when present, kProbeValues * sizeof(R) written.
#pragma once

#include <cstdint>

#include "kernels/backend.hpp"
#include "kernels/block.hpp"
#include "kernels/launchers.hpp"
#include "kernels/storage.hpp"
#include "kernels/views.hpp"

namespace eddy {

/// Values per sampled cell: solid (1 for a solid cell, whose other values are 0; else 0), rho, ux, uy, uz (lattice
/// units), T (0 without a temperature field).
inline constexpr int kProbeValues = 6;

/// For each of the `count` block cells `cells[j]` (BlockShape::index, interior cells), writes kProbeValues values
/// to out[j * kProbeValues + v] in the arithmetic type: the fields at the current time as compute_moments computes
/// them (the same `layout`, `force`, `walls` and `force_field`), and T from `temperature` (a cell field of `shape`;
/// nullptr: none). Device pointers; queued on `stream`.
template <class T>
void sample_probe_cells(const PopulationView<T>& a, PopulationLayout layout, const FlagView& flags,
                        const BlockShape& shape, const compute_t<T> (&force)[3],
                        const WallVelocities<compute_t<T>>& walls, const ForceFieldView<compute_t<T>>& force_field,
                        const compute_t<T>* temperature, const std::int64_t* cells, int count, compute_t<T>* out,
                        const backend::Stream* stream = nullptr);

}  // namespace eddy
